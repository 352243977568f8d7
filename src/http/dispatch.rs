//! One request through the reference's check order: route → credentials → body →
//! missing arguments → invalid arguments → (in the handler) permission → action.

use crate::api::i18n::Msg;
use std::collections::HashMap;
use std::sync::Arc;

use axum::body::to_bytes;
use axum::extract::{FromRequestParts, RawPathParams, Request};
use axum::http::{Method, header};
use axum::response::Response;
use serde_json::{Map, Value};

use super::cache::serve;
use super::conditional;
pub use super::context::{Ctx, View};
use super::error::ApiError;
use super::state::{App, ClientAddr, Lang, REQUEST_ID};
use super::urls::Urls;
use super::{auth, doc, events, index, linked, terms};
use crate::api::args::{self, Args, RawArgs};
use crate::api::table::{By, Endpoint, Op};
use crate::domain::permissions::Caller;
use crate::domain::post::Target;

pub async fn handle(
    app: App,
    endpoint: &'static Endpoint,
    lang: Arc<Lang>,
    req: Request,
) -> Response {
    let request_id = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let now = chrono::Utc::now().timestamp();
    // Anonymous reads may be answered from the cache (see `cache/mod.rs` for why that is safe).
    let key = serve::key_of(&app, &req, || {
        let view = View::of(endpoint.op, req.uri(), req.headers());
        format!("{}{}{}", view.cache_tag(), lang.code, req.uri())
    });
    let code = lang.code.clone();
    let failed = move |e: ApiError| e.response_with_id(&code, request_id.as_deref());
    let (computing, refreshing) = ((app.clone(), lang.clone()), (app.clone(), lang));
    serve::serve(
        app,
        req,
        key,
        now,
        move |req, version| run(computing.0, endpoint, computing.1, req, now, version),
        move |req, version| {
            run(
                refreshing.0,
                endpoint,
                refreshing.1,
                req,
                now,
                Some(version),
            )
        },
        failed,
    )
    .await
}

async fn run(
    app: App,
    endpoint: &'static Endpoint,
    lang: Arc<Lang>,
    req: Request,
    now: i64,
    cache_version: Option<u64>,
) -> Result<Response, ApiError> {
    let (mut parts, body) = req.into_parts();
    let path = path_args(endpoint, &mut parts).await?;
    let caller = authenticate(&app, &parts).await?;
    let is_list = |name: &str| endpoint.takes_list(name);
    let mut params = args::parse_form(parts.uri.query().unwrap_or(""), is_list);
    if parts.method != Method::GET {
        params.extend(body_params(&app, &parts, body, is_list).await?);
    }

    let turns = app.clone();
    let _turn = turns
        .turns
        .acquire()
        .await
        .map_err(|_| ApiError::Unavailable("the server is stopping".into()))?;
    let args = args::check_present(endpoint, RawArgs { path, params }, &app.settings.limits)?;
    if !args.invalid().is_empty() && !reports_every_invalid_argument(endpoint.op) {
        return Err(ApiError::Invalid(args.invalid().to_vec()));
    }
    // Before a read, scheduled posts that are due go live (a write decides its own
    // post's status and counts itself).
    if parts.method == Method::GET
        && !matches!(endpoint.op, Op::Index | Op::Doc)
        && let Err(e) = app.service.publish_due(now).await
    {
        // The request reads what there is; the next one tries again.
        tracing::warn!(error = %e, "publishing scheduled posts failed");
    }
    let ctx = Ctx {
        view: View::of(endpoint.op, &parts.uri, &parts.headers),
        preconditions: conditional::Preconditions::of(&parts.method, &parts.headers),
        urls: Urls::new(&app.settings, &lang.prefix, lang.namespace),
        app,
        caller,
        lang,
        now,
        cache_version,
    };
    let mut resp = route(&ctx, endpoint.op, args).await?;
    if matches!(endpoint.op, Op::EventList | Op::EventGet(_)) {
        // The same URL answers JSON or iCalendar by `Accept`: caches must know.
        resp.headers_mut()
            .insert(header::VARY, axum::http::HeaderValue::from_static("Accept"));
    }
    Ok(resp)
}

