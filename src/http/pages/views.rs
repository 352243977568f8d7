//! Pieces several pages show: an event as a line of a list, its dates as a
//! visitor reads them, and the day-by-day grouping of the list views.

use crate::domain::plain_text::title_text;
use chrono::{Datelike, NaiveDate};

use super::dates;
use super::text::Tr;
use crate::domain::event::{Event, zone_of};
use crate::domain::timezone::EventZone;
use crate::service::ShownEvent;

/// An event as one entry of a list, a day or a month cell.
pub struct EventItem {
    pub title: String,
    pub href: String,
    pub when: String,
    /// `<time datetime>` of its start.
    pub datetime: String,
    pub venue: Option<String>,
    pub featured: bool,
    /// The local day it starts on, in its own zone.
    pub first_day: NaiveDate,
}

impl EventItem {
    pub fn new(shown: &ShownEvent, tr: &Tr, prefix: &str, site: chrono_tz::Tz) -> EventItem {
        let e = &shown.event;
        let zone = zone_of(e, site);
        EventItem {
            title: title_text(&e.post.title),
            href: event_path(prefix, &e.post.slug),
            when: when(tr, e, &zone),
            datetime: dates::iso(&zone, e.start_utc),
            venue: shown.links.venue.as_ref().map(|v| title_text(&v.title)),
            featured: e.featured,
            first_day: zone.local(e.start_utc).date(),
        }
    }
}

/// A stored website as a link: only web addresses are, so a link can never run
/// script (`javascript:`) whatever the stored value.
pub fn web_link(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://")).then(|| url.to_string())
}

/// The page of an event, in the page's language.
pub fn event_path(prefix: &str, slug: &str) -> String {
    format!("{prefix}/event/{}/", segment(slug))
}

/// Characters a path segment keeps as they are (as in the API's permalinks).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A slug as a path segment.
pub fn segment(slug: &str) -> String {
    percent_encoding::utf8_percent_encode(slug, SEGMENT).to_string()
}

/// When an event happens, in its zone: "Friday, March 5, 2027, 7:00 pm – 9:00 pm",
/// all-day and multi-day events in their own forms.
pub fn when(tr: &Tr, e: &Event, zone: &EventZone) -> String {
    let lang = tr.lang();
    let (start, end) = (zone.local(e.start_utc), zone.local(e.end_utc));
    let (first, last) = dates::days_covered(zone, e.start_utc, e.end_utc);
    match (e.all_day, first == last) {
        (true, true) => format!(
            "{}, {}",
            dates::long_date(lang, first),
            tr.t("page-all-day")
        ),
        (true, false) => format!(
            "{} – {}",
            dates::long_date(lang, first),
            dates::long_date(lang, last)
        ),
        (false, true) => format!(
            "{}, {} – {}",
            dates::long_date(lang, first),
            dates::time(lang, start),
            dates::time(lang, end)
        ),
        (false, false) => format!(
            "{}, {} – {}, {}",
            dates::long_date(lang, first),
            dates::time(lang, start),
            dates::long_date(lang, end.date()),
            dates::time(lang, end)
        ),
    }
}

/// The events of one day of a list.
pub struct DayGroup {
    pub label: String,
    pub date: String,
    pub events: Vec<EventItem>,
}

/// The days of one month of a list.
pub struct MonthGroup {
    pub label: String,
    pub days: Vec<DayGroup>,
}

/// Groups a list, in its order, by the month and day each event starts on, as
/// the reference's list view does.
pub fn group(lang: &str, items: Vec<EventItem>) -> Vec<MonthGroup> {
    let mut months: Vec<MonthGroup> = Vec::new();
    let mut last: Option<NaiveDate> = None;
    for item in items {
        let day = item.first_day;
        let same_month = last.is_some_and(|d| (d.year(), d.month()) == (day.year(), day.month()));
        if !same_month {
            months.push(MonthGroup {
                label: dates::month_year(lang, day),
                days: Vec::new(),
            });
        }
        let month = months.last_mut().expect("a month is pushed above");
        if last != Some(day) || month.days.is_empty() {
            month.days.push(DayGroup {
                label: dates::long_date(lang, day),
                date: day.to_string(),
                events: Vec::new(),
            });
        }
        if let Some(d) = month.days.last_mut() {
            d.events.push(item);
        }
        last = Some(day);
    }
    months
}
