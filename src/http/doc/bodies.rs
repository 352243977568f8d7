//! What `/doc` says of write bodies beyond each argument's kind: the several forms
//! the free-form fields take (an image by ID or URL, a venue by ID or inline, terms
//! by ID, slug or name…), and an example body per write that the server accepts, so
//! that Swagger UI's "Try it out" and generated clients start from a valid request.

use serde_json::{Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};

use crate::api::table::Op;
use crate::domain::post::PostType;

fn of(t: Type) -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(t))
            .build(),
    )
}

fn id() -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Integer))
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(Some(0))
            .build(),
    )
}

fn no() -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Boolean))
            .enum_values(Some([false]))
            .build(),
    )
}

fn any_of(items: impl IntoIterator<Item = Schema>) -> Schema {
    let mut b = AnyOfBuilder::new();
    for i in items {
        b = b.item(i);
    }
    Schema::AnyOf(b.build())
}

fn array_of(item: Schema) -> Schema {
    Schema::Array(
        ArrayBuilder::new()
            .items(RefOr::T(item))
            .max_items(Some(100))
            .build(),
    )
}

/// The forms a free-form write field takes, by its name; `None` for the others.
pub fn field_schema(name: &str) -> Option<Schema> {
    let object = || of(Type::Object);
    Some(match name {
        // An attachment ID or an image URL; `false` or null removes it.
        "image" => any_of([id(), of(Type::String), no(), of(Type::Null)]),
        // A price, a range ("10-20"), or several.
        "cost" => any_of([
            of(Type::String),
            of(Type::Number),
            array_of(any_of([of(Type::String), of(Type::Number)])),
            no(),
        ]),
        "website" => any_of([of(Type::String), of(Type::Null)]),
        // Offers: `{name, url, price, currency}`, one or a list; `""` removes them.
        "tickets" => {
            let ticket = RefOr::Ref(utoipa::openapi::Ref::from_schema_name("Ticket"));
            any_of([
                Schema::Array(ArrayBuilder::new().items(ticket.clone()).build()),
                Schema::Object(
                    ObjectBuilder::new()
                        .schema_type(SchemaType::Type(Type::Object))
                        .build(),
                ),
                of(Type::String),
            ])
        }
        // By ID, slug or name, or `{"name": …}` to create one; a list or comma-separated.
        "categories" | "tags" => any_of([
            array_of(any_of([id(), of(Type::String), object()])),
            id(),
            of(Type::String),
            no(),
            of(Type::Null),
        ]),
        // By ID, or the fields of a new one (as its own create takes them); several
        // organizers as a list.
        "venue" | "organizer" => any_of([
            id(),
            of(Type::String),
            object(),
            array_of(any_of([id(), of(Type::String), object()])),
            no(),
            of(Type::Null),
        ]),
        _ => return None,
    })
}

/// A body the server accepts for this write.
pub fn example(op: Op) -> Option<Value> {
    Some(match op {
        Op::EventCreate => json!({
            "title": "Winter Jazz Night",
            "start_date": "2027-12-04 20:00:00",
            "end_date": "2027-12-04 23:00:00",
            "description": "<p>Three quartets, one night.</p>",
            "cost": "15",
            "categories": [{"name": "Concerts"}],
            "venue": {"venue": "Riverside Hall", "city": "Springfield"}
        }),
        Op::EventUpdate(_) => json!({"title": "Winter Jazz Night (moved)"}),
        Op::LinkedCreate(PostType::Venue) => {
            json!({"venue": "Riverside Hall", "city": "Springfield"})
        }
        Op::LinkedCreate(_) => {
            json!({"organizer": "City Arts Council", "email": "arts@example.org"})
        }
        Op::LinkedUpdate(PostType::Venue, _) => json!({"phone": "+1 555 0100"}),
        Op::LinkedUpdate(..) => json!({"phone": "+1 555 0100"}),
        Op::TermCreate(_) => json!({"name": "Music"}),
        Op::TermUpdate(_) => json!({"description": "Concerts and recitals"}),
        _ => return None,
    })
}
