//! The reference's iCalendar URLs on the site's pages — `/events/?ical=1`,
//! `/event/<slug>/?ical=1`, category and tag archives, the month and day views,
//! `/events/<date>/ical/` — so that subscriptions made against a WordPress site keep
//! working after a move. Each is the API request it stands for, answered by the
//! same dispatch (and the same cache entry) as that request with `?ical=1`.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::Uri;
use axum::response::Response;
use axum::routing::get;
use chrono::{Datelike, Days, NaiveDate, TimeZone};

use super::context::View;
use super::dispatch;
use super::state::{App, Lang};
use crate::api::table::{By, Endpoint, NAMESPACE, Op, ROUTES};

/// Which calendar a page URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Page {
    /// `/`, `/events/`, `/events/list/`: upcoming events, or from `tribe-bar-date` on.
    Upcoming,
    /// `/events/ical/`: the same, always as a feed.
    UpcomingFeed,
    /// `/events/month/`: a month (`tribe-bar-date=YYYY-MM`), or the rest of this one.
    Month,
    /// `/events/today/`, `/events/day/`: one day (`tribe-bar-date`, or today).
    Day,
    /// `/events/<YYYY-MM-DD>/ical/`
    DayFeed,
    /// `/event/<slug>/`
    Event,
    /// `/events/category/<slug>/`, `/events/tag/<slug>/`
    Category,
    Tag,
}

const PAGES: &[(&str, Page)] = &[
    ("/", Page::Upcoming),
    ("/events", Page::Upcoming),
    ("/events/list", Page::Upcoming),
    ("/events/ical", Page::UpcomingFeed),
    ("/events/month", Page::Month),
    ("/events/today", Page::Day),
    ("/events/day", Page::Day),
    ("/events/{day}/ical", Page::DayFeed),
    ("/event/{slug}", Page::Event),
    ("/events/category/{slug}", Page::Category),
    ("/events/tag/{slug}", Page::Tag),
];

/// The API list arguments a page URL passes on as they are.
const PASSED_ON: &[&str] = &[
    "start_date",
    "end_date",
    "search",
    "categories",
    "tags",
    "venue",
    "organizer",
    "featured",
    "status",
    "password",
];

/// Every served language, with the prefix its pages are under (English also
/// without one).
pub(super) fn languages(languages: &[String]) -> Vec<Arc<Lang>> {
    let prefixes = std::iter::once(String::new()).chain(languages.iter().map(|l| format!("/{l}")));
    prefixes
        .map(|prefix| {
            let code = prefix.trim_start_matches('/');
            Arc::new(Lang {
                code: if code.is_empty() { "en" } else { code }.to_string(),
                prefix: prefix.clone(),
                namespace: NAMESPACE,
            })
        })
        .collect()
}

/// A route and its twin with or without the trailing slash.
pub(super) fn both_forms(path: &str) -> Vec<String> {
    let slashed = format!("{}/", path.trim_end_matches('/'));
    let mut out = vec![slashed.clone()];
    if path != slashed && !path.is_empty() {
        out.push(path.to_string());
    }
    out
}

/// The feed routes, under every served language's prefix.
pub fn routes(languages: &[String]) -> Router<App> {
    let mut router = Router::new();
    for lang in self::languages(languages) {
        for &(path, page) in PAGES {
            let handler = {
                let lang = lang.clone();
                move |State(app): State<App>, req: Request| feed(app, page, lang, req)
            };
            for path in both_forms(&format!("{}{path}", lang.prefix)) {
                router = router.route(&path, get(handler.clone()));
            }
        }
    }
    router
}

