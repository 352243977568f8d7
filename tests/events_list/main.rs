//! `GET /events`: the list semantics of docs/departures.md and the README.

#[path = "../common/mod.rs"]
mod common;

mod combined;
mod dates;
mod filters;
mod running;

use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

/// An explicit window that keeps fixed 2027 dates listed whatever today is.
const FROM_2027: &str = "start_date=2027-01-01";

fn at(title: &str, start: &str, end: &str, extra: Value) -> Value {
    with(event(title, start, end), extra)
}

/// The reference's own worked example of its date window.
async fn reference_events(app: &TestApp) {
    for (title, start, end) in [
        ("A", "2017-12-31 17:00:00", "2017-12-31 18:00:00"),
        ("B", "2018-01-01 16:00:00", "2018-01-01 16:30:00"),
        ("C", "2018-01-01 20:00:00", "2018-01-01 20:30:00"),
        ("D", "2018-01-02 10:00:00", "2018-01-02 11:00:00"),
    ] {
        app.event(event(title, start, end)).await;
    }
}

/// An event whose children a test lists.
async fn series(app: &TestApp) -> i64 {
    app.event(event(
        "Series",
        "2027-01-01 10:00:00",
        "2027-01-01 11:00:00",
    ))
    .await
}
