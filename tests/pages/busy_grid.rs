//! A month's grid of more events than it places at once, read day by day: each
//! cell shows the first events of its day's list and counts what a visitor may
//! see running that day, whatever hides, ends on a midnight or runs for days.

use calendar_events::domain::post::Status;
use calendar_events::store::db::STATEMENT_COUNTER;
use calendar_events::store::event_batch::{CreateBatcher, NewEvent};
use calendar_events::store::schema::Posts;
use chrono::{Days, NaiveDate};
use common::new_events::new_event;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;

/// More events than the grid places from one list (the month page's `MAX_PLACED`,
/// 2,000), most of them in one category, so that both are busy grids.
const EVENTS: i64 = 3_000;

/// Midnight, UTC, of the grid's first day: Monday 1 March 2027.
const GRID_START: i64 = 1_803_859_200;

/// The grid's days: 1 March to 4 April 2027.
const GRID_DAYS: i64 = 35;

/// Event `i`: on one of the grid's days or the three that lead up to it, at a time
/// of its own; some end on a midnight, some run into the next days, some are
/// drafts, hidden or protected; most are in `category`. A third of those of the
/// grid's first 27 days, and a thirtieth of the others, are named "Salsa"; one in
/// eleven of all, "Tango"; half of those of the grid's first two days and of the
/// three leading up to them, "Mardi" (a protected one holds it in its description
/// alone, which a visitor's search does not read); every one of its 15th to 21st
/// days, "Fiesta".
fn nth_event(i: i64, category: i64) -> NewEvent {
    let (start, end) = span(i);
    let status = if i % 17 == 0 {
        Status::Draft
    } else {
        Status::Publish
    };
    let mut e = new_event(&title(i), status, 1, 0);
    if mardi(i) && protected(i) {
        e.post.description = Some("A Mardi float".into());
    }
    e.columns
        .retain(|(c, _)| !matches!(c, Posts::StartUtc | Posts::EndUtc | Posts::HideFromListings));
    e.columns.extend([
        (Posts::StartUtc, start.into()),
        (Posts::EndUtc, end.into()),
        (Posts::HideFromListings, (i % 19 == 0).into()),
    ]);
    if protected(i) {
        e.post.password = Some("secret".into());
    }
    if i % 10 != 0 {
        e.terms = vec![category];
    }
    e
}

/// The day of event `i`, from the grid's first (the three leading up to it below 0).
fn day(i: i64) -> i64 {
    i % (GRID_DAYS + 3) - 3
}

/// The start and end of event `i`.
fn span(i: i64) -> (i64, i64) {
    let day = day(i);
    let start = GRID_START + day * 86_400 + (i % 24) * 3_600;
    let end = match i {
        _ if i % 11 == 0 => GRID_START + (day + 1) * 86_400,
        _ if i % 13 == 0 => GRID_START + (day + 3) * 86_400,
        _ if i % 7 == 0 => start + 30 * 3_600,
        _ => start + 1_800,
    };
    (start, end)
}

fn protected(i: i64) -> bool {
    i % 23 == 0
}

fn mardi(i: i64) -> bool {
    i % 2 == 1 && day(i) < 2
}

fn title(i: i64) -> String {
    let day = day(i);
    let salsa = i % 3 == 0 && (day < 27 || i % 30 == 0);
    let tango = i % 11 == 5;
    let fiesta = (14..=20).contains(&day);
    format!(
        "E{i:04}{}{}{}{}",
        if salsa { " Salsa" } else { "" },
        if tango { " Tango" } else { "" },
        if mardi(i) && !protected(i) {
            " Mardi"
        } else {
            ""
        },
        if fiesta { " Fiesta" } else { "" }
    )
}

/// How many events a visitor sees running from `from` to `to` with `word` in their
/// title: neither drafts nor hidden from listings.
fn matches_running(word: &str, from: i64, to: i64) -> u64 {
    let matches = (0..EVENTS).filter(|i| {
        let (start, end) = span(*i);
        let seen = i % 17 != 0 && i % 19 != 0;
        seen && start < to && end > from && title(*i).to_lowercase().contains(word)
    });
    matches.count() as u64
}

