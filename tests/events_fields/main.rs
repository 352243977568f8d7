//! Events: every field of the interface and the extensions, on create.

#[path = "../common/mod.rs"]
mod common;

mod content;
mod links;
mod zones;

use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

fn jan(extra: Value) -> Value {
    with(
        event("Event", "2027-01-05 09:00:00", "2027-01-05 11:00:00"),
        extra,
    )
}

/// Start and end of an event as shown and in UTC, and its zone and abbreviation.
fn when(e: &Value) -> [&str; 6] {
    [
        "start_date",
        "end_date",
        "utc_start_date",
        "utc_end_date",
        "timezone",
        "timezone_abbr",
    ]
    .map(|k| e[k].as_str().unwrap_or_default())
}

const FLAGS: [&str; 5] = [
    "show_map",
    "show_map_link",
    "hide_from_listings",
    "sticky",
    "featured",
];
