//! One read through the response cache, for every kind of answer the cache keeps
//! (the API's JSON and iCalendar, the calendar's pages): a hit is answered at once,
//! a stale entry while one background recomputation runs, a key someone else is
//! computing by waiting for theirs; otherwise the request computes its answer, for
//! at most the request time-out, and the cache keeps it.

use std::future::Future;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;

use super::{Computing, Lookup, MAX_WAIT};
use crate::http::conditional;
use crate::http::live_counts;
use crate::http::state::App;

/// How many computations of the same key a request waits for before it computes
/// its own: under a stream of writes, each may end not right for it.
const MAX_WAITS: u32 = 3;

/// The failures an answer may end in.
pub trait Failure: std::fmt::Debug + Send + 'static {
    /// The request ran out of its time.
    fn timed_out() -> Self;
}

/// The key a request is cached under, when the cache may answer it: an anonymous
/// `GET`, with the cache on. `key` names the answer (what it shows and in which
/// language) beside the URL.
pub fn key_of(app: &App, req: &Request, key: impl FnOnce() -> String) -> Option<String> {
    let cacheable = req.method() == Method::GET
        && !req.headers().contains_key(header::AUTHORIZATION)
        && app.settings.response_cache_bytes > 0;
    cacheable.then(key)
}

/// Answers `req`: from the cache under `key` when it can, else by `compute` (given
/// the data version the answer is kept under, if it may be kept). `refresh`
/// recomputes a stale entry in the background; `failed` turns a failure into the
/// client's response.
pub async fn serve<E, C, CF, R, RF>(
    app: App,
    req: Request,
    key: Option<String>,
    now: i64,
    compute: C,
    refresh: R,
    failed: impl FnOnce(E) -> Response,
) -> Response
where
    E: Failure,
    C: FnOnce(Request, Option<u64>) -> CF,
    CF: Future<Output = Result<Response, E>> + Send,
    R: FnOnce(Request, u64) -> RF,
    RF: Future<Output = Result<Response, E>> + Send + 'static,
{
    let if_none_match = conditional::if_none_match(req.method(), req.headers());
    let if_none_match = if_none_match.as_ref();
    let is_read = matches!(*req.method(), Method::GET | Method::HEAD);
    let mut version = match &key {
        Some(_) => app.service.data_version().await.ok(),
        None => None,
    };
    let mut computing = None;
    let mut req = req;
    if let (Some(key), Some(first)) = (&key, version) {
        match look_up(&app, req, key, first, now, if_none_match, refresh).await {
            Looked::Answered(resp) => return resp,
            Looked::Compute(v, flight, given_back) => {
                version = Some(v);
                computing = flight;
                req = given_back;
            }
        }
    }
    let timeout = app.settings.request_timeout;
    // Boxed: every handler's state lives in its future (about 20 KB), which a cache
    // hit never needs, and which would otherwise be allocated and copied for every
    // request as part of this one.
    let computed = Box::pin(compute(req, version));
    let result = match within(timeout, async {
        match version {
            // Term counts are filled in as the cache serves the answer.
            Some(_) => live_counts::marking(computed).await,
            None => computed.await,
        }
    })
    .await
    {
        Ok(r) => r,
        // Writes run detached and still finish; the client just stops waiting.
        Err(_) => Err(E::timed_out()),
    };
    let finished = finish(
        &app,
        result,
        key.zip(version),
        now,
        if_none_match,
        is_read,
        failed,
    );
    let Finished(resp, kept) = finished.await;
    // Dropped unkept, `computing` wakes whoever waited for a computation that failed.
    if let (Some(c), true) = (computing, kept) {
        c.kept();
    }
    resp
}

/// What the cache makes of a request.
enum Looked<'a> {
    /// Its answer, from the cache.
    Answered(Response),
    /// Compute it at this data version, as the computation others wait for if one
    /// is given; the request is given back for that.
    Compute(u64, Option<Computing<'a>>, Request),
}