/// The route's path arguments that the endpoint takes.
async fn path_args(
    endpoint: &Endpoint,
    parts: &mut axum::http::request::Parts,
) -> Result<HashMap<&'static str, String>, ApiError> {
    let raw_path = RawPathParams::from_request_parts(parts, &())
        .await
        .map_err(|_| ApiError::NoRoute)?;
    let mut path = HashMap::new();
    for (name, value) in &raw_path {
        // The reference's routes match `\d+` for IDs; anything else is no route at all.
        if name == "id" && (value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit())) {
            return Err(ApiError::NoRoute);
        }
        if let Some(spec) = endpoint.args.iter().find(|a| a.name == name) {
            path.insert(spec.name, value.to_string());
        }
    }
    Ok(path)
}

/// The arguments of a request's body. A body has a deadline of its own, and is read
/// before the request takes one of the limited turns: a client trickling its body
/// holds only its own connection, never a turn that others need.
async fn body_params(
    app: &App,
    parts: &axum::http::request::Parts,
    body: axum::body::Body,
    is_list: impl Fn(&str) -> bool,
) -> Result<Map<String, Value>, ApiError> {
    let read = to_bytes(body, app.settings.max_body_bytes);
    let bytes = tokio::time::timeout(app.settings.body_read_timeout, read)
        .await
        .map_err(|_| ApiError::coded(408, "rest_request_timeout", Msg::BodyTimeout))?
        .map_err(|_| ApiError::PayloadTooLarge)?;
    if bytes.is_empty() {
        return Ok(Map::new());
    }
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    parse_body(&content_type, &bytes, is_list)
}

/// The caller. An address with too many recent failures is refused before its
/// credentials are looked at: that stops a guesser. A login with too many is not:
/// anyone can fail for any login, so its owner's correct credentials still work,
/// and only wrong ones are refused with 429 until the window ends.
async fn authenticate(app: &App, parts: &axum::http::request::Parts) -> Result<Caller, ApiError> {
    if !parts
        .headers
        .contains_key(axum::http::header::AUTHORIZATION)
    {
        return Ok(Caller(None));
    }
    let keys = auth::failure_keys(&parts.headers, client_ip(app, parts));
    let now = chrono::Utc::now().timestamp();
    let outcome = match auth::authenticate(&app.service, &parts.headers, &keys, now).await {
        Ok(Some(outcome)) => outcome,
        Ok(None) => return Ok(Caller(None)),
        Err(ApiError::IncorrectPassword) => {
            // Credentials that cannot even be read: refused, and counted, alike.
            if let Some(retry_after_secs) = app.service.address_blocked(&keys, now).await? {
                return Err(ApiError::TooManyRequests { retry_after_secs });
            }
            app.service.auth_failed(&keys, now).await?;
            return Err(ApiError::IncorrectPassword);
        }
        Err(e) => return Err(e),
    };
    if let Some(retry_after_secs) = outcome.address_blocked {
        return Err(ApiError::TooManyRequests { retry_after_secs });
    }
    match outcome.caller {
        Some(caller) => Ok(caller),
        None => {
            app.service.auth_failed(&keys, now).await?;
            match outcome.login_blocked {
                Some(retry_after_secs) => Err(ApiError::TooManyRequests { retry_after_secs }),
                None => Err(ApiError::IncorrectPassword),
            }
        }
    }
}

/// The client's address: the connection's, or the first `X-Forwarded-For` hop when trusted.
fn client_ip(app: &App, parts: &axum::http::request::Parts) -> Option<std::net::IpAddr> {
    if app.settings.trust_forwarded_for {
        let forwarded = parts
            .headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|ip| ip.trim().parse().ok());
        if forwarded.is_some() {
            return forwarded;
        }
    }
    parts.extensions.get::<ClientAddr>().map(|c| c.0.ip())
}

fn parse_body(
    content_type: &str,
    bytes: &[u8],
    is_list: impl Fn(&str) -> bool,
) -> Result<Map<String, Value>, ApiError> {
    let is_json = content_type.contains("json")
        || (content_type.is_empty()
            && bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'));
    if is_json {
        return match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(ApiError::InvalidJson {
                detail: Some(Msg::JsonNotObject),
            }),
            Err(e) => {
                tracing::debug!(error = %e, "invalid JSON body");
                Err(ApiError::InvalidJson { detail: None })
            }
        };
    }
    if content_type.starts_with("application/x-www-form-urlencoded") {
        let text = std::str::from_utf8(bytes).map_err(|_| {
            ApiError::invalid_because("body", "rest_invalid_encoding", Msg::BodyNotUtf8)
        })?;
        return Ok(args::parse_form(text, is_list));
    }
    Ok(Map::new())
}

