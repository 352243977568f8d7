//! Events: who sees what, who may change what, and the venue, organizer and term
//! lists that depend on events.

#[path = "../common/mod.rs"]
mod common;

mod lists;
mod roles;
mod scheduled;
mod single;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use chrono::{Duration, Utc};
use common::*;
use serde_json::{Value, json};

const FROM_2027: &str = "start_date=2027-01-01";

fn feb(title: &str, extra: Value) -> Value {
    with(
        event(title, "2027-02-01 10:00:00", "2027-02-01 12:00:00"),
        extra,
    )
}

fn titles_of_terms(r: &Resp) -> Vec<String> {
    r.body["categories"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.text))
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}
