//! `GET /events`: what a list request asks for, read from its typed arguments
//! with no I/O ([`event_query`]). The service then resolves its references (term
//! slugs, venues near a point) and checks that the posts it names are visible.

use chrono::{DateTime, NaiveTime, Utc};
use chrono_tz::Tz;

use super::args::EventListArgs;
use super::dates::{format_in, parse_absolute, parse_instant};
use super::event::search_words;
use super::lists;
use super::post::Status;
use super::validation::{Invalid, Problems};

/// What a list request is read against.
#[derive(Clone, Copy, Debug)]
pub struct ListContext {
    pub now: i64,
    /// The site zone, for dates without an offset and the default window.
    pub zone: Tz,
    pub per_page_max: u64,
    /// Whether the caller may see unpublished posts (and filter by their statuses).
    pub sees_unpublished: bool,
}

/// A point and a radius in kilometres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Near {
    pub lat: f64,
    pub lng: f64,
    pub radius: f64,
}

/// How the list's date window depends on the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowClock {
    /// Every bound is an absolute date: only writes change the answer.
    Fixed,
    /// A defaulted bound moves at this moment (the next quarter-hour).
    Until(i64),
    /// It may move any second (relative dates, a strict default window).
    EverySecond,
}

/// A list request, its references not yet resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct EventQuery {
    pub page: u64,
    pub per_page: u64,
    /// start ≥
    pub start_min: Option<i64>,
    /// end ≤
    pub end_max: Option<i64>,
    pub starts_before: Option<i64>,
    pub starts_after: Option<i64>,
    pub ends_before: Option<i64>,
    pub ends_after: Option<i64>,
    pub search_words: Vec<String>,
    pub statuses: Vec<Status>,
    /// Term IDs or slugs, as given.
    pub categories: Vec<String>,
    pub tags: Vec<String>,
    pub venues: Vec<i64>,
    pub organizers: Vec<i64>,
    pub post_parent: Option<i64>,
    pub near: Option<Near>,
    pub featured: Option<bool>,
    pub geoloc: Option<bool>,
    pub ticketed: Option<bool>,
    pub include: Vec<i64>,
    pub window: WindowClock,
    /// The query as the list's own URLs repeat it (`rest_url`, `next_rest_url`).
    pub echo: Vec<(String, String)>,
}

/// Reads a list request; every invalid argument is noted in `p`.
pub fn event_query(args: &EventListArgs, cx: &ListContext, p: &mut Problems) -> EventQuery {
    let (page, per_page) = lists::page_and_size(args.page, args.per_page, cx.per_page_max, p);
    let include = p
        .check(lists::ids("include", args.include.as_deref()))
        .ok()
        .flatten()
        .unwrap_or_default();
    let bounds = read_bounds(args, cx, p);
    let search = match lists::nonempty("search", args.search.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            p.add(e);
            None
        }
    };
    let statuses = match lists::statuses(args.status.as_deref(), cx.sees_unpublished) {
        Ok(s) => s,
        Err(e) => {
            p.add(e);
            Vec::new()
        }
    };
    let venues = post_ids("venue", args.venue.as_deref(), p);
    let organizers = post_ids("organizer", args.organizer.as_deref(), p);
    let near = near(args, p);
    let mut q = EventQuery {
        page,
        per_page,
        start_min: None,
        end_max: None,
        starts_before: None,
        starts_after: None,
        ends_before: None,
        ends_after: None,
        search_words: search.map(search_words).unwrap_or_default(),
        statuses,
        categories: args.categories.clone().unwrap_or_default(),
        tags: args.tags.clone().unwrap_or_default(),
        venues,
        organizers,
        post_parent: args.post_parent,
        near,
        featured: args.featured,
        geoloc: args.geoloc,
        ticketed: args.ticketed,
        include,
        window: WindowClock::Fixed,
        echo: Vec::new(),
    };
    apply_window(&mut q, &bounds, args, cx);
    q.echo = echo(&q, args, search, cx);
    q
}

/// The date bounds as given, parsed and widened, before defaults.
#[derive(Default)]
struct Bounds {
    starts_before: Option<i64>,
    starts_after: Option<i64>,
    ends_before: Option<i64>,
    ends_after: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
}

/// The arguments that are dates.
const DATE_ARGS: [&str; 6] = [
    "start_date",
    "end_date",
    "starts_before",
    "starts_after",
    "ends_before",
    "ends_after",
];

