//! The pages in the response cache, under the API's rules (`http::cache::serve`):
//! an anonymous GET is answered from the entry of its data version; a write drops
//! every page (a page says nothing of what it read); a page is fresh for the
//! second it is computed in, then served while one request a second recomputes it
//! in the background, so a page's clock-dependent parts (today, the upcoming
//! window, a scheduled post going live) are at most a few seconds old.

use std::sync::Arc;

use axum::extract::Request;
use axum::response::Response;

use super::PageError;
use crate::http::cache::serve;
use crate::http::state::{App, Lang};

/// Answers a page request, from the cache when it may.
pub async fn answer(app: App, lang: Arc<Lang>, req: Request) -> Response {
    let now = chrono::Utc::now().timestamp();
    // A password in the URL reveals a protected event: that answer is not kept.
    let revealing = req.uri().query().is_some_and(|q| q.contains("password"));
    let key = serve::key_of(&app, &req, || format!("page:{}{}", lang.code, req.uri()))
        .filter(|_| !revealing);
    let path = req.uri().path().to_string();
    let (computing, refreshing, failing) = (
        (app.clone(), lang.clone()),
        (app.clone(), lang.clone()),
        (app.clone(), lang),
    );
    serve::serve(
        app,
        req,
        key,
        now,
        move |req, version| async move {
            let (app, lang) = computing;
            Ok::<_, PageError>(super::compute(app, lang, req, now, version).await)
        },
        move |req, version| async move {
            let (app, lang) = refreshing;
            Ok(super::compute(app, lang, req, now, Some(version)).await)
        },
        move |err| super::failure(failing.0, failing.1, &path, now, err),
    )
    .await
}
