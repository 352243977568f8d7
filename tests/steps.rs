//! A write of one event, and a list or a read a visitor sends, visit about as many rows
//! in a calendar of a thousand events as in one of a hundred: every statement they run,
//! and every trigger those fire, find their rows by an index. Counted as SQLite's
//! virtual-machine steps (`store::db::SQLITE_VM_STEPS`), which do not depend on the
//! machine: a statement or trigger that SQLite plans as a scan (or on an index prefix
//! that holds every event's keys) takes steps in proportion to the calendar, and fails
//! the bound. A SQLite upgrade whose planner chose such a plan for migration 41's
//! triggers turned a 1 ms create at a million events into 60-80 ms; this is the check
//! that catches it.
//!
//! SQLite only: PostgreSQL has no per-statement count a client can read back from
//! another session's transaction; its plans are checked by the benchmark's rows
//! (`bench/README.md`: the sweep, the hostile requests, the write scenarios).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use calendar_events::store::db::SQLITE_VM_STEPS;
use common::*;
use serde_json::{Value, json};

const VENUES: usize = 4;
const ORGANIZERS: usize = 4;
const CATEGORIES: [&str; 3] = ["music", "theatre", "family"];

/// The linked posts the calendar's events share.
struct Calendar {
    venues: Vec<i64>,
    organizers: Vec<i64>,
    events: usize,
}

impl Calendar {
    async fn new(app: &TestApp) -> Calendar {
        let mut venues = Vec::new();
        for i in 0..VENUES {
            let body = json!({"venue": format!("Hall {i}"), "city": "Lyon", "country": "France"});
            venues.push(app.post("venues", body).await.assert(201).id());
        }
        let mut organizers = Vec::new();
        for i in 0..ORGANIZERS {
            let body = json!({"organizer": format!("Organizer {i}")});
            organizers.push(app.post("organizers", body).await.assert(201).id());
        }
        Calendar {
            venues,
            organizers,
            events: 0,
        }
    }

    /// A published event like the others: a shared venue, organizer, category and tags,
    /// some featured; on one of 84 days of 2027.
    fn next_event(&mut self) -> Value {
        let i = self.events;
        self.events += 1;
        let day = format!("2027-{:02}-{:02}", 1 + i % 12, 1 + i % 28);
        json!({
            "title": format!("Evening number {i}"),
            "description": "<p>Music and friends.</p>",
            "start_date": format!("{day} 19:00:00"),
            "end_date": format!("{day} 22:00:00"),
            "status": "publish",
            "featured": i.is_multiple_of(7),
            "venue": {"id": self.venues[i % VENUES]},
            "organizer": [{"id": self.organizers[i % ORGANIZERS]}],
            "categories": [CATEGORIES[i % CATEGORIES.len()]],
            "tags": ["weekly", format!("series {}", i % 10)],
        })
    }

    async fn grow_to(&mut self, app: &TestApp, events: usize) {
        while self.events < events {
            let body = self.next_event();
            app.post("events", body).await.assert(201);
        }
    }
}

/// The steps one request's statements took, and its response.
async fn steps_of(fut: impl Future<Output = Resp>) -> (u64, Resp) {
    let steps = Arc::new(AtomicU64::new(0));
    let resp = SQLITE_VM_STEPS.scope(steps.clone(), fut).await;
    (steps.load(Ordering::Relaxed), resp)
}

