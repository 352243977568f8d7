//! The pages in the response cache, under the API's rules (`http/cache`): an
//! anonymous GET is answered from the entry of its data version; a write drops
//! every page (a page says nothing of what it read); a page is fresh for the
//! second it is computed in, then served while one request a second recomputes
//! it in the background, so a page's clock-dependent parts (today, the upcoming
//! window, a scheduled post going live) are at most a few seconds old.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, Uri, header};
use axum::response::Response;

use crate::http::cache::{Lookup, MAX_WAIT};
use crate::http::conditional;
use crate::http::state::{App, Lang};

/// Answers a page request, from the cache when it may.
pub async fn answer(app: App, lang: Arc<Lang>, req: Request) -> Response {
    let now = chrono::Utc::now().timestamp();
    // A password in the URL reveals a protected event: that answer is not kept.
    let cacheable = req.method() == Method::GET
        && !req.headers().contains_key(header::AUTHORIZATION)
        && !req.uri().query().is_some_and(|q| q.contains("password"))
        && app.settings.response_cache_bytes > 0;
    let version = match cacheable {
        true => app.service.data_version().await.ok(),
        false => None,
    };
    let Some(version) = version else {
        return super::compute(app, lang, req, now).await;
    };
    let if_none_match = conditional::if_none_match(req.method(), req.headers());
    let key = format!("page:{}{}", lang.code, req.uri());
    if app.cache.behind(version) {
        let service = &app.service;
        Box::pin(app.cache.catch_up(version, async |cursor| {
            service.catch_up(cursor, version).await
        }))
        .await;
    }
    let computing = match app.cache.get(version, now, &key) {
        Lookup::Hit(hit) => return conditional::answer(if_none_match.as_ref(), hit.response()),
        Lookup::Refresh(last) => {
            refresh(app.clone(), lang, req.uri().clone(), key, version, now);
            return conditional::answer(if_none_match.as_ref(), last.response());
        }
        Lookup::Compute => Some(app.cache.computing(&key, version)),
        Lookup::Wait(mut waiting) => {
            // Another request computes this very page: its answer is ours too.
            let _ = tokio::time::timeout(MAX_WAIT, &mut waiting.notified).await;
            if let Some(hit) = app.cache.answer(&waiting) {
                return conditional::answer(if_none_match.as_ref(), hit.response());
            }
            None
        }
    };
    let resp = super::compute(app.clone(), lang, req, now).await;
    let resp = app.cache.put(version, now, key, resp).await;
    if let Some(c) = computing {
        c.kept();
    }
    conditional::answer(if_none_match.as_ref(), resp)
}

/// Recomputes a page a second or more old for the requests to come.
fn refresh(app: App, lang: Arc<Lang>, uri: Uri, key: String, version: u64, now: i64) {
    let timeout = app.settings.request_timeout;
    tokio::spawn(async move {
        let mut req = Request::new(Body::empty());
        *req.uri_mut() = uri;
        let computed = super::compute(app.clone(), lang, req, now);
        match tokio::time::timeout(timeout, computed).await {
            Ok(resp) => drop(app.cache.put(version, now, key, resp).await),
            // The last page stays; a request in a later second tries again.
            Err(_) => tracing::debug!("refreshing a cached page timed out"),
        }
    });
}