fn grid_matches(word: &str) -> u64 {
    matches_running(word, GRID_START, GRID_START + GRID_DAYS * 86_400)
}

/// Each cell of a month page: its date, the titles it shows, and the `+N` of
/// events it does not.
fn cells(html: &str) -> Vec<(String, Vec<String>, u64)> {
    let grid = html.split("</table>").next().unwrap();
    grid.split("<td class=")
        .skip(1)
        .map(|cell| {
            let date = cell.split("datetime=\"").nth(1).unwrap()[..10].to_string();
            let titles = cell
                .split("<li><a href=\"")
                .skip(1)
                .map(|li| li.split('>').nth(1).unwrap().trim_end_matches("</a").into())
                .collect();
            let more = cell.split("class=\"more\"").nth(1).map_or(0, |m| {
                let plus = m.split('+').nth(1).unwrap();
                plus.split(' ').next().unwrap().parse().unwrap()
            });
            (date, titles, more)
        })
        .collect()
}

/// The first three titles of the events a visitor's list of `day`'s running
/// events shows, with `filter` (`&categories=…`, `&search=…` or nothing), and its
/// total.
async fn first_of_day(app: &TestApp, day: NaiveDate, filter: &str) -> (Vec<String>, u64) {
    let next = day + Days::new(1);
    let r = app
        .get(&format!(
            "events?start_date=2027-01-01&end_date=2027-12-31&starts_before={next}%2000:00:00\
             &ends_after={day}%2000:00:00&strict_dates=true&per_page=3{filter}"
        ))
        .await;
    r.assert(200);
    let titles = r.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_string())
        .collect();
    (titles, r.body["total"].as_u64().unwrap())
}

/// The page at `path`, read in at most 20 statements: its days at once, not each
/// as a list of its own (two statements or more a day).
async fn read_at_once(app: &TestApp, path: &str) -> String {
    let statements = Arc::new(AtomicU64::new(0));
    let html = STATEMENT_COUNTER
        .scope(statements.clone(), ok(app, path))
        .await;
    let statements = statements.load(Ordering::Relaxed);
    assert!(statements <= 20, "{path}: {statements} statements");
    html
}

/// Checks every cell of `path` against a visitor's lists of its day and the
/// posts running that day.
async fn check_grid(app: &TestApp, path: &str, category: Option<i64>) {
    let html = read_at_once(app, path).await;
    let cells = cells(&html);
    assert_eq!(cells.len(), GRID_DAYS as usize, "{html}");
    for (n, (date, titles, more)) in cells.into_iter().enumerate() {
        let day = GRID_START + n as i64 * 86_400;
        let mut running = format!("p.start_utc < {} AND p.end_utc > {day}", day + 86_400);
        if category.is_some() {
            // A filter on a field a password hides keeps protected events out.
            running += " AND p.password = ''";
        }
        let visible = visible_events(app, &running, category).await as u64;
        let date = date.parse::<NaiveDate>().unwrap();
        let filter = category.map_or(String::new(), |c| format!("&categories={c}"));
        let (first, total) = first_of_day(app, date, &filter).await;
        assert_eq!(titles, first, "{path} {date}");
        assert_eq!(titles.len() as u64 + more, visible, "{path} {date}");
        assert_eq!(total, visible, "{path} {date}");
    }
}

/// How far a month with a search of common words counts each day's matches (the
/// month page's `SEARCH_COUNTED_PER_DAY`).
const COUNTED_PER_DAY: u64 = 9;

/// Checks every cell of a month with a search of `word`, whose grid is read day by
/// day (the word common in its events, or its matches more than it places): each
/// shows the first matches of its day's list, and counts them up to
/// [`COUNTED_PER_DAY`], past which it says "or more".
async fn check_day_by_day_search(app: &TestApp, word: &str) {
    let path = &format!("/events/month/2027-03/?search={word}");
    let html = read_at_once(app, path).await;
    let (mut exact, mut at_least) = (0, 0);
    for (n, (date, titles, more)) in cells(&html).into_iter().enumerate() {
        let date = date.parse::<NaiveDate>().unwrap();
        let (first, total) = first_of_day(app, date, &format!("&search={word}")).await;
        assert_eq!(titles, first, "{path} {date}");
        let cell = html.split("<td class=").nth(n + 1).unwrap();
        if total > COUNTED_PER_DAY {
            at_least += 1;
            assert_eq!(
                titles.len() as u64 + more,
                COUNTED_PER_DAY + 1,
                "{path} {date}"
            );
            assert!(cell.contains("or more</a>"), "{path} {date}: {cell}");
        } else {
            exact += 1;
            assert_eq!(titles.len() as u64 + more, total, "{path} {date}");
            assert!(!cell.contains("or more"), "{path} {date}: {cell}");
        }
    }
    assert!(
        exact > 5 && at_least > 5,
        "{exact} days counted whole, {at_least} not"
    );
}

