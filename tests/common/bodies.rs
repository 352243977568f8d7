//! Event bodies to send, and what event lists show.

use serde_json::Value;

use super::{Resp, TestApp};

/// A minimal event body; more fields can be merged in with [`with`].
pub fn event(title: &str, start: &str, end: &str) -> Value {
    serde_json::json!({"title": title, "start_date": start, "end_date": end})
}

/// `base` with the members of `extra` added or replaced.
pub fn with(mut base: Value, extra: Value) -> Value {
    if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
        b.extend(e);
    }
    base
}

/// Text of `n` distinct Chinese characters from the `from`-th of the block on, each
/// after `next_to` (none if empty) and before a space: a calendar of many distinct
/// characters, as one written in Chinese holds.
pub fn chinese(from: u32, n: u32, next_to: &str) -> String {
    (from..from + n)
        .map(|i| format!("{next_to}{} ", char::from_u32(0x4E00 + i).unwrap()))
        .collect()
}

/// One ticket of 5 EUR: an event's `tickets` that makes it ticketed.
pub fn tickets() -> Value {
    serde_json::json!([{"name": "GA", "url": "https://t.example.com/", "price": "5", "currency": "EUR"}])
}

/// The keys of a JSON object, in order.
pub fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// The titles of an event list, in order.
pub fn titles(r: &Resp) -> Vec<String> {
    r.body["events"]
        .as_array()
        .unwrap_or_else(|| panic!("no events in {}", r.text))
        .iter()
        .map(|e| e["title"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The IDs of an event list, in order.
pub fn event_ids(r: &Resp) -> Vec<i64> {
    r.body["events"]
        .as_array()
        .unwrap_or_else(|| panic!("no events in {}", r.text))
        .iter()
        .map(|e| e["id"].as_i64().unwrap_or_default())
        .collect()
}

/// The events of 2027 a category filter lists for the administrator, sorted; the
/// list's total agrees with them.
pub async fn listed_in_category(app: &TestApp, category: i64) -> Vec<i64> {
    let r = app
        .get_as(
            &format!("events?start_date=2027-01-01&end_date=2027-12-31&categories={category}"),
            &app.admin.auth(),
        )
        .await;
    r.assert(200);
    let mut ids = event_ids(&r);
    ids.sort_unstable();
    let total: usize = r.header("X-WP-Total").unwrap().parse().unwrap();
    assert_eq!(total, ids.len(), "total of categories={category}");
    ids
}
