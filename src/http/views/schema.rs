//! What `/doc` needs beyond the view types' own schemas: the shapes the
//! reference's quirks take, the error body, and the list envelopes.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

use super::{ImageView, OrganizerView, TermView, VenueView};

/// `"text"`, or `[]` where the reference blanks a protected name.
pub fn text_or_empty() -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::String)))
        .item(empty_array())
        .into()
}

/// Any JSON value.
pub fn any_value() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::AnyValue)
        .into()
}

/// `[]`: a list the reference always sends empty.
pub fn empty_array() -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(ObjectBuilder::new().schema_type(SchemaType::AnyValue))
        .max_items(Some(0))
        .into()
}

/// An image object, or `false` when there is none or it is hidden.
pub fn image_or_false_schema() -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(RefOr::Ref(utoipa::openapi::Ref::from_schema_name("Image")))
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::Boolean)))
        .into()
}

/// An error: a stable `code`, a human-readable `message` in the request's language, and `data.status`.
#[derive(Serialize, ToSchema)]
#[schema(as = Error)]
pub struct ErrorBody {
    code: String,
    message: String,
    data: ErrorData,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorData {
    status: u16,
    /// Missing parameters (a list) or invalid ones (name → message).
    #[schema(schema_with = any_value)]
    params: Option<Value>,
    /// Per-parameter detail: `[]` or name → `{code, message, data}`.
    #[schema(schema_with = any_value)]
    details: Option<Value>,
    term_id: Option<i64>,
    /// The request's ID, as in the `X-Request-Id` header: quote it to the operator.
    request_id: Option<String>,
}

/// Schemas of the list envelopes (serialised by `lists::respond`) and of the
/// discovery documents.
pub struct ListSchemas;

#[derive(ToSchema)]
#[allow(dead_code)]
struct VenueList {
    venues: Vec<VenueView<'static>>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct OrganizerList {
    organizers: Vec<OrganizerView<'static>>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct CategoryList {
    rest_url: String,
    total: u64,
    total_pages: u64,
    #[schema(schema_with = category_items)]
    categories: Vec<TermView<'static>>,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct TagList {
    rest_url: String,
    total: u64,
    total_pages: u64,
    #[schema(schema_with = tag_items)]
    tags: Vec<TermView<'static>>,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
}

fn items_of(name: &str) -> Schema {
    Schema::Array(
        utoipa::openapi::schema::ArrayBuilder::new()
            .items(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name)))
            .build(),
    )
}

fn category_items() -> Schema {
    items_of("Category")
}

fn tag_items() -> Schema {
    items_of("Tag")
}

/// A category or tag: a term of its taxonomy (`Term`, one shape for both).
fn term_of(taxonomy: &str) -> RefOr<Schema> {
    Schema::AllOf(
        utoipa::openapi::schema::AllOfBuilder::new()
            .item(RefOr::Ref(utoipa::openapi::Ref::from_schema_name("Term")))
            .description(Some(format!("A term of the `{taxonomy}` taxonomy.")))
            .build(),
    )
    .into()
}

impl ListSchemas {
    pub fn collect(out: &mut Vec<(String, RefOr<Schema>)>) {
        out.push(("Category".into(), term_of("tribe_events_cat")));
        out.push(("Tag".into(), term_of("post_tag")));
        fn add<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
            out.push((T::name().into_owned(), T::schema()));
            T::schemas(out);
        }
        add::<ImageView>(out);
        add::<VenueList>(out);
        add::<OrganizerList>(out);
        add::<CategoryList>(out);
        add::<TagList>(out);
        let open: RefOr<Schema> = ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Object))
            .into();
        out.push(("NamespaceIndex".into(), open.clone()));
        out.push(("OpenApiDocument".into(), open));
    }
}