/// Each write of one event, in a lifecycle: created, moved, given other terms and
/// flags, trashed, restored, deleted; then edits of a venue and an organizer. Returns
/// each write's steps, by name. The event
/// shares its venue, organizers and terms with the calendar's events, so that a
/// statement that reads all of theirs shows, and is the latest of them, so that the
/// venue's and organizers' latest dates are looked for again when it goes; its days
/// are its own, so that each of its writes finds the same per-day rows at any size.
async fn lifecycle_steps(app: &TestApp, calendar: &mut Calendar) -> Vec<(&'static str, u64)> {
    let mut out = Vec::new();
    let body = json!({
        "title": "Lifecycle",
        "description": "<p>Music and friends.</p>",
        "start_date": "2028-03-10 19:00:00",
        "end_date": "2028-03-10 22:00:00",
        "status": "publish",
        "venue": {"id": calendar.venues[0]},
        "organizer": [{"id": calendar.organizers[0]}],
        "categories": [CATEGORIES[0]],
        "tags": ["weekly", "series 0"],
    });
    let (steps, r) = steps_of(app.post("events", body)).await;
    let id = r.assert(201).id();
    out.push(("create", steps));
    let path = format!("events/{id}");
    let writes: [(&str, Value); 5] = [
        (
            "dates, venue and organizer",
            json!({"start_date": "2028-06-15 18:00:00", "end_date": "2028-06-15 20:00:00",
                   "venue": {"id": calendar.venues[1]}, "organizer": [{"id": calendar.organizers[2]}]}),
        ),
        (
            "categories and tags",
            json!({"categories": [CATEGORIES[1], CATEGORIES[2]], "tags": ["monthly"]}),
        ),
        (
            "featured and sticky",
            json!({"featured": true, "sticky": true}),
        ),
        ("flags cleared", json!({"featured": false, "sticky": false})),
        ("made a draft", json!({"status": "draft"})),
    ];
    for (name, body) in writes {
        let (steps, r) = steps_of(app.post(&path, body)).await;
        r.assert(200);
        out.push((name, steps));
    }
    let (steps, r) = steps_of(app.delete(&path)).await;
    r.assert(200);
    out.push(("trash", steps));
    let (steps, r) = steps_of(app.post(&path, json!({"status": "publish"}))).await;
    r.assert(200);
    out.push(("restored", steps));
    let (steps, r) = steps_of(app.delete(&format!("{path}?force=true"))).await;
    r.assert(200);
    out.push(("delete", steps));
    // The venue and the organizer the calendar's events share, edited: their own rows
    // and their search entries, not their events'.
    let linked = [
        (
            "venue edited",
            format!("venues/{}", calendar.venues[0]),
            json!({"address": "1 rue de la République"}),
        ),
        (
            "organizer edited",
            format!("organizers/{}", calendar.organizers[0]),
            json!({"phone": "+33 4 00 00 00 00"}),
        ),
    ];
    for (name, path, body) in linked {
        let (steps, r) = steps_of(app.post(&path, body)).await;
        r.assert(200);
        out.push((name, steps));
    }
    out
}

/// Ten times the events: a seek costs the same steps at either size, a scan of the
/// calendar's (or of a shared venue's, organizer's or term's) keys ten times more.
fn assert_bounded(name: &str, few: u64, many: u64) {
    assert!(few > 0, "{name}: no steps counted");
    assert!(
        many <= few + few / 20,
        "{name}: {few} steps, and {many} with ten times the events: a statement or \
         trigger visits rows in proportion to the calendar"
    );
}

async fn uncached_calendar() -> (TestApp, Calendar) {
    uncached_calendar_with(common::settings()).await
}

