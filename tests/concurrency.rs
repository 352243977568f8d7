//! Concurrent writers: unique slugs, no lost fields, one venue, one term.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use axum::http::Method;
use common::*;
use sea_query::ExprTrait;
use serde_json::json;

/// Runs `n` copies of a request at once and returns the responses.
async fn burst(
    app: &Arc<TestApp>,
    n: usize,
    method: Method,
    path: &str,
    body: serde_json::Value,
) -> Vec<Resp> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (app, method, path, body) =
                (app.clone(), method.clone(), path.to_string(), body.clone());
            tokio::spawn(
                async move { app.call(method, &path, Some(body), &app.admin.auth()).await },
            )
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

both!(
    hundred_writers_with_one_title_get_unique_slugs,
    |app| async move {
        let app = Arc::new(app);
        let body = json!({"title": "Same Title", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00"});
        let responses = burst(&app, 100, Method::POST, "events", body).await;
        let mut slugs = HashSet::new();
        for r in &responses {
            r.assert(201);
            assert!(
                slugs.insert(r.body["slug"].as_str().unwrap().to_string()),
                "duplicate slug {}",
                r.body["slug"]
            );
        }
        assert_eq!(slugs.len(), 100);
        assert!(slugs.contains("same-title") && slugs.contains("same-title-100"));
        let list = app
            .get("events?per_page=50&start_date=2027-03-01&end_date=2027-03-01")
            .await;
        assert_eq!(list.body["total"], 100);
    }
);

both!(
    concurrent_updates_of_one_event_lose_no_field,
    |app| async move {
        let app = Arc::new(app);
        let id = app
        .post("events", json!({"title": "T", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00"}))
        .await
        .id();
        let fields = [
            ("excerpt", json!("new excerpt")),
            ("cost", json!("10$")),
            ("website", json!("https://example.com/x")),
            ("featured", json!(true)),
            ("sticky", json!(true)),
            ("show_map", json!(true)),
            ("description", json!("new description")),
            ("title", json!("New title")),
        ];
        let tasks: Vec<_> = fields
            .iter()
            .cloned()
            .map(|(k, v)| {
                let app = app.clone();
                tokio::spawn(async move {
                    app.call(
                        Method::PATCH,
                        &format!("events/{id}"),
                        Some(json!({k: v})),
                        &app.admin.auth(),
                    )
                    .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().assert(200);
        }
        let e = app.get(&format!("events/{id}")).await.body;
        assert_eq!(e["excerpt"], "<p>new excerpt</p>");
        assert_eq!(e["cost"], "10$");
        assert_eq!(e["website"], "https://example.com/x");
        assert_eq!(e["featured"], true);
        assert_eq!(e["sticky"], true);
        assert_eq!(e["show_map"], true);
        assert_eq!(e["description"], "<p>new description</p>");
        assert_eq!(e["title"], "New title");
    }
);

both!(
    concurrent_identical_venues_are_one_venue,
    |app| async move {
        let app = Arc::new(app);
        let responses = burst(
            &app,
            30,
            Method::POST,
            "venues",
            json!({"venue": "Race Hall", "city": "Paris"}),
        )
        .await;
        let ids: HashSet<i64> = responses
            .iter()
            .map(|r| {
                r.assert(201);
                r.id()
            })
            .collect();
        assert_eq!(ids.len(), 1, "one venue, not {}", ids.len());
        let inline = json!({"title": "E", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00",
                        "venue": {"venue": "Inline Hall", "city": "Lyon"}, "organizer": [{"organizer": "Inline Org"}]});
        let events = burst(&app, 20, Method::POST, "events", inline).await;
        let venues: HashSet<i64> = events
            .iter()
            .map(|r| r.body["venue"]["id"].as_i64().unwrap())
            .collect();
        let organizers: HashSet<i64> = events
            .iter()
            .map(|r| r.body["organizer"][0]["id"].as_i64().unwrap())
            .collect();
        assert_eq!((venues.len(), organizers.len()), (1, 1));
    }
);

both!(
    concurrent_term_creation_by_name_makes_one_term,
    |app| async move {
        let app = Arc::new(app);
        let body = json!({"title": "E", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00",
                      "categories": ["Brand New"], "tags": ["fresh tag"]});
        let responses = burst(&app, 25, Method::POST, "events", body).await;
        let cats: HashSet<i64> = responses
            .iter()
            .map(|r| {
                r.assert(201);
                r.body["categories"][0]["id"].as_i64().unwrap()
            })
            .collect();
        let tags: HashSet<i64> = responses
            .iter()
            .map(|r| r.body["tags"][0]["id"].as_i64().unwrap())
            .collect();
        assert_eq!((cats.len(), tags.len()), (1, 1));
        let cat = app
            .get(&format!("categories/{}", cats.iter().next().unwrap()))
            .await;
        assert_eq!(
            cat.body["count"], 25,
            "every published event is counted once"
        );
        let all = app.get("categories?hide_empty=0").await;
        assert_eq!(all.body["total"], 1);
    }
);

/// A term row written straight through the store, as a marker for the group tests.
fn insert_marker(name: &str) -> sea_query::InsertStatement {
    sea_query::Query::insert()
        .into_table(sea_query::Alias::new("terms"))
        .columns([
            sea_query::Alias::new("taxonomy"),
            sea_query::Alias::new("name"),
            sea_query::Alias::new("slug"),
        ])
        .values_panic(["post_tag".into(), name.into(), name.into()])
        .to_owned()
}

async fn marker_exists(app: &TestApp, name: &str) -> bool {
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .expr(sea_query::Expr::cust("1"))
        .from(sea_query::Alias::new("terms"))
        .and_where(sea_query::Expr::col(sea_query::Alias::new("slug")).eq(name))
        .to_owned();
    conn.query_opt(&q, |_| Ok(())).await.unwrap().is_some()
}

async fn until_writers_waiting(app: &TestApp, n: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while app.store.pool.writers_waiting() < n {
        assert!(std::time::Instant::now() < deadline, "writers never queued");
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
}

/// SQLite commits writes that queue for its writer together. A is open while B and C
/// queue; A finishes first and leaves the group open for them; B fails and rolls back
/// to its savepoint; C commits the group. A and C are kept, B leaves no trace, and the
/// three cost one commit (one data-version step).
#[tokio::test]
async fn sqlite_commit_groups_keep_members_and_drop_failed_writes() {
    let app = Arc::new(TestApp::sqlite().await);
    let version_before = app.store.pool.data_version().await.unwrap();
    let mut a = app.store.pool.write().await.unwrap();
    a.execute(&insert_marker("group-a")).await.unwrap();

    let b = tokio::spawn({
        let app = app.clone();
        async move {
            let mut b = app.store.pool.write().await.unwrap();
            b.execute(&insert_marker("group-b")).await.unwrap();
            // Fails, as a request does when its input turns out invalid mid-transaction.
            let err = b.execute(&insert_marker("group-b")).await;
            assert!(err.is_err(), "the duplicate slug is refused");
            drop(b);
        }
    });
    until_writers_waiting(&app, 1).await;
    let c = tokio::spawn({
        let app = app.clone();
        async move {
            let mut c = app.store.pool.write().await.unwrap();
            c.execute(&insert_marker("group-c")).await.unwrap();
            c.commit().await
        }
    });
    until_writers_waiting(&app, 2).await;

    a.commit().await.expect("A's group committed");
    b.await.unwrap();
    c.await.unwrap().expect("C committed the group");
    assert!(marker_exists(&app, "group-a").await);
    assert!(marker_exists(&app, "group-c").await);
    assert!(!marker_exists(&app, "group-b").await);
    let version_after = app.store.pool.data_version().await.unwrap();
    assert_eq!(
        version_after - version_before,
        1,
        "one commit for the group"
    );
}

/// A member whose group is left open by a failing last writer is not kept waiting:
/// the failing writer commits the group for it.
#[tokio::test]
async fn sqlite_failed_last_writer_commits_the_group_it_leaves() {
    let app = Arc::new(TestApp::sqlite().await);
    let mut a = app.store.pool.write().await.unwrap();
    a.execute(&insert_marker("alone-a")).await.unwrap();
    let b = tokio::spawn({
        let app = app.clone();
        async move {
            let mut b = app.store.pool.write().await.unwrap();
            b.execute(&insert_marker("alone-b")).await.unwrap();
            drop(b);
        }
    });
    until_writers_waiting(&app, 1).await;
    let a = tokio::spawn(a.commit());
    b.await.unwrap();
    // Committed by the time B is gone, without waiting for A to take over.
    assert!(marker_exists(&app, "alone-a").await);
    a.await.unwrap().expect("A's group committed");
    assert!(!marker_exists(&app, "alone-b").await);
}

/// The writer that opens a group writes without a savepoint (it has nobody to keep
/// apart from): when it fails, the whole transaction goes, and the writer queued
/// behind it starts a group of its own on a clean slate.
#[tokio::test]
async fn sqlite_failed_first_writer_leaves_no_trace_for_the_next() {
    let app = Arc::new(TestApp::sqlite().await);
    let mut a = app.store.pool.write().await.unwrap();
    a.execute(&insert_marker("first-a")).await.unwrap();
    let b = tokio::spawn({
        let app = app.clone();
        async move {
            let mut b = app.store.pool.write().await.unwrap();
            b.execute(&insert_marker("first-b")).await.unwrap();
            b.commit().await
        }
    });
    until_writers_waiting(&app, 1).await;
    assert!(
        a.execute(&insert_marker("first-a")).await.is_err(),
        "the duplicate slug is refused"
    );
    drop(a);
    b.await.unwrap().expect("B committed a group of its own");
    assert!(!marker_exists(&app, "first-a").await);
    assert!(marker_exists(&app, "first-b").await);
}

both!(
    events_written_together_are_all_searchable_at_once,
    |app| async move {
        let app = Arc::new(app);
        let body = json!({"title": "Quokkafest Gathering", "description": "<p>Bring a quokka.</p>",
                          "start_date": "2027-04-01 10:00:00", "end_date": "2027-04-01 11:00:00"});
        let responses = burst(&app, 40, Method::POST, "events", body).await;
        for r in &responses {
            r.assert(201);
        }
        for q in ["quokkafest", "quokka"] {
            let list = app
                .get(&format!(
                    "events?search={q}&start_date=2027-04-01&end_date=2027-04-02&per_page=50"
                ))
                .await;
            list.assert(200);
            assert_eq!(list.body["total"], 40, "search {q}");
        }
    }
);

both!(
    two_categories_moved_under_each_other_at_once_never_form_a_cycle,
    |app| async move {
        let app = Arc::new(app);
        for round in 0..12 {
            let a = app
                .post("categories", json!({"name": format!("A{round}")}))
                .await
                .id();
            let b = app
                .post("categories", json!({"name": format!("B{round}")}))
                .await
                .id();
            let moves = [(a, b), (b, a)].map(|(term, parent)| {
                let app = app.clone();
                tokio::spawn(async move {
                    app.post(&format!("categories/{term}"), json!({"parent": parent}))
                        .await
                })
            });
            let mut moved = 0;
            for m in moves {
                let r = m.await.unwrap();
                match r.status.as_u16() {
                    200 => moved += 1,
                    _ => {
                        r.assert_error(400, "rest_invalid_param");
                    }
                }
            }
            assert_eq!(moved, 1, "round {round}: exactly one move wins");
            let pa = app.get(&format!("categories/{a}")).await.body["parent"].clone();
            let pb = app.get(&format!("categories/{b}")).await.body["parent"].clone();
            assert!(pa == 0 || pb == 0, "round {round}: {a}->{pa}, {b}->{pb}");
        }
    }
);
