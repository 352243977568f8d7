//! HTTP: routing from the route table, request context, responses.

mod auth;
mod cache;
mod conditional;
mod context;
mod dispatch;
mod doc;
pub mod error;
mod events;
mod feeds;
mod index;
mod json;
mod linked;
mod lists;
mod live_counts;
pub(crate) mod pages;
mod state;
mod sync;
mod terms;
pub mod transfer;
pub mod urls;
mod viewer;
mod views;
mod wordpress;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter};

use crate::api::table::{NAMESPACE, REFERENCE_NAMESPACE, ROUTES};
use error::ApiError;

pub use crate::service::users::hash_secret as auth_secret_hash;
pub use state::{App, AppState, ClientAddr, Lang, REQUEST_ID};

/// The whole HTTP application: every route of the table under every language prefix.
pub fn router(app: App) -> Router {
    let mut router = Router::new();
    let codes = std::iter::once(("en".to_string(), String::new())).chain(
        app.settings
            .languages
            .iter()
            .map(|code| (code.clone(), format!("/{code}"))),
    );
    let mut langs = Vec::new();
    for (code, prefix) in codes {
        for namespace in namespaces(&app.settings) {
            langs.push(Arc::new(Lang {
                code: code.clone(),
                prefix: prefix.clone(),
                namespace,
            }));
        }
    }
    for lang in langs {
        let prefix = &lang.prefix;
        let base = format!("{prefix}{}/{}", app.settings.rest_root, lang.namespace);
        for route in ROUTES {
            let mut methods: MethodRouter<App> = MethodRouter::new();
            for endpoint in route.endpoints {
                for method in endpoint.methods {
                    let filter = MethodFilter::try_from(method.clone())
                        .expect("the route table uses standard methods only");
                    let lang = lang.clone();
                    methods = methods.on(filter, move |State(app): State<App>, req: Request| {
                        dispatch::handle(app, endpoint, lang, req)
                    });
                }
            }
            // `OPTIONS` describes the route, as WordPress answers it.
            let described = lang.clone();
            methods = methods.on(MethodFilter::OPTIONS, move |State(app): State<App>| {
                let lang = described.clone();
                async move { wordpress::options(&app, route, &lang) }
            });
            // List URLs end in `/` (as in the reference), so every route also answers with one.
            router = router.route(&format!("{base}{}", route.path), methods.clone());
            router = router.route(&format!("{base}{}/", route.path), methods);
        }
    }
    let root = &app.settings.rest_root;
    if !root.is_empty() {
        let index = axum::routing::get(wordpress::site_index);
        router = router
            .route(root, index.clone())
            .route(&format!("{root}/"), index);
    }
    router
        .route("/health", axum::routing::get(health))
        .merge(feeds::routes(&app.settings.languages))
        .merge(pages::routes(&app.settings.languages))
        .merge(viewer::routes(
            &app.settings.languages,
            &app.settings.rest_root,
        ))
        .fallback(unmatched)
        .method_not_allowed_fallback(no_route)
        .with_state(app)
}

/// The namespaces the API is served under: its own, and The Events Calendar's
/// when `--tribe-namespace` asks for it.
fn namespaces(settings: &crate::config::Settings) -> Vec<&'static str> {
    let mut out = vec![NAMESPACE];
    if settings.tribe_namespace {
        out.push(REFERENCE_NAMESPACE);
    }
    out
}

/// The router with the layers every response gets: request IDs, tracing,
/// security headers, CORS, and WordPress's method override.
pub fn service(app: App) -> Router {
    use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
    use tower_http::set_header::SetResponseHeaderLayer;
    let request_id = header::HeaderName::from_static(REQUEST_ID);
    let cors = cors(&app.settings.cors_origins);
    let rest_root = app.settings.rest_root.clone();
    let conventions = axum::middleware::from_fn_with_state(
        wordpress::Conventions::of(&app.settings),
        wordpress::conventions,
    );
    let routed = router(app)
        .layer(conventions)
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(tower::util::option_layer(cors))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(tower_http::trace::TraceLayer::new_for_http().make_span_with(|req: &Request| {
            let id = req.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("");
            tracing::info_span!("request", method = %req.method(), uri = %req.uri().path(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid));
    // The method and the path must change before the router picks a route by them.
    let rewrite = move |req| method_override(wordpress::rest_route(req, &rest_root));
    Router::new().fallback_service(tower::util::MapRequest::new(routed, rewrite))
}

/// WordPress's method override, for clients behind proxies that pass only GET and
/// POST: a POST with `?_method=DELETE` or `X-HTTP-Method-Override: DELETE` is
/// handled as that method (the query parameter wins). Only POSTs are overridden:
/// a GET that deletes could be triggered by any link or image a browser follows.
fn method_override(mut req: Request) -> Request {
    if req.method() != axum::http::Method::POST {
        return req;
    }
    let from_query = req.uri().query().and_then(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == "_method")
            .map(|(_, v)| v.into_owned())
    });
    let requested = from_query.or_else(|| {
        req.headers()
            .get("x-http-method-override")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    });
    if let Some(name) = requested {
        // An unknown method routes nowhere: a 404, never a POST carried out instead.
        let method = axum::http::Method::from_bytes(name.trim().to_ascii_uppercase().as_bytes())
            .unwrap_or_else(|_| axum::http::Method::from_bytes(b"INVALID").expect("a token"));
        *req.method_mut() = method;
    }
    req
}

/// No CORS headers unless origins are configured (a restrictive default).
fn cors(origins: &[String]) -> Option<tower_http::cors::CorsLayer> {
    use tower_http::cors::{AllowOrigin, CorsLayer};
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    let layer = CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([
            axum::http::Method::GET,
            axum::http::Method::POST,
            axum::http::Method::PUT,
            axum::http::Method::PATCH,
            axum::http::Method::DELETE,
        ])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_MATCH,
            header::IF_NONE_MATCH,
            header::IF_MODIFIED_SINCE,
            header::IF_UNMODIFIED_SINCE,
        ])
        .expose_headers([
            header::HeaderName::from_static("x-tec-total"),
            header::HeaderName::from_static("x-tec-totalpages"),
            header::HeaderName::from_static("x-wp-total"),
            header::HeaderName::from_static("x-wp-totalpages"),
            header::HeaderName::from_static(lists::TOTAL_IS_FLOOR.0),
            header::LINK,
            header::ETAG,
            header::HeaderName::from_static(sync::CURSOR_HEADER),
            header::LAST_MODIFIED,
        ]);
    Some(layer)
}

/// A fixed answer from the process itself: liveness, and the ceiling of the benchmark.
async fn health() -> Response {
    json::json(StatusCode::OK, &serde_json::json!({"status": "ok"}))
}

/// A request no route takes: under the calendar pages' paths, their HTML 404
/// page; elsewhere the API's error.
async fn unmatched(State(app): State<App>, req: Request) -> Response {
    match pages::not_found(&app, &req) {
        Some(page) => page,
        None => no_route(req.uri().clone()).await,
    }
}

/// Unmatched requests answer in the language of their first path segment, if it names one.
async fn no_route(uri: axum::http::Uri) -> Response {
    ApiError::NoRoute.response(language_of(&uri))
}

/// The language a request's first path segment names, or the default: for answers
/// made before (or without) a route.
fn language_of(uri: &axum::http::Uri) -> &str {
    let first = uri
        .path()
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("");
    if crate::api::i18n::supported(first) {
        first
    } else {
        crate::api::i18n::DEFAULT_LANGUAGE
    }
}