/// Looks `key` up at data version `first` (caught up first), waits for a
/// computation under way, and starts a stale entry's refresh (`refresh`).
async fn look_up<'a, E, R, RF>(
    app: &'a App,
    req: Request,
    key: &str,
    first: u64,
    now: i64,
    if_none_match: Option<&HeaderValue>,
    refresh: R,
) -> Looked<'a>
where
    E: Failure,
    R: FnOnce(Request, u64) -> RF,
    RF: Future<Output = Result<Response, E>> + Send + 'static,
{
    let mut v = first;
    let deadline = tokio::time::Instant::now() + MAX_WAIT;
    let mut waits = 0;
    loop {
        if app.cache.behind(v) {
            // Boxed: rare, and its state would otherwise weigh on every hit's future.
            let service = &app.service;
            Box::pin(
                app.cache
                    .catch_up(v, async |cursor| service.catch_up(cursor, v).await),
            )
            .await;
        }
        match app.cache.get(v, now, key) {
            Lookup::Hit(hit) => {
                return Looked::Answered(conditional::answer(if_none_match, hit.response()));
            }
            Lookup::Refresh(last) => {
                let again = refresh(head_of(&req), v);
                refresh_in_background(app.clone(), key.to_string(), v, now, again);
                return Looked::Answered(conditional::answer(if_none_match, last.response()));
            }
            Lookup::Compute => return Looked::Compute(v, Some(app.cache.computing(key, v)), req),
            // Waited enough: this request computes its own.
            Lookup::Wait(_) if waits == MAX_WAITS => return Looked::Compute(v, None, req),
            Lookup::Wait(mut waiting) => {
                // Someone is computing this very response: wait for theirs rather
                // than run the same query again.
                waits += 1;
                let _ = tokio::time::timeout_at(deadline, &mut waiting.notified).await;
                if let Some(hit) = app.cache.answer(&waiting) {
                    return Looked::Answered(conditional::answer(if_none_match, hit.response()));
                }
                // It did not come, or is not right for the data this request read
                // (a write reached it): look again at the newest data, so that a
                // computation this request starts answers everyone waiting.
                match app.service.data_version().await {
                    Ok(newer) => v = newer,
                    Err(_) => return Looked::Compute(v, None, req),
                }
            }
        }
    }
}

/// The computed answer, kept when it may be, conditional when asked so.
async fn finish<E>(
    app: &App,
    result: Result<Response, E>,
    kept_as: Option<(String, u64)>,
    now: i64,
    if_none_match: Option<&HeaderValue>,
    is_read: bool,
    failed: impl FnOnce(E) -> Response,
) -> Finished {
    let resp = match (result, kept_as) {
        (Ok(resp), Some((key, v))) => {
            let resp = app.cache.put(v, now, key, resp).await;
            return Finished(conditional::answer(if_none_match, resp), true);
        }
        (Ok(resp), None) if is_read => {
            conditional::answer(if_none_match, conditional::tag(resp).await)
        }
        (Ok(resp), None) => resp,
        (Err(e), _) => failed(e),
    };
    Finished(resp, false)
}

/// A response, and whether the cache took it.
struct Finished(Response, bool);

/// A bodiless copy of a cached request (a `GET`): what a recomputation needs.
fn head_of(req: &Request) -> Request {
    let (mut head, ()) = Request::new(()).into_parts();
    head.method = req.method().clone();
    head.uri = req.uri().clone();
    head.version = req.version();
    head.headers = req.headers().clone();
    head.extensions = req.extensions().clone();
    Request::from_parts(head, axum::body::Body::empty())
}

/// Recomputes a cached response that is a second or more old, for the requests
/// to come; this one is answered with the last response meanwhile.
fn refresh_in_background<E, F>(app: App, key: String, version: u64, now: i64, again: F)
where
    E: Failure,
    F: Future<Output = Result<Response, E>> + Send + 'static,
{
    let timeout = app.settings.request_timeout;
    tokio::spawn(async move {
        match within(timeout, live_counts::marking(again)).await {
            Ok(Ok(resp)) => drop(app.cache.put(version, now, key, resp).await),
            // The last response stays; a request in a later second tries again.
            Ok(Err(e)) => tracing::debug!(error = ?e, "refreshing a cached response failed"),
            Err(_) => tracing::debug!("refreshing a cached response timed out"),
        }
    });
}

/// Runs a request for at most `timeout`; its SQLite reads stop at the same moment.
async fn within<T>(
    timeout: Duration,
    request: impl Future<Output = T>,
) -> Result<T, tokio::time::error::Elapsed> {
    let deadline = std::time::Instant::now() + timeout;
    tokio::time::timeout(timeout, crate::service::with_deadline(deadline, request)).await
}
