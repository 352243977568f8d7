//! A list request costs a fixed number of SQL statements, whatever the page holds:
//! the count, the page, the terms, and the venues and organizers (batched).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use calendar_events::store::db::STATEMENT_COUNTER;
use common::*;
use serde_json::json;

async fn uncached() -> Vec<TestApp> {
    let mut settings = common::settings();
    settings.response_cache_bytes = 0;
    let mut apps = vec![TestApp::sqlite_with(settings.clone()).await];
    if let Some(pg) = TestApp::postgres_with(settings).await {
        apps.push(pg);
    }
    apps
}

/// Statements run while answering one anonymous GET.
async fn statements_for(app: &TestApp, path: &str) -> (u64, Resp) {
    let counter = Arc::new(AtomicU64::new(0));
    let resp = STATEMENT_COUNTER
        .scope(counter.clone(), app.get(path))
        .await;
    (counter.load(Ordering::Relaxed), resp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_list_is_four_statements_whatever_the_page_holds() {
    for app in uncached().await {
        let mut totals = Vec::new();
        for n in [1usize, 10, 30] {
            for i in totals.len()..n {
                app.post(
                    "events",
                    json!({"title": format!("E{i}"), "start_date": format!("2027-04-{:02} 10:00:00", 1 + i % 28),
                           "end_date": format!("2027-04-{:02} 12:00:00", 1 + i % 28),
                           "venue": {"venue": format!("V{i}")},
                           "organizer": [{"organizer": format!("O{i}")}, {"organizer": "Shared"}],
                           "categories": [format!("cat{}", i % 3)], "tags": ["t1", format!("t{i}")]}),
                )
                .await
                .assert(201);
                totals.push(i);
            }
            let (count, r) = statements_for(
                &app,
                "events?per_page=50&start_date=2027-04-01&end_date=2027-04-30",
            )
            .await;
            r.assert(200);
            assert_eq!(r.body["events"].as_array().unwrap().len(), n);
            assert_eq!(
                r.body["events"][n - 1]["organizer"]
                    .as_array()
                    .unwrap()
                    .len(),
                2
            );
            assert_eq!(
                count,
                4,
                "{n} events took {count} statements ({:?})",
                app.backend()
            );
        }
        let (count, r) = statements_for(&app, "venues?per_page=50").await;
        r.assert(200);
        assert_eq!(count, 2, "a venue list took {count} statements");
        let (count, r) = statements_for(&app, "categories?hide_empty=0").await;
        r.assert(200);
        assert_eq!(count, 2, "a term list took {count} statements");
        let id = app
            .get("events?per_page=1&start_date=2027-04-01")
            .await
            .body["events"][0]["id"]
            .as_i64()
            .unwrap();
        let (count, r) = statements_for(&app, &format!("events/{id}")).await;
        r.assert(200);
        assert_eq!(count, 3, "a single event took {count} statements");
    }
}
