//! A human-readable API reference at `/api-docs` (and `/{lang}/api-docs`):
//! Swagger UI, served from files embedded in the binary, on the `/doc` document.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::state::App;
use crate::api::table::NAMESPACE;

const BUNDLE: &[u8] = include_bytes!("../../assets/swagger-ui/swagger-ui-bundle.js");
const CSS: &[u8] = include_bytes!("../../assets/swagger-ui/swagger-ui.css");
const INIT: &[u8] = include_bytes!("../../assets/swagger-ui/init.js");

fn asset(bytes: &'static [u8], content_type: &'static str) -> Response {
    let mut resp = (StatusCode::OK, bytes).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    resp
}

fn page(spec_url: &str, lang: &str) -> Response {
    let html = format!(
        r#"<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>Calendar Events API</title>
<link rel="stylesheet" href="/api-docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-spec-url="{spec_url}"></div>
<script src="/api-docs/swagger-ui-bundle.js"></script>
<script src="/api-docs/init.js"></script>
</body>
</html>
"#
    );
    let mut resp = (StatusCode::OK, html).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    resp
}

/// The viewer's routes, for every served language.
pub fn routes(languages: &[String], rest_root: &str) -> Router<App> {
    let mut router = Router::new()
        .route(
            "/api-docs/swagger-ui-bundle.js",
            get(|| async { asset(BUNDLE, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/api-docs/swagger-ui.css",
            get(|| async { asset(CSS, "text/css; charset=utf-8") }),
        )
        .route(
            "/api-docs/init.js",
            get(|| async { asset(INIT, "text/javascript; charset=utf-8") }),
        );
    let mut prefixes = vec![(String::new(), "en".to_string())];
    prefixes.extend(languages.iter().map(|l| (format!("/{l}"), l.clone())));
    for (prefix, lang) in prefixes {
        let spec = format!("{prefix}{rest_root}/{NAMESPACE}/doc");
        for path in [format!("{prefix}/api-docs"), format!("{prefix}/api-docs/")] {
            let (spec, lang) = (spec.clone(), lang.clone());
            router = router.route(
                &path,
                get(move |State(_): State<App>| async move { page(&spec, &lang) }),
            );
        }
    }
    router
}
