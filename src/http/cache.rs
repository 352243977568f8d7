//! A response cache for anonymous reads, correct across instances.
//!
//! An entry is valid for the data version it was computed under (see
//! `Pool::data_version`, which every instance sharing a database sees alike) and
//! for every later version whose writes cannot change it: a request that finds a
//! newer version first catches the cache up ([`ResponseCache::catch_up`]), reading
//! what the writes in between changed (`store::changes`) and dropping the entries
//! that read it (`domain::changes::Reads`, which handlers attach to their
//! answers; an answer without one is dropped by any write). So a committed write
//! is visible to the next request on any instance, and the rest stays cached.
//! Term counts are filled in as an entry is served (`live_counts`). Within one
//! version most answers also depend on the clock (default date windows, scheduled
//! posts going live), so an entry is fresh for the second it was computed in —
//! unless its handler says how long it stays true ([`Freshness`]): a published
//! event read by ID is the same until a write changes it. After that, the first
//! request of a second starts one recomputation in the background, and every
//! request is answered with the last response meanwhile — same data,
//! clock-dependent parts at most [`MAX_STALE_SECONDS`] old — so an expiry is never
//! a stampede and no client waits for it, however long it takes. A key with no
//! entry at all is computed by one request too; the others wait for it (up to
//! [`MAX_WAIT`]) rather than all running the same query. A full cache drops its
//! least recently used entries first.

use std::collections::HashMap;

use hashlink::LinkedHashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::live_counts::Spliced;
use crate::domain::changes::{Changes, Reads};
use crate::store::StoreError;
use crate::store::changes::{CaughtUp, ChangeCursor};

/// How old (in seconds of the clock) a response of the current data version may
/// be when served while it is being recomputed.
pub const MAX_STALE_SECONDS: i64 = 5;

/// How long a request waits for another one computing the same uncached key.
pub const MAX_WAIT: Duration = Duration::from_secs(5);

/// How long a response stays true while no write intervenes, when a handler
/// knows better than the default (the second it was computed in). Handlers
/// attach it to their response as an extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Nothing in it depends on the clock.
    UntilWrite,
    /// It changes by the clock at this second (a scheduled post going live).
    Until(i64),
}

impl Freshness {
    /// Fresh until the earliest of these moments, or until a write if there is none.
    pub fn until_earliest(moments: impl IntoIterator<Item = i64>) -> Freshness {
        moments
            .into_iter()
            .min()
            .map_or(Freshness::UntilWrite, Freshness::Until)
    }

    /// When the answer changes by the clock, if it does.
    pub fn changes_at(self) -> Option<i64> {
        match self {
            Freshness::UntilWrite => None,
            Freshness::Until(t) => Some(t),
        }
    }

    /// The last second, at or after `computed`, in which the response is fresh.
    fn last_second(self, computed: i64) -> i64 {
        match self {
            Freshness::UntilWrite => i64::MAX,
            Freshness::Until(changes) => (changes - 1).max(computed),
        }
    }
}

/// What [`ResponseCache::get`] found.
pub enum Lookup {
    Hit(Hit),
    /// Compute the response, then [`ResponseCache::put`] it (or
    /// [`ResponseCache::abandon`] the key if there is none to keep).
    Compute,
    /// Another request is computing it: wait for this, then look again.
    Wait(tokio::sync::futures::OwnedNotified),
    /// Answer with this (same data version, an earlier second) and recompute the
    /// response in the background, then [`ResponseCache::put`] it.
    Refresh(Hit),
}

/// A response as it was sent, its term counts taken out (see `live_counts`).
pub struct Cached {
    status: StatusCode,
    headers: HeaderMap,
    body: Spliced,
}

/// A cached response and the term counts of the moment, ready to send.
pub struct Hit {
    cached: Arc<Cached>,
    counts: Vec<i64>,
}

impl Cached {
    /// The response as it was computed.
    fn response(&self) -> Response {
        let mut resp = Response::new(Body::from(self.body.as_computed()));
        *resp.status_mut() = self.status;
        *resp.headers_mut() = self.headers.clone();
        resp
    }
}

impl Hit {
    pub fn response(&self) -> Response {
        let mut resp = Response::new(Body::from(self.cached.body.filled(&self.counts)));
        *resp.status_mut() = self.cached.status;
        *resp.headers_mut() = self.cached.headers.clone();
        resp
    }
}

