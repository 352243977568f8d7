//! WordPress's REST conventions, for the clients written against it (node-wpapi,
//! the block editor's `apiFetch`, plugins' scripts): discovery (the `Link` header
//! every response carries and the site index at the REST root), `?rest_route=`,
//! `OPTIONS` on a route, and the global parameters `_fields`, `_envelope` and (only
//! when an operator turns it on) `_jsonp`. `_embed` is accepted and changes nothing:
//! the representations already embed what they link to.
//!
//! The global parameters reshape the finished answer, as WordPress's
//! `rest_post_dispatch` filters do: the handlers and the response cache never see
//! them, so a cached answer serves every shape of itself.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;
use chrono::{Offset, TimeZone};
use serde_json::{Map, Value, json};

use super::conditional;
use super::error::ApiError;
use super::index::{self, Described, route_entry};
use super::json::{json, json_raw};
use super::state::{App, Lang};
use super::urls::Urls;
use crate::api::table::Route;
use crate::config::Settings;
use crate::domain::message::Msg;

/// The parameters WordPress reads on every request, not declared by any route.
#[derive(Debug, Default, PartialEq)]
struct Globals {
    fields: Option<String>,
    envelope: bool,
    jsonp: Option<String>,
}

impl Globals {
    const NAMES: [&str; 3] = ["_fields", "_envelope", "_jsonp"];

    fn of(query: Option<&str>) -> Option<Globals> {
        let query = query?;
        if !Globals::NAMES.iter().any(|n| query.contains(n)) {
            return None;
        }
        let mut g = Globals::default();
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            match k.as_ref() {
                "_fields" => g.fields = Some(v.into_owned()),
                "_envelope" => g.envelope = true,
                "_jsonp" => g.jsonp = Some(v.into_owned()),
                _ => {}
            }
        }
        (g != Globals::default()).then_some(g)
    }
}

/// `/?rest_route=/calendar/events/v1/events&per_page=2` is the request
/// `<rest_root>/calendar/events/v1/events?per_page=2`, for sites whose server
/// does not pass pretty URLs on.
pub fn rest_route(mut req: Request, rest_root: &str) -> Request {
    if req.uri().path() != "/" {
        return req;
    }
    let Some(query) = req.uri().query() else {
        return req;
    };
    let mut route = None;
    let mut rest = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if k == "rest_route" && route.is_none() {
            route = Some(v.into_owned());
        } else {
            rest.append_pair(&k, &v);
        }
    }
    let Some(route) = route else {
        return req;
    };
    let path = format!("{rest_root}/{}", route.trim_start_matches('/'));
    let rest = rest.finish();
    let target = match rest.is_empty() {
        true => path,
        false => format!("{path}?{rest}"),
    };
    if let Ok(uri) = Uri::try_from(target) {
        *req.uri_mut() = uri;
    }
    req
}

/// What the layer needs of the settings, made once: the discovery link, and
/// whether JSONP is on.
#[derive(Clone)]
pub struct Conventions {
    link: Option<HeaderValue>,
    jsonp: bool,
}

impl Conventions {
    /// `Link: <site/wp-json/>; rel="https://api.w.org/"`, how WordPress clients find
    /// the API from any page of the site. Only with a REST root (`--rest-root
    /// /wp-json`): without one, the site index would have to be the home page.
    pub fn of(settings: &Settings) -> Conventions {
        let link = (!settings.rest_root.is_empty())
            .then(|| {
                let link = format!(
                    "<{}{}/>; rel=\"https://api.w.org/\"",
                    settings.site_url, settings.rest_root
                );
                HeaderValue::from_str(&link).ok()
            })
            .flatten();
        Conventions {
            link,
            jsonp: settings.jsonp,
        }
    }
}

/// The layer: the discovery link on every response, and the global parameters.
pub async fn conventions(State(c): State<Conventions>, mut req: Request, next: Next) -> Response {
    let globals = Globals::of(req.uri().query());
    let mut resp = match globals {
        None => next.run(req).await,
        Some(g) => {
            let lang = super::language_of(req.uri());
            let request_id = req
                .headers()
                .get(super::REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            match check_jsonp(&g, c.jsonp) {
                Err(e) => e.response_with_id(lang, request_id.as_deref()),
                Ok(()) => {
                    // The answer is compared once it has its final shape.
                    let if_none_match = conditional::if_none_match(req.method(), req.headers());
                    req.headers_mut().remove(header::IF_NONE_MATCH);
                    strip_globals(req.uri_mut());
                    let head = req.method() == Method::HEAD;
                    let inner = next.run(req).await;
                    let shaped = reshape(inner, &g, head).await;
                    conditional::answer(if_none_match.as_ref(), shaped)
                }
            }
        }
    };
    if let Some(link) = c.link {
        resp.headers_mut().append(header::LINK, link);
    }
    resp
}

/// JSONP lets any site read what a visitor's browser may read here, cookies and
/// all: off unless the operator turns it on (`--jsonp`), as a deliberate exposure.
fn check_jsonp(g: &Globals, enabled: bool) -> Result<(), ApiError> {
    let Some(callback) = &g.jsonp else {
        return Ok(());
    };
    if !enabled {
        return Err(ApiError::coded(
            400,
            "rest_callback_disabled",
            Msg::JsonpDisabled,
        ));
    }
    let valid = !callback.is_empty()
        && callback.len() <= 128
        && callback
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    match valid {
        true => Ok(()),
        false => Err(ApiError::coded(
            400,
            "rest_callback_invalid",
            Msg::JsonpInvalid,
        )),
    }
}

fn strip_globals(uri: &mut Uri) {
    let Some(query) = uri.query() else { return };
    let kept: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .filter(|(k, _)| !Globals::NAMES.contains(&k.as_str()))
        .collect();
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&kept)
        .finish();
    let target = match query.is_empty() {
        true => uri.path().to_string(),
        false => format!("{}?{query}", uri.path()),
    };
    if let Ok(stripped) = Uri::try_from(target) {
        *uri = stripped;
    }
}

