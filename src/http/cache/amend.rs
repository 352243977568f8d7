//! A kept answer brought up to date in place of computing it again: its totals moved
//! by events entering its list past its page, its term counts filled in.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue, StatusCode, header};

use super::Entry;
use super::answer::{Cached, Hit};
use crate::domain::changes::Reads;
use crate::http::live_counts::Spliced;

/// The response with the totals of its list moved by `by` events entering (or
/// leaving) it after its page (`changes::Tally`): its body's ending and its total
/// headers, as `lists::respond` writes them. `None` when it cannot be (no tally, a
/// body of another shape, a page that would lose its next): it is computed again.
pub(super) fn tallied(cached: &Cached, reads: Option<&Reads>, by: i64) -> Option<Cached> {
    if by == 0 {
        return None;
    }
    let tally = reads?.tally.as_ref()?;
    let shown =
        |name: &str| -> Option<u64> { cached.headers.get(name)?.to_str().ok()?.parse().ok() };
    let (total, total_pages) = (shown("x-wp-total")?, shown("x-wp-totalpages")?);
    let now = tally.moved(total, by)?;
    let ending = |total: u64, pages: u64| format!(",\"total\":{total},\"total_pages\":{pages}}}");
    let body = cached.body.with_ending(
        ending(total, total_pages).as_bytes(),
        ending(now.total, now.total_pages).as_bytes(),
    )?;
    let mut headers = cached.headers.clone();
    for (name, value) in [
        ("x-wp-total", now.total),
        ("x-tec-total", now.total),
        ("x-wp-totalpages", now.total_pages),
        ("x-tec-totalpages", now.total_pages),
    ] {
        if headers.contains_key(name) {
            headers.insert(HeaderName::from_static(name), HeaderValue::from(value));
        }
    }
    Some(retagged(cached.status, headers, body))
}

/// A response of this body, its tag (if it has one) that of the body.
fn retagged(status: StatusCode, mut headers: axum::http::HeaderMap, body: Spliced) -> Cached {
    if headers.contains_key(header::ETAG) {
        headers.insert(
            header::ETAG,
            crate::http::conditional::etag(&body.as_computed()),
        );
    }
    Cached {
        status,
        headers,
        body,
    }
}

/// An answer computed at an earlier version, as it stands after `moved` events
/// entered its list past its page since (see [`super::Generation::missed`]).
pub(super) fn caught_up(
    cached: &Arc<Cached>,
    reads: Option<&Reads>,
    moved: i64,
) -> Option<Arc<Cached>> {
    if moved == 0 {
        return Some(cached.clone());
    }
    tallied(cached, reads, moved).map(Arc::new)
}

/// An entry as it is served now, with these counts.
pub(super) fn hit(
    counts: &HashMap<i64, i64>,
    epoch: u64,
    bytes: &mut usize,
    entry: &mut Entry,
) -> Hit {
    if entry.counted_at != epoch {
        entry.counted_at = epoch;
        if let Some(now) = recounted(counts, &entry.response) {
            let (old, new) = (entry.response.body.len(), now.body.len());
            *bytes = *bytes - old + new;
            entry.size = entry.size - old + new;
            entry.response = Arc::new(now);
        }
    }
    Hit::new(entry.response.clone())
}

/// The response with these counts: itself when it holds them.
pub(super) fn counted(counts: &HashMap<i64, i64>, cached: &Arc<Cached>) -> Arc<Cached> {
    recounted(counts, cached).map_or_else(|| cached.clone(), Arc::new)
}

/// The response with these counts in place of those it holds, and its tag for
/// them; `None` when it holds these. An entry keeps one body: under writes the
/// counts move all the time, and a second, filled copy of each body served took
/// the room of half the cache's entries.
fn recounted(counts: &HashMap<i64, i64>, cached: &Cached) -> Option<Cached> {
    let body = cached.body.refilled(&fill(counts, cached))?;
    Some(retagged(cached.status, cached.headers.clone(), body))
}

/// The counts a response shows now: these, or those it was computed with.
fn fill(counts: &HashMap<i64, i64>, cached: &Cached) -> Vec<i64> {
    cached
        .body
        .counts()
        .map(|(term, computed)| counts.get(&term).copied().unwrap_or(computed))
        .collect()
}