/// The operations whose handlers check arguments of their own (dates, IDs, …)
/// and report them with those the declaration refused, through `error::Problems`.
fn reports_every_invalid_argument(op: Op) -> bool {
    matches!(
        op,
        Op::EventList
            | Op::EventCreate
            | Op::EventUpdate(_)
            | Op::LinkedList(_)
            | Op::LinkedCreate(_)
            | Op::LinkedUpdate(..)
            | Op::TermList(_)
            | Op::TermCreate(_)
            | Op::TermUpdate(_)
    )
}

/// The post a single-item route names: by ID (digits only, or the route would not
/// have matched) or by slug.
fn target(by: By, args: &Args) -> Result<Target, ApiError> {
    match by {
        By::Id => args
            .path_int("id")
            .map(Target::Id)
            .ok_or_else(|| ApiError::invalid_param("id")),
        By::Slug => Ok(Target::Slug(
            args.path_str("slug").unwrap_or_default().to_string(),
        )),
    }
}

/// The ID of a term route.
fn term_id(args: &Args) -> Result<i64, ApiError> {
    args.path_int("id")
        .ok_or_else(|| ApiError::invalid_param("id"))
}

async fn route(ctx: &Ctx, op: Op, args: Args) -> Result<Response, ApiError> {
    match op {
        Op::Index => index::namespace_index(ctx, &args.typed()),
        Op::Doc => doc::doc(ctx),
        Op::EventList => events::list(ctx, &args).await,
        Op::EventCreate => events::create(ctx, &args).await,
        Op::EventGet(by) => events::get(ctx, &target(by, &args)?, &args.typed()).await,
        Op::EventUpdate(by) => events::update(ctx, &target(by, &args)?, &args).await,
        Op::EventDelete(by) => events::delete(ctx, &target(by, &args)?, &args.typed()).await,
        Op::LinkedList(t) => linked::list(ctx, t, &args).await,
        Op::LinkedCreate(t) => linked::create(ctx, t, &args).await,
        Op::LinkedGet(t, by) => linked::get(ctx, t, &target(by, &args)?, &args.typed()).await,
        Op::LinkedUpdate(t, by) => linked::update(ctx, t, &target(by, &args)?, &args).await,
        Op::LinkedDelete(t, by) => linked::delete(ctx, t, &target(by, &args)?, &args.typed()).await,
        Op::TermList(tax) => terms::list(ctx, tax, &args).await,
        Op::TermCreate(tax) => terms::create(ctx, tax, &args).await,
        Op::TermGet(tax) => terms::get(ctx, tax, term_id(&args)?).await,
        Op::TermUpdate(tax) => terms::update(ctx, tax, term_id(&args)?, &args).await,
        Op::TermDelete(tax) => terms::delete(ctx, tax, term_id(&args)?).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// A cache hit answers from `handle` alone; the handlers' state, in `run`, must
    /// not be part of its future, or every hit allocates and copies all of it.
    #[tokio::test]
    async fn a_cache_hit_does_not_carry_the_handlers_state() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("size.db").display());
        let cli = crate::cli::Cli::parse_from(["calendar-events"]);
        let settings = crate::config::Settings::from_args(&cli.serve);
        let service = crate::service::Service::open(&url, None, &settings)
            .await
            .unwrap();
        let app = Arc::new(super::super::state::AppState::new(service, settings));
        let endpoint = &crate::api::table::ROUTES[0].endpoints[0];
        let lang = Arc::new(Lang {
            code: "en".into(),
            prefix: String::new(),
            namespace: crate::api::table::NAMESPACE,
        });
        let request = || Request::new(axum::body::Body::empty());
        let whole = run(app.clone(), endpoint, lang.clone(), request(), 0, None);
        let hit = handle(app, endpoint, lang, request());
        let (whole, hit) = (size_of_val(&whole), size_of_val(&hit));
        assert!(
            hit * 4 < whole,
            "handle's future is {hit} bytes, run's {whole}"
        );
    }
}
