//! `import tec URL`: a calendar read from a site's Events Calendar REST API.
//! Against a fixture site that answers with the reference's recorded answers
//! (tests/fixtures/reference/tec, captured from WordPress with The Events
//! Calendar), and between two instances of this server, the source serving the
//! reference's `tribe/events/v1` namespace under `/wp-json`: every item comes
//! over with its ID, and every representation is the same after the move but
//! for the site's address.

mod common;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use calendar_events::cli::transfer::{self, Credentials, Options, Source};
use calendar_events::config::DatabaseArgs;
use common::*;
use serde_json::{Value, json};

const RECORDED_SITE: &str = "http://127.0.0.1:8080";
/// The reference's namespace, under WordPress's REST root.
const TRIBE: &str = "/wp-json/tribe/events/v1/";

/// What the fixture site was asked: each request's path and query, and whether
/// it carried credentials.
#[derive(Default)]
struct Fixture {
    site: String,
    asked: Mutex<Vec<(String, bool)>>,
    /// Page 2 of the events fails once, as a busy site does.
    failed_once: AtomicBool,
    /// A site on plain permalinks: its REST API is at `/?rest_route=/…`.
    plain: bool,
}

fn recorded(name: &str, site: &str) -> Value {
    let text = match name {
        "categories" => include_str!("fixtures/reference/tec/categories_list.json"),
        "tags" => include_str!("fixtures/reference/tec/tags_list.json"),
        "venues" => include_str!("fixtures/reference/tec/venues_list.json"),
        "organizers" => include_str!("fixtures/reference/tec/organizers_list.json"),
        "events" => include_str!("fixtures/reference/tec/events_list.json"),
        "events_page2" => include_str!("fixtures/reference/tec/events_list_page2.json"),
        "index" => include_str!("fixtures/reference/tec/wp_json_index.json"),
        _ => "null",
    };
    serde_json::from_str(&text.replace(RECORDED_SITE, site)).unwrap()
}

async fn home(State(f): State<Arc<Fixture>>) -> Response {
    let root = if f.plain {
        "/?rest_route=/"
    } else {
        "/wp-json/"
    };
    let link = format!("<{}{root}>; rel=\"https://api.w.org/\"", f.site);
    (
        [("link", link)],
        "<!doctype html><title>TEC Reference</title>",
    )
        .into_response()
}

async fn index(State(f): State<Arc<Fixture>>) -> Response {
    axum::Json(recorded("index", &f.site)).into_response()
}

/// A list as the reference answers it. The recorded events list (10 per page of
/// 50) is served as two pages of 5, its recorded second page being exactly that.
async fn list(
    State(f): State<Arc<Fixture>>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let query = query.unwrap_or_default();
    let signed_in = headers.contains_key("authorization");
    f.asked
        .lock()
        .unwrap()
        .push((format!("{name}?{query}"), signed_in));
    let page2 = query.split('&').any(|p| p == "page=2");
    let mut body = match (name.as_str(), page2) {
        ("events", true) => {
            if !f.failed_once.swap(true, Ordering::SeqCst) {
                return (StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "0")]).into_response();
            }
            recorded("events_page2", &f.site)
        }
        ("events", false) => {
            let mut page = recorded("events", &f.site);
            page["events"].as_array_mut().unwrap().truncate(5);
            page
        }
        (other, _) => recorded(other, &f.site),
    };
    if body.is_null() {
        return StatusCode::NOT_FOUND.into_response();
    }
    if name == "events" {
        body["total"] = json!(10);
        body["total_pages"] = json!(2);
    }
    let pages = body["total_pages"].to_string();
    ([("x-wp-totalpages", pages)], axum::Json(body)).into_response()
}

/// WordPress's core route for the event post type: every event's ID, hidden
/// ones too (here event 20, hidden from listings).
async fn core_ids(State(f): State<Arc<Fixture>>, headers: HeaderMap) -> Response {
    f.asked.lock().unwrap().push((
        "wp/v2/tribe_events".into(),
        headers.contains_key("authorization"),
    ));
    let ids: Vec<Value> = (10..=20).map(|id| json!({ "id": id })).collect();
    ([("x-wp-totalpages", "1")], axum::Json(Value::from(ids))).into_response()
}

/// An event by ID: the one hidden from listings is the recorded event 10 under
/// another ID.
async fn single(State(f): State<Arc<Fixture>>, Path(id): Path<i64>) -> Response {
    if id != 20 {
        return StatusCode::NOT_FOUND.into_response();
    }
    let mut e = recorded("events", &f.site)["events"][0].clone();
    e["id"] = json!(20);
    e["title"] = json!("Members only");
    e["slug"] = json!("members-only");
    e["global_id"] = json!("127.0.0.1?id=20");
    e["global_id_lineage"] = json!(["127.0.0.1?id=20"]);
    e["hide_from_listings"] = json!(true);
    axum::Json(e).into_response()
}

async fn fixture_site() -> (Arc<Fixture>, tokio::task::JoinHandle<std::io::Result<()>>) {
    fixture_on(false).await
}

/// WordPress on plain permalinks answers `/?rest_route=/X&…` as `/wp-json/X?…`,
/// and has no `/wp-json/` of its own.
fn plain_route(mut req: axum::extract::Request) -> axum::extract::Request {
    if req.uri().path().starts_with("/wp-json") {
        *req.uri_mut() = "/no-pretty-permalinks".parse().unwrap();
        return req;
    }
    let query = req.uri().query().unwrap_or("").to_string();
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    if let Some((_, route)) = pairs.iter().find(|(k, _)| k == "rest_route") {
        let rest: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().filter(|(k, _)| k != "rest_route"))
            .finish();
        let path = if route == "/" {
            "/".to_string()
        } else {
            route.clone()
        };
        *req.uri_mut() = format!("/wp-json{path}?{rest}").parse().unwrap();
    }
    req
}

async fn fixture_on(plain: bool) -> (Arc<Fixture>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let fixture = Arc::new(Fixture {
        site: format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port()),
        plain,
        ..Default::default()
    });
    let routes = axum::Router::new()
        .route("/", axum::routing::get(home))
        .route("/wp-json/", axum::routing::get(index))
        .route("/wp-json/tribe/events/v1/{name}", axum::routing::get(list))
        .route(
            "/wp-json/tribe/events/v1/events/{id}",
            axum::routing::get(single),
        )
        .route("/wp-json/wp/v2/tribe_events", axum::routing::get(core_ids))
        .with_state(fixture.clone());
    // The path is rewritten before the router picks a route by it.
    let router = match plain {
        true => {
            axum::Router::new().fallback_service(tower::util::MapRequest::new(routes, plain_route))
        }
        false => routes,
    };
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    (fixture, server)
}

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