/// [`uncached_calendar`] on `settings`.
async fn uncached_calendar_with(
    mut settings: calendar_events::config::Settings,
) -> (TestApp, Calendar) {
    settings.response_cache_bytes = 0;
    let app = TestApp::sqlite_with(settings).await;
    let calendar = Calendar::new(&app).await;
    (app, calendar)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_of_one_event_takes_the_same_steps_whatever_the_calendar_holds() {
    let (app, mut calendar) = uncached_calendar().await;
    // Each size's second lifecycle is the one compared: the first leaves behind rows the
    // next ones update rather than insert (a day's counts of drafts, a new tag), which
    // costs steps of its own.
    calendar.grow_to(&app, 100).await;
    lifecycle_steps(&app, &mut calendar).await;
    let small = lifecycle_steps(&app, &mut calendar).await;
    calendar.grow_to(&app, 1_000).await;
    lifecycle_steps(&app, &mut calendar).await;
    let large = lifecycle_steps(&app, &mut calendar).await;
    for ((name, few), (_, many)) in small.iter().zip(&large) {
        assert_bounded(name, *few, *many);
    }
}

/// What a visitor reads whose cost must not grow with the calendar: lists whose totals
/// come from per-day counts (a window, a category, a tag, a flag, a deep page), the
/// linked posts' lists with their event conditions, and single posts. Not here, as their
/// cost grows with what they find: a venue's or an organizer's events (counted from that
/// post's own keys), a search (its matches are counted), a feed (it lists them), and
/// several terms at once (one term's events in the window are walked for the others:
/// `docs/departures.md`, totals of several large terms).
fn constant_reads(calendar: &Calendar) -> Vec<String> {
    let window = "start_date=2027-01-01&end_date=2027-12-31";
    let mut paths: Vec<String> = [
        "events",
        "events?categories=music",
        "events?tags=weekly",
        "events?featured=1",
        "events?featured=0",
        "events?page=5",
    ]
    .iter()
    .map(|p| match p.split_once('?') {
        Some((route, query)) => format!("{route}?{window}&{query}"),
        None => format!("{p}?{window}"),
    })
    .collect();
    paths.extend(
        [
            "events",
            "organizers?has_events=1",
            "organizers?only_with_upcoming=1",
            "venues?only_with_upcoming=1",
            "venues",
            "categories",
            "tags",
            "events/by-slug/evening-number-50",
        ]
        .map(String::from),
    );
    paths.push(format!("venues/{}", calendar.venues[0]));
    paths.push(format!("organizers/{}", calendar.organizers[0]));
    paths
}

async fn read_steps(app: &TestApp, paths: &[String]) -> Vec<u64> {
    let mut out = Vec::new();
    for path in paths {
        let (steps, r) = steps_of(app.get(path)).await;
        r.assert(200);
        out.push(steps);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_a_visitor_sends_takes_the_same_steps_whatever_the_calendar_holds() {
    let (app, mut calendar) = uncached_calendar().await;
    let paths = constant_reads(&calendar);
    calendar.grow_to(&app, 100).await;
    let small = read_steps(&app, &paths).await;
    calendar.grow_to(&app, 1_000).await;
    let large = read_steps(&app, &paths).await;
    for ((path, few), many) in paths.iter().zip(small).zip(large) {
        assert_bounded(path, few, many);
    }
}

/// A category of `events` events with a subcategory of as many, under `parent`;
/// returns the category's ID.
async fn category_with_subcategory(app: &TestApp, name: &str, parent: i64, events: usize) -> i64 {
    let top = app
        .post("categories", json!({"name": name, "parent": parent}))
        .await
        .assert(201)
        .id();
    let below = app
        .post(
            "categories",
            json!({"name": format!("{name} below"), "parent": top}),
        )
        .await
        .assert(201)
        .id();
    for i in 0..events * 2 {
        let category = if i % 2 == 0 { top } else { below };
        let day = format!("2028-{:02}-{:02}", 1 + i % 12, 1 + i % 28);
        let body = json!({
            "title": format!("{name} {i}"),
            "start_date": format!("{day} 19:00:00"),
            "end_date": format!("{day} 22:00:00"),
            "categories": [category],
        });
        app.post("events", body).await.assert(201);
    }
    top
}

/// Deleting a category answers after the same work whatever it and its subcategories
/// hold (`store::term_deletion`): set aside, its subcategories moved up without
/// touching their events' keys (migration 44); the batches that unlink its events run
/// behind the answer, each bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_category_answers_after_the_same_steps_whatever_it_holds() {
    let mut settings = common::settings();
    settings.response_cache_bytes = 0;
    settings.step_batch = 5;
    let app = TestApp::sqlite_with(settings).await;
    let music = app
        .post("categories", json!({"name": "Music"}))
        .await
        .assert(201)
        .id();
    for parent in [0, music] {
        let mut steps = Vec::new();
        for (name, events) in [("small", 20), ("large", 200)] {
            let id =
                category_with_subcategory(&app, &format!("{name} {parent}"), parent, events).await;
            let (n, r) = steps_of(app.delete(&format!("categories/{id}?force=true"))).await;
            r.assert(200);
            app.wait_for_work_in_steps().await;
            steps.push(n);
        }
        assert_bounded(
            &format!("a category under {parent} deleted"),
            steps[0],
            steps[1],
        );
    }
    assert_summaries_hold(&app, "categories deleted").await;
}

/// Moving a category answers after the same work whatever it and its subcategories
/// hold (`store::category_moves`): the tree changes in the request, the events' keys
/// follow in batches behind the answer; up a level, down under another, and back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_a_category_answers_after_the_same_steps_whatever_it_holds() {
    let mut settings = common::settings();
    settings.response_cache_bytes = 0;
    settings.step_batch = 5;
    let app = TestApp::sqlite_with(settings).await;
    let mut parents = Vec::new();
    for name in ["Music", "Arts"] {
        let id = app
            .post("categories", json!({"name": name}))
            .await
            .assert(201)
            .id();
        parents.push(id);
    }
    let (music, arts) = (parents[0], parents[1]);
    let mut moves: Vec<Vec<u64>> = vec![Vec::new(); 3];
    for (name, events) in [("small", 20), ("large", 200)] {
        let id = category_with_subcategory(&app, name, music, events).await;
        for (i, parent) in [0, arts, music].into_iter().enumerate() {
            let (n, r) =
                steps_of(app.post(&format!("categories/{id}"), json!({ "parent": parent }))).await;
            r.assert(200);
            assert_eq!(r.body["parent"], parent);
            app.wait_for_work_in_steps().await;
            moves[i].push(n);
        }
    }
    for (i, steps) in moves.iter().enumerate() {
        assert_bounded(&format!("move {i} of a category"), steps[0], steps[1]);
    }
    assert_summaries_hold(&app, "categories moved").await;
}

/// A venue or an organizer (`field`, created in `collection`) named after `name`,
/// linked to that many new events of its own; its ID.
async fn linked_post_with_events(
    app: &TestApp,
    (collection, field): (&str, &str),
    name: &str,
    events: usize,
) -> i64 {
    let body = json!({ field: format!("{name} {field}") });
    let id = app.post(collection, body).await.assert(201).id();
    let link = match field {
        "venue" => json!(id),
        _ => json!([id]),
    };
    for i in 0..events {
        let day = format!("2028-{:02}-{:02}", 1 + i % 12, 1 + i % 28);
        let body = json!({
            "title": format!("{name} {i}"),
            "start_date": format!("{day} 19:00:00"),
            "end_date": format!("{day} 22:00:00"),
            field: link,
        });
        app.post("events", body).await.assert(201);
    }
    id
}

/// The steps `act` takes on a venue, then an organizer (collection, ID), of 20 and
/// then of 200 events, each pair asserted bounded as `what`; on a SQLite calendar
/// uncached, in batches of five, which it returns.
async fn assert_bounded_whatever_it_has(
    what: &str,
    act: impl AsyncFn(&TestApp, &str, i64) -> u64,
) -> TestApp {
    let mut settings = common::settings();
    settings.response_cache_bytes = 0;
    settings.step_batch = 5;
    let app = TestApp::sqlite_with(settings).await;
    for (collection, field) in [("venues", "venue"), ("organizers", "organizer")] {
        let mut steps = Vec::new();
        for (name, events) in [("small", 20), ("large", 200)] {
            let id = linked_post_with_events(&app, (collection, field), name, events).await;
            steps.push(act(&app, collection, id).await);
        }
        assert_bounded(&format!("a {field} {what}"), steps[0], steps[1]);
    }
    app
}

/// Trashing a venue or an organizer answers after the same work whatever events it
/// has (`store::linked_unlinks`): it goes to the trash in the request; the batches
/// that unlink its events run behind the answer, each bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trashing_a_venue_or_an_organizer_answers_after_the_same_steps_whatever_it_has() {
    let app = assert_bounded_whatever_it_has("trashed", async |app, collection, id| {
        let (n, r) = steps_of(app.delete(&format!("{collection}/{id}"))).await;
        r.assert(200);
        app.wait_for_work_in_steps().await;
        n
    })
    .await;
    assert_summaries_hold(&app, "venues and organizers trashed").await;
}

