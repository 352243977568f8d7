//! `/events/month/` and `/events/month/YYYY-MM/`: a month as a grid of weeks,
//! each event on every day it covers.

use std::collections::HashMap;

use askama::Template;
use chrono::{Datelike, Days, Months, NaiveDate};

use super::chrome::Chrome;
use super::dates::days_covered;
use super::filters::{FilterForm, Filters, running};
use super::list::{Link, items, visit_path};
use super::text::Tr;
use super::views::EventItem;
use super::{PageError, Visit, dates};
use crate::domain::args::EventListArgs;
use crate::domain::event::{EventSpan, Total};
use crate::http::urls::with_query;
use crate::service::Links;

/// Events a cell shows; "+N more" links the rest to the day view.
const SHOWN_PER_DAY: usize = 3;

/// The most events a grid places from one list of where they fall (their spans):
/// it then reads the few events its cells show, by ID. A busier grid is read by
/// day, each day's first events and its count: all days at once where the per-day
/// counts serve them (`store::events::list_ids_each`), else one list a day.
const MAX_PLACED: u64 = 2_000;

/// How many times the search count limit (`--search-count-limit`) a grid places of
/// a search's matches, when the search index gives them at once
/// (`store::events::list_spans`): 4,000 by default. A busier grid's days are each
/// read as their first matches, a walk of each day's events that reads a whole day
/// where the words are absent. A festival's word, on half the events of the first
/// three days of a month and of the next (2,700 matches of a grid's 37,000 events
/// at a million), placed so: 140-234 → 63-68 ms on SQLite, 252-336 → 46-56 on
/// PostgreSQL.
const PLACED_MATCHES_PER_COUNTED: u64 = 4;

/// How far a day's count goes in a grid read day by day with a search (its words
/// common, one event in five or more, or its matches more than it places): its
/// cell says "+N or more" past it. Each day's matches are found in a walk of its
/// events in list order, a lookup of each one's text: with a word a third of the
/// events hold, counting every match of a grid of 29,400 events took 214 ms on
/// SQLite and 415 on PostgreSQL at a million events.
const SEARCH_COUNTED_PER_DAY: u64 = 9;

#[derive(Template)]
#[template(path = "month.html")]
struct MonthPage {
    chrome: Chrome,
    heading: String,
    weekdays: Vec<&'static str>,
    weeks: Vec<Vec<Cell>>,
    previous: Link,
    next: Link,
    form: FilterForm,
}

/// One day of the grid.
struct Cell {
    day: u32,
    date: String,
    href: String,
    in_month: bool,
    today: bool,
    events: Vec<Shown>,
    more: Option<String>,
}

/// An event in a cell.
struct Shown {
    title: String,
    href: String,
}

/// The grid's first and last days: whole weeks, Monday first.
fn grid(first: NaiveDate) -> (NaiveDate, NaiveDate) {
    let start = first - Days::new(u64::from(first.weekday().num_days_from_monday()));
    let last = first + Months::new(1) - Days::new(1);
    let end = last + Days::new(u64::from(6 - last.weekday().num_days_from_monday()));
    (start, end)
}

/// `GET /events/month/[YYYY-MM/]`
pub async fn month(visit: &Visit, month: Option<NaiveDate>) -> Result<String, PageError> {
    let tr = Tr::new(&visit.lang.code);
    let today = visit.today();
    let first = month.unwrap_or_else(|| today.with_day(1).unwrap_or(today));
    let (start, end) = grid(first);
    let filters = Filters::of(visit);
    let pairs = filters.pairs();
    let mut cells = Vec::new();
    for (d, (events, total)) in days(visit, &tr, &filters, start, end).await? {
        let href = with_query(&visit_path(visit, &format!("/events/{d}/")), &pairs);
        let more = (total.count + u64::from(total.at_least)).saturating_sub(events.len() as u64);
        let more_key = if total.at_least {
            "page-more-at-least"
        } else {
            "page-more"
        };
        cells.push(Cell {
            day: d.day(),
            date: d.to_string(),
            in_month: d.month() == first.month(),
            today: d == today,
            events,
            more: (more > 0).then(|| tr.with(more_key, &format!("+{more}"))),
            href,
        });
    }
    let mut weeks = Vec::new();
    while !cells.is_empty() {
        weeks.push(cells.drain(..7.min(cells.len())).collect());
    }
    let link = |d: NaiveDate, key: &str| Link {
        href: with_query(
            &visit_path(visit, &format!("/events/month/{}/", d.format("%Y-%m"))),
            &pairs,
        ),
        text: tr.t(key),
    };
    let label = dates::month_year(tr.lang(), first);
    let feed = (
        "/events/month/",
        vec![("tribe-bar-date".into(), first.format("%Y-%m").to_string())],
    );
    let page = MonthPage {
        chrome: visit.chrome(tr.with("page-events-in", &label)),
        heading: tr.with("page-events-in", &label),
        weekdays: (0..7).map(|i| dates::weekday_name(tr.lang(), i)).collect(),
        weeks,
        previous: link(first - Months::new(1), "page-previous-month"),
        next: link(first + Months::new(1), "page-next-month"),
        form: FilterForm::new(visit, &filters, feed).await?,
    };
    Ok(page.render()?)
}