struct Entry {
    response: Arc<Cached>,
    /// What it was computed from; `None`: anything.
    reads: Option<Reads>,
    /// The second it was computed in.
    second: i64,
    /// The last second it is fresh in (see [`Freshness`]).
    fresh_through: i64,
    /// The second a recomputation was last handed out, if one was.
    refreshing: Option<i64>,
    size: usize,
}

struct Generation {
    version: u64,
    /// In order of use, least recent first.
    entries: LinkedHashMap<String, Entry>,
    bytes: usize,
    /// Keys with no entry that one request is computing; the others wait on these.
    computing: HashMap<String, Arc<tokio::sync::Notify>>,
    /// When it was last asked, in this version, and the next moment a scheduled
    /// post goes live after that (see `Ctx::until_next_go_live`).
    go_live: Option<(i64, Option<i64>)>,
    /// A lookup of that moment is under way.
    go_live_pending: bool,
    /// The counts of the terms that kept responses show, as of this version.
    counts: HashMap<i64, i64>,
}

impl Generation {
    fn reset(&mut self, version: u64) {
        self.version = version;
        self.entries.clear();
        self.counts.clear();
        self.bytes = 0;
        self.go_live = None;
        self.go_live_pending = false;
        self.computations_restart();
    }

    /// Drops the entries `changes` can change, takes the term counts they moved,
    /// and moves to `version`.
    fn apply(&mut self, version: u64, changes: &Changes, counts: &[(i64, i64)]) {
        if changes.anything {
            return self.reset(version);
        }
        self.version = version;
        self.counts.extend(counts.iter().copied());
        let before = self.entries.len();
        let mut freed = 0;
        self.entries.retain(|_, e| {
            let keep = e.reads.as_ref().is_some_and(|r| !r.changed_by(changes));
            if !keep {
                freed += e.size;
            }
            keep
        });
        self.bytes -= freed;
        tracing::trace!(
            kept = self.entries.len(),
            dropped = before - self.entries.len(),
            "cache caught up"
        );
        // A write may have scheduled a post.
        self.go_live = None;
        self.go_live_pending = false;
        self.computations_restart();
    }

    /// Computations under way are of an older version: whoever waits for them
    /// looks again.
    fn computations_restart(&mut self) {
        for (_, waiting) in self.computing.drain() {
            waiting.notify_waiters();
        }
    }
}

/// An entry as it is served now, with these counts.
fn hit(counts: &HashMap<i64, i64>, entry: &Entry) -> Hit {
    let shown = entry.response.body.counts();
    Hit {
        cached: entry.response.clone(),
        counts: shown
            .map(|(term, computed)| counts.get(&term).copied().unwrap_or(computed))
            .collect(),
    }
}