/// A restore before the trash's last batch answers without running the batches
/// left (`store::linked_unlinks`): they go on behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restoring_a_venue_or_an_organizer_answers_after_the_same_steps_whatever_it_had() {
    use calendar_events::store::{linked_unlinks, posts};
    let app = assert_bounded_whatever_it_has("restored", async |app, collection, id| {
        // In the trash and queued, as its trash leaves it; no batch has run.
        let mut tx = app.store.pool.write().await.unwrap();
        let post = posts::get(&mut tx, id).await.unwrap().expect("the post");
        posts::trash(&mut tx, &post, 1_800_000_000).await.unwrap();
        linked_unlinks::queue(&mut tx, id).await.unwrap();
        tx.commit().await.unwrap();
        let path = format!("{collection}/{id}");
        let (n, r) = steps_of(app.post(&path, json!({"status": "publish"}))).await;
        r.assert(200);
        loop {
            let mut tx = app.store.pool.write().await.unwrap();
            let done = linked_unlinks::unlink_batch(&mut tx, id, 5).await.unwrap();
            tx.commit().await.unwrap();
            if done {
                break;
            }
        }
        n
    })
    .await;
    assert_summaries_hold(&app, "venues and organizers restored").await;
}

/// An event of 2029 with `description`, in the search indexes: the next write after
/// the queue's age limit (another event of 2029) indexes it. Its ID.
async fn indexed_in_2029(app: &TestApp, title: &str, description: &str) -> i64 {
    let body = json!({
        "title": title,
        "description": description,
        "start_date": "2029-05-10 19:00:00",
        "end_date": "2029-05-10 21:00:00",
    });
    let id = app.post("events", body).await.assert(201).id();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let filler = event("Filler", "2029-06-10 19:00:00", "2029-06-10 21:00:00");
    app.post("events", filler).await.assert(201);
    id
}

