//! Operating the server: health, request IDs, CORS, security headers, timeouts.

mod common;

use axum::body::Body;
use axum::http::{Method, Request};
use calendar_events::domain::permissions::Role;
use calendar_events::store::users;
use common::*;
use serde_json::json;

both!(health_answers_without_touching_the_api, |app| async move {
    let r = app.get("/health").await;
    r.assert(200);
    assert_eq!(r.body, json!({"status": "ok"}));
});

both!(
    every_response_carries_a_request_id_and_errors_repeat_it,
    |app| async move {
        let ok = app.get("venues").await;
        let id = ok
            .header("x-request-id")
            .expect("generated request id")
            .to_string();
        assert!(id.len() >= 32, "{id}");
        let req = Request::builder()
            .uri(format!("{API}/venues/999999"))
            .header("x-request-id", "trace-me-123")
            .body(Body::empty())
            .unwrap();
        let err = app.send(req).await;
        err.assert_error(400, "rest_invalid_param");
        assert_eq!(err.header("x-request-id"), Some("trace-me-123"));
        assert_eq!(err.body["data"]["request_id"], "trace-me-123");
    }
);

both!(no_cors_headers_by_default, |app| async move {
    let req = Request::builder()
        .uri(format!("{API}/venues"))
        .header("origin", "https://evil.example")
        .body(Body::empty())
        .unwrap();
    let r = app.send(req).await;
    r.assert(200);
    assert!(r.header("access-control-allow-origin").is_none());
    assert!(r.header("server").is_none(), "no server banner");
});

#[tokio::test]
async fn cors_can_be_opened_to_configured_origins() {
    let mut settings = common::settings();
    settings.cors_origins = vec!["https://app.example".into()];
    let app = TestApp::sqlite_with(settings).await;
    let allowed = Request::builder()
        .uri(format!("{API}/venues"))
        .header("origin", "https://app.example")
        .body(Body::empty())
        .unwrap();
    let r = app.send(allowed).await;
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert!(
        r.header("access-control-expose-headers")
            .unwrap()
            .to_ascii_lowercase()
            .contains("x-tec-total")
    );
    let other = Request::builder()
        .uri(format!("{API}/venues"))
        .header("origin", "https://evil.example")
        .body(Body::empty())
        .unwrap();
    assert!(
        app.send(other)
            .await
            .header("access-control-allow-origin")
            .is_none()
    );
    let preflight = Request::builder()
        .method(Method::OPTIONS)
        .uri(format!("{API}/events"))
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type",
        )
        .body(Body::empty())
        .unwrap();
    let r = app.send(preflight).await;
    assert!(r.status.is_success(), "{}", r.status);
    assert!(
        r.header("access-control-allow-methods")
            .unwrap()
            .contains("POST")
    );
}

#[tokio::test]
async fn body_limit_is_configurable() {
    let mut settings = common::settings();
    settings.max_body_bytes = 64;
    let app = TestApp::sqlite_with(settings).await;
    let body = json!({"venue": "x".repeat(100)});
    app.post("venues", body)
        .await
        .assert_error(413, "rest_payload_too_large");
    app.post("venues", json!({"venue": "small"}))
        .await
        .assert(201);
}

both!(
    cached_anonymous_reads_see_every_write_at_once,
    |app| async move {
        let id = app
            .post("venues", json!({"venue": "Cached Hall"}))
            .await
            .id();
        for _ in 0..3 {
            assert_eq!(
                app.get(&format!("venues/{id}")).await.body["venue"],
                "Cached Hall"
            );
        }
        app.post(&format!("venues/{id}"), json!({"venue": "Renamed Hall"}))
            .await
            .assert(200);
        assert_eq!(
            app.get(&format!("venues/{id}")).await.body["venue"],
            "Renamed Hall"
        );
        assert_eq!(
            app.get("venues").await.body["venues"][0]["venue"],
            "Renamed Hall"
        );
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_on_one_instance_invalidates_the_cache_of_another() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let Some(b) = a.second_instance().await else {
        return;
    };
    let id = a
        .post("organizers", json!({"organizer": "Shared"}))
        .await
        .id();
    let read_b = |b: axum::Router| async move {
        let req = Request::builder()
            .uri(format!("{API}/organizers/{id}"))
            .body(Body::empty())
            .unwrap();
        let resp = tower::ServiceExt::oneshot(b, req).await.unwrap();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()["organizer"].clone()
    };
    assert_eq!(read_b(b.clone()).await, "Shared");
    assert_eq!(
        read_b(b.clone()).await,
        "Shared",
        "served from instance B's cache"
    );
    a.post(
        &format!("organizers/{id}"),
        json!({"organizer": "Changed on A"}),
    )
    .await
    .assert(200);
    assert_eq!(
        read_b(b.clone()).await,
        "Changed on A",
        "B sees A's write immediately"
    );
}

/// Instance B may answer from a data version it read up to a millisecond ago; that
/// is safe only because A acknowledges a write no sooner than that after its commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_instance_vouches_for_a_version_older_than_an_acknowledged_write() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let Some(b) = a.second_store().await else {
        return;
    };
    for n in 0..30 {
        let before = b.pool.data_version().await.unwrap();
        let mut tx = a.store.pool.write().await.unwrap();
        users::create(&mut tx, &format!("lease-{n}"), Role::Subscriber, 0)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let after = b.pool.data_version().await.unwrap();
        assert!(
            after > before,
            "write {n}: B still vouched for version {before} after A acknowledged a write"
        );
    }
}

#[tokio::test]
async fn argument_limits_are_configurable() {
    let mut settings = common::settings();
    settings.limits.max_string_bytes = 10;
    settings.limits.max_list_items = 2;
    settings.limits.max_depth = 1;
    let app = TestApp::sqlite_with(settings).await;
    let r = app
        .post("venues", json!({"venue": "a name that is too long"}))
        .await;
    r.assert_error(400, "rest_invalid_param");
    assert_eq!(r.body["data"]["details"]["venue"]["code"], "rest_too_long");
    app.post("venues", json!({"venue": "short"}))
        .await
        .assert(201);
    let r = app.get("events?include=1,2,3").await;
    assert_eq!(
        r.body["data"]["details"]["include"]["code"],
        "rest_too_many_items"
    );
    let deep = json!({"title": "T", "start_date": "2027-01-01", "end_date": "2027-01-01",
                      "tickets": [{"name": {"nested": {"too": "deep"}}}]});
    let r = app.post("events", deep).await;
    assert_eq!(
        r.body["data"]["details"]["tickets"]["code"],
        "rest_too_deep"
    );
}