/// The events a cell shows and how many run that day, for every day of the grid:
/// placed from where the grid's events fall, or, for a grid of more than
/// [`MAX_PLACED`] or a search of common words, one day at a time; then the events
/// shown are read, by ID.
async fn days(
    visit: &Visit,
    tr: &Tr,
    filters: &Filters,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<Vec<(NaiveDate, (Vec<Shown>, Total))>, PageError> {
    let dates = start.iter_days().take_while(|d| *d <= end);
    let cells = match placed(visit, filters, (start, end)).await? {
        Some(spans) => place(visit, &spans, dates),
        None => day_by_day(visit, filters, dates).await?,
    };
    let mut shown: Vec<i64> = cells.iter().flat_map(|(_, ids, _)| ids.clone()).collect();
    shown.sort_unstable();
    shown.dedup();
    let items = by_id(visit, tr, &shown).await?;
    Ok(cells
        .into_iter()
        .map(|(d, ids, count)| {
            let events = ids
                .iter()
                .filter_map(|id| items.get(id))
                .map(Shown::of)
                .collect();
            (d, (events, count))
        })
        .collect())
}

/// Each day of the grid: the first events of the spans that cover it, in list
/// order, and how many do, each span on the days it covers in its own zone.
fn place(
    visit: &Visit,
    spans: &[EventSpan],
    dates: impl Iterator<Item = NaiveDate>,
) -> Vec<(NaiveDate, Vec<i64>, Total)> {
    let site = visit.settings().timezone;
    let placed: Vec<(i64, NaiveDate, NaiveDate)> = spans
        .iter()
        .map(|s| {
            let (first, last) = days_covered(&s.zone(site), s.start_utc, s.end_utc);
            (s.id, first, last)
        })
        .collect();
    dates
        .map(|d| {
            let on = || placed.iter().filter(|(_, f, l)| *f <= d && d <= *l);
            let first = on().take(SHOWN_PER_DAY).map(|(id, _, _)| *id).collect();
            (d, first, Total::exact(on().count() as u64))
        })
        .collect()
}

/// Where the grid's events fall, unless it holds more than [`MAX_PLACED`] or its
/// search's words are common among them (more matches than it could place, its
/// days then read each as its first matches). A list is counted first, from its
/// keys, so that a busy grid is not read twice; a search is read at once: its
/// matches as the index gives them, up to [`PLACED_MATCHES_PER_COUNTED`] times its
/// count limit, or its count, up to that limit, and its page.
async fn placed(
    visit: &Visit,
    filters: &Filters,
    grid: (NaiveDate, NaiveDate),
) -> Result<Option<Vec<EventSpan>>, PageError> {
    let most = match filters.search {
        Some(_) => PLACED_MATCHES_PER_COUNTED.saturating_mul(visit.settings().search_count_limit),
        None => match spans(visit, filters, grid, 1).await? {
            Some((_, total)) if total.count <= MAX_PLACED => MAX_PLACED,
            _ => return Ok(None),
        },
    };
    let Some((spans, total)) = spans(visit, filters, grid, most).await? else {
        return Ok(None);
    };
    Ok((!total.at_least && total.count <= spans.len() as u64).then_some(spans))
}

/// The first `most` events running in the grid, as their spans, and how many run;
/// `None` for a search of common words (see [`Service::list_event_spans`]).
///
/// [`Service::list_event_spans`]: crate::service::Service::list_event_spans
async fn spans(
    visit: &Visit,
    filters: &Filters,
    (start, end): (NaiveDate, NaiveDate),
    most: u64,
) -> Result<Option<(Vec<EventSpan>, Total)>, PageError> {
    let mut args = running(start, end, most, visit.look_back().await?);
    filters.apply(&mut args);
    Ok(visit
        .app
        .service
        .list_event_spans(visit.asking(), &args, most)
        .await?)
}

/// A busy grid's days, each as a list: its first events' IDs, and its count (a
/// search's up to [`SEARCH_COUNTED_PER_DAY`]).
async fn day_by_day(
    visit: &Visit,
    filters: &Filters,
    dates: impl Iterator<Item = NaiveDate>,
) -> Result<Vec<(NaiveDate, Vec<i64>, Total)>, PageError> {
    let most = SHOWN_PER_DAY as u64;
    let look_back = visit.look_back().await?;
    let dates: Vec<NaiveDate> = dates.collect();
    let days: Vec<EventListArgs> = dates
        .iter()
        .map(|d| running(*d, *d, most, look_back))
        .collect();
    let mut args = EventListArgs::default();
    filters.apply(&mut args);
    let each = visit
        .app
        .service
        .list_event_ids_each(visit.asking(), &args, &days, most, SEARCH_COUNTED_PER_DAY)
        .await?;
    Ok(dates
        .into_iter()
        .zip(each)
        .map(|(d, (ids, total))| (d, ids, total))
        .collect())
}

/// The grid's events named, by ID, as a list shows them to the caller: one the
/// caller may no longer see since it was placed is left out. The filters placed
/// them, and are not checked again (a search's words on each event's text).
async fn by_id(visit: &Visit, tr: &Tr, ids: &[i64]) -> Result<HashMap<i64, EventItem>, PageError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let most = ids.len() as u64;
    // `include` leaves out the list's dates: the events named are those placed.
    let args = EventListArgs {
        page: 1,
        per_page: most as i64,
        include: Some(ids.iter().map(i64::to_string).collect()),
        ..Default::default()
    };
    let found = visit
        .app
        .service
        .list_events_showing(visit.asking(), &args, most, Links::Left)
        .await?;
    let shown = items(visit, tr, &found.events);
    Ok(found
        .events
        .iter()
        .map(|e| e.event.post.id)
        .zip(shown)
        .collect())
}

impl Shown {
    fn of(e: &EventItem) -> Shown {
        Shown {
            title: e.title.clone(),
            href: e.href.clone(),
        }
    }
}
