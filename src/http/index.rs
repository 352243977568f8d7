//! The namespace index (`GET /calendar/events/v1`), derived from the route table
//! in WordPress's namespace-index shape.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::context::Ctx;
use super::error::ApiError;
use super::json::json;
use super::urls::Urls;
use crate::api::i18n;
use crate::api::table::{Arg, Default, Item, Kind, ROUTES, Route};
use crate::config::Settings;
use crate::domain::args::IndexArgs;
use crate::domain::dates::format_in;

pub fn namespace_index(ctx: &Ctx, args: &IndexArgs) -> Result<Response, ApiError> {
    if args
        .namespace
        .as_deref()
        .is_some_and(|n| n.trim_matches('/') != ctx.lang.namespace)
    {
        return Err(ApiError::InvalidNamespace);
    }
    let routes = routes(&Described::of(ctx));
    let body = json!({
        "namespace": ctx.lang.namespace,
        "routes": routes,
        "_links": {"up": [{"href": ctx.urls.rest_root()}]},
    });
    Ok(json(StatusCode::OK, &body))
}

/// What a route's description depends on besides the route: where the API is,
/// the language, and the moment (list date defaults are relative to it).
pub struct Described<'a> {
    pub urls: &'a Urls,
    pub namespace: &'a str,
    pub settings: &'a Settings,
    pub lang: &'a str,
    pub now: i64,
}

impl<'a> Described<'a> {
    pub fn of(ctx: &'a Ctx) -> Described<'a> {
        Described {
            urls: &ctx.urls,
            namespace: ctx.lang.namespace,
            settings: &ctx.app.settings,
            lang: &ctx.lang.code,
            now: ctx.now,
        }
    }
}

/// Every route of the namespace, keyed by its WordPress pattern
/// (`/calendar/events/v1/events/(?P<id>\d+)`), as indexes list them.
pub fn routes(d: &Described<'_>) -> Map<String, Value> {
    ROUTES
        .iter()
        .map(|route| {
            let key = format!("/{}{}", d.namespace, route.wp_pattern());
            (key, route_entry(route, d))
        })
        .collect()
}

/// One route as WordPress describes it in an index and answers `OPTIONS` on it:
/// its methods, and each endpoint's arguments with their schema.
pub fn route_entry(route: &Route, d: &Described<'_>) -> Value {
    let methods: Vec<&str> = route
        .endpoints
        .iter()
        .flat_map(|e| e.methods.iter().map(|m| m.as_str()))
        .collect();
    let endpoints: Vec<Value> = route
        .endpoints
        .iter()
        .map(|e| {
            // A by-slug update declares the path `slug` and a body `slug`; like
            // WordPress, the later declaration is the one shown.
            let mut described = Map::new();
            for a in e.args {
                described.insert(a.name.to_string(), describe_arg(d, a));
            }
            json!({
                "methods": e.methods.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                "args": described,
            })
        })
        .collect();
    let mut entry = json!({"namespace": d.namespace, "methods": methods, "endpoints": endpoints});
    if !route.has_variables() {
        entry["_links"] = json!({"self": [{"href": format!("{}{}", d.urls.api(), route.path)}]});
    }
    entry
}

fn describe_arg(d: &Described<'_>, a: &Arg) -> Value {
    let mut m = Map::new();
    let tz = &d.settings.timezone;
    let default = match a.default {
        Default::None => None,
        Default::Null => Some(Value::Null),
        Default::Int(i) => Some(json!(i)),
        Default::Bool(b) => Some(json!(b)),
        Default::Str(s) => Some(json!(s)),
        Default::PerPage => Some(json!(d.settings.per_page_default)),
        Default::Now => Some(json!(format_in(d.now, tz))),
        Default::InTwoYears => {
            let now = chrono::DateTime::from_timestamp(d.now, 0).unwrap_or_default();
            let later = now
                .checked_add_months(chrono::Months::new(24))
                .unwrap_or(now);
            Some(json!(format_in(later.timestamp(), tz)))
        }
        Default::Namespace => Some(json!(d.namespace)),
    };
    if let Some(d) = default {
        m.insert("default".into(), d);
    }
    m.insert(
        "description".into(),
        json!(i18n::text(d.lang, a.description)),
    );
    match a.kind {
        Kind::Integer => {
            m.insert("type".into(), json!("integer"));
        }
        Kind::String => {
            m.insert("type".into(), json!("string"));
        }
        Kind::Boolean => {
            m.insert("type".into(), json!("boolean"));
        }
        Kind::Number => {
            m.insert("format".into(), json!("double"));
        }
        Kind::Status => {
            m.insert("format".into(), json!("string"));
        }
        Kind::List(item) | Kind::Linked(item) => {
            let t = match item {
                Item::Integer => "integer",
                Item::String => "string",
            };
            m.insert("items".into(), json!({"type": t}));
        }
        Kind::DateTime | Kind::Any => {}
    }
    if !a.one_of.is_empty() {
        m.insert("enum".into(), json!(a.one_of));
    }
    m.insert("required".into(), json!(a.required));
    Value::Object(m)
}
