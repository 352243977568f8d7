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
//! Term counts are filled in as an entry is served (`live_counts`), in the entry
//! itself when they moved. Within one
//! version most answers also depend on the clock (default date windows, scheduled
//! posts going live), so an entry is fresh for the second it was computed in —
//! unless its handler says how long it stays true ([`Freshness`]): a published
//! event read by ID is the same until a write changes it. After that, the first
//! request of a second starts one recomputation in the background, and every
//! request is answered with the last response meanwhile — same data,
//! clock-dependent parts at most [`MAX_STALE_SECONDS`] old — so an expiry is never
//! a stampede and no client waits for it, however long it takes. A key with no
//! entry at all is computed by one request too; the others wait for it (up to
//! [`MAX_WAIT`]) rather than all running the same query, even when a write came
//! in between: the answer serves them if the write cannot reach it, and otherwise
//! one of them computes again at the newest version for the rest (`serve`). A
//! full cache drops its least recently used entries first.

use std::collections::HashMap;

use hashlink::LinkedHashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::Response;

mod amend;
mod answer;
pub mod serve;

use super::live_counts::Spliced;
use crate::domain::changes::{Changes, Effect, Reads, RecentChanges};
use crate::store::StoreError;
use crate::store::changes::{CaughtUp, ChangeCursor};
use amend::{caught_up, counted, hit, tallied};
pub use answer::{Cached, Hit};

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
    /// Another request is computing it: wait for its answer ([`ResponseCache::answer`]).
    Wait(Waiting),
    /// Answer with this (same data version, an earlier second) and recompute the
    /// response in the background, then [`ResponseCache::put`] it.
    Refresh(Hit),
}

/// One request's computation of a key, which requests arriving meanwhile share:
/// its answer is right for every request whose data version is at most its own
/// (it read the data after it read that version), and for a later one when the
/// writes in between do not reach what it read.
pub struct Flight {
    version: u64,
    done: Arc<tokio::sync::Notify>,
    answer: OnceLock<(Arc<Cached>, Option<Reads>)>,
}

/// A request waiting for another one's computation.
pub struct Waiting {
    pub notified: std::pin::Pin<Box<tokio::sync::futures::OwnedNotified>>,
    flight: Arc<Flight>,
    /// The data version the waiting request read.
    version: u64,
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
    /// The counts epoch its body's term counts are of: when the counts move, its
    /// body is filled with them in place, once, and served as is until they move again.
    counted_at: u64,
}

/// What an entry holds: its key, its answer with its headers, what it read, and
/// the entry itself in its map's slot (two links and a hash) behind the answer's
/// shared counts. Beside its body that is about a kilobyte per entry (a single event's
/// JSON is 3-11 KiB): a bound counting bodies and keys alone went over by as much.
fn entry_bytes(key: &str, answer: &Cached, reads: Option<&Reads>) -> usize {
    const SLOT_AND_COUNTS: usize = 5 * size_of::<usize>();
    key.len()
        + answer.held_bytes()
        + reads.map_or(0, Reads::heap_bytes)
        + size_of::<(String, Entry)>()
        + SLOT_AND_COUNTS
}

struct Generation {
    version: u64,
    /// In order of use, least recent first.
    entries: LinkedHashMap<String, Entry>,
    bytes: usize,
    /// Keys with no entry that one request is computing; the others wait on these.
    computing: HashMap<String, Arc<Flight>>,
    /// The changes applied, by the version they brought the cache to: what a
    /// response computed at an earlier version may have missed.
    recent: RecentChanges,
    /// When it was last asked, in this version, and the next moment a scheduled
    /// post goes live after that (see `Ctx::until_next_go_live`).
    go_live: Option<(i64, Option<i64>)>,
    /// A lookup of that moment is under way.
    go_live_pending: bool,
    /// The counts of the terms that kept responses show, as of this version.
    counts: HashMap<i64, i64>,
    /// Moves when `counts` change.
    counts_epoch: u64,
}

