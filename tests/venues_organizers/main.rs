//! Venues and organizers: create, read, update, delete, lists, de-duplication, trash.

#[path = "../common/mod.rs"]
mod common;

mod crud;
mod fields;
mod lists;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

fn venue_body() -> Value {
    json!({
        "venue": "Venue 1", "address": "1 Main St", "city": "Springfield",
        "country": "United States", "state": "IL", "zip": "62701", "phone": "555-0100",
        "website": "https://example.com/v0", "stateprovince": "IL"
    })
}
