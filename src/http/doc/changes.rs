//! The schemas of incremental sync's answers (`http/sync.rs`): a list asked with
//! `modified_after` or `cursor` answers `EventChanges` (…) instead of `EventList`.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, Type};

use super::{int64, reference, typed};
use crate::api::table::Op;
use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;

/// The name of the schema of a list's sync answers, for `/doc`.
pub fn changes_schema_name(op: Op) -> Option<&'static str> {
    Some(match op {
        Op::EventList => "EventChanges",
        Op::LinkedList(PostType::Venue) => "VenueChanges",
        Op::LinkedList(_) => "OrganizerChanges",
        Op::TermList(Taxonomy::Category) => "CategoryChanges",
        Op::TermList(Taxonomy::Tag) => "TagChanges",
        _ => return None,
    })
}

/// The schemas of sync answers (`Tombstone`, `EventChanges`, …), for `/doc`.
pub fn schemas() -> Vec<(String, RefOr<Schema>)> {
    let tombstone = ObjectBuilder::new()
        .property("id", int64())
        .property("status", typed(Type::String).enum_values(Some(["deleted"])))
        .property("modified_utc", typed(Type::String))
        .required("id")
        .required("status")
        .required("modified_utc");
    let mut out = vec![(
        "Tombstone".to_string(),
        RefOr::T(Schema::Object(tombstone.build())),
    )];
    for (name, collection, item) in [
        ("EventChanges", "events", "Event"),
        ("VenueChanges", "venues", "Venue"),
        ("OrganizerChanges", "organizers", "Organizer"),
        ("CategoryChanges", "categories", "Category"),
        ("TagChanges", "tags", "Tag"),
    ] {
        let entry = AnyOfBuilder::new()
            .item(reference(item))
            .item(reference("Tombstone"));
        let changes = ObjectBuilder::new()
            .property(collection, ArrayBuilder::new().items(entry))
            .property("rest_url", typed(Type::String))
            .property("next_rest_url", typed(Type::String))
            .property("cursor", typed(Type::String))
            .required(collection)
            .required("rest_url")
            .required("cursor");
        out.push((name.to_string(), RefOr::T(Schema::Object(changes.build()))));
    }
    out
}
