//! `import tec URL`: a calendar read from a site's Events Calendar REST API.
//! Against a fixture site that answers with the reference's recorded answers
//! (tests/fixtures/reference/tec, captured from WordPress with The Events
//! Calendar), and between two instances of this server, the source serving the
//! reference's `tribe/events/v1` namespace under `/wp-json`: every item comes
//! over with its ID, and every representation is the same after the move but
//! for the site's address.

#[path = "../common/mod.rs"]
mod common;

mod fixture_site;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use calendar_events::cli::transfer::{self, Credentials, Options, Source};
use calendar_events::config::DatabaseArgs;
use common::*;
use fixture_site::{TRIBE, fixture_on, fixture_site, recorded};
use serde_json::{Value, json};

async fn import_tec(
    target: &TestApp,
    url: &str,
    credentials: Option<(&str, &str)>,
    dry_run: bool,
) -> Result<(), String> {
    let db = DatabaseArgs {
        database_url: target.database_url(),
    };
    let source = Source::Tec {
        url: url.to_string(),
        credentials: credentials.map(|(login, password)| Credentials {
            login: login.into(),
            password: password.into(),
        }),
        concurrency: 3,
    };
    let options = Options {
        login: None,
        dry_run,
    };
    transfer::import(&db, source, options).await
}

/// The fields an event keeps through a move, as the API shows them.
const EVENT_FIELDS: &[&str] = &[
    "title",
    "description",
    "excerpt",
    "slug",
    "status",
    "date",
    "date_utc",
    "all_day",
    "start_date",
    "end_date",
    "utc_start_date",
    "utc_end_date",
    "timezone",
    "timezone_abbr",
    "cost",
    "website",
    "show_map",
    "show_map_link",
    "hide_from_listings",
    "sticky",
    "featured",
];

fn ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect()
}

both!(
    a_site_running_the_events_calendar_moves_over_with_its_ids,
    |app| async move {
        let (fixture, _server) = fixture_site().await;
        import_tec(&app, &fixture.site, Some(("admin", "xxxx xxxx")), false)
            .await
            .unwrap();
        let asked = fixture.asked.lock().unwrap().clone();
        assert!(asked.iter().all(|(_, signed_in)| *signed_in), "{asked:?}");
        let events_asked: Vec<&String> = asked
            .iter()
            .map(|(q, _)| q)
            .filter(|q| q.starts_with("events?") && !q.contains("cursor="))
            .collect();
        assert_eq!(
            events_asked.len(),
            3,
            "page 2 tried again: {events_asked:?}"
        );
        assert!(events_asked.iter().all(|q| q.contains("start_date=1900")
            && q.contains("status=publish,future,draft,pending,private,trash")));
        assert!(
            asked
                .iter()
                .any(|(q, _)| q.starts_with("categories?") && q.contains("hide_empty=0"))
        );

        let admin = app.admin.auth();
        let source = recorded("events", &fixture.site);
        let second = recorded("events_page2", &fixture.site);
        let window = "events?start_date=2000-01-01&per_page=50";
        let here = app.get_as(window, &admin).await;
        assert_eq!(ids(&here.body["events"]), (10..=19).collect::<Vec<_>>());
        let hidden = app.get_as("events/20", &admin).await;
        assert_eq!(hidden.body["title"], "Members only");
        assert_eq!(hidden.body["hide_from_listings"], true);
        for e in source["events"]
            .as_array()
            .unwrap()
            .iter()
            .chain(second["events"].as_array().unwrap())
        {
            let id = e["id"].as_i64().unwrap();
            let ours = app.get_as(&format!("events/{id}"), &admin).await;
            ours.assert(200);
            for field in EVENT_FIELDS {
                assert_eq!(ours.body[field], e[field], "event {id}: {field}");
            }
            assert_eq!(ours.body["venue"]["id"], e["venue"]["id"]);
            assert_eq!(ours.body["venue"]["address"], e["venue"]["address"]);
            assert_eq!(ids(&ours.body["organizer"]), ids(&e["organizer"]));
            assert_eq!(ids(&ours.body["categories"]), ids(&e["categories"]));
            assert_eq!(ids(&ours.body["tags"]), ids(&e["tags"]));
            assert_eq!(
                ours.body["cost_details"]["values"],
                e["cost_details"]["values"]
            );
        }
        let venues = recorded("venues", &fixture.site);
        for v in venues["venues"].as_array().unwrap() {
            let ours = app.get_as(&format!("venues/{}", v["id"]), &admin).await;
            for field in [
                "venue", "slug", "address", "city", "country", "zip", "phone", "website",
            ] {
                assert_eq!(ours.body[field], v[field], "venue {}: {field}", v["id"]);
            }
        }
        let categories = app.get("categories?hide_empty=0").await;
        let names: Vec<&str> = categories.body["categories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["slug"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");

        // A second run updates what the first created, and creates nothing.
        let event = app
            .post_as(
                "events",
                event("Made here", "2027-03-01 10:00:00", "2027-03-01 11:00:00"),
                &admin,
            )
            .await;
        assert!(
            event.id() > 20,
            "what is created here follows the imported IDs"
        );
        import_tec(&app, &fixture.site, Some(("admin", "xxxx xxxx")), false)
            .await
            .unwrap();
        let again = app.get_as(window, &admin).await;
        assert_eq!(again.body["total"], 11);
        assert_eq!(app.get("venues").await.body["total"], 3);
    }
);