async fn feed(app: App, page: Page, lang: Arc<Lang>, req: Request) -> Response {
    let query: Vec<(String, String)> =
        form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    let asked = View::asked_in(req.uri().query());
    let always = matches!(page, Page::UpcomingFeed | Page::DayFeed);
    let flag = match asked {
        Some(View::Calendar { outlook: true }) => "outlook-ical",
        _ => "ical",
    };
    if !(always || asked.is_some()) {
        return super::pages::page(app, lang, req).await;
    }
    let base = format!("{}{}/{NAMESPACE}", lang.prefix, app.settings.rest_root);
    let (endpoint, path, mut pairs) = match page {
        Page::Event => {
            let path = format!("{base}/events/by-slug/{}", last_segment(req.uri()));
            (endpoint(Op::EventGet(By::Slug)), path, Vec::new())
        }
        _ => match list_pairs(
            page,
            &app,
            req.uri(),
            &query,
            running_since(&app, page).await,
        ) {
            Some(pairs) => (endpoint(Op::EventList), format!("{base}/events"), pairs),
            None => return super::no_route(req.uri().clone()).await,
        },
    };
    for (k, v) in &query {
        let passed = k == "password" || (page != Page::Event && PASSED_ON.contains(&k.as_str()));
        if !passed {
            continue;
        }
        // A date given in the URL wins over the page's own; filters add up.
        if k.ends_with("_date") {
            pairs.retain(|(pk, _)| pk != k);
        }
        pairs.push((k.clone(), v.clone()));
    }
    pairs.push((flag.to_string(), "1".to_string()));
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    let (mut parts, body) = req.into_parts();
    parts.uri = match format!("{path}?{encoded}").parse::<Uri>() {
        Ok(uri) => uri,
        Err(_) => return super::no_route(parts.uri).await,
    };
    dispatch::handle(app, endpoint, lang, Request::from_parts(parts, body)).await
}

fn endpoint(op: Op) -> &'static Endpoint {
    ROUTES
        .iter()
        .flat_map(|r| r.endpoints.iter())
        .find(|e| e.op == op)
        .expect("the route table has every event read")
}

/// The list arguments a page stands for; `None` for a URL that names no calendar
/// (a day path that is not a date).
fn list_pairs(
    page: Page,
    app: &App,
    uri: &Uri,
    query: &[(String, String)],
    look_back: u64,
) -> Option<Vec<(String, String)>> {
    let zone = app.settings.timezone;
    let today = zone
        .from_utc_datetime(&chrono::Utc::now().naive_utc())
        .date_naive();
    let bar_date = query
        .iter()
        .find(|(k, _)| k == "tribe-bar-date")
        .map(|(_, v)| v.trim().to_string());
    let day = |d: NaiveDate| overlapping(d, d, look_back);
    let slug = || last_segment(uri).to_string();
    let mut pairs = match page {
        Page::Upcoming | Page::UpcomingFeed => match bar_date.as_deref().and_then(parse_day) {
            Some(d) => vec![("start_date".to_string(), format!("{d} 00:00:00"))],
            None => Vec::new(),
        },
        Page::Month => month(bar_date.as_deref(), today, look_back),
        Page::Day => day(bar_date.as_deref().and_then(parse_day).unwrap_or(today)),
        Page::DayFeed => {
            let segments: Vec<&str> = uri.path().trim_end_matches('/').rsplit('/').collect();
            day(parse_day(segments.get(1)?)?)
        }
        Page::Category => vec![("categories".to_string(), slug())],
        Page::Tag => vec![("tags".to_string(), slug())],
        Page::Event => Vec::new(),
    };
    if let Some((_, words)) = query.iter().find(|(k, _)| k == "tribe-bar-search") {
        pairs.push(("search".to_string(), words.clone()));
    }
    Some(pairs)
}

/// The most days before a day or month an event may have started and still be
/// shown on it: a day or month view shows the events that run during it, not only
/// those that start in it, and this bound keeps the query's range bounded too.
pub(super) const RUNNING_SINCE_DAYS: u64 = 366;

/// How many days before a day an event still running on it may have started,
/// given the most days a listed event runs past its start day: that, a day more
/// for the site's zone, and never more than [`RUNNING_SINCE_DAYS`]. Exact, so no
/// running event is missed, and a day's start range is days long, not a year.
pub(super) fn look_back_days(longest: i64) -> u64 {
    (u64::try_from(longest).unwrap_or(0) + 1).min(RUNNING_SINCE_DAYS)
}

