//! Conditional GETs: strong `ETag`s on every successful GET (single items, lists,
//! feeds; anonymous and authenticated; cached or not), `304 Not Modified` for an
//! `If-None-Match` that names the current body, and the same tags on every
//! instance sharing a database. On both backends.

mod common;

use axum::body::Body;
use axum::http::{Request, header};
use common::*;
use serde_json::json;

async fn get_if_none_match(app: &TestApp, path: &str, tag: &str, auth: &Auth) -> Resp {
    let mut req = Request::builder()
        .uri(format!("{API}/{path}"))
        .header(header::IF_NONE_MATCH, tag);
    if let Auth::Basic(login, password) = auth {
        let basic = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            format!("{login}:{password}"),
        );
        req = req.header(header::AUTHORIZATION, format!("Basic {basic}"));
    }
    app.send(req.body(Body::empty()).unwrap()).await
}

fn etag(r: &Resp) -> String {
    let tag = r
        .header("etag")
        .unwrap_or_else(|| panic!("no ETag: {:?}", r.headers));
    assert!(
        tag.starts_with('"') && tag.ends_with('"'),
        "not a strong tag: {tag}"
    );
    tag.to_string()
}

/// A 304: no body, and the tag it confirms.
fn assert_not_modified(r: &Resp, tag: &str) {
    assert_eq!(r.status.as_u16(), 304, "{}", r.text);
    assert!(r.text.is_empty(), "a 304 with a body: {}", r.text);
    assert_eq!(r.header("etag"), Some(tag));
    assert!(r.header("content-type").is_none());
}

both!(
    every_get_is_tagged_and_answers_304_while_unchanged,
    |app| async move {
        let id = app
            .event(with(
                event("Tagged", "2027-05-01 10:00:00", "2027-05-01 11:00:00"),
                json!({"categories": [{"name": "Talks"}]}),
            ))
            .await;
        let admin = app.admin.auth();
        for path in [
            format!("events/{id}"),
            "events?start_date=2027-01-01".to_string(),
            "events?ical=1&start_date=2027-01-01".to_string(),
            "venues".to_string(),
            "categories".to_string(),
        ] {
            for auth in [&Auth::None, &admin] {
                let first = app.get_as(&path, auth).await;
                first.assert(200);
                let tag = etag(&first);
                // The same bytes, the same tag: from the cache, or computed again.
                let again = app.get_as(&path, auth).await;
                assert_eq!(again.text, first.text, "{path}");
                assert_eq!(etag(&again), tag, "{path}");
                let r = get_if_none_match(&app, &path, &tag, auth).await;
                assert_not_modified(&r, &tag);
                // Weak comparison and lists, as RFC 9110 asks of If-None-Match.
                let r = get_if_none_match(&app, &path, &format!("\"nope\", W/{tag}"), auth).await;
                assert_not_modified(&r, &tag);
                let r = get_if_none_match(&app, &path, "\"nope\"", auth).await;
                r.assert(200);
                assert_eq!(r.text, first.text);
            }
        }
    }
);

both!(
    a_write_changes_the_tags_of_what_it_changes,
    |app| async move {
        let id = app
            .event(with(
                event("Before", "2027-05-01 10:00:00", "2027-05-01 11:00:00"),
                json!({"categories": [{"name": "Talks"}]}),
            ))
            .await;
        let path = format!("events/{id}");
        let before = app.get(&path).await;
        let tag = etag(&before);
        // Another event in the category changes the count embedded in this one.
        app.event(with(
            event("Other", "2027-05-02 10:00:00", "2027-05-02 11:00:00"),
            json!({"categories": ["talks"]}),
        ))
        .await;
        let counted = get_if_none_match(&app, &path, &tag, &Auth::None).await;
        counted.assert(200);
        assert_ne!(counted.text, before.text);
        let counted_tag = etag(&counted);
        assert_ne!(counted_tag, tag);
        assert_not_modified(
            &get_if_none_match(&app, &path, &counted_tag, &Auth::None).await,
            &counted_tag,
        );
        app.put(&path, json!({"title": "After"})).await.assert(200);
        let after = get_if_none_match(&app, &path, &counted_tag, &Auth::None).await;
        after.assert(200);
        assert_eq!(after.body["title"], "After");
        assert_ne!(etag(&after), counted_tag);
    }
);

both!(errors_and_writes_are_not_conditional, |app| async move {
    let missing = get_if_none_match(&app, "events/999999", "*", &Auth::None).await;
    assert!(missing.status.is_client_error());
    assert!(missing.header("etag").is_none());
    let created = app
        .post(
            "events",
            event("New", "2027-05-01 10:00:00", "2027-05-01 11:00:00"),
        )
        .await;
    created.assert(201);
    assert!(created.header("etag").is_none());
});

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_sharing_postgres_give_the_same_tags() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let id = app
        .event(event(
            "Shared",
            "2027-05-01 10:00:00",
            "2027-05-01 11:00:00",
        ))
        .await;
    let second = app.second_instance().await.expect("a second instance");
    for path in [
        format!("{API}/events/{id}"),
        format!("{API}/events?start_date=2027-01-01"),
    ] {
        let here = app.get(&path).await;
        let req = Request::builder().uri(&path).body(Body::empty()).unwrap();
        let there = tower::ServiceExt::oneshot(second.clone(), req)
            .await
            .unwrap();
        let there_tag = there
            .headers()
            .get(header::ETAG)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(etag(&here), there_tag, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_do_not_need_the_cache() {
    let app = TestApp::sqlite_with(calendar_events::config::Settings {
        response_cache_bytes: 0,
        ..settings()
    })
    .await;
    let id = app
        .event(event(
            "Uncached",
            "2027-05-01 10:00:00",
            "2027-05-01 11:00:00",
        ))
        .await;
    let path = format!("events/{id}");
    let first = app.get(&path).await;
    let tag = etag(&first);
    assert_not_modified(
        &get_if_none_match(&app, &path, &tag, &Auth::None).await,
        &tag,
    );
}
