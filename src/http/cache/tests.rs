//! The cache's rules, one by one, without a server.

use super::*;
use crate::domain::changes::{Changes, Reads};
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue};

impl Hit {
    fn body(&self) -> Bytes {
        self.body.clone()
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
            waiting.notified.await;
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
    cache.abandon("j", 5);
    waiting.notified.await;
    assert!(matches!(cache.get(5, 10, "j"), Lookup::Compute));
}

#[tokio::test]
async fn a_computation_dropped_midway_lets_the_waiters_go() {
    let cache = ResponseCache::new(1 << 20);
    assert!(matches!(cache.get(5, 10, "k"), Lookup::Compute));
    let computing = cache.computing("k", 5);
    let Lookup::Wait(waiting) = cache.get(5, 10, "k") else {
        panic!("a second request waits");
    };
    drop(computing);
    tokio::time::timeout(Duration::from_millis(100), waiting.notified)
        .await
        .expect("the waiter is woken, not left to time out");
    assert!(matches!(cache.get(5, 10, "k"), Lookup::Compute));
    // A kept response does not wake anyone twice or unregister a later computation.
    let computing = cache.computing("k", 5);
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
    let cache = ResponseCache::new(3 * held_by_one(ok("123")).await);
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

/// The bytes the cache counts for an entry of `key` "a" and this response.
async fn held_by_one(resp: Response) -> usize {
    let cache = ResponseCache::new(1 << 20);
    cache.put(1, 10, "a".into(), resp).await;
    cache.lock().bytes
}

#[tokio::test]
async fn the_bound_counts_what_an_entry_holds_beside_its_body() {
    let one = held_by_one(ok("123")).await;
    assert!(
        one > 4 + size_of::<Cached>() + size_of::<HeaderMap>(),
        "an entry of a 3-byte body and a 1-byte key holds more than 4 bytes: {one}"
    );
    let cache = ResponseCache::new(16 * 1024);
    for i in 0..1_000 {
        cache.put(1, 10, format!("{i:03}"), ok("123")).await;
    }
    let kept = (0..1_000)
        .filter(|i| cache.hit(1, 10, &format!("{i:03}")).is_some())
        .count();
    let held = cache.lock().bytes;
    assert!(held <= 16 * 1024, "{held} bytes counted");
    assert!(
        kept < 16 * 1024 / (6 + size_of::<Cached>()),
        "{kept} entries of 3 bytes kept in 16 KiB"
    );
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

fn reading(resp: Response, reads: Reads) -> Response {
    let mut resp = resp;
    resp.extensions_mut().insert(reads);
    resp.extensions_mut().insert(Freshness::UntilWrite);
    resp
}

fn by_id(id: i64) -> Reads {
    Reads {
        events: vec![id],
        ..Reads::default()
    }
}

fn event_write(id: i64) -> CaughtUp {
    CaughtUp {
        changes: Some(Changes::events([id], [], [])),
        counts: Vec::new(),
    }
}

async fn catch_up(cache: &ResponseCache, version: u64, caught: CaughtUp) {
    let caught = std::sync::Mutex::new(Some(caught));
    cache
        .catch_up(version, async |_| {
            Ok(caught.lock().unwrap().take().unwrap())
        })
        .await;
}

#[tokio::test]
async fn a_write_drops_only_what_it_reaches_and_older_requests_still_hit() {
    let cache = ResponseCache::new(1 << 20);
    catch_up(&cache, 1, CaughtUp::unknown()).await;
    cache
        .put(1, 10, "a".into(), reading(ok("A"), by_id(1)))
        .await;
    cache
        .put(1, 10, "b".into(), reading(ok("B"), by_id(2)))
        .await;
    catch_up(&cache, 2, event_write(2)).await;
    assert_eq!(cache.hit(2, 10, "a").unwrap().body(), "A", "not reached");
    assert!(cache.hit(2, 10, "b").is_none(), "reached");
    assert!(
        cache.hit(1, 10, "a").is_some(),
        "right at version 2, so right for a request that read version 1"
    );
    // Computed at version 1, put at 2: kept if version 2's writes do not reach it.
    cache
        .put(1, 10, "c".into(), reading(ok("C"), by_id(3)))
        .await;
    assert!(cache.hit(2, 10, "c").is_some());
    cache
        .put(1, 10, "b".into(), reading(ok("B, old"), by_id(2)))
        .await;
    assert!(cache.hit(2, 10, "b").is_none(), "version 2 changed it");
    // An answer that says nothing of what it read is right only at its own version.
    cache.put(1, 10, "d".into(), ok("D")).await;
    assert!(cache.hit(2, 10, "d").is_none());
}

#[tokio::test]
async fn a_computation_answers_every_request_of_its_version_or_older() {
    let cache = ResponseCache::new(1 << 20);
    catch_up(&cache, 4, CaughtUp::unknown()).await;
    assert!(matches!(cache.get(4, 10, "k"), Lookup::Compute));
    let Lookup::Wait(mut older) = cache.get(3, 10, "k") else {
        panic!("a request of an older version waits for it");
    };
    // The answer reaches its waiter, even when it is not kept (it says nothing of
    // what it read, and the cache has moved on).
    catch_up(&cache, 5, event_write(9)).await;
    cache.put(4, 10, "k".into(), ok("four")).await;
    (&mut older.notified).await;
    assert_eq!(cache.answer(&older).unwrap().body(), "four");
    assert!(cache.hit(5, 10, "k").is_none());
}

#[tokio::test]
async fn a_newer_request_waits_for_an_older_computation_and_takes_it_if_still_right() {
    let cache = ResponseCache::new(1 << 20);
    catch_up(&cache, 4, CaughtUp::unknown()).await;
    assert!(matches!(cache.get(4, 10, "k"), Lookup::Compute));
    catch_up(&cache, 5, event_write(9)).await;
    let Lookup::Wait(mut newer) = cache.get(5, 10, "k") else {
        panic!("a request of a newer version waits for the computation under way");
    };
    // Version 5 wrote event 9, which the answer does not show: right for it.
    cache
        .put(4, 10, "k".into(), reading(ok("four"), by_id(3)))
        .await;
    (&mut newer.notified).await;
    assert_eq!(cache.answer(&newer).unwrap().body(), "four");

    // The same with a write that reaches the answer: the waiter gets nothing, and
    // computes its own.
    assert!(matches!(cache.get(5, 10, "j"), Lookup::Compute));
    catch_up(&cache, 6, event_write(3)).await;
    let Lookup::Wait(mut newer) = cache.get(6, 10, "j") else {
        panic!("waits");
    };
    cache
        .put(5, 10, "j".into(), reading(ok("five"), by_id(3)))
        .await;
    (&mut newer.notified).await;
    assert!(cache.answer(&newer).is_none(), "version 6 changed it");
    assert!(matches!(cache.get(6, 10, "j"), Lookup::Compute));

    // Nor does an answer that says nothing of what it read serve a newer request.
    assert!(matches!(cache.get(6, 10, "i"), Lookup::Compute));
    catch_up(&cache, 7, event_write(8)).await;
    let Lookup::Wait(mut newer) = cache.get(7, 10, "i") else {
        panic!("waits");
    };
    cache.put(6, 10, "i".into(), ok("six")).await;
    (&mut newer.notified).await;
    assert!(cache.answer(&newer).is_none());
}

/// A create in the window and categories of a search list, whose text does not
/// hold its word.
fn unrelated_create(id: i64) -> Changes {
    let words = (0..30)
        .map(|n| format!("word{n}x{id}"))
        .collect::<Vec<_>>()
        .join(" ");
    Changes::events(
        [id],
        [7],
        [crate::domain::changes::EventState {
            span: (100, 200),
            terms: Some(vec![7]),
            words: Some(words),
            links: None,
            listed: None,
        }],
    )
}

#[tokio::test]
async fn a_search_list_outlives_a_catch_up_over_many_creates_without_its_word() {
    let cache = ResponseCache::new(1 << 20);
    catch_up(&cache, 1, CaughtUp::unknown()).await;
    let search = Reads {
        list: Some(crate::domain::changes::Reach {
            window: crate::domain::changes::Window::ALL,
            terms: vec![vec![7]],
            search: vec!["jazz".into()],
            links: Vec::new(),
        }),
        ..Reads::default()
    };
    cache
        .put(1, 10, "s".into(), reading(ok("S"), search.clone()))
        .await;
    // Fifty creates caught up at once, some 14 KiB of words: their words still
    // tell the list apart.
    let mut merged = Changes::nothing();
    for id in 0..50 {
        merged.merge(unrelated_create(id));
    }
    assert!(merged.word_bytes() > 8 * 1024, "{}", merged.word_bytes());
    catch_up(
        &cache,
        2,
        CaughtUp {
            changes: Some(merged),
            counts: Vec::new(),
        },
    )
    .await;
    assert_eq!(cache.hit(2, 10, "s").unwrap().body(), "S");
    // Computed at version 1 and put at 2: still right.
    cache.put(1, 10, "t".into(), reading(ok("T"), search)).await;
    assert!(cache.hit(2, 10, "t").is_some());
}

/// Page 1 of a list of every public event of a window, two a page, its total counted
/// with every write up to stamp `seen` (as SQLite writes it), ending as
/// `lists::respond` writes it.
fn front_page(total: u64, seen: &str) -> Response {
    use crate::domain::changes::{Reach, Seen, Tally, Window};
    let pages = total.div_ceil(2);
    let body = format!(
        r#"{{"events":[1,2],"rest_url":"u","next_rest_url":"n","total":{total},"total_pages":{pages}}}"#
    );
    let mut resp = Response::new(Body::from(body));
    let h = resp.headers_mut();
    h.insert("x-wp-total", HeaderValue::from(total));
    h.insert("x-wp-totalpages", HeaderValue::from(pages));
    let tally = Tally {
        last: (100, 2),
        per_page: 2,
        through: 2,
        seen: Seen::parse(seen).unwrap(),
    };
    let reads = Reads {
        events: vec![1, 2],
        list: Some(Reach::window(Window::ALL)),
        tally: Some(tally),
        ..Reads::default()
    };
    reading(resp, reads)
}

/// A public event written after the page, entering the list (or leaving it), by
/// the write of this stamp.
fn written_after_the_page(id: i64, entering: bool, stamp: u64) -> CaughtUp {
    use crate::domain::changes::EventState;
    let mut changes = Changes::events(
        [id],
        [],
        [EventState::at((500, 600)).listed(id, Some(true), entering)],
    );
    changes.stamp(stamp);
    CaughtUp {
        changes: Some(changes),
        counts: Vec::new(),
    }
}

fn total_of(cache: &ResponseCache, version: u64, key: &str) -> Option<(String, String)> {
    let hit = cache.hit(version, 10, key)?;
    let body: serde_json::Value = serde_json::from_slice(&hit.body()).unwrap();
    let resp = hit.response();
    let header = resp.headers()["x-wp-total"].to_str().unwrap().to_string();
    assert_eq!(body["total"].to_string(), header, "body and header agree");
    let pages = resp.headers()["x-wp-totalpages"].to_str().unwrap();
    assert_eq!(body["total_pages"].to_string(), pages);
    Some((header, pages.to_string()))
}

#[tokio::test]
async fn a_page_moves_its_total_by_the_writes_its_count_did_not_see() {
    let cache = ResponseCache::new(1 << 20);
    let total = |t: &str, p: &str| Some((t.to_string(), p.to_string()));
    catch_up(&cache, 1, CaughtUp::unknown()).await;
    cache.put(1, 10, "p".into(), front_page(5, "3")).await;
    let tag = cache.hit(1, 10, "p").unwrap().response().headers()[header::ETAG].clone();
    catch_up(&cache, 2, written_after_the_page(10, true, 4)).await;
    assert_eq!(total_of(&cache, 2, "p"), total("6", "3"), "moved in place");
    let moved = cache.hit(2, 10, "p").unwrap().response();
    assert_ne!(
        moved.headers()[header::ETAG],
        tag,
        "its tag follows its body"
    );
    // Computed at version 1 and kept at 2: moved by the writes since that its count
    // did not see, and only those (a count may see a write announced after it).
    cache.put(1, 10, "saw".into(), front_page(6, "4")).await;
    assert_eq!(total_of(&cache, 2, "saw"), total("6", "3"));
    cache.put(1, 10, "missed".into(), front_page(5, "3")).await;
    assert_eq!(total_of(&cache, 2, "missed"), total("6", "3"));
    catch_up(&cache, 3, written_after_the_page(11, true, 5)).await;
    for key in ["p", "saw", "missed"] {
        assert_eq!(total_of(&cache, 3, key), total("7", "4"), "{key}");
    }
    // Out again, to the page's last: computed again, its next link gone.
    cache.put(3, 10, "short".into(), front_page(3, "5")).await;
    catch_up(&cache, 4, written_after_the_page(11, false, 6)).await;
    assert_eq!(total_of(&cache, 4, "p"), total("6", "3"));
    assert!(cache.hit(4, 10, "short").is_none());
    // A write that reaches the page itself drops it.
    catch_up(&cache, 5, event_write(2)).await;
    assert!(cache.hit(5, 10, "p").is_none());
}