/// Pieces `ovoq{from}` to `ovoq{to}` in the vocabulary of the index of whole words
/// (migration 51), and in no event: written in one event's description, indexed,
/// then deleted with the event. The vocabulary keeps every piece written.
async fn pieces_of_a_deleted_event(app: &TestApp, from: usize, to: usize) {
    let pieces: Vec<String> = (from..to).map(|i| format!("ovoq{i}")).collect();
    let id = indexed_in_2029(app, "Pieces", &pieces.join(" ")).await;
    app.delete(&format!("events/{id}?force=true"))
        .await
        .assert(200);
    let held = app
        .scalar("(SELECT COUNT(*) FROM search_words WHERE word LIKE 'ovoq%')")
        .await;
    assert_eq!(held, i64::try_from(to).unwrap(), "the vocabulary's pieces");
}

/// A search looks its word up in the vocabulary, which grows with every distinct
/// piece ever written, and reads no more of it than the bound of pieces a word may
/// be read through (`store::events::word_index`), whatever it holds: a word in 100
/// pieces, then in 1,000, none of them in an event, which the window's events
/// (more than the search's probe reads) do not hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_reads_as_much_of_the_vocabulary_whatever_it_holds() {
    let (app, mut calendar) = uncached_calendar_with(calendar_events::config::Settings {
        search_count_limit: 4,
        ..common::settings()
    })
    .await;
    calendar.grow_to(&app, 20).await;
    let path = "events?start_date=2027-01-01&end_date=2027-12-31&search=ovoq";
    let mut steps = Vec::new();
    for (from, to) in [(0, 100), (100, 1_000)] {
        pieces_of_a_deleted_event(&app, from, to).await;
        let (n, r) = steps_of(app.get(path)).await;
        r.assert(200);
        assert_eq!(r.body["events"], json!([]), "no event holds the word");
        steps.push(n);
    }
    assert_bounded(
        "a search of a word in 100 and 1,000 pieces",
        steps[0],
        steps[1],
    );
}

/// A search of one character, in a calendar whose text holds many distinct ones,
/// takes as many steps whatever pairs of them hold it: its trigrams with each pair
/// and each character would be too many to look up, and it is checked on the rows
/// of its window (`store::events::word_index`), which are the same. `龍` in 20 pairs
/// of 300 characters, then in 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_of_one_character_takes_as_many_steps_whatever_pairs_hold_it() {
    let (app, mut calendar) = uncached_calendar_with(calendar_events::config::Settings {
        search_count_limit: 2,
        ..common::settings()
    })
    .await;
    calendar.grow_to(&app, 100).await;
    let path = "events?start_date=2027-01-01&end_date=2027-12-31&search=%E9%BE%8D";
    let mut steps = Vec::new();
    for (n, (from, to)) in [(0, 20), (20, 200)].into_iter().enumerate() {
        let mut description = chinese(from, to - from, "龍");
        if n == 0 {
            description.push_str(&chinese(0, 300, ""));
        }
        indexed_in_2029(&app, "Characters", &description).await;
        let (count, r) = steps_of(app.get(path)).await;
        r.assert(200);
        assert_eq!(r.body["events"], json!([]), "no event of 2027 holds it");
        steps.push(count);
    }
    assert_bounded(
        "a search of a character in 20 and 200 pairs",
        steps[0],
        steps[1],
    );
}
