//! A search counts its matches up to `--search-count-limit`: past it the totals are
//! floors, said by `X-Calendar-Total: at-least`, and paging on finds every match in
//! list order. Each way a search can take (the probe of the window's first events,
//! a walk of the window, the search index's matches) is reached here by a word whose
//! matches sit where it leads, with a limit of 20 instead of 1,000; the index's, for
//! a word the probe never saw, wants a probe of 20 events or more (a limit of 40 or
//! more), which its tests set.

#[path = "../common/mod.rs"]
mod common;

mod clustered;
mod first_days;
mod flags;
mod index;
mod terms;
mod words;

use calendar_events::config::Settings;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

const LIMIT: u64 = 20;
const WINDOW: &str = "start_date=2027-01-01&end_date=2027-12-31";

/// A count limit that the tests' few hundred events outgrow as a million events
/// outgrow a thousand: a probe of two events, a walk of eighty.
const SHALLOW_LIMIT: u64 = 4;

fn shallow() -> Settings {
    Settings {
        search_count_limit: SHALLOW_LIMIT,
        ..settings()
    }
}

fn limited() -> Settings {
    Settings {
        search_count_limit: LIMIT,
        ..settings()
    }
}

/// The day `n` of 2027 at `hour`, as the API takes dates.
fn day(n: u32, hour: u32) -> String {
    let d = chrono::NaiveDate::from_ymd_opt(2027, 1, 1).unwrap() + chrono::Days::new(n.into());
    format!("{d} {hour:02}:00:00")
}

async fn create(app: &TestApp, title: &str, n: u32, hour: u32, extra: Value) -> i64 {
    app.event(with(event(title, &day(n, hour), &day(n, hour + 1)), extra))
        .await
}

/// Events holding `carnival` that a visitor may not see, on day `n` at `hour`: a
/// draft, one hidden from listings, and a protected one with the word in its
/// description only.
async fn unseen_carnival(app: &TestApp, n: u32, hour: u32) {
    let unseen = [
        ("Carnival draft", json!({"status": "draft"})),
        ("Carnival unlisted", json!({"hide_from_listings": true})),
        (
            "Members only",
            json!({"password": "pw", "description": "A carnival float"}),
        ),
    ];
    for (title, extra) in unseen {
        create(app, &format!("{title} {n}"), n, hour, extra).await;
    }
}

/// What the calendar holds, by the words the searches look for.
struct Calendar {
    /// On every day but every third: common from the window's start.
    zebra: Vec<i64>,
    /// On every third day: a third of the window.
    quiet: Vec<i64>,
    /// Late in the year only: none among the window's first events.
    late: Vec<i64>,
    /// One published; a draft, a protected event with the word in its description,
    /// and one hidden from listings are not shown to visitors.
    aardvark: i64,
    aardvark_draft: i64,
    aardvark_protected: i64,
}

async fn calendar(app: &TestApp) -> Calendar {
    let (mut zebra, mut quiet, mut late) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..180 {
        if n % 3 == 0 {
            quiet.push(create(app, &format!("Quiet evening {n}"), n, 18, json!({})).await);
        } else {
            zebra.push(create(app, &format!("Zebra night {n}"), n, 20, json!({})).await);
        }
    }
    for n in 300..330 {
        late.push(create(app, &format!("Late show {n}"), n, 22, json!({})).await);
    }
    let aardvark = create(app, "Aardvark talk", 200, 10, json!({})).await;
    let aardvark_draft = create(app, "Aardvark draft", 201, 10, json!({"status": "draft"})).await;
    let aardvark_protected = create(
        app,
        "Members only",
        202,
        10,
        json!({"password": "pw", "description": "An aardvark visits"}),
    )
    .await;
    create(
        app,
        "Aardvark unlisted",
        203,
        10,
        json!({"hide_from_listings": true}),
    )
    .await;
    // Past the search queue's age, one more write indexes every event queued so
    // far (SQLite): the searches below read the index, not the queue.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    create(app, "Indexing trigger", 340, 10, json!({})).await;
    Calendar {
        zebra,
        quiet,
        late,
        aardvark,
        aardvark_draft,
        aardvark_protected,
    }
}

fn floor_header(r: &Resp) -> Option<&str> {
    r.header("x-calendar-total")
}

/// Every page of `events?{query}` for `auth`: the events `expected` in list order,
/// the last page's total exact. The totals of the pages, in order.
async fn every_page_finds(
    app: &TestApp,
    query: &str,
    auth: &Auth,
    expected: &[i64],
) -> Vec<(u64, bool)> {
    let (all, totals) = every_page(app, "events", query, auth).await;
    assert_eq!(all, expected, "{query}");
    let last = (u64::try_from(expected.len()).unwrap(), false);
    assert_eq!(*totals.last().unwrap(), last, "{query}");
    totals
}

fn sorted_by_creation(mut v: Vec<i64>) -> Vec<i64> {
    // Each word's events were created in list order.
    v.sort();
    v
}

/// The events of [`WINDOW`] holding `aardvark`, and their total, for a visitor.
async fn aardvarks_in_window(app: &TestApp) -> (Vec<i64>, Option<u64>) {
    let r = app.get(&format!("events?{WINDOW}&search=aardvark")).await;
    r.assert(200);
    (event_ids(&r), r.body["total"].as_u64())
}

/// The date of day `n` of 2027, as the API takes it.
fn date(n: u32) -> String {
    day(n, 0)[..10].to_string()
}