/// The answer in the shape the global parameters ask for. Only JSON answers are
/// reshaped (a feed is not), and `_fields` leaves errors whole, as WordPress does.
async fn reshape(resp: Response, g: &Globals, head: bool) -> Response {
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if !is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    if let Some(fields) = &g.fields
        && parts.status.is_success()
    {
        value = filter_fields(value, fields);
    }
    if g.envelope {
        value = json!({
            "body": value,
            "status": parts.status.as_u16(),
            "headers": envelope_headers(&parts.headers),
        });
        parts.status = StatusCode::OK;
    }
    let mut body = serde_json::to_vec(&value).unwrap_or_default();
    if let Some(callback) = &g.jsonp {
        body = [format!("/**/{callback}(").as_bytes(), &body, b")"].concat();
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/javascript; charset=UTF-8"),
        );
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::ETAG);
    if parts.status == StatusCode::OK {
        parts.headers.insert(header::ETAG, conditional::etag(&body));
    }
    if head {
        return Response::from_parts(parts, Body::empty());
    }
    Response::from_parts(parts, Body::from(body))
}

/// The headers an envelope carries: those the API itself sets (totals as
/// numbers, as WordPress gives them), not the server's.
fn envelope_headers(headers: &HeaderMap) -> Value {
    let mut out = Map::new();
    for (name, canonical) in [
        ("x-wp-total", "X-WP-Total"),
        ("x-wp-totalpages", "X-WP-TotalPages"),
        ("x-tec-total", "X-TEC-Total"),
        ("x-tec-totalpages", "X-TEC-TotalPages"),
        ("x-calendar-total", "X-Calendar-Total"),
        ("link", "Link"),
        ("location", "Location"),
        ("x-calendar-events-cursor", "X-Calendar-Events-Cursor"),
    ] {
        let Some(v) = headers.get(name).and_then(|v| v.to_str().ok()) else {
            continue;
        };
        let value = match v.parse::<u64>() {
            Ok(n) if canonical.contains("Total") => json!(n),
            _ => json!(v),
        };
        out.insert(canonical.to_string(), value);
    }
    Value::Object(out)
}

/// WordPress's `rest_filter_response_fields`: the keys named (`a`, or `a.b` inside
/// an object), applied to the answer's top level, or to each item of a top-level
/// array. A path does not reach into an array below the top, and what keeps no key
/// is `[]`, as PHP's empty array prints.
fn filter_fields(value: Value, fields: &str) -> Value {
    let mut wanted = Map::new();
    for field in fields.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        insert_path(&mut wanted, field.split('.'));
    }
    if wanted.is_empty() {
        return value;
    }
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(|v| keep(v, &wanted)).collect()),
        other => keep(other, &wanted),
    }
}

