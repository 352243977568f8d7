//! Search finds every committed event, whether SQLite has indexed it yet or it is
//! still waiting in the queue of events to index (`store::SQLITE_BEFORE_COMMIT`).
//! Venues and organizers alike (migration 12): their index only narrows the rows
//! the per-field check runs on, so what a search finds is the same indexed, queued
//! or not indexed at all.

#[path = "../common/mod.rs"]
mod common;

mod events;
mod linked;
mod whole_words;

use common::*;
use serde_json::json;

const WINDOW: &str = "start_date=2027-05-01&end_date=2027-05-31";

async fn search(app: &TestApp, q: &str) -> Vec<String> {
    let r = app.get(&format!("events?{WINDOW}&search={q}")).await;
    r.assert(200);
    let mut found = titles(&r);
    found.sort();
    found
}

/// Events waiting to be indexed, on SQLite; `None` on PostgreSQL, which has no queue.
async fn queued(app: &TestApp) -> Option<Vec<i64>> {
    if app.backend() != calendar_events::store::Backend::Sqlite {
        return None;
    }
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .column(sea_query::Alias::new("id"))
        .from(sea_query::Alias::new("search_queue"))
        .order_by(sea_query::Alias::new("id"), sea_query::Order::Asc)
        .to_owned();
    Some(conn.query(&q, |row| row.i64(0)).await.unwrap())
}

async fn create(app: &TestApp, title: &str) -> i64 {
    app.event(event(title, "2027-05-10 19:00:00", "2027-05-10 21:00:00"))
        .await
}

/// Events are found in the index and in its queue alike, through edits and
/// deletions.
async fn assert_indexed_and_queued_events_found(app: TestApp) {
    let waltz = create(&app, "Wombat Waltz").await;
    // Still queued: found by scanning the queue.
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [waltz]);
    }
    assert_eq!(search(&app, "wombat").await, ["Wombat Waltz"]);

    // A write after the queue's age limit indexes everything queued, itself included.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let polka = create(&app, "Wombat Polka").await;
    if let Some(q) = queued(&app).await {
        assert!(q.is_empty(), "indexed after a second: {q:?}");
    }
    let tango = create(&app, "Wombat Tango").await;
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [tango]);
    }
    assert_eq!(
        search(&app, "wombat").await,
        ["Wombat Polka", "Wombat Tango", "Wombat Waltz"],
        "two from the index, one from the queue"
    );
    assert_eq!(search(&app, "ltz").await, ["Wombat Waltz"]);
    assert_eq!(search(&app, "wombat%20tango").await, ["Wombat Tango"]);

    // An edited event leaves the index for the queue: old words stop matching.
    app.patch(&format!("events/{waltz}"), json!({"title": "Koala Waltz"}))
        .await
        .assert(200);
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [waltz, tango]);
    }
    assert_eq!(
        search(&app, "wombat").await,
        ["Wombat Polka", "Wombat Tango"]
    );
    assert_eq!(search(&app, "koala").await, ["Koala Waltz"]);

    // Deleted events leave the index and the queue.
    for id in [polka, tango] {
        app.delete(&format!("events/{id}?force=true"))
            .await
            .assert(200);
    }
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [waltz]);
    }
    assert!(search(&app, "wombat").await.is_empty());
    assert_eq!(search(&app, "waltz").await, ["Koala Waltz"]);
}

/// The titles of the events in [`WINDOW`] holding `q`, for an administrator.
async fn search_as_admin(app: &TestApp, q: &str) -> Vec<String> {
    let r = app
        .get_as(&format!("events?{WINDOW}&search={q}"), &app.admin.auth())
        .await;
    r.assert(200);
    titles(&r)
}

// --- Venues and organizers ---------------------------------------------------------

/// An app without the response cache: a search answered from the cache would not
/// ask the index again once it is built.
async fn uncached(app: TestApp) -> TestApp {
    app.another(calendar_events::config::Settings {
        response_cache_bytes: 0,
        ..settings()
    })
    .await
}

/// Venues and organizers waiting to be indexed, on SQLite; `None` on PostgreSQL.
async fn linked_queued(app: &TestApp) -> Option<i64> {
    if app.backend() != calendar_events::store::Backend::Sqlite {
        return None;
    }
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .expr(sea_query::Expr::cust("count(*)"))
        .from(sea_query::Alias::new("linked_search_queue"))
        .to_owned();
    Some(conn.query_one(&q, |row| row.i64(0)).await.unwrap())
}

/// Has SQLite's writer index what is queued, as it does at the first commit once
/// the oldest queued write has waited a second; from then on the searches below are
/// answered from the index alone.
async fn index_queued(app: &TestApp) {
    if app.backend() != calendar_events::store::Backend::Sqlite {
        return;
    }
    app.store
        .pool
        .write()
        .await
        .unwrap()
        .commit()
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    app.store
        .pool
        .write()
        .await
        .unwrap()
        .commit()
        .await
        .unwrap();
    assert_eq!(linked_queued(app).await, Some(0), "all indexed");
}

/// The names of the venues (or organizers) a search lists, sorted, as `who` sees them.
async fn found_as(app: &TestApp, kind: &str, search: &str, who: &Auth) -> Vec<String> {
    let name = if kind == "venues" {
        "venue"
    } else {
        "organizer"
    };
    let q = percent_encoding::utf8_percent_encode(search, percent_encoding::NON_ALPHANUMERIC);
    let r = app
        .get_as(&format!("{kind}?search={q}&per_page=50"), who)
        .await;
    r.assert(200);
    let mut names: Vec<String> = r.body[kind]
        .as_array()
        .unwrap_or_else(|| panic!("no {kind} in {}", r.text))
        .iter()
        .map(|v| v[name].as_str().unwrap_or("(hidden)").to_string())
        .collect();
    assert_eq!(
        r.body["total"],
        names.len(),
        "the total counts the same rows"
    );
    names.sort();
    names
}

async fn found(app: &TestApp, kind: &str, search: &str) -> Vec<String> {
    found_as(app, kind, search, &Auth::None).await
}

/// Every searched field of a venue, each holding a word no other field holds.
fn venue_fields() -> Vec<(&'static str, &'static str)> {
    vec![
        ("description", "Dingo description"),
        ("excerpt", "Echidna excerpt"),
        ("address", "1 Axolotl Road"),
        ("city", "Cassowary City"),
        ("province", "Platypus Province"),
        ("state", "Stoat State"),
        ("stateprovince", "Shrew Stateprovince"),
        ("zip", "Z9Z 4QX"),
        ("phone", "+1 555 0173"),
    ]
}
