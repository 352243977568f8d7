//! Scheduled posts go live at their date, counted in their terms from the moment
//! they are listed, once, whichever instance serves the first request after it.

mod common;

use axum::body::Body;
use axum::http::Request;
use chrono::{Duration, Utc};
use common::*;
use serde_json::{Value, json};

const WINDOW: &str = "start_date=2027-06-01&end_date=2027-06-30";

/// A category, and an event in it scheduled `seconds` from now.
async fn scheduled(app: &TestApp, seconds: i64) -> (i64, i64) {
    let cat = app
        .post("categories", json!({"name": "Premieres"}))
        .await
        .id();
    let live_at = (Utc::now() + Duration::seconds(seconds))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string();
    let id = app
        .event(with(
            event("Premiere", "2027-06-10 20:00:00", "2027-06-10 22:00:00"),
            json!({"status": "future", "date_utc": live_at, "categories": [cat]}),
        ))
        .await;
    (cat, id)
}

/// The category's count and whether the default term list shows it.
async fn counted(app: &TestApp, cat: i64) -> (Value, bool) {
    let count = app.get(&format!("categories/{cat}")).await.body["count"].clone();
    let listed = app.get("categories").await.body["categories"]
        .as_array()
        .is_some_and(|l| l.iter().any(|t| t["id"] == cat));
    (count, listed)
}

async fn wait_until_due(seconds: i64) {
    tokio::time::sleep(std::time::Duration::from_millis(
        seconds as u64 * 1000 + 300,
    ))
    .await;
}

both!(
    a_scheduled_event_is_counted_the_moment_it_is_listed,
    |app| async move {
        let (cat, id) = scheduled(&app, 2).await;
        assert_eq!(
            titles(&app.get(&format!("events?{WINDOW}")).await),
            Vec::<String>::new()
        );
        assert_eq!(counted(&app, cat).await, (json!(0), false), "not live yet");
        wait_until_due(2).await;
        // A cached answer may be served once more while the first request after the
        // due moment publishes it; from the moment it is listed, it is counted.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let r = app.get(&format!("events?{WINDOW}")).await;
            if titles(&r) == ["Premiere"] {
                assert_eq!(r.body["events"][0]["status"], "publish");
                assert_eq!(counted(&app, cat).await, (json!(1), true));
                break;
            }
            assert_eq!(
                counted(&app, cat).await,
                (json!(0), false),
                "counted before listed"
            );
            assert!(std::time::Instant::now() < deadline, "never listed");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        // A later write does not count it again.
        app.patch(&format!("events/{id}"), json!({"title": "Premiere!"}))
            .await
            .assert(200);
        assert_eq!(counted(&app, cat).await, (json!(1), true));
        // Trashing it takes it out of the count once.
        app.delete(&format!("events/{id}")).await.assert(200);
        assert_eq!(counted(&app, cat).await, (json!(0), false));
    }
);

both!(
    scheduled_venues_and_organizers_go_live_too,
    |app| async move {
        let live_at = (Utc::now() + Duration::seconds(2))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let venue = app
            .post(
                "venues",
                json!({"venue": "Soon Hall", "status": "future", "date_utc": live_at}),
            )
            .await
            .id();
        app.get(&format!("venues/{venue}"))
            .await
            .assert_error(403, "venue-not-accessible");
        wait_until_due(2).await;
        let r = app.get(&format!("venues/{venue}")).await;
        r.assert(200);
        assert_eq!(r.body["status"], "publish");
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_publish_a_scheduled_event_exactly_once() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let Some(b) = a.second_instance().await else {
        return;
    };
    let (cat, _) = scheduled(&a, 2).await;
    wait_until_due(2).await;
    // Both instances serve requests at the due moment, at once, many times.
    let list = |router: axum::Router| async move {
        let req = Request::builder()
            .uri(format!("{API}/events?{WINDOW}"))
            .body(Body::empty())
            .unwrap();
        let resp = tower::ServiceExt::oneshot(router, req).await.unwrap();
        resp.status()
    };
    let mut requests = Vec::new();
    for _ in 0..8 {
        requests.push(tokio::spawn(list(a.router())));
        requests.push(tokio::spawn(list(b.clone())));
    }
    for r in requests {
        assert!(r.await.unwrap().is_success());
    }
    assert_eq!(counted(&a, cat).await, (json!(1), true), "counted once");
}
