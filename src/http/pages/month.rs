//! `/events/month/` and `/events/month/YYYY-MM/`: a month as a grid of weeks,
//! each event on every day it covers.

use askama::Template;
use chrono::{Datelike, Days, Months, NaiveDate};

use super::chrome::Chrome;
use super::filters::{FilterForm, Filters};
use super::list::{Link, running_events, visit_path};
use super::text::Tr;
use super::views::EventItem;
use super::{PageError, Visit, dates};
use crate::http::urls::with_query;

/// Events a cell shows; "+N more" links the rest to the day view.
const SHOWN_PER_DAY: usize = 3;

/// The most events a grid reads as one list; a busier grid is read one day at a
/// time. From about a hundred events, a day's three events and its count cost
/// less than loading every event of the grid (at a million events on SQLite, a
/// grid of 435: 21-28 ms day by day, 33-43 ms as one list; of 107-212: the same
/// either way; bench/HISTORY.md).
const ONE_LIST_MAX_EVENTS: u64 = 100;

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
        let more = total.saturating_sub(events.len() as u64);
        cells.push(Cell {
            day: d.day(),
            date: d.to_string(),
            in_month: d.month() == first.month(),
            today: d == today,
            events,
            more: (more > 0).then(|| tr.with("page-more", &format!("+{more}"))),
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
/// from one list of the whole grid, or, for a busy grid, from one list a day.
async fn days(
    visit: &Visit,
    tr: &Tr,
    filters: &Filters,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<Vec<(NaiveDate, (Vec<Shown>, u64))>, PageError> {
    // The grid's count first (one event read): a busy month is read day by day,
    // and loading a whole list of events only to learn that would cost more than it.
    let (_, total) = running_events(visit, tr, filters, (start, end), 1).await?;
    let dates = start.iter_days().take_while(|d| *d <= end);
    if total <= ONE_LIST_MAX_EVENTS {
        let (events, _) =
            running_events(visit, tr, filters, (start, end), ONE_LIST_MAX_EVENTS).await?;
        return Ok(dates
            .map(|d| {
                let on: Vec<&EventItem> = events
                    .iter()
                    .filter(|e| e.first_day <= d && d <= e.last_day)
                    .collect();
                let shown = on
                    .iter()
                    .take(SHOWN_PER_DAY)
                    .map(|e| Shown::of(e))
                    .collect();
                (d, (shown, on.len() as u64))
            })
            .collect());
    }
    let mut out = Vec::new();
    for d in dates {
        let (events, total) =
            running_events(visit, tr, filters, (d, d), SHOWN_PER_DAY as u64).await?;
        out.push((d, (events.iter().map(Shown::of).collect(), total)));
    }
    Ok(out)
}

impl Shown {
    fn of(e: &EventItem) -> Shown {
        Shown {
            title: e.title.clone(),
            href: e.href.clone(),
        }
    }
}
