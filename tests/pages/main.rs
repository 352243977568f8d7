//! The public calendar pages: what a visitor's browser gets at the `url` of every
//! event, venue, organizer and term, and at the calendar's views; on both backends.

#[path = "../common/mod.rs"]
mod common;

mod busy_grid;
mod event;
mod grid;
mod lists;

use axum::http::Method;
use common::*;
use serde_json::{Value, json};

async fn page(app: &TestApp, path: &str) -> Resp {
    let r = app.get(path).await;
    assert_eq!(
        r.header("content-type"),
        Some("text/html; charset=utf-8"),
        "{path}: {}",
        r.text
    );
    r
}

async fn ok(app: &TestApp, path: &str) -> String {
    let r = page(app, path).await;
    r.assert(200);
    r.text
}

/// Creates an event as the administrator; answers its slug.
async fn slug_of(app: &TestApp, body: Value) -> String {
    let r = app.post("events", body).await;
    r.assert(201);
    r.body["slug"].as_str().unwrap().to_string()
}

async fn linked(app: &TestApp, path: &str, body: Value) -> (i64, String) {
    let r = app.post(path, body).await;
    r.assert(201);
    (r.id(), r.body["slug"].as_str().unwrap().to_string())
}

/// A three-day event, 10 to 12 March 2027.
async fn long_festival(app: &TestApp) {
    let body = event(
        "Long Festival",
        "2027-03-10 10:00:00",
        "2027-03-12 18:00:00",
    );
    slug_of(app, body).await;
}

/// A crowded day: more events than a month cell shows.
async fn five_workshops_on_the_15th(app: &TestApp) {
    for n in 1..=5 {
        let start = format!("2027-03-15 0{n}:00:00");
        let end = format!("2027-03-15 0{n}:30:00");
        slug_of(app, event(&format!("Workshop {n}"), &start, &end)).await;
    }
}

async fn post_form(app: &TestApp, path: &str, form: &str) -> Resp {
    let content = "application/x-www-form-urlencoded";
    let r = app
        .call_raw(
            Method::POST,
            path,
            content,
            form.as_bytes().to_vec(),
            &Auth::None,
        )
        .await;
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    r
}