both!(
    a_dry_run_reads_and_checks_everything_and_writes_nothing,
    |app| async move {
        let (fixture, _server) = fixture_site().await;
        import_tec(&app, &fixture.site, None, true).await.unwrap();
        assert!(!fixture.asked.lock().unwrap().is_empty());
        let admin = app.admin.auth();
        assert_eq!(
            app.get_as("events?start_date=2000-01-01", &admin)
                .await
                .body["total"],
            0
        );
        assert_eq!(app.get_as("venues", &admin).await.body["total"], 0);
        assert_eq!(app.get("categories?hide_empty=0").await.body["total"], 0);
    }
);

both!(
    a_site_without_the_events_calendar_is_reported,
    |app| async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let site = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let router = axum::Router::new().route("/", axum::routing::get(|| async { "a blog" }));
        let _server = tokio::spawn(async move { axum::serve(listener, router).await });
        let err = import_tec(&app, &site, None, false).await.unwrap_err();
        assert!(err.contains("no Events Calendar API found"), "{err}");
    }
);

/// Builds a calendar on the source through its API: a category tree, tags, a
/// venue with coordinates, organizers, and events of several kinds and statuses.
async fn calendar(source: &TestApp, base: &str) {
    let at = |path: &str| format!("{base}{path}");
    let admin = source.admin.auth();
    let parent = source
        .post_as(
            &at("categories"),
            json!({"name": "Music", "description": "All music"}),
            &admin,
        )
        .await
        .id();
    let jazz = source
        .post_as(
            &at("categories"),
            json!({"name": "Jazz", "parent": parent}),
            &admin,
        )
        .await
        .id();
    let tag = source
        .post_as(&at("tags"), json!({"name": "free"}), &admin)
        .await
        .id();
    let venue = source
        .post_as(&at("venues"), json!({"venue": "Riverside Hall", "address": "1 River Rd", "city": "Lyon",
            "country": "France", "geo_lat": 45.76, "geo_lng": 4.84, "website": "https://hall.example"}), &admin)
        .await
        .id();
    let organizer = source
        .post_as(
            &at("organizers"),
            json!({"organizer": "Arts Council", "email": "arts@council.example"}),
            &admin,
        )
        .await
        .id();
    source
        .post_as(
            &at("organizers"),
            json!({"organizer": "Unlinked draft", "status": "draft"}),
            &admin,
        )
        .await
        .assert(201);
    let events = [
        (
            "Winter Jazz",
            "2027-12-04 19:00:00",
            "2027-12-04 22:00:00",
            json!({
            "categories": [jazz], "tags": [tag], "venue": venue, "organizer": [organizer],
            "cost": "15", "featured": true, "sticky": true, "timezone": "Europe/Paris",
            "description": "<p>An <strong>evening</strong></p>",
            "image": "https://cdn.example/jazz.jpg"}),
        ),
        (
            "Craft Fair",
            "2027-12-11 00:00:00",
            "2027-12-13 23:59:59",
            json!({
            "all_day": true, "categories": [parent], "website": "https://fair.example"}),
        ),
        (
            "Long ago",
            "2001-05-01 10:00:00",
            "2001-05-01 12:00:00",
            json!({}),
        ),
        (
            "Planning",
            "2027-06-01 10:00:00",
            "2027-06-01 12:00:00",
            json!({"status": "draft"}),
        ),
        (
            "Board",
            "2027-06-02 10:00:00",
            "2027-06-02 12:00:00",
            json!({"status": "private", "hide_from_listings": true}),
        ),
    ];
    for (title, start, end, fields) in events {
        let body = with(event(title, start, end), fields);
        source
            .post_as(&at("events"), body, &admin)
            .await
            .assert(201);
    }
    let gone = source
        .post_as(
            &at("events"),
            event("Cancelled", "2027-07-01 10:00:00", "2027-07-01 12:00:00"),
            &admin,
        )
        .await
        .id();
    source
        .delete_as(&at(&format!("events/{gone}")), &admin)
        .await
        .assert(200);
}