/// Marks `a.b.c` in the tree of wanted keys; a key wanted whole stays whole.
fn insert_path<'a>(tree: &mut Map<String, Value>, mut parts: impl Iterator<Item = &'a str>) {
    let Some(head) = parts.next() else { return };
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() {
        tree.insert(head.to_string(), Value::Bool(true));
        return;
    }
    let entry = tree
        .entry(head.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(sub) = entry {
        insert_path(sub, rest.into_iter());
    }
}

/// PHP's `array_intersect_key`, recursively: arrays are keyed by position, so a
/// named key never matches inside a list.
fn keep(value: Value, wanted: &Map<String, Value>) -> Value {
    let kept: Map<String, Value> = match value {
        Value::Object(map) => map
            .into_iter()
            .filter_map(|(k, v)| {
                let w = wanted.get(&k)?;
                Some(match w {
                    Value::Object(sub) => (k, keep(v, sub)),
                    _ => (k, v),
                })
            })
            .collect(),
        Value::Array(items) => {
            let indexed: Map<String, Value> = items
                .into_iter()
                .enumerate()
                .filter(|(i, _)| wanted.contains_key(&i.to_string()))
                .map(|(i, v)| (i.to_string(), v))
                .collect();
            return match indexed.is_empty() {
                true => json!([]),
                false => Value::Object(indexed),
            };
        }
        scalar => return scalar,
    };
    match kept.is_empty() {
        true => json!([]),
        false => Value::Object(kept),
    }
}

/// `GET /wp-json/`: the site index as WordPress shapes it, with this server's
/// namespace and its routes.
pub async fn site_index(State(app): State<App>) -> Response {
    let settings = &app.settings;
    let now = chrono::Utc::now().timestamp();
    let namespaces = super::namespaces(settings);
    let mut routes = Map::new();
    for &namespace in &namespaces {
        let urls = Urls::new(settings, "", namespace);
        let described = Described {
            urls: &urls,
            namespace,
            settings,
            lang: "en",
            now,
        };
        routes.extend(index::routes(&described));
    }
    let offset = settings
        .timezone
        .offset_from_utc_datetime(&chrono::Utc::now().naive_utc())
        .fix()
        .local_minus_utc();
    let body = json!({
        "name": settings.site_title,
        "description": settings.site_description,
        "url": settings.site_url,
        "home": settings.site_url,
        "gmt_offset": f64::from(offset) / 3600.0,
        "timezone_string": settings.timezone.name(),
        "namespaces": namespaces,
        "authentication": {"application-passwords": {"endpoints": {}}},
        "routes": routes,
        "_links": {"help": [{"href": "https://developer.wordpress.org/rest-api/"}]},
    });
    json(StatusCode::OK, &body)
}

/// `OPTIONS` on a route: its methods and arguments, as in the namespace index,
/// with `Allow`.
pub fn options(app: &App, route: &'static Route, lang: &Arc<Lang>) -> Response {
    let urls = Urls::new(&app.settings, &lang.prefix, lang.namespace);
    let described = Described {
        urls: &urls,
        namespace: lang.namespace,
        settings: &app.settings,
        lang: &lang.code,
        now: chrono::Utc::now().timestamp(),
    };
    let body = serde_json::to_vec(&route_entry(route, &described)).unwrap_or_default();
    let mut resp = json_raw(StatusCode::OK, body);
    let methods: Vec<&str> = route
        .endpoints
        .iter()
        .flat_map(|e| e.methods.iter().map(|m| m.as_str()))
        .collect();
    if let Ok(v) = HeaderValue::from_str(&methods.join(", ")) {
        resp.headers_mut().insert(header::ALLOW, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> Value {
        json!({"events": [{"id": 1, "title": "A"}], "rest_url": "u", "total": 8, "total_pages": 4})
    }

    #[test]
    fn fields_keep_top_level_keys_as_wordpress_does() {
        assert_eq!(
            filter_fields(list(), "total,total_pages"),
            json!({"total": 8, "total_pages": 4})
        );
        // Keys of the events themselves are not keys of the list: nothing is left.
        assert_eq!(filter_fields(list(), "id,title"), json!([]));
        // A path does not reach into the array.
        assert_eq!(filter_fields(list(), "events.id"), json!({"events": []}));
        // Inside an object it does; a key wanted whole stays whole.
        let event = json!({"id": 1, "venue": {"id": 2, "venue": "Hall", "city": "X"}});
        assert_eq!(
            filter_fields(event.clone(), "id, venue.venue"),
            json!({"id": 1, "venue": {"venue": "Hall"}})
        );
        assert_eq!(
            filter_fields(event.clone(), "venue,venue.city")["venue"],
            event["venue"]
        );
        // A top-level array is filtered item by item.
        assert_eq!(
            filter_fields(json!([{"a": 1, "b": 2}, {"a": 3}]), "a"),
            json!([{"a": 1}, {"a": 3}])
        );
    }

    #[test]
    fn rest_route_is_the_pretty_url() {
        let req = |uri: &str| Request::builder().uri(uri).body(Body::empty()).unwrap();
        let r = rest_route(
            req("/?rest_route=/calendar/events/v1/events&per_page=2"),
            "/wp-json",
        );
        assert_eq!(r.uri(), "/wp-json/calendar/events/v1/events?per_page=2");
        let r = rest_route(req("/?rest_route=%2Fcalendar%2Fevents%2Fv1"), "");
        assert_eq!(r.uri(), "/calendar/events/v1");
        let r = rest_route(req("/events/?rest_route=/x"), "");
        assert_eq!(r.uri(), "/events/?rest_route=/x");
    }

    #[test]
    fn globals_are_read_only_when_present() {
        assert_eq!(Globals::of(Some("per_page=2")), None);
        assert_eq!(Globals::of(None), None);
        let g = Globals::of(Some("_envelope&_fields=id")).unwrap();
        assert!(g.envelope);
        assert_eq!(g.fields.as_deref(), Some("id"));
    }
}