/// Checks every cell of a month with a search of `word`, whose grid is placed from
/// one search: each shows the first matches of its day's list and counts them all,
/// and shows none without the word in its title (each of the events named so holds
/// it there, or it is protected). Returns each day's count.
async fn check_placed_search(app: &TestApp, word: &str) -> Vec<u64> {
    let path = format!("/events/month/2027-03/?search={word}");
    let html = ok(app, &path).await;
    let mut totals = Vec::new();
    for (n, (date, titles, more)) in cells(&html).into_iter().enumerate() {
        let date = date.parse::<NaiveDate>().unwrap();
        let (first, listed) = first_of_day(app, date, &format!("&search={word}")).await;
        assert_eq!(titles, first, "{path} {date}");
        let day = GRID_START + n as i64 * 86_400;
        let total = matches_running(word, day, day + 86_400);
        assert_eq!(titles.len() as u64 + more, total, "{path} {date}");
        // The list of a day counts up to the count limit.
        assert_eq!(listed, total.min(COUNT_LIMIT), "{path} {date}");
        let titled = titles.iter().all(|t| t.to_lowercase().contains(word));
        assert!(titled, "{path} {date}: {titles:?}");
        totals.push(total);
    }
    assert!(!html.contains("or more"), "{html}");
    totals
}

/// Past the search count limit, a grid's matches are placed from the index's
/// matches of its window when they are at most four times that limit: a word rare
/// in the grid's events but for a few on each day (`tango`, about 270 matches),
/// and one common in its first events and in none after them (`mardi`, about 190),
/// each counted whole. A word on every event of a week (`fiesta`, about 550), more
/// than the grid places, and one common throughout (`salsa`): read day by day.
async fn check_searches(app: &TestApp) {
    for word in ["tango", "mardi"] {
        let matches = grid_matches(word);
        assert!(
            (COUNT_LIMIT + 1..=4 * COUNT_LIMIT).contains(&matches),
            "{word}: {matches}"
        );
    }
    let rare = check_placed_search(app, "tango").await;
    let more_than_shown = rare.iter().filter(|n| **n > 3).count();
    assert!(more_than_shown > 5, "{more_than_shown} days with more");
    let clustered = check_placed_search(app, "mardi").await;
    let most = clustered.iter().max().unwrap();
    assert!(*most > COUNTED_PER_DAY, "a day of {most} matches at most");
    let fiesta = grid_matches("fiesta");
    assert!(fiesta > 4 * COUNT_LIMIT, "fiesta: {fiesta}");
    check_day_by_day_search(app, "fiesta").await;
    check_day_by_day_search(app, "salsa").await;
}

/// The search count limit of the test's server: below the matches of `tango` and
/// `mardi` in the grid, above a quarter of those of `fiesta`.
const COUNT_LIMIT: u64 = 75;

both_with!(
    a_busy_months_days_each_show_and_count_what_runs_on_them,
    calendar_events::config::Settings {
        search_count_limit: COUNT_LIMIT,
        ..settings()
    },
    |app| async move {
        let music = app.category("Music", None).await;
        let batcher = CreateBatcher::new(app.store.pool.clone());
        let creates = (0..EVENTS).map(|i| batcher.create(nth_event(i, music)));
        for created in futures_util::future::join_all(creates).await {
            created.unwrap_or_else(|e| panic!("{e:?}"));
        }
        check_grid(&app, "/events/month/2027-03/", None).await;
        check_grid(&app, "/events/month/2027-03/?category=music", Some(music)).await;
        check_searches(&app).await;
    }
);