pub struct ResponseCache {
    max_bytes: usize,
    current: Mutex<Generation>,
    /// Where the cache stands in the record of changes; held while catching up, so
    /// that one request catches up and the others wait for it.
    cursor: tokio::sync::Mutex<ChangeCursor>,
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
                entries: LinkedHashMap::new(),
                bytes: 0,
                computing: HashMap::new(),
                go_live: None,
                go_live_pending: false,
                counts: HashMap::new(),
            }),
            cursor: tokio::sync::Mutex::new(ChangeCursor::Start),
        }
    }

    /// Whether the cache has yet to hear of the writes up to `version`.
    pub fn behind(&self, version: u64) -> bool {
        let g = self.lock();
        g.version == u64::MAX || g.version < version
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generation> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hears of the writes up to `version` (read before the call), through `catch_up`,
    /// and drops what they can change; everything when that cannot be known.
    pub async fn catch_up<F>(&self, version: u64, catch_up: F)
    where
        F: AsyncFnOnce(&mut ChangeCursor) -> Result<CaughtUp, StoreError>,
    {
        if !self.behind(version) {
            return;
        }
        let mut cursor = self.cursor.lock().await;
        if !self.behind(version) {
            return;
        }
        let caught = match catch_up(&mut cursor).await {
            Ok(caught) => caught,
            Err(e) => {
                tracing::debug!(error = %e, "reading the changes failed; the cache starts over");
                *cursor = ChangeCursor::Start;
                CaughtUp::unknown()
            }
        };
        let mut g = self.lock();
        match &caught.changes {
            Some(changes) if g.version != u64::MAX => g.apply(version, changes, &caught.counts),
            _ => g.reset(version),
        }
    }

    /// A cached response, or what to do instead.
    pub fn get(&self, version: u64, second: i64, key: &str) -> Lookup {
        let mut guard = self.lock();
        let g = &mut *guard;
        if g.version != version {
            // Versions only grow: a newer one replaces everything kept so far.
            if version < g.version && g.version != u64::MAX {
                return Lookup::Compute;
            }
            g.reset(version);
        }
        // An entry too old to serve counts as none: one request computes, others wait.
        if g.entries
            .get(key)
            .is_some_and(|e| second.saturating_sub(e.fresh_through) > MAX_STALE_SECONDS)
            && let Some(old) = g.entries.remove(key)
        {
            g.bytes -= old.size;
        }
        let Some(entry) = g.entries.to_back(key) else {
            if let Some(running) = g.computing.get(key) {
                // Registered now, so the wake-up cannot be missed.
                return Lookup::Wait(running.clone().notified_owned());
            }
            g.computing
                .insert(key.to_string(), Arc::new(tokio::sync::Notify::new()));
            return Lookup::Compute;
        };
        // A request that started just before a refresh landed gets the newer answer.
        if entry.fresh_through >= second {
            return Lookup::Hit(hit(&g.counts, entry));
        }
        // One recomputation per key and second; everyone gets the last answer meanwhile.
        if entry.refreshing.is_some_and(|s| s >= second) {
            Lookup::Hit(hit(&g.counts, entry))
        } else {
            entry.refreshing = Some(second);
            Lookup::Refresh(hit(&g.counts, entry))
        }
    }

    /// The next moment a scheduled post goes live, as remembered for `version`
    /// (outer `None`: not known at `now`).
    pub fn known_go_live(&self, version: u64, now: i64) -> Option<Option<i64>> {
        let g = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let (asked, next) = g.go_live.filter(|_| g.version == version)?;
        (now >= asked && next.is_none_or(|t| now < t)).then_some(next)
    }

    /// Whether the caller should look the next go-live moment up for `version`:
    /// true for one caller until it [remembers](Self::remember_go_live) or
    /// [gives up](Self::go_live_unknown).
    pub fn start_go_live_lookup(&self, version: u64) -> bool {
        let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let start = g.version == version && !g.go_live_pending;
        if start {
            g.go_live_pending = true;
        }
        start
    }

    /// Remembers, until the data version changes, when the next scheduled post
    /// goes live as of `now`.
    pub fn remember_go_live(&self, version: u64, now: i64, next: Option<i64>) {
        let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if g.version == version {
            g.go_live = Some((now, next));
            g.go_live_pending = false;
        }
    }

    /// A lookup failed: the next caller tries again.
    pub fn go_live_unknown(&self, version: u64) {
        let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if g.version == version {
            g.go_live_pending = false;
        }
    }

    /// The computation of a key [`ResponseCache::get`] answered [`Lookup::Compute`] to.
    pub fn computing(&self, key: &str) -> Computing<'_> {
        Computing {
            cache: self,
            key: Some(key.to_string()),
        }
    }

    /// Wakes whoever waits for `key` when the request computing it has nothing to keep.
    pub fn abandon(&self, key: &str) {
        let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = g.computing.remove(key) {
            n.notify_waiters();
        }
    }

    /// Keeps a successful response; returns it ready to send.
    pub async fn put(&self, version: u64, second: i64, key: String, resp: Response) -> Response {
        let (parts, body) = resp.into_parts();
        // Handlers answer from memory: reading the body costs nothing, and every
        // answer is sent with its counts filled in, kept or not.
        let body = match axum::body::to_bytes(body, usize::MAX).await {
            Ok(body) => Spliced::new(body),
            Err(e) => {
                self.abandon(&key);
                tracing::warn!(error = %e, "reading a response to cache failed");
                return Response::from_parts(parts, Body::empty());
            }
        };
        let fresh_through = parts
            .extensions
            .get::<Freshness>()
            .map_or(second, |f| f.last_second(second));
        let reads = parts.extensions.get::<Reads>().cloned();
        let keep =
            parts.status == StatusCode::OK && self.max_bytes > 0 && body.len() <= MAX_ENTRY_BYTES;
        let cached = Arc::new(Cached {
            status: parts.status,
            headers: parts.headers,
            body,
        });
        if !keep {
            self.abandon(&key);
            return cached.response();
        }
        {
            let mut g = self.current.lock().unwrap_or_else(|e| e.into_inner());
            if g.version != version {
                // Only ever move forward: a slow request must not reset a newer generation.
                if version < g.version && g.version != u64::MAX {
                    return cached.response();
                }
                g.reset(version);
            }
            // Waiters wake once the lock is released, when the entry is in place.
            if let Some(n) = g.computing.remove(&key) {
                n.notify_waiters();
            }
            for (term, count) in cached.body.counts() {
                g.counts.entry(term).or_insert(count);
            }
            if let Some(old) = g.entries.get(&key) {
                if old.second > second {
                    return cached.response();
                }
                let size = old.size;
                g.bytes -= size;
                g.entries.remove(&key);
            }
            let size = cached.body.len() + key.len();
            if size <= self.max_bytes {
                while g.bytes + size > self.max_bytes || g.entries.len() >= MAX_ENTRIES {
                    let Some((_, dropped)) = g.entries.pop_front() else {
                        break;
                    };
                    g.bytes -= dropped.size;
                }
                g.bytes += size;
                g.entries.insert(
                    key,
                    Entry {
                        response: cached.clone(),
                        reads,
                        second,
                        fresh_through,
                        refreshing: None,
                        size,
                    },
                );
            }
        }
        cached.response()
    }
}

