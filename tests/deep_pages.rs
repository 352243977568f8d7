//! A page deep in a window starts reading at the day its first event is on, found
//! from the per-day counts, instead of walking every event before it. Whatever the
//! depth, it must hold exactly the events a walk from the window's start finds.
//! `starts_before` far in the future changes no answer but keeps a list off the
//! per-day counts, so it is the walk to compare with.

mod common;

use std::sync::Arc;

use axum::http::Method;
use common::*;
use serde_json::{Value, json};

const WINDOW: &str = "start_date=2027-01-01&end_date=2027-06-30&per_page=50";
const WALK: &str = "starts_before=2100-01-01";

/// 5,000 events over the first half of 2027, several per day and some lasting days,
/// with drafts, hidden, protected and featured ones, and events just outside the
/// window.
fn bodies(category: i64) -> Vec<Value> {
    (0..5_000u32)
        .map(|i| {
            let day = 1 + (i * 7) % 185;
            let date = chrono::NaiveDate::from_ymd_opt(2026, 12, 31).unwrap()
                + chrono::Duration::days(i64::from(day));
            let hour = 8 + i % 12;
            let days_long = if i % 23 == 0 { 3 } else { 0 };
            let end = date + chrono::Duration::days(days_long);
            let mut body = event(
                &format!("Event {i:04}"),
                &format!("{date} {hour:02}:00:00"),
                &format!("{end} {:02}:30:00", hour + 1),
            );
            let extra = match i % 10 {
                0 => json!({"status": "draft"}),
                1 => json!({"hide_from_listings": true}),
                2 => json!({"password": "pw", "categories": [category]}),
                3..=5 => json!({"categories": [category]}),
                _ => json!({}),
            };
            body = with(body, extra);
            if i % 7 == 0 {
                body = with(body, json!({"featured": true}));
            }
            if i % 3 == 0 {
                body = with(body, json!({"tickets": tickets()}));
            }
            body
        })
        .collect()
}

async fn create_all(app: &Arc<TestApp>, bodies: Vec<Value>) {
    for chunk in bodies.chunks(100) {
        let tasks: Vec<_> = chunk
            .iter()
            .map(|body| {
                let (app, body) = (app.clone(), body.clone());
                tokio::spawn(async move {
                    app.call(Method::POST, "events", Some(body), &app.admin.auth())
                        .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().assert(201);
        }
    }
}

async fn ids(app: &TestApp, path: &str, auth: &Auth) -> (Vec<i64>, String) {
    let r = app.get_as(path, auth).await;
    assert_eq!(r.status, 200, "{path}: {}", r.text);
    let ids = r.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    (ids, r.header("X-WP-Total").unwrap().to_string())
}

both!(deep_pages_hold_what_a_walk_finds, |app| async move {
    let app = Arc::new(app);
    let category = app.post("categories", json!({"name": "Talks"})).await.id();
    create_all(&app, bodies(category)).await;
    let admin = app.admin.auth();
    for (filter, auth) in [
        (String::new(), &Auth::None),
        (String::new(), &admin),
        (format!("&categories={category}"), &Auth::None),
        (format!("&categories={category}"), &admin),
        // A flag asked unset, alone and beside a category.
        ("&featured=0".to_string(), &Auth::None),
        (format!("&featured=0&categories={category}"), &admin),
        (format!("&featured=0&categories={category}"), &Auth::None),
        // Both flags asked unset: counted as the lists without each flag less those
        // with it set.
        ("&featured=0&ticketed=0".to_string(), &Auth::None),
        (
            format!("&ticketed=0&featured=0&categories={category}"),
            &Auth::None,
        ),
        (
            format!("&ticketed=0&featured=0&categories={category}"),
            &admin,
        ),
    ] {
        let (_, total) = ids(&app, &format!("events?{WINDOW}{filter}"), auth).await;
        let pages = total.parse::<usize>().unwrap().div_ceil(50);
        assert!(pages > 40 || !filter.is_empty(), "{total} events listed");
        for page in [1, pages / 2, pages.saturating_sub(3), pages - 1, pages] {
            let page = page.max(1);
            let query = format!("events?{WINDOW}{filter}&page={page}");
            let (sought, sought_total) = ids(&app, &query, auth).await;
            let (walked, walked_total) = ids(&app, &format!("{query}&{WALK}"), auth).await;
            assert_eq!(sought, walked, "{query} as {auth:?}");
            assert_eq!(sought_total, walked_total, "{query} as {auth:?}");
            assert!(!sought.is_empty(), "{query} as {auth:?}");
        }
        // The total is what the pages hold, page by page.
        let mut listed = Vec::new();
        for page in 1..=pages {
            let query = format!("events?{WINDOW}{filter}&page={page}");
            listed.extend(ids(&app, &query, auth).await.0);
        }
        assert_eq!(listed.len().to_string(), total, "{filter} as {auth:?}");
    }
});