impl Generation {
    fn reset(&mut self, version: u64) {
        self.version = version;
        self.entries.clear();
        self.counts.clear();
        self.counts_epoch += 1;
        self.recent.restart(version);
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
        if !counts.is_empty() {
            self.counts.extend(counts.iter().copied());
            self.counts_epoch += 1;
        }
        let before = self.entries.len();
        let (mut freed, mut grown) = (0, 0);
        self.entries.retain(|_, e| {
            let effect = e
                .reads
                .as_ref()
                .map_or(Effect::Changed, |r| r.effect(changes));
            let moved = match effect {
                Effect::Unchanged => return true,
                Effect::Total(by) => tallied(&e.response, e.reads.as_ref(), by),
                Effect::Changed => None,
            };
            let Some(moved) = moved else {
                freed += e.size;
                return false;
            };
            freed += e.response.body.len();
            grown += moved.body.len();
            e.size = e.size - e.response.body.len() + moved.body.len();
            e.response = Arc::new(moved);
            true
        });
        self.bytes = self.bytes + grown - freed;
        tracing::trace!(
            kept = self.entries.len(),
            dropped = before - self.entries.len(),
            "cache caught up"
        );
        // A write may have scheduled a post.
        self.go_live = None;
        self.go_live_pending = false;
        self.recent.push(version, changes.clone());
    }

    /// Whether a response computed at `version` and reading `reads` is still right:
    /// `Some` of how many events its list gained since, after its page (see
    /// [`tallied`]), or `None`.
    fn missed(&self, version: u64, reads: Option<&Reads>) -> Option<i64> {
        if version == self.version {
            return Some(0);
        }
        if version > self.version {
            return None;
        }
        let reads = reads?;
        let mut moved = 0;
        for (_, changes) in self.recent.after(version)? {
            match reads.effect(changes) {
                Effect::Unchanged => {}
                Effect::Total(by) => moved += by,
                Effect::Changed => return None,
            }
        }
        Some(moved)
    }

    /// Drops the entry under `key` for an answer computed in `second`, unless the
    /// entry was computed later: then the answer is not kept (`false`).
    fn make_room_for(&mut self, key: &str, second: i64) -> bool {
        if let Some(old) = self.entries.get(key) {
            if old.second > second {
                return false;
            }
            self.bytes -= old.size;
            self.entries.remove(key);
        }
        true
    }

    /// Keeps `entry`, dropping the least recently used ones to stay within
    /// `max_bytes` and [`MAX_ENTRIES`]; one larger than `max_bytes` is not kept.
    fn insert(&mut self, max_bytes: usize, key: String, entry: Entry) {
        if entry.size > max_bytes {
            return;
        }
        while self.bytes + entry.size > max_bytes || self.entries.len() >= MAX_ENTRIES {
            let Some((_, dropped)) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= dropped.size;
        }
        self.bytes += entry.size;
        self.entries.insert(key, entry);
    }

    /// After anything changed, computations under way may not see it: whoever
    /// waits for them looks again.
    fn computations_restart(&mut self) {
        for (_, flight) in self.computing.drain() {
            flight.done.notify_waiters();
        }
    }
}

pub struct ResponseCache {
    max_bytes: usize,
    current: Mutex<Generation>,
    /// Where the cache stands in the record of changes; held while catching up, so
    /// that one request catches up and the others wait for it.
    cursor: tokio::sync::Mutex<ChangeCursor>,
}

/// How many catch-ups' changes the cache remembers, to judge responses computed at
/// an earlier version than the cache's: under hundreds of writes a second, a list
/// that takes a tenth of a second to compute is a hundred versions old when done.
const RECENT_CHANGES: usize = 1024;

/// And at most this much memory ([`Changes::heap_bytes`]), whatever their number.
const RECENT_BYTES: usize = 1024 * 1024;