fn date_arg<'a>(args: &'a EventListArgs, name: &str) -> Option<&'a str> {
    match name {
        "start_date" => args.start_date.as_deref(),
        "end_date" => args.end_date.as_deref(),
        "starts_before" => args.starts_before.as_deref(),
        "starts_after" => args.starts_after.as_deref(),
        "ends_before" => args.ends_before.as_deref(),
        _ => args.ends_after.as_deref(),
    }
}

/// Every date parameter: parsed in the site zone (offsets honoured), widened to
/// its day unless strict.
fn read_bounds(args: &EventListArgs, cx: &ListContext, p: &mut Problems) -> Bounds {
    let now = DateTime::from_timestamp(cx.now, 0).unwrap_or_default();
    let mut bound = |name: &str, edge: DayEdge| -> Option<i64> {
        let raw = date_arg(args, name)?;
        let Some(instant) = parse_instant(raw, &cx.zone, now) else {
            p.add(Invalid::param(name));
            return None;
        };
        Some(if args.strict_dates {
            instant.timestamp()
        } else {
            widen(instant, edge, cx.zone)
        })
    };
    Bounds {
        starts_before: bound("starts_before", DayEdge::End),
        starts_after: bound("starts_after", DayEdge::End),
        ends_before: bound("ends_before", DayEdge::End),
        ends_after: bound("ends_after", DayEdge::End),
        start: bound("start_date", DayEdge::Start),
        end: bound("end_date", DayEdge::End),
    }
}

/// The window: `include` drops every date filter (a deliberate departure, see
/// docs/departures.md); relative
/// bounds drop the defaults; otherwise a missing start or end takes its default.
fn apply_window(q: &mut EventQuery, b: &Bounds, args: &EventListArgs, cx: &ListContext) {
    if !q.include.is_empty() {
        return;
    }
    q.starts_before = b.starts_before;
    q.starts_after = b.starts_after;
    q.ends_before = b.ends_before;
    q.ends_after = b.ends_after;
    let relative = [b.starts_before, b.starts_after, b.ends_before, b.ends_after]
        .iter()
        .any(Option::is_some);
    let strict = args.strict_dates;
    if relative {
        (q.start_min, q.end_max) = (b.start, b.end);
    } else {
        let now = DateTime::from_timestamp(cx.now, 0).unwrap_or_default();
        let (default_start, default_end) = default_window(now, cx.zone, strict);
        q.start_min = Some(b.start.unwrap_or(default_start));
        q.end_max = Some(b.end.unwrap_or(default_end));
    }
    let defaulted = !relative && (b.start.is_none() || b.end.is_none());
    let reads_the_clock = DATE_ARGS
        .iter()
        .filter_map(|name| date_arg(args, name))
        .any(|raw| parse_absolute(raw, &cx.zone).is_none());
    q.window = match (defaulted, strict) {
        _ if reads_the_clock => WindowClock::EverySecond,
        (false, _) => WindowClock::Fixed,
        (true, false) => WindowClock::Until(next_quarter_hour(cx.now)),
        (true, true) => WindowClock::EverySecond,
    };
}

/// Venue or organizer IDs, as given.
fn post_ids(name: &str, keys: Option<&[String]>, p: &mut Problems) -> Vec<i64> {
    let parsed: Result<Vec<i64>, _> = keys.unwrap_or_default().iter().map(|k| k.parse()).collect();
    parsed.unwrap_or_else(|_| {
        p.add(Invalid::param(name));
        Vec::new()
    })
}

/// `geoloc_lat` and `geoloc_lng` (both or neither) and `geoloc_radius`.
fn near(args: &EventListArgs, p: &mut Problems) -> Option<Near> {
    let (lat, lng) = match (args.geoloc_lat, args.geoloc_lng) {
        (None, None) => return None,
        (Some(lat), Some(lng)) => (lat, lng),
        (None, Some(_)) => {
            p.add(Invalid::param("geoloc_lat"));
            return None;
        }
        (Some(_), None) => {
            p.add(Invalid::param("geoloc_lng"));
            return None;
        }
    };
    let radius = args.geoloc_radius;
    let checks = [
        ((-90.0..=90.0).contains(&lat), "geoloc_lat"),
        ((-180.0..=180.0).contains(&lng), "geoloc_lng"),
        (radius > 0.0 && radius <= 20_000.0, "geoloc_radius"),
    ];
    let mut valid = true;
    for (ok, name) in checks {
        if !ok {
            p.add(Invalid::param(name));
            valid = false;
        }
    }
    valid.then_some(Near { lat, lng, radius })
}

