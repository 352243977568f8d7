//! The names of operations: what `/doc` calls each (`operationId`), and the key of
//! its summary in the Fluent catalogues.

use super::{By, Op};
use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;

/// The operation's name without its method: what POST, PUT and PATCH of one update
/// endpoint share, and the key of its summary.
pub fn operation_name(op: Op) -> String {
    let t = |p: PostType| match p {
        PostType::Venue => "Venue",
        _ => "Organizer",
    };
    let x = |tax: Taxonomy| match tax {
        Taxonomy::Category => "Category",
        Taxonomy::Tag => "Tag",
    };
    let by = |b: By| if b == By::Slug { "BySlug" } else { "" };
    match op {
        Op::Index => "getNamespaceIndex".to_string(),
        Op::Doc => "getDocumentation".to_string(),
        Op::EventList => "listEvents".to_string(),
        Op::EventCreate => "createEvent".to_string(),
        Op::EventGet(b) => format!("getEvent{}", by(b)),
        Op::EventUpdate(b) => format!("updateEvent{}", by(b)),
        Op::EventDelete(b) => format!("deleteEvent{}", by(b)),
        Op::LinkedList(p) => format!("list{}s", t(p)),
        Op::LinkedCreate(p) => format!("create{}", t(p)),
        Op::LinkedGet(p, b) => format!("get{}{}", t(p), by(b)),
        Op::LinkedUpdate(p, b) => format!("update{}{}", t(p), by(b)),
        Op::LinkedDelete(p, b) => format!("delete{}{}", t(p), by(b)),
        Op::TermList(tax) => format!(
            "list{}",
            if tax == Taxonomy::Category {
                "Categories"
            } else {
                "Tags"
            }
        ),
        Op::TermCreate(tax) => format!("create{}", x(tax)),
        Op::TermGet(tax) => format!("get{}", x(tax)),
        Op::TermUpdate(tax) => format!("update{}", x(tax)),
        Op::TermDelete(tax) => format!("delete{}", x(tax)),
    }
}

/// The catalogue key of an operation's one-line summary.
pub fn summary_key(op: Op) -> String {
    format!("summary-{}", operation_name(op))
}
