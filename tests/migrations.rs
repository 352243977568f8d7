//! Upgrading a database made by an earlier release keeps its data working.

mod common;

use calendar_events::store::Store;
use common::*;
use serde_json::json;

/// A SQLite database at schema version 1 (search indexed row by row by triggers),
/// holding one event, opened by this release: migration 2 moves search to the
/// per-commit queue. The old event stays searchable, new and edited events become
/// searchable, and a deleted one leaves the index. Migration 3 counts the old event
/// into the per-day counts that plain windows' totals come from.
#[tokio::test]
async fn a_version_1_sqlite_database_upgrades_and_keeps_search_working() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calendar.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../src/store/migrations/sqlite/0001_init.sql"))
            .unwrap();
        conn.execute_batch(
            "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_utc BIGINT NOT NULL);
             INSERT INTO schema_migrations VALUES (1, 0);
             INSERT INTO posts (post_type, status, slug, title, description, date_utc, modified_utc,
                                start_utc, end_utc, timezone)
             VALUES ('event', 'publish', 'lantern-walk', 'Legacy Lantern Walk', '<p>Old.</p>',
                     0, 0, 1806600000, 1806603600, 'UTC');",
        )
        .unwrap();
    }
    let store = Store::open(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let app = TestApp::with_store(store, Some(dir), None, settings()).await;
    let search = |q: &str| format!("events?search={q}&start_date=2027-01-01&end_date=2027-12-31");

    let old = app.get(&search("lantern")).await;
    assert_eq!(titles(&old), ["Legacy Lantern Walk"]);
    let window = "events?start_date=2027-01-01&end_date=2027-12-31";
    assert_eq!(app.get(window).await.body["total"], 1);

    let new = app
        .event(with(
            event(
                "Lantern Making",
                "2027-04-01 10:00:00",
                "2027-04-01 11:00:00",
            ),
            json!({"description": "<p>Paper craft.</p>"}),
        ))
        .await;
    assert_eq!(app.get(&search("lantern")).await.body["total"], 2);
    assert_eq!(
        titles(&app.get(&search("paper%20craft")).await),
        ["Lantern Making"]
    );

    let old_id = old.body["events"][0]["id"].as_i64().unwrap();
    app.patch(
        &format!("events/{old_id}"),
        json!({"title": "Legacy Torch Walk"}),
    )
    .await
    .assert(200);
    assert_eq!(
        titles(&app.get(&search("lantern")).await),
        ["Lantern Making"]
    );
    assert_eq!(
        titles(&app.get(&search("torch")).await),
        ["Legacy Torch Walk"]
    );

    app.delete(&format!("events/{new}?force=true"))
        .await
        .assert(200);
    assert_eq!(app.get(&search("lantern")).await.body["total"], 0);
    assert_eq!(app.get(&search("paper")).await.body["total"], 0);
    assert_eq!(app.get(window).await.body["total"], 1);
}