/// Every item of every list, as an administrator reads it on `app`, with the
/// site's address (and namespace) written as `site`.
async fn everything(app: &TestApp, prefix: &str, site_from: &[(&str, &str)]) -> Vec<Value> {
    let admin = app.admin.auth();
    let mut all = Vec::new();
    // The sync lists everything (events hidden from listings too); by ID, as
    // the order of changes differs between the two.
    for key in ["categories", "tags", "venues", "organizers", "events"] {
        let mut items: Vec<Value> = Vec::new();
        let mut cursor = "0".to_string();
        // Pages until nothing more may follow (a long transaction elsewhere in the
        // PostgreSQL cluster can hold changes back for a moment).
        loop {
            let path = format!("{prefix}{key}?cursor={cursor}&per_page=50");
            let r = app.get_as(&path, &admin).await;
            r.assert(200);
            let mut text = r.body[key].to_string();
            for (from, to) in site_from {
                text = text.replace(from, to);
            }
            items.extend(serde_json::from_str::<Vec<Value>>(&text).unwrap());
            cursor = r.body["cursor"].as_str().unwrap().to_string();
            if r.body["next_rest_url"].is_null() {
                break;
            }
        }
        items.sort_by_key(|i| i["id"].as_i64());
        all.extend(items.iter().map(comparable));
    }
    all
}

/// A representation without what a move changes: when it was last written, and
/// the image's attachment (a new one, for the same file).
fn comparable(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !["modified", "modified_utc"].contains(&k.as_str()))
                .map(|(k, v)| match k.as_str() {
                    "image" if v.is_object() => (k.clone(), v["url"].clone()),
                    _ => (k.clone(), comparable(v)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

both!(
    an_instance_moves_to_another_through_the_reference_namespace,
    |app| async move {
        let backend = app.backend();
        let make = async |s: calendar_events::config::Settings| match backend {
            calendar_events::store::Backend::Sqlite => Some(TestApp::sqlite_with(s).await),
            calendar_events::store::Backend::Postgres => TestApp::postgres_with(s).await,
        };
        let wordpress_like =
            |s: calendar_events::config::Settings| calendar_events::config::Settings {
                rest_root: "/wp-json".into(),
                tribe_namespace: true,
                ..s
            };
        let Some((source, site, _server)) = on_socket(make, wordpress_like).await else {
            return;
        };
        calendar(&source, TRIBE).await;
        // The second instance serves the reference's namespace too: its clients
        // change only the host they call.
        drop(app);
        let target = source.another(wordpress_like(settings())).await;
        let admin = &source.admin;
        import_tec(&target, &site, Some((&admin.login, &admin.password)), false)
            .await
            .unwrap();
        let moved = [
            (site.as_str(), SITE),
            ("127.0.0.1?id=", "calendar.test?id="),
        ];
        let before = everything(&source, TRIBE, &moved).await;
        let after = everything(&target, TRIBE, &[]).await;
        assert_eq!(before.len(), 12, "{before:#?}");
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a, b);
        }
        assert_eq!(before.len(), after.len());
        // Again: every item written over the one the first run made, none twice.
        import_tec(&target, &site, Some((&admin.login, &admin.password)), false)
            .await
            .unwrap();
        let again = everything(&target, TRIBE, &[]).await;
        assert_eq!(again.len(), before.len());
        assert_eq!(again, after);
    }
);

both!(an_icalendar_feed_is_read_from_its_url, |app| async move {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let feed = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n\
                    UID:walk@club\r\nSUMMARY:Night walk\r\nDTSTART:20270901T200000Z\r\n\
                    DTEND:20270901T220000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let router = axum::Router::new().route(
        "/club.ics",
        axum::routing::get(move || async move { ([("content-type", "text/calendar")], feed) }),
    );
    let _server = tokio::spawn(async move { axum::serve(listener, router).await });
    let db = DatabaseArgs {
        database_url: app.database_url(),
    };
    let options = Options {
        login: None,
        dry_run: false,
    };
    // A `webcal://` link is read over HTTPS, which this fixture does not speak.
    let url = format!("http://127.0.0.1:{port}/club.ics");
    transfer::import(&db, Source::Ics(url), options)
        .await
        .unwrap();
    let r = app.get("events?start_date=2027-09-01").await;
    assert_eq!(titles(&r), ["Night walk"]);
});

both!(
    a_site_on_plain_permalinks_is_read_through_rest_route,
    |app| async move {
        let (fixture, _server) = fixture_on(true).await;
        import_tec(&app, &fixture.site, Some(("admin", "xxxx xxxx")), false)
            .await
            .unwrap();
        let admin = app.admin.auth();
        let here = app
            .get_as("events?start_date=2000-01-01&per_page=50", &admin)
            .await;
        assert_eq!(ids(&here.body["events"]), (10..=19).collect::<Vec<_>>());
        assert_eq!(
            app.get_as("events/20", &admin).await.body["title"],
            "Members only"
        );
        assert_eq!(app.get("venues").await.body["total"], 3);
    }
);
