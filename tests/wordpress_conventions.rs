//! The conventions WordPress clients rely on beyond the routes themselves.

mod common;

use axum::body::Body;
use axum::http::{Request, header};
use common::*;
use serde_json::Value;

fn post_with(path: &str, auth: &TestUser, header: Option<(&str, &str)>) -> Request<Body> {
    use base64::Engine;
    let token = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", auth.login, auth.password));
    let mut req = Request::builder()
        .method("POST")
        .uri(format!("{API}/{path}"))
        .header(header::AUTHORIZATION, format!("Basic {token}"));
    if let Some((name, value)) = header {
        req = req.header(name, value);
    }
    req.body(Body::empty()).unwrap()
}

both!(
    a_post_can_say_it_is_a_delete_as_wordpress_lets_it,
    |app| async move {
        let a = app
            .event(event("A", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let b = app
            .event(event("B", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let r = app
            .send(post_with(
                &format!("events/{a}?_method=DELETE"),
                &app.admin,
                None,
            ))
            .await;
        r.assert(200);
        assert_eq!(r.body["status"], "trash");
        let r = app
            .send(post_with(
                &format!("events/{b}"),
                &app.admin,
                Some(("X-HTTP-Method-Override", "delete")),
            ))
            .await;
        r.assert(200);
        assert_eq!(r.body["status"], "trash");
        for id in [a, b] {
            let r = app.get_as(&format!("events/{id}"), &app.admin.auth()).await;
            assert_eq!(r.body["status"], "trash", "really trashed");
        }
        // Deleting for good through the override.
        let r = app
            .send(post_with(
                &format!("events/{a}?_method=DELETE&force=true"),
                &app.admin,
                None,
            ))
            .await;
        r.assert(200);
        app.get_as(&format!("events/{a}"), &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        // An override naming a method the route does not have is no route, never the POST.
        let c = app
            .event(event("C", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let r = app
            .send(post_with(
                &format!("events/{c}?_method=BREW"),
                &app.admin,
                None,
            ))
            .await;
        r.assert_error(404, "rest_no_route");
        let r = app
            .send(post_with("events?_method=DELETE", &app.admin, None))
            .await;
        r.assert_error(404, "rest_no_route");
        // The override is for POSTs: a GET stays a read.
        let r = app.get(&format!("events/{c}?_method=DELETE")).await;
        r.assert(200);
        assert_eq!(r.body["status"], "publish");
    }
);

/// Two events, the first in a category, for the global parameters to shape.
async fn two_events(app: &TestApp) -> (i64, i64) {
    let a = app
        .event(with(
            event("Jazz", "2027-02-01 20:00:00", "2027-02-01 22:00:00"),
            serde_json::json!({"categories": [{"name": "Music"}]}),
        ))
        .await;
    let b = app
        .event(event("Film", "2027-02-02 20:00:00", "2027-02-02 22:00:00"))
        .await;
    (a, b)
}

both!(fields_shape_answers_as_in_the_reference, |app| async move {
    let (a, _) = two_events(&app).await;
    let list = "events?start_date=2027-01-01&per_page=1";
    let r = app.get(&format!("{list}&_fields=total,total_pages")).await;
    r.assert(200);
    assert_eq!(r.body, serde_json::json!({"total": 2, "total_pages": 2}));
    assert_eq!(r.header("x-wp-total"), Some("2"), "headers are kept");
    // The keys of the events are not keys of the list; a path does not reach
    // into the array (as the reference's samples show).
    assert_eq!(
        app.get(&format!("{list}&_fields=id,title")).await.text,
        "[]"
    );
    assert_eq!(
        app.get(&format!("{list}&_fields=events.id")).await.text,
        r#"{"events":[]}"#
    );
    // On one event, nested paths reach into objects.
    let one = app
        .get(&format!(
            "events/{a}?_fields=id,title,categories,venue.venue"
        ))
        .await;
    one.assert(200);
    // An event without a venue has `"venue": []`: the path keeps the key, and
    // finds nothing under it, as PHP's arrays do.
    assert_eq!(keys(&one.body), ["id", "title", "categories", "venue"]);
    assert_eq!(one.body["venue"], serde_json::json!([]));
    assert_eq!(one.body["categories"][0]["name"], "Music");
    // The tag is the shaped body's, and it answers 304.
    let tag = one.header("etag").unwrap().to_string();
    let again = app
        .call_with(
            axum::http::Method::GET,
            &format!("events/{a}?_fields=id,title,categories,venue.venue"),
            None,
            &Auth::None,
            &[("if-none-match", &tag)],
        )
        .await;
    assert_eq!(again.status.as_u16(), 304);
    let whole = app.get(&format!("events/{a}")).await;
    assert_ne!(whole.header("etag"), Some(tag.as_str()));
    // Errors are left whole.
    app.get("events/99999?_fields=code")
        .await
        .assert_error(400, "rest_invalid_param");
});

both!(
    envelopes_carry_status_and_headers_in_the_body,
    |app| async move {
        two_events(&app).await;
        let r = app
            .get("events?start_date=2027-01-01&per_page=1&_envelope")
            .await;
        r.assert(200);
        assert_eq!(keys(&r.body), ["body", "status", "headers"]);
        assert_eq!(r.body["status"], 200);
        assert_eq!(r.body["headers"]["X-WP-Total"], 2);
        assert_eq!(r.body["headers"]["X-TEC-TotalPages"], 2);
        assert_eq!(r.body["body"]["events"].as_array().unwrap().len(), 1);
        // An error comes back in an HTTP 200 envelope.
        let e = app.get("events/99999?_envelope").await;
        e.assert(200);
        assert_eq!(e.body["status"], 400);
        assert_eq!(e.body["body"]["code"], "rest_invalid_param");
        // `_embed` is accepted and changes nothing.
        let plain = app.get("events?start_date=2027-01-01").await;
        let embedded = app.get("events?start_date=2027-01-01&_embed").await;
        assert_eq!(plain.text, embedded.text);
    }
);

both!(
    options_describe_a_route_and_rest_route_reaches_it,
    |app| async move {
        two_events(&app).await;
        let index = app.get("").await;
        for (path, key) in [
            ("events", "/calendar/events/v1/events"),
            ("events/1", "/calendar/events/v1/events/(?P<id>\\d+)"),
            ("categories", "/calendar/events/v1/categories"),
        ] {
            let r = app
                .call(axum::http::Method::OPTIONS, path, None, &Auth::None)
                .await;
            r.assert(200);
            // The default window starts now: two answers may be a second apart.
            assert_eq!(
                without_clock(&r.body),
                without_clock(&index.body["routes"][key]),
                "{path}"
            );
            let methods: Vec<&str> = r.body["methods"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            assert_eq!(r.header("allow"), Some(methods.join(", ").as_str()));
        }
        let pretty = app.get("events?start_date=2027-01-01&per_page=1").await;
        let routed = app
            .get("/?rest_route=/calendar/events/v1/events&start_date=2027-01-01&per_page=1")
            .await;
        routed.assert(200);
        assert_eq!(routed.body, pretty.body);
    }
);

both!(
    jsonp_is_off_unless_the_operator_turns_it_on,
    |app| async move {
        app.get("events?_jsonp=cb")
            .await
            .assert_error(400, "rest_callback_disabled");
    }
);

async fn discovery_and_jsonp_with_a_rest_root(app: TestApp) {
    let root = app.get("/").await;
    root.assert(200);
    let link = format!("<{SITE}/wp-json/>; rel=\"https://api.w.org/\"");
    assert_eq!(root.header("link"), Some(link.as_str()));
    assert!(root.text.contains("<html"), "{}", root.text);
    // Every answer carries it, errors and paged lists (beside their own links) too.
    let missing = app.get("/wp-json/calendar/events/v1/nothing").await;
    assert_eq!(missing.header("link"), Some(link.as_str()));
    for (title, day) in [("A", "01"), ("B", "02")] {
        let start = format!("2027-02-{day} 20:00:00");
        let end = format!("2027-02-{day} 22:00:00");
        app.post(
            "/wp-json/calendar/events/v1/events",
            event(title, &start, &end),
        )
        .await
        .assert(201);
    }
    let paged = app
        .get("/wp-json/calendar/events/v1/events?start_date=2027-01-01&per_page=1")
        .await;
    let links: Vec<&str> = paged
        .headers
        .get_all("link")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert!(links.contains(&link.as_str()), "{links:?}");
    assert!(
        links.iter().any(|l| l.contains("rel=\"next\"")),
        "{links:?}"
    );
    // The site index, shaped as WordPress's.
    let index = app.get("/wp-json/").await;
    index.assert(200);
    assert_eq!(
        keys(&index.body),
        [
            "name",
            "description",
            "url",
            "home",
            "gmt_offset",
            "timezone_string",
            "namespaces",
            "authentication",
            "routes",
            "_links"
        ]
    );
    assert_eq!(
        index.body["namespaces"],
        serde_json::json!(["calendar/events/v1"])
    );
    let namespace = app.get("/wp-json/calendar/events/v1").await;
    // The events route's default window starts now: the two answers may be a second
    // apart.
    let without_clock = |routes: &serde_json::Value| {
        let mut routes = routes.clone();
        if let Some(args) =
            routes["/calendar/events/v1/events"]["endpoints"][0]["args"].as_object_mut()
        {
            for date in ["start_date", "end_date"] {
                if let Some(arg) = args.get_mut(date).and_then(|a| a.as_object_mut()) {
                    arg.remove("default");
                }
            }
        }
        routes
    };
    assert_eq!(
        without_clock(&index.body["routes"]),
        without_clock(&namespace.body["routes"])
    );
    // JSONP, turned on: JavaScript around the JSON, and only plain callback names.
    let js = app
        .get("/wp-json/calendar/events/v1/events?start_date=2027-01-01&_jsonp=my.cb_1")
        .await;
    js.assert(200);
    assert_eq!(
        js.header("content-type"),
        Some("application/javascript; charset=UTF-8")
    );
    assert!(
        js.text.starts_with("/**/my.cb_1({\"events\":"),
        "{}",
        js.text
    );
    assert!(js.text.ends_with("})"));
    app.get("/wp-json/calendar/events/v1/events?_jsonp=alert(1)")
        .await
        .assert_error(400, "rest_callback_invalid");
}

fn wordpress_settings() -> calendar_events::config::Settings {
    calendar_events::config::Settings {
        rest_root: "/wp-json".into(),
        jsonp: true,
        ..settings()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_and_jsonp_with_a_rest_root_sqlite() {
    discovery_and_jsonp_with_a_rest_root(TestApp::sqlite_with(wordpress_settings()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_and_jsonp_with_a_rest_root_postgres() {
    if let Some(app) = TestApp::postgres_with(wordpress_settings()).await {
        discovery_and_jsonp_with_a_rest_root(app).await;
    }
}

/// With `--tribe-namespace`, the reference's own paths answer, and every URL an
/// answer hands out stays in the namespace asked.
async fn the_reference_namespace_is_served_too(app: TestApp) {
    let tribe = "/tribe/events/v1";
    for day in ["01", "02"] {
        let start = format!("2027-02-{day} 20:00:00");
        let end = format!("2027-02-{day} 22:00:00");
        app.post(&format!("{tribe}/events"), event("E", &start, &end))
            .await
            .assert(201);
    }
    let list = app
        .get(&format!("{tribe}/events?start_date=2027-01-01&per_page=1"))
        .await;
    list.assert(200);
    let ours = app.get("events?start_date=2027-01-01&per_page=1").await;
    let mut tribe_event = list.body["events"][0].clone();
    assert_eq!(
        tribe_event["rest_url"],
        format!("{SITE}{tribe}/events/{}", tribe_event["id"])
    );
    tribe_event["rest_url"] = ours.body["events"][0]["rest_url"].clone();
    assert_eq!(
        tribe_event, ours.body["events"][0],
        "the same event otherwise"
    );
    let base = format!("{SITE}{tribe}/events/");
    assert!(list.body["rest_url"].as_str().unwrap().starts_with(&base));
    assert!(
        list.body["next_rest_url"]
            .as_str()
            .unwrap()
            .starts_with(&base)
    );
    let index = app.get(tribe).await;
    index.assert(200);
    assert_eq!(index.body["namespace"], "tribe/events/v1");
    let keys: Vec<&String> = index.body["routes"].as_object().unwrap().keys().collect();
    assert!(keys.iter().all(|k| k.starts_with(tribe)), "{keys:?}");
    assert_eq!(
        index.body["routes"][tribe]["endpoints"][0]["args"]["namespace"]["default"],
        "tribe/events/v1"
    );
    let doc = app.get(&format!("{tribe}/doc")).await;
    doc.assert(200);
    assert_eq!(doc.body["servers"][0]["url"], format!("{SITE}{tribe}"));
    let options = app
        .call(
            axum::http::Method::OPTIONS,
            &format!("{tribe}/events"),
            None,
            &Auth::None,
        )
        .await;
    assert_eq!(options.body["namespace"], "tribe/events/v1");
}

fn aliased() -> calendar_events::config::Settings {
    calendar_events::config::Settings {
        tribe_namespace: true,
        ..settings()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_namespace_is_served_too_sqlite() {
    the_reference_namespace_is_served_too(TestApp::sqlite_with(aliased()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_namespace_is_served_too_postgres() {
    if let Some(app) = TestApp::postgres_with(aliased()).await {
        the_reference_namespace_is_served_too(app).await;
    }
}

both!(
    without_the_setting_the_reference_namespace_is_no_route,
    |app| async move {
        app.get("/tribe/events/v1/events")
            .await
            .assert_error(404, "rest_no_route");
    }
);

/// A route description without the defaults that name the current second.
fn without_clock(route: &Value) -> Value {
    let mut route = route.clone();
    for endpoint in route["endpoints"].as_array_mut().into_iter().flatten() {
        for arg in ["start_date", "end_date"] {
            if let Some(a) = endpoint["args"].get_mut(arg).and_then(Value::as_object_mut) {
                a.remove("default");
            }
        }
    }
    route
}
