//! A response cache for anonymous reads, correct across instances.
//!
//! An entry is valid only for the data version it was computed under (see
//! `Pool::data_version`, which every instance sharing a database sees alike) and
//! for the second it was computed in, since answers also depend on the clock
//! (default date windows, scheduled posts going live). Entries of an older
//! version or second are dropped wholesale, so memory is bounded by what one
//! second of distinct requests produces, and capped besides.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

/// A response as it was sent.
pub struct Cached {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Cached {
    pub fn response(&self) -> Response {
        let mut resp = Response::new(Body::from(self.body.clone()));
        *resp.status_mut() = self.status;
        *resp.headers_mut() = self.headers.clone();
        resp
    }
}

struct Generation {
    version: u64,
    second: i64,
    entries: HashMap<String, Arc<Cached>>,
    bytes: usize,
    /// The previous second's entries of the same data version, served while one
    /// request per key recomputes (so an expiry is not a stampede).
    previous: HashMap<String, Arc<Cached>>,
    /// Keys being recomputed this second.
    refreshing: HashSet<String>,
}

pub struct ResponseCache {
    max_bytes: usize,
    current: Mutex<Generation>,
}

/// Larger bodies are not worth keeping.
const MAX_ENTRY_BYTES: usize = 1024 * 1024;
const MAX_ENTRIES: usize = 4096;

impl ResponseCache {
    pub fn new(max_bytes: usize) -> ResponseCache {
        ResponseCache {
            max_bytes,
            current: Mutex::new(Generation {
                version: u64::MAX,
                second: i64::MIN,
                entries: HashMap::new(),
                bytes: 0,
                previous: HashMap::new(),
                refreshing: HashSet::new(),
            }),
        }
    }

    /// A cached response, or `None` when the caller should compute it (and `put` it).
    ///
    /// When a second has just passed and nothing was written, the previous second's
    /// response (at most one second old, same data) is served to everyone but the one
    /// caller chosen to recompute it.
    pub fn get(&self, version: u64, second: i64, key: &str) -> Option<Arc<Cached>> {
        let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if g.version == version && g.second + 1 == second {
            let entries = std::mem::take(&mut g.entries);
            g.previous = entries;
            g.second = second;
            g.bytes = 0;
            g.refreshing.clear();
        }
        if g.version != version || g.second != second {
            return None;
        }
        if let Some(hit) = g.entries.get(key) {
            return Some(hit.clone());
        }
        let stale = g.previous.get(key).cloned()?;
        if g.refreshing.insert(key.to_string()) {
            None
        } else {
            Some(stale)
        }
    }

    /// Keeps a successful response; returns it ready to send.
    pub async fn put(&self, version: u64, second: i64, key: String, resp: Response) -> Response {
        if resp.status() != StatusCode::OK || self.max_bytes == 0 {
            return resp;
        }
        let (parts, body) = resp.into_parts();
        let Ok(body) = axum::body::to_bytes(body, MAX_ENTRY_BYTES).await else {
            return Response::from_parts(parts, Body::empty());
        };
        let cached = Arc::new(Cached {
            status: parts.status,
            headers: parts.headers,
            body,
        });
        {
            let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
            if g.version != version || g.second != second {
                // Only ever move forward: a slow request must not reset a newer generation.
                if (version, second) < (g.version, g.second) && g.version != u64::MAX {
                    return cached.response();
                }
                g.version = version;
                g.second = second;
                g.entries.clear();
                g.previous.clear();
                g.refreshing.clear();
                g.bytes = 0;
            }
            g.refreshing.remove(&key);
            let size = cached.body.len() + key.len();
            if g.bytes + size <= self.max_bytes && g.entries.len() < MAX_ENTRIES {
                g.bytes += size;
                g.entries.insert(key, cached.clone());
            }
        }
        cached.response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &'static str) -> Response {
        Response::new(Body::from(text))
    }

    #[tokio::test]
    async fn entries_live_for_one_version_and_second() {
        let cache = ResponseCache::new(1 << 20);
        cache.put(1, 100, "a".into(), ok("x")).await;
        assert!(cache.get(1, 100, "a").is_some());
        assert!(cache.get(2, 100, "a").is_none(), "a write invalidates");
        assert!(
            cache.get(1, 101, "a").is_none(),
            "the next second invalidates"
        );
        cache.put(2, 100, "b".into(), ok("y")).await;
        assert!(cache.get(1, 100, "a").is_none());
        // An older generation never replaces a newer one.
        cache.put(1, 100, "c".into(), ok("z")).await;
        assert!(cache.get(2, 100, "b").is_some());
    }

    #[tokio::test]
    async fn one_caller_recomputes_an_expired_entry_while_others_get_the_last_one() {
        let cache = ResponseCache::new(1 << 20);
        cache.put(7, 100, "k".into(), ok("old")).await;
        assert!(
            cache.get(7, 101, "k").is_none(),
            "the first caller recomputes"
        );
        assert!(
            cache.get(7, 101, "k").is_some(),
            "others get last second's answer"
        );
        assert!(cache.get(7, 101, "k").is_some());
        cache.put(7, 101, "k".into(), ok("new")).await;
        let fresh = cache.get(7, 101, "k").unwrap();
        assert_eq!(fresh.body, "new");
        // A write in between: nothing stale is ever served.
        cache.put(7, 102, "k".into(), ok("x")).await;
        assert!(cache.get(8, 103, "k").is_none());
        assert!(
            cache.get(8, 103, "k").is_none(),
            "a new data version has no stale entries"
        );
    }

    #[tokio::test]
    async fn size_is_capped_and_errors_are_not_kept() {
        let cache = ResponseCache::new(10);
        cache.put(1, 1, "big".into(), ok("0123456789abc")).await;
        assert!(cache.get(1, 1, "big").is_none());
        let mut not_found = ok("nope");
        *not_found.status_mut() = StatusCode::NOT_FOUND;
        cache.put(1, 1, "nf".into(), not_found).await;
        assert!(cache.get(1, 1, "nf").is_none());
    }
}
