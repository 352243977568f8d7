//! A site running The Events Calendar, as the recorded samples show it: its
//! REST API under pretty or plain permalinks, and what it was asked.

use super::*;

const RECORDED_SITE: &str = "http://127.0.0.1:8080";
/// The reference's namespace, under WordPress's REST root.
pub(super) const TRIBE: &str = "/wp-json/tribe/events/v1/";

/// What the fixture site was asked: each request's path and query, and whether
/// it carried credentials.
#[derive(Default)]
pub(super) struct Fixture {
    pub(super) site: String,
    pub(super) asked: Mutex<Vec<(String, bool)>>,
    /// Page 2 of the events fails once, as a busy site does.
    failed_once: AtomicBool,
    /// A site on plain permalinks: its REST API is at `/?rest_route=/…`.
    plain: bool,
}

pub(super) fn recorded(name: &str, site: &str) -> Value {
    let text = match name {
        "categories" => include_str!("../fixtures/reference/tec/categories_list.json"),
        "tags" => include_str!("../fixtures/reference/tec/tags_list.json"),
        "venues" => include_str!("../fixtures/reference/tec/venues_list.json"),
        "organizers" => include_str!("../fixtures/reference/tec/organizers_list.json"),
        "events" => include_str!("../fixtures/reference/tec/events_list.json"),
        "events_page2" => include_str!("../fixtures/reference/tec/events_list_page2.json"),
        "index" => include_str!("../fixtures/reference/tec/wp_json_index.json"),
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

pub(super) async fn fixture_site() -> (Arc<Fixture>, tokio::task::JoinHandle<std::io::Result<()>>) {
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

pub(super) async fn fixture_on(
    plain: bool,
) -> (Arc<Fixture>, tokio::task::JoinHandle<std::io::Result<()>>) {
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