/// Bodies up to this size are always worth keeping; larger ones (a feed of a
/// thousand events is about 1.7 MiB) while they fit in a quarter of the cache.
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
                counts_epoch: 0,
                // Nothing is known until the first catch-up.
                recent: RecentChanges::new(u64::MAX, RECENT_CHANGES, RECENT_BYTES),
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
        // Entries are right for the cache's version, and so for any earlier one. A
        // newer one the cache has not caught up with (its catch-up failed) drops them.
        if g.version == u64::MAX || version > g.version {
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
            // A computation of an older version is waited for too: the writes since
            // may not reach what it reads, which its answer tells (`answer`). Under
            // a steady stream of writes, every request would otherwise start its own.
            if let Some(flight) = g.computing.get(key) {
                // Registered now, so the wake-up cannot be missed.
                return Lookup::Wait(Waiting {
                    notified: Box::pin(flight.done.clone().notified_owned()),
                    flight: flight.clone(),
                    version,
                });
            }
            let flight = Arc::new(Flight {
                version,
                done: Arc::new(tokio::sync::Notify::new()),
                answer: OnceLock::new(),
            });
            g.computing.insert(key.to_string(), flight);
            return Lookup::Compute;
        };
        // A request that started just before a refresh landed gets the newer answer.
        if entry.fresh_through >= second {
            return Lookup::Hit(hit(&g.counts, g.counts_epoch, &mut g.bytes, entry));
        }
        // One recomputation per key and second; everyone gets the last answer meanwhile.
        if entry.refreshing.is_some_and(|s| s >= second) {
            Lookup::Hit(hit(&g.counts, g.counts_epoch, &mut g.bytes, entry))
        } else {
            entry.refreshing = Some(second);
            Lookup::Refresh(hit(&g.counts, g.counts_epoch, &mut g.bytes, entry))
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

    /// The computation of a key [`ResponseCache::get`] answered [`Lookup::Compute`]
    /// to, at `version`.
    pub fn computing(&self, key: &str, version: u64) -> Computing<'_> {
        Computing {
            cache: self,
            key: Some(key.to_string()),
            version,
        }
    }

    /// Wakes whoever waits for the computation of `key` at `version`, which has no
    /// answer to give.
    pub fn abandon(&self, key: &str, version: u64) {
        let mut g = self.lock();
        if g.computing.get(key).is_some_and(|f| f.version == version)
            && let Some(flight) = g.computing.remove(key)
        {
            flight.done.notify_waiters();
        }
    }

    /// The answer of the computation a request waited for, if it gave one that is
    /// right at the request's version.
    pub fn answer(&self, waited: &Waiting) -> Option<Hit> {
        let (cached, reads) = waited.flight.answer.get()?;
        let g = self.lock();
        let moved = if waited.version <= waited.flight.version {
            0
        } else if g.version >= waited.version {
            g.missed(waited.flight.version, reads.as_ref())?
        } else {
            return None;
        };
        let cached = caught_up(cached, reads.as_ref(), moved)?;
        Some(Hit::new(counted(&g.counts, &cached)))
    }

    /// Keeps a successful response; returns it ready to send.
    pub async fn put(&self, version: u64, second: i64, key: String, resp: Response) -> Response {
        let (parts, body) = resp.into_parts();
        // Handlers answer from memory: reading the body costs nothing, and every
        // answer is sent with its counts filled in, kept or not.
        let body = match axum::body::to_bytes(body, usize::MAX).await {
            Ok(body) => Spliced::new(body),
            Err(e) => {
                self.abandon(&key, version);
                tracing::warn!(error = %e, "reading a response to cache failed");
                return Response::from_parts(parts, Body::empty());
            }
        };
        let fresh_through = parts
            .extensions
            .get::<Freshness>()
            .map_or(second, |f| f.last_second(second));
        let reads = parts.extensions.get::<Reads>().cloned();
        let keep = parts.status == StatusCode::OK
            && self.max_bytes > 0
            && body.len() <= MAX_ENTRY_BYTES.max(self.max_bytes / 4);
        let mut headers = parts.headers;
        if parts.status == StatusCode::OK {
            headers.insert(header::ETAG, super::conditional::etag(&body.as_computed()));
        }
        let cached = Arc::new(Cached {
            status: parts.status,
            headers,
            body,
        });
        {
            let mut g = self.lock();
            // Whoever waits for this computation gets its answer, kept or not.
            if g.computing.get(&key).is_some_and(|f| f.version == version)
                && let Some(flight) = g.computing.remove(&key)
            {
                let _ = flight.answer.set((cached.clone(), reads.clone()));
                flight.done.notify_waiters();
            }
            if !keep {
                return cached.response();
            }
            // A version the cache has not caught up with (its catch-up failed) drops
            // everything, as in `get`.
            if g.version == u64::MAX || version > g.version {
                g.reset(version);
            }
            let Some(moved) = g.missed(version, reads.as_ref()) else {
                return cached.response();
            };
            let Some(caught) = caught_up(&cached, reads.as_ref(), moved) else {
                return cached.response();
            };
            for (term, count) in caught.body.counts() {
                g.counts.entry(term).or_insert(count);
            }
            if !g.make_room_for(&key, second) {
                return cached.response();
            }
            let kept = counted(&g.counts, &caught);
            let size = entry_bytes(&key, &kept, reads.as_ref());
            let counted_at = g.counts_epoch;
            let entry = Entry {
                response: kept,
                reads,
                second,
                fresh_through,
                refreshing: None,
                size,
                counted_at,
            };
            g.insert(self.max_bytes, key, entry);
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
    version: u64,
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
            self.cache.abandon(&key, self.version);
        }
    }
}

#[cfg(test)]
mod tests;