/// The query as the list's own URLs repeat it, in a fixed order.
fn echo(
    q: &EventQuery,
    args: &EventListArgs,
    search: Option<&str>,
    cx: &ListContext,
) -> Vec<(String, String)> {
    let mut echo: Vec<(String, String)> = vec![("per_page".into(), q.per_page.to_string())];
    let mut push = |name: &str, value: String| echo.push((name.to_string(), value));
    let dates = [
        ("start_date", q.start_min),
        ("end_date", q.end_max),
        ("starts_before", q.starts_before),
        ("starts_after", q.starts_after),
        ("ends_before", q.ends_before),
        ("ends_after", q.ends_after),
    ];
    for (name, v) in dates {
        if let Some(ts) = v {
            push(name, format_in(ts, &cx.zone));
        }
    }
    if args.strict_dates {
        push("strict_dates", "1".into());
    }
    if let Some(s) = search {
        push("search", s.to_string());
    }
    if !q.statuses.is_empty() {
        let names: Vec<&str> = q.statuses.iter().map(|s| s.as_str()).collect();
        push("status", names.join(","));
    } else if !cx.sees_unpublished {
        push("status", "publish".into());
    }
    let lists = [
        ("categories", &args.categories),
        ("tags", &args.tags),
        ("venue", &args.venue),
        ("organizer", &args.organizer),
    ];
    for (name, items) in lists {
        if let Some(items) = items.as_ref().filter(|i| !i.is_empty()) {
            push(name, items.join(","));
        }
    }
    if let Some(id) = q.post_parent {
        push("post_parent", id.to_string());
    }
    if let Some(near) = q.near {
        push("geoloc_lat", near.lat.to_string());
        push("geoloc_lng", near.lng.to_string());
        push("geoloc_radius", near.radius.to_string());
    }
    for (name, v) in [
        ("featured", q.featured),
        ("geoloc", q.geoloc),
        ("ticketed", q.ticketed),
    ] {
        if let Some(b) = v {
            push(name, if b { "1" } else { "0" }.into());
        }
    }
    if !q.include.is_empty() {
        let ids: Vec<String> = q.include.iter().map(i64::to_string).collect();
        push("include", ids.join(","));
    }
    echo
}

/// The window a list shows when `start_date` or `end_date` is not given: from
/// the start of today to the end of the same day 24 months on, in the site zone
/// (or from this very second to 24 months on, when strict).
fn default_window(now: DateTime<Utc>, tz: Tz, strict: bool) -> (i64, i64) {
    let later = now
        .checked_add_months(chrono::Months::new(24))
        .unwrap_or(now);
    if strict {
        (now.timestamp(), later.timestamp())
    } else {
        (
            widen(now, DayEdge::Start, tz),
            widen(later, DayEdge::End, tz),
        )
    }
}

/// The next UTC quarter-hour after `now`. A non-strict default window moves only at
/// quarter-hours: at local midnights (every zone's offset is a whole number of
/// quarter-hours) and at UTC midnights (where adding 24 months may clamp to a
/// month's end). `the_default_window_moves_only_at_quarter_hours` checks it.
fn next_quarter_hour(now: i64) -> i64 {
    (now.div_euclid(QUARTER_HOUR) + 1) * QUARTER_HOUR
}

const QUARTER_HOUR: i64 = 15 * 60;

/// Which end of its day a widened bound moves to.
#[derive(Clone, Copy, PartialEq)]
enum DayEdge {
    Start,
    End,
}

/// Moves an instant to the first or last second of its day in the site zone.
fn widen(instant: DateTime<Utc>, edge: DayEdge, tz: Tz) -> i64 {
    let day = instant.with_timezone(&tz).date_naive();
    let time = match edge {
        DayEdge::Start => NaiveTime::MIN,
        DayEdge::End => NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN),
    };
    super::dates::resolve_local(&tz, day.and_time(time))
        .map_or(instant.timestamp(), |d| d.timestamp())
}

#[cfg(test)]
mod tests;
