//! Conditional GETs: strong `ETag`s on every successful GET (single items, lists,
//! feeds; anonymous and authenticated; cached or not), `304 Not Modified` for an
//! `If-None-Match` that names the current body, and the same tags on every
//! instance sharing a database. On both backends.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, header};
use common::*;
use serde_json::json;

async fn get_if_none_match(app: &TestApp, path: &str, tag: &str, auth: &Auth) -> Resp {
    app.call_with(Method::GET, path, None, auth, &[("if-none-match", tag)])
        .await
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

/// A write with one extra header.
async fn write_if(
    app: &TestApp,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
    name: &str,
    value: &str,
) -> Resp {
    let method = Method::from_bytes(method.as_bytes()).unwrap();
    app.call_with(method, path, body, &app.admin.auth(), &[(name, value)])
        .await
}

both!(
    a_write_with_a_stale_if_match_is_refused_and_not_applied,
    |app| async move {
        let admin = app.admin.auth();
        let id = app
            .event(event(
                "Original",
                "2027-05-01 10:00:00",
                "2027-05-01 11:00:00",
            ))
            .await;
        let path = format!("events/{id}");
        let read = app.get_as(&path, &admin).await;
        let tag = etag(&read);
        // The first editor writes with the tag they read.
        let first = write_if(
            &app,
            "PUT",
            &path,
            Some(json!({"title": "First edit"})),
            "if-match",
            &tag,
        )
        .await;
        first.assert(200);
        // The second read the same version: their write is refused, and changes nothing.
        let second = write_if(
            &app,
            "PUT",
            &path,
            Some(json!({"title": "Second edit"})),
            "if-match",
            &tag,
        )
        .await;
        second.assert_error(412, "rest_precondition_failed");
        assert_eq!(app.get_as(&path, &admin).await.body["title"], "First edit");
        let gone = write_if(&app, "DELETE", &path, None, "if-match", &tag).await;
        gone.assert_error(412, "rest_precondition_failed");
        app.get_as(&path, &admin).await.assert(200);
        // Weak tags never match for a write; `*` matches whatever there is.
        let fresh = etag(&app.get_as(&path, &admin).await);
        write_if(
            &app,
            "PUT",
            &path,
            Some(json!({"title": "Weak"})),
            "if-match",
            &format!("W/{fresh}"),
        )
        .await
        .assert_error(412, "rest_precondition_failed");
        write_if(
            &app,
            "PUT",
            &path,
            Some(json!({"title": "Any"})),
            "if-match",
            "*",
        )
        .await
        .assert(200);
        let fresh = etag(&app.get_as(&path, &admin).await);
        write_if(&app, "DELETE", &path, None, "if-match", &fresh)
            .await
            .assert(200);
        // Without a condition, writes are as they always were.
        app.put(
            &path,
            json!({"title": "Unconditional", "status": "publish"}),
        )
        .await
        .assert(200);
    }
);

both!(
    if_unmodified_since_refuses_a_write_after_a_change,
    |app| async move {
        let id = app
            .event(event("Dated", "2027-05-01 10:00:00", "2027-05-01 11:00:00"))
            .await;
        let path = format!("events/{id}");
        let past = "Mon, 01 Jan 2001 00:00:00 GMT";
        write_if(
            &app,
            "PUT",
            &path,
            Some(json!({"title": "Late"})),
            "if-unmodified-since",
            past,
        )
        .await
        .assert_error(412, "rest_precondition_failed");
        let future = "Fri, 01 Jan 2100 00:00:00 GMT";
        write_if(
            &app,
            "PUT",
            &path,
            Some(json!({"title": "In time"})),
            "if-unmodified-since",
            future,
        )
        .await
        .assert(200);
    }
);

both!(
    venues_organizers_and_terms_take_if_match,
    |app| async move {
        let admin = app.admin.auth();
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let organizer = app
            .post("organizers", json!({"organizer": "Ann"}))
            .await
            .id();
        let category = app.post("categories", json!({"name": "Jazz"})).await.id();
        for (path, field) in [
            (format!("venues/{venue}"), "venue"),
            (format!("organizers/{organizer}"), "organizer"),
            (format!("categories/{category}"), "name"),
        ] {
            let tag = etag(&app.get_as(&path, &admin).await);
            write_if(
                &app,
                "PUT",
                &path,
                Some(json!({field: "Renamed"})),
                "if-match",
                &tag,
            )
            .await
            .assert(200);
            write_if(
                &app,
                "PUT",
                &path,
                Some(json!({field: "Again"})),
                "if-match",
                &tag,
            )
            .await
            .assert_error(412, "rest_precondition_failed");
            write_if(&app, "DELETE", &path, None, "if-match", &tag)
                .await
                .assert_error(412, "rest_precondition_failed");
        }
    }
);

both!(
    of_concurrent_writes_on_one_tag_exactly_one_lands,
    |app| async move {
        let admin = app.admin.auth();
        for round in 0..5 {
            let id = app
                .event(event(
                    &format!("Race {round}"),
                    "2027-05-01 10:00:00",
                    "2027-05-01 11:00:00",
                ))
                .await;
            let path = format!("events/{id}");
            let tag = etag(&app.get_as(&path, &admin).await);
            // Eight editors who all read the same version write at once: their reads
            // all pass the check against the current body; the check under the
            // write's lock lets one through.
            let writes = (0..8).map(|n| {
                let (app, path, tag) = (&app, &path, &tag);
                async move {
                    let r = write_if(
                        app,
                        "PUT",
                        path,
                        Some(json!({"title": format!("Editor {n}")})),
                        "if-match",
                        tag,
                    )
                    .await;
                    (n, r)
                }
            });
            let results = futures_util::future::join_all(writes).await;
            let landed: Vec<usize> = results
                .iter()
                .filter(|(_, r)| r.status.as_u16() == 200)
                .map(|(n, _)| *n)
                .collect();
            assert_eq!(landed.len(), 1, "round {round}: {landed:?} landed");
            for (_, r) in results.iter().filter(|(_, r)| r.status.as_u16() != 200) {
                r.assert_error(412, "rest_precondition_failed");
            }
            let title = format!("Editor {}", landed[0]);
            assert_eq!(
                app.get_as(&path, &admin).await.body["title"],
                title.as_str()
            );
        }
    }
);