/// [`look_back_days`] of the calendar as it is, for the views of days (a year
/// when it cannot be read; none is needed elsewhere).
async fn running_since(app: &App, page: Page) -> u64 {
    if !matches!(page, Page::Month | Page::Day | Page::DayFeed) {
        return RUNNING_SINCE_DAYS;
    }
    match app.service.longest_event_days().await {
        Ok(longest) => look_back_days(longest),
        Err(_) => RUNNING_SINCE_DAYS,
    }
}

/// The events that run at some time from `first` to `last` (whole days), looking
/// `look_back` days back for the ones that started before.
fn overlapping(first: NaiveDate, last: NaiveDate, look_back: u64) -> Vec<(String, String)> {
    let since = first
        .checked_sub_days(Days::new(look_back))
        .unwrap_or(first);
    vec![
        ("start_date".to_string(), format!("{since} 00:00:00")),
        (
            "end_date".to_string(),
            format!(
                "{} 23:59:59",
                last.checked_add_days(Days::new(look_back)).unwrap_or(last)
            ),
        ),
        (
            "starts_before".to_string(),
            format!("{} 00:00:00", last.succ_opt().unwrap_or(last)),
        ),
        ("ends_after".to_string(), format!("{first} 00:00:00")),
        // The bounds are instants, not whole days.
        ("strict_dates".to_string(), "1".to_string()),
    ]
}

/// A month view's window: the month `tribe-bar-date` names (`YYYY-MM` or a day in
/// it), or, as the reference does, the rest of the current month from now.
fn month(bar_date: Option<&str>, today: NaiveDate, look_back: u64) -> Vec<(String, String)> {
    let named = bar_date.and_then(|s| parse_day(s).or_else(|| parse_day(&format!("{s}-01"))));
    let first = named.map(|d| d.with_day(1).unwrap_or(d));
    let anchor = first.unwrap_or(today);
    let next_month = anchor
        .with_day(1)
        .and_then(|d| d.checked_add_months(chrono::Months::new(1)))
        .unwrap_or(anchor);
    let last = next_month.checked_sub_days(Days::new(1)).unwrap_or(anchor);
    overlapping(first.unwrap_or(today), last, look_back)
}

/// The last segment of a page URL's path: the slug of `/event/<slug>/` and of the
/// term archives.
fn last_segment(uri: &Uri) -> &str {
    uri.path()
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
}

fn parse_day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        parse_day(s).unwrap()
    }

    fn value<'a>(pairs: &'a [(String, String)], name: &str) -> &'a str {
        &pairs.iter().find(|(k, _)| k == name).unwrap().1
    }

    #[test]
    fn a_named_month_is_every_event_running_in_it() {
        let pairs = month(Some("2027-02"), day("2026-11-25"), 3);
        assert_eq!(value(&pairs, "ends_after"), "2027-02-01 00:00:00");
        assert_eq!(value(&pairs, "starts_before"), "2027-03-01 00:00:00");
        assert_eq!(value(&pairs, "strict_dates"), "1");
        // Events of up to three days: one started three days before may still run.
        assert_eq!(value(&pairs, "start_date"), "2027-01-29 00:00:00");
        assert_eq!(value(&pairs, "end_date"), "2027-03-03 23:59:59");
    }

    #[test]
    fn the_look_back_is_the_longest_event_and_a_day_at_most_a_year() {
        assert_eq!(look_back_days(0), 1);
        assert_eq!(look_back_days(3), 4);
        assert_eq!(look_back_days(5000), RUNNING_SINCE_DAYS);
        assert_eq!(look_back_days(-2), 1);
    }

    #[test]
    fn no_month_is_the_rest_of_this_one() {
        let pairs = month(None, day("2026-12-05"), RUNNING_SINCE_DAYS);
        assert_eq!(value(&pairs, "ends_after"), "2026-12-05 00:00:00");
        assert_eq!(value(&pairs, "starts_before"), "2027-01-01 00:00:00");
    }
}