/// A key one request computes while others wait for it ([`Lookup::Wait`]). Dropped
/// before [`Computing::kept`] — the request failed, or its client went away and the
/// server dropped the request's future with it — it wakes the waiters, which would
/// otherwise sit out [`MAX_WAIT`] for a response that is not coming.
pub struct Computing<'a> {
    cache: &'a ResponseCache,
    key: Option<String>,
}

impl Computing<'_> {
    /// The response was kept (or its key abandoned) by [`ResponseCache::put`].
    pub fn kept(mut self) {
        self.key = None;
    }
}

impl Drop for Computing<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.cache.abandon(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Bytes;

    impl Hit {
        fn body(&self) -> Bytes {
            self.cached.body.filled(&self.counts)
        }
    }

    impl ResponseCache {
        fn hit(&self, version: u64, second: i64, key: &str) -> Option<Hit> {
            match self.get(version, second, key) {
                Lookup::Hit(h) => Some(h),
                Lookup::Compute | Lookup::Wait(_) | Lookup::Refresh(_) => None,
            }
        }
    }

    fn ok(text: &'static str) -> Response {
        Response::new(Body::from(text))
    }

    #[tokio::test]
    async fn entries_live_for_one_version_and_second() {
        let cache = ResponseCache::new(1 << 20);
        cache.put(1, 100, "a".into(), ok("x")).await;
        assert!(cache.hit(1, 100, "a").is_some());
        assert!(cache.hit(2, 100, "a").is_none(), "a write invalidates");
        assert!(
            cache.hit(1, 101, "a").is_none(),
            "the next second recomputes"
        );
        cache.put(2, 100, "b".into(), ok("y")).await;
        assert!(cache.hit(1, 100, "a").is_none());
        // An older generation never replaces a newer one.
        cache.put(1, 100, "c".into(), ok("z")).await;
        assert!(cache.hit(2, 100, "b").is_some());
    }

    #[tokio::test]
    async fn one_caller_refreshes_an_expired_entry_while_all_get_the_last_one() {
        let cache = ResponseCache::new(1 << 20);
        cache.put(7, 100, "k".into(), ok("old")).await;
        let Lookup::Refresh(last) = cache.get(7, 101, "k") else {
            panic!("the first caller of a second starts a refresh");
        };
        assert_eq!(last.body(), "old", "and is answered with the last response");
        assert!(
            cache.hit(7, 101, "k").is_some(),
            "others get last second's answer"
        );
        assert!(cache.hit(7, 101, "k").is_some());
        cache.put(7, 101, "k".into(), ok("new")).await;
        let fresh = cache.hit(7, 101, "k").unwrap();
        assert_eq!(fresh.body(), "new");
        // A write in between: nothing stale is ever served.
        cache.put(7, 102, "k".into(), ok("x")).await;
        assert!(cache.hit(8, 103, "k").is_none());
        assert!(
            cache.hit(8, 103, "k").is_none(),
            "a new data version has no stale entries"
        );
    }

    #[tokio::test]
    async fn a_slow_recomputation_keeps_the_last_answer_and_one_refresher_per_second() {
        let cache = ResponseCache::new(1 << 20);
        cache.put(3, 100, "k".into(), ok("old")).await;
        assert!(
            matches!(cache.get(3, 101, "k"), Lookup::Refresh(_)),
            "a refresher at 101"
        );
        assert!(cache.hit(3, 101, "k").is_some());
        // Still computing two seconds later: one more refresher, the rest get "old".
        assert!(
            matches!(cache.get(3, 103, "k"), Lookup::Refresh(_)),
            "a refresher at 103"
        );
        assert_eq!(cache.hit(3, 103, "k").unwrap().body(), "old");
        // The slow one from 101 lands, then the one from 103: the newer stays.
        cache.put(3, 103, "k".into(), ok("new")).await;
        cache.put(3, 101, "k".into(), ok("older")).await;
        assert_eq!(cache.hit(3, 103, "k").unwrap().body(), "new");
        // Too old to serve: one request computes, the others wait for it.
        let late = 103 + MAX_STALE_SECONDS + 1;
        assert!(matches!(cache.get(3, late, "k"), Lookup::Compute));
        assert!(matches!(cache.get(3, late, "k"), Lookup::Wait(_)));
    }

    #[tokio::test]
    async fn one_request_computes_a_cold_key_and_the_others_wait_for_it() {
        let cache = Arc::new(ResponseCache::new(1 << 20));
        assert!(matches!(cache.get(5, 10, "k"), Lookup::Compute));
        let Lookup::Wait(waiting) = cache.get(5, 10, "k") else {
            panic!("a second request waits");
        };
        let waiter = tokio::spawn({
            let cache = cache.clone();
            async move {
                waiting.await;
                cache.hit(5, 10, "k").map(|c| c.body())
            }
        });
        cache.put(5, 10, "k".into(), ok("once")).await;
        assert_eq!(waiter.await.unwrap().as_deref(), Some(&b"once"[..]));
        // A computation that fails wakes the waiters, and the next request computes.
        assert!(matches!(cache.get(5, 10, "j"), Lookup::Compute));
        let Lookup::Wait(waiting) = cache.get(5, 10, "j") else {
            panic!("a second request waits");
        };
        cache.abandon("j");
        waiting.await;
        assert!(matches!(cache.get(5, 10, "j"), Lookup::Compute));
    }

    #[tokio::test]
    async fn a_computation_dropped_midway_lets_the_waiters_go() {
        let cache = ResponseCache::new(1 << 20);
        assert!(matches!(cache.get(5, 10, "k"), Lookup::Compute));
        let computing = cache.computing("k");
        let Lookup::Wait(waiting) = cache.get(5, 10, "k") else {
            panic!("a second request waits");
        };
        drop(computing);
        tokio::time::timeout(Duration::from_millis(100), waiting)
            .await
            .expect("the waiter is woken, not left to time out");
        assert!(matches!(cache.get(5, 10, "k"), Lookup::Compute));
        // A kept response does not wake anyone twice or unregister a later computation.
        let computing = cache.computing("k");
        cache.put(5, 10, "k".into(), ok("kept")).await;
        computing.kept();
        assert!(cache.hit(5, 10, "k").is_some());
    }

    #[tokio::test]
    async fn a_request_from_the_second_before_gets_the_newer_answer() {
        let cache = ResponseCache::new(1 << 20);
        cache.put(4, 201, "k".into(), ok("new")).await;
        assert_eq!(cache.hit(4, 200, "k").unwrap().body(), "new");
        assert_eq!(cache.hit(4, 201, "k").unwrap().body(), "new");
    }

    #[tokio::test]
    async fn a_full_cache_drops_its_least_recently_used_entries() {
        let cache = ResponseCache::new(12);
        cache.put(1, 10, "a".into(), ok("123")).await;
        cache.put(1, 10, "b".into(), ok("456")).await;
        cache.put(1, 10, "c".into(), ok("789")).await;
        assert!(cache.hit(1, 10, "a").is_some(), "a is now the most recent");
        cache.put(1, 11, "d".into(), ok("000")).await;
        assert!(cache.hit(1, 11, "d").is_some(), "a new URL gets in");
        assert!(
            cache.hit(1, 11, "b").is_none(),
            "the least recently used went"
        );
        assert!(cache.hit(1, 10, "a").is_some(), "the rest stay");
        assert!(cache.hit(1, 10, "c").is_some());
    }

    fn fresh(text: &'static str, freshness: Freshness) -> Response {
        let mut resp = ok(text);
        resp.extensions_mut().insert(freshness);
        resp
    }

    #[tokio::test]
    async fn a_response_that_does_not_depend_on_the_clock_lives_until_a_write() {
        let cache = ResponseCache::new(1 << 20);
        cache
            .put(1, 100, "k".into(), fresh("x", Freshness::UntilWrite))
            .await;
        assert!(cache.hit(1, 100_000, "k").is_some(), "no refresh, ever");
        assert!(cache.hit(2, 100_000, "k").is_none(), "but a write ends it");
    }

    #[tokio::test]
    async fn a_response_that_changes_by_the_clock_is_fresh_until_then() {
        let cache = ResponseCache::new(1 << 20);
        cache
            .put(1, 100, "k".into(), fresh("x", Freshness::Until(150)))
            .await;
        assert!(cache.hit(1, 149, "k").is_some());
        assert!(
            matches!(cache.get(1, 150, "k"), Lookup::Refresh(_)),
            "recomputed in the second it changes"
        );
        let late = 150 + MAX_STALE_SECONDS;
        assert!(matches!(cache.get(1, late, "k"), Lookup::Compute));
        // A moment already past counts from the second it was computed in.
        cache
            .put(1, 300, "j".into(), fresh("y", Freshness::Until(200)))
            .await;
        assert!(cache.hit(1, 300, "j").is_some());
        assert!(matches!(cache.get(1, 301, "j"), Lookup::Refresh(_)));
    }

    #[tokio::test]
    async fn the_next_go_live_is_remembered_for_one_version_until_it_passes() {
        let cache = ResponseCache::new(1 << 20);
        assert!(matches!(cache.get(1, 100, "k"), Lookup::Compute));
        assert_eq!(cache.known_go_live(1, 100), None, "not asked yet");
        assert!(cache.start_go_live_lookup(1), "one caller looks it up");
        assert!(!cache.start_go_live_lookup(1), "the others do not");
        cache.go_live_unknown(1);
        assert!(
            cache.start_go_live_lookup(1),
            "after a failure, someone tries again"
        );
        cache.remember_go_live(1, 100, Some(150));
        assert!(cache.start_go_live_lookup(1), "once it has passed, again");
        assert_eq!(cache.known_go_live(1, 120), Some(Some(150)));
        assert_eq!(cache.known_go_live(1, 150), None, "it has gone live");
        assert_eq!(cache.known_go_live(1, 99), None, "earlier than asked");
        cache.remember_go_live(1, 100, None);
        assert_eq!(
            cache.known_go_live(1, 10_000),
            Some(None),
            "nothing scheduled"
        );
        assert!(matches!(cache.get(2, 100, "k"), Lookup::Compute));
        assert_eq!(cache.known_go_live(2, 120), None, "a write forgets it");
        cache.remember_go_live(1, 100, None);
        assert_eq!(
            cache.known_go_live(2, 120),
            None,
            "an older version is ignored"
        );
    }

    #[tokio::test]
    async fn size_is_capped_and_errors_are_not_kept() {
        let cache = ResponseCache::new(10);
        cache.put(1, 1, "big".into(), ok("0123456789abc")).await;
        assert!(cache.hit(1, 1, "big").is_none());
        let mut not_found = ok("nope");
        *not_found.status_mut() = StatusCode::NOT_FOUND;
        cache.put(1, 1, "nf".into(), not_found).await;
        assert!(cache.hit(1, 1, "nf").is_none());
    }
}
