//! A word absent from a long window's first events and held by more events than a
//! search counts: PostgreSQL reads a page from the index's matches among the
//! window's first days, when they hold the whole page, and the list's own page
//! otherwise; what a visitor may not see among them is neither listed nor counted.

use std::ops::RangeInclusive;

use calendar_events::domain::post::Status;
use calendar_events::store::Backend;
use calendar_events::store::event_batch::CreateBatcher;
use calendar_events::store::schema::Posts;
use common::new_events::new_event;

use super::*;

/// The count limit: a probe of 21 events, too few to walk to a word it never saw.
const COUNT_LIMIT: u64 = 42;

/// Fillers on each of the window's first 60 days: with the festival's, more than
/// 1,260 events (30 per match counted, the first days' bound) by its fourth day.
const FILLERS_PER_DAY: u32 = 30;
const FILLER_DAYS: u32 = 60;

/// The festival's days and its events on each (more than the count limit in all),
/// its first three days within the window's first days, the others past them.
const FESTIVAL_DAYS: RangeInclusive<u32> = 38..=45;
const FESTIVAL_EACH_DAY: u32 = 6;

const WINDOW: &str = "start_date=2027-01-01&end_date=2027-04-30";

async fn fillers(app: &TestApp) {
    let batcher = CreateBatcher::new(app.store.pool.clone());
    let start = |n: u32, k: u32| {
        let day = i64::from(n) * 86_400 + 1_798_761_600; // 2027-01-01, UTC
        day + i64::from(k % 20) * 3_600
    };
    let creates = (0..FILLER_DAYS).flat_map(|n| {
        let batcher = &batcher;
        (0..FILLERS_PER_DAY).map(move |k| {
            let mut e = new_event(&format!("Filler {n} {k}"), Status::Publish, 1, 0);
            e.columns
                .retain(|(c, _)| !matches!(c, Posts::StartUtc | Posts::EndUtc));
            e.columns.extend([
                (Posts::StartUtc, start(n, k).into()),
                (Posts::EndUtc, (start(n, k) + 1_800).into()),
            ]);
            batcher.create(e)
        })
    });
    for created in futures_util::future::join_all(creates).await {
        created.unwrap_or_else(|e| panic!("{e:?}"));
    }
}

/// The festival's events a visitor sees, in list order; beside them on each day a
/// draft, an unlisted event and a protected one with the word in its description.
async fn festival(app: &TestApp, days: RangeInclusive<u32>, each_day: u32) -> Vec<i64> {
    let mut seen = Vec::new();
    for n in days.clone() {
        for k in 0..each_day {
            let title = format!("Carnival parade {n} {k}");
            seen.push(create(app, &title, n, 20 + k % 3, json!({})).await);
        }
        unseen_carnival(app, n, 20).await;
    }
    // Created in list order within each day's hours: sorted by start, then ID.
    let mut ordered: Vec<(u32, u32, i64)> = seen
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let (n, k) = (i as u32 / each_day, i as u32 % each_day);
            (days.start() + n, 20 + k % 3, *id)
        })
        .collect();
    ordered.sort_unstable();
    ordered.into_iter().map(|(_, _, id)| id).collect()
}

/// The festival's search over the window: its total the count limit, a floor, and
/// its pages `carnival`, the events a visitor sees, in list order. On PostgreSQL
/// with the search table's statistics made, which expect the word in the window's
/// first days more often than the search counts: those days are read for the
/// total first, and the count goes on as usual where they hold fewer.
async fn counted_to_the_limit(app: &TestApp, carnival: &[i64]) {
    assert!(carnival.len() as u64 > COUNT_LIMIT);
    if app.backend() == Backend::Postgres {
        app.analyze_event_search().await;
        let first_days_events = i64::try_from(COUNT_LIMIT * 30).unwrap();
        let expected = app.pieces_per_mille("carnival").await * first_days_events / 1000;
        let limit = i64::try_from(COUNT_LIMIT).unwrap();
        assert!(
            expected > limit,
            "{expected} matches expected in the first days"
        );
    }
    let query = format!("{WINDOW}&search=carnival");
    let r = app.get(&format!("events?{query}")).await;
    r.assert(200);
    assert_eq!(r.body["total"], COUNT_LIMIT, "{}", r.text);
    assert_eq!(floor_header(&r), Some("at-least"));
    assert_eq!(event_ids(&r), carnival[..10]);
    every_page_finds(app, &query, &Auth::None, carnival).await;
}

both_with!(
    a_word_past_the_windows_first_events_is_paged_from_its_first_days,
    Settings {
        search_count_limit: COUNT_LIMIT,
        ..settings()
    },
    |app| async move {
        fillers(&app).await;
        let carnival = festival(&app, FESTIVAL_DAYS, FESTIVAL_EACH_DAY).await;
        counted_to_the_limit(&app, &carnival).await;
    }
);

/// A festival on the window's first days (its first ten are 300 events of every
/// status), more often than the search counts.
const EARLY_FESTIVAL_DAYS: RangeInclusive<u32> = 2..=9;
const EARLY_FESTIVAL_EACH_DAY: u32 = 8;

both_with!(
    a_word_held_more_often_than_counted_in_the_first_days_is_counted_there,
    // The first days hold more matches than the search counts: on PostgreSQL its
    // total and its pages within the count come from them, sorted, without
    // counting the window's.
    Settings {
        search_count_limit: COUNT_LIMIT,
        ..settings()
    },
    |app| async move {
        fillers(&app).await;
        let carnival = festival(&app, EARLY_FESTIVAL_DAYS, EARLY_FESTIVAL_EACH_DAY).await;
        counted_to_the_limit(&app, &carnival).await;
    }
);
