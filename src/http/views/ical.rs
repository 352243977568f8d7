//! Events as an iCalendar (RFC 5545) calendar: the feed view of the event list and
//! single-event use cases (docs/feeds.md).
//!
//! Each content line is an `icalendar::Property`, which escapes TEXT values, quotes
//! parameters and folds at 75 octets on UTF-8 boundaries. Components are written
//! here around those lines, because the crate's component writer adds a `UID` and
//! a `DTSTAMP` to every component, `VTIMEZONE` included, where RFC 5545 forbids them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{DateTime, Datelike, Timelike};
use chrono_tz::Tz;
use icalendar::Property;

use super::ViewContext;
use crate::domain::event::{Event, EventLinks, zone_of};
use crate::domain::post::{Post, PostType, Reveal, Status};
use crate::domain::timezone::EventZone;
use crate::domain::zone_history::{Observance, observances};
use crate::service::ShownEvent;

/// What the calendar says about itself.
pub struct CalendarMeta<'a> {
    pub name: &'a str,
    pub description: &'a str,
    /// Outlook's form leaves out `X-WR-CALNAME` (as the reference's `outlook-ical=1`).
    pub with_name: bool,
    /// Set when the feed holds fewer events than the request matched.
    pub cut: Option<Cut>,
}

#[derive(Clone, Copy, Debug)]
pub struct Cut {
    pub shown: usize,
    pub total: u64,
    /// `total` is a floor (a search's).
    pub at_least: bool,
}

/// The `PRODID` of every calendar this server writes.
const PRODID: &str = concat!(
    "-//calendar-events//calendar-events ",
    env!("CARGO_PKG_VERSION"),
    "//EN"
);

/// The whole `VCALENDAR`, CRLF-terminated lines.
pub fn calendar(shown: &[ShownEvent], cx: &ViewContext<'_>, meta: &CalendarMeta<'_>) -> String {
    let mut out = Lines(String::with_capacity(capacity(shown)));
    out.raw("BEGIN:VCALENDAR");
    out.prop("VERSION", "2.0");
    out.prop("PRODID", PRODID);
    out.prop("CALSCALE", "GREGORIAN");
    out.prop("METHOD", "PUBLISH");
    if meta.with_name {
        out.prop("X-WR-CALNAME", &newlines(meta.name));
    }
    out.prop("X-WR-CALDESC", &newlines(meta.description));
    out.prop("X-WR-TIMEZONE", cx.site_zone.name());
    out.prop("X-ORIGINAL-URL", cx.urls.site());
    out.put(
        Property::new("REFRESH-INTERVAL", "PT1H")
            .add_parameter("VALUE", "DURATION")
            .done(),
    );
    out.prop("X-PUBLISHED-TTL", "PT1H");
    if let Some(cut) = meta.cut {
        // Calendar applications ignore what they do not know; people reading the
        // feed, and scripts, learn that it is incomplete and how to narrow it.
        let note = format!(
            "{} of {}{} events; narrow the window with start_date and end_date",
            cut.shown,
            if cut.at_least { "at least " } else { "" },
            cut.total
        );
        out.prop("X-CALENDAR-EVENTS-CUT", &note);
    }
    for (tz, (from, to)) in zones_used(shown, cx.site_zone) {
        vtimezone(&mut out, tz, &observances(tz, from, to));
    }
    for s in shown {
        vevent(&mut out, s, cx);
    }
    out.raw("END:VCALENDAR");
    out.0
}

/// About the calendar's length, so that its buffer is not copied as it grows: a
/// megabyte for a thousand events.
fn capacity(shown: &[ShownEvent]) -> usize {
    let texts: usize = shown
        .iter()
        .map(|s| {
            s.event
                .post
                .description
                .len()
                .max(s.event.post.excerpt.len())
        })
        .sum();
    4096 + shown.len() * 800 + texts * 21 / 20
}

/// Content lines, each folded and CRLF-terminated.
struct Lines(String);

impl Lines {
    fn raw(&mut self, line: &str) {
        self.0.push_str(line);
        self.0.push_str("\r\n");
    }

    fn put(&mut self, p: Property) {
        // Writing into a `String` cannot fail.
        if let Ok(line) = TryInto::<String>::try_into(p) {
            self.0.push_str(&line);
        }
    }

    fn prop(&mut self, key: &str, value: &str) {
        self.put(Property::new(key, value));
    }

    fn with_param(&mut self, key: &str, param: (&str, &str), value: &str) {
        self.put(
            Property::new(key, value)
                .add_parameter(param.0, param.1)
                .done(),
        );
    }
}

/// TEXT escaping of one item of a list: the crate leaves `CATEGORIES` as it is,
/// since its commas separate the items.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in newlines(s).chars() {
        match c {
            '\\' | ',' | ';' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out
}

/// Line breaks as LF only: TEXT escapes LF as `\n`, and a CR would break the line.
fn newlines(s: &str) -> Cow<'_, str> {
    if s.contains('\r') {
        Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(s)
    }
}

/// Every named zone the events use, with the span of instants shown in it.
/// Events in UTC or at a manual offset are written in UTC and need none.
fn zones_used(shown: &[ShownEvent], site: Tz) -> impl Iterator<Item = (Tz, (i64, i64))> {
    let mut zones: BTreeMap<&'static str, (Tz, (i64, i64))> = BTreeMap::new();
    for s in shown {
        if let Some(tz) = named_zone(&s.event, site) {
            let (start, end) = (s.event.start_utc, s.event.end_utc.max(s.event.start_utc));
            let (_, span) = zones.entry(tz.name()).or_insert((tz, (start, end)));
            *span = (span.0.min(start), span.1.max(end));
        }
    }
    zones.into_values()
}

/// The IANA zone an event's times are written in, or `None` for UTC.
fn named_zone(e: &Event, site: Tz) -> Option<Tz> {
    match zone_of(e, site) {
        EventZone::Named(tz) if !is_utc(tz) => Some(tz),
        _ => None,
    }
}

fn is_utc(tz: Tz) -> bool {
    matches!(
        tz,
        Tz::UTC | Tz::Etc__UTC | Tz::Etc__UCT | Tz::Etc__Universal | Tz::Etc__Zulu | Tz::GMT
    ) || tz.name() == "Etc/GMT"
}

fn vtimezone(out: &mut Lines, tz: Tz, all: &[Observance]) {
    out.raw("BEGIN:VTIMEZONE");
    out.prop("TZID", tz.name());
    for o in all {
        let kind = if o.daylight { "DAYLIGHT" } else { "STANDARD" };
        out.raw(&format!("BEGIN:{kind}"));
        // The onset, as a wall time in the offset it ends.
        out.prop("DTSTART", &local(o.onset_utc, o.offset_before));
        out.prop("TZOFFSETFROM", &utc_offset(o.offset_before));
        out.prop("TZOFFSETTO", &utc_offset(o.offset_after));
        if !o.abbreviation.is_empty() {
            out.prop("TZNAME", &o.abbreviation);
        }
        out.raw(&format!("END:{kind}"));
    }
    out.raw("END:VTIMEZONE");
}

/// `+0100`, `-0330`, or `+053730` with seconds when there are any.
fn utc_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let a = seconds.unsigned_abs();
    let (h, m, s) = (a / 3600, a % 3600 / 60, a % 60);
    match s {
        0 => format!("{sign}{h:02}{m:02}"),
        _ => format!("{sign}{h:02}{m:02}{s:02}"),
    }
}

/// A wall time, `offset` seconds east of UTC, as a floating DATE-TIME.
fn local(utc: i64, offset: i32) -> String {
    stamp(utc + i64::from(offset), "")
}

/// An instant as a UTC DATE-TIME.
fn utc(t: i64) -> String {
    stamp(t, "Z")
}

/// `YYYYMMDDTHHMMSS` and `suffix`, written field by field: a feed writes five of
/// these an event, and a format string is parsed again at each.
fn stamp(t: i64, suffix: &str) -> String {
    let at = DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .naive_utc();
    let mut out = String::with_capacity(16);
    let _ = write!(
        out,
        "{:04}{:02}{:02}T{:02}{:02}{:02}{suffix}",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    );
    out
}

fn vevent(out: &mut Lines, s: &ShownEvent, cx: &ViewContext<'_>) {
    let (e, p) = (&s.event, &s.event.post);
    let full = s.reveal == Reveal::Full;
    out.raw("BEGIN:VEVENT");
    out.prop("UID", &format!("{}@{}", p.id, cx.urls.site_host()));
    // The last change rather than the moment of writing: the same data makes the
    // same calendar, on every instance, at any time.
    out.prop("DTSTAMP", &utc(p.modified_utc.max(p.date_utc)));
    out.prop("CREATED", &utc(p.date_utc));
    out.prop("LAST-MODIFIED", &utc(p.modified_utc.max(p.date_utc)));
    // Every write counts: edits within one second too.
    out.prop(
        "SEQUENCE",
        &p.revision.clamp(0, i64::from(i32::MAX)).to_string(),
    );
    dates(out, e, cx.site_zone);
    out.prop(
        "SUMMARY",
        &newlines(&crate::domain::plain_text::title_text(&p.title)),
    );
    let permalink = cx.urls.permalink(PostType::Event, &p.slug, p.id);
    out.put(
        Property::new("URL", permalink)
            .add_parameter("VALUE", "URI")
            .done(),
    );
    out.prop("STATUS", status(p));
    if p.status() == Some(Status::Private) {
        out.prop("CLASS", "PRIVATE");
    }
    if full {
        details(out, e, &s.links, cx);
    }
    out.raw("END:VEVENT");
}

fn status(p: &Post) -> &'static str {
    match p.status() {
        Some(Status::Draft | Status::Pending) => "TENTATIVE",
        Some(Status::Trash) => "CANCELLED",
        _ => "CONFIRMED",
    }
}

/// `DTSTART`/`DTEND`: dates for all-day events (the end the day after the last),
/// wall times with their zone otherwise, UTC for UTC and manual offsets.
fn dates(out: &mut Lines, e: &Event, site: Tz) {
    let zone = zone_of(e, site);
    if e.all_day {
        let first = zone.local(e.start_utc).date();
        let last = zone
            .local((e.end_utc - 1).max(e.start_utc))
            .date()
            .max(first);
        let after = last.succ_opt().unwrap_or(last);
        let date = |d: chrono::NaiveDate| d.format("%Y%m%d").to_string();
        out.with_param("DTSTART", ("VALUE", "DATE"), &date(first));
        out.with_param("DTEND", ("VALUE", "DATE"), &date(after));
        return;
    }
    let end = e.end_utc.max(e.start_utc);
    match named_zone(e, site) {
        Some(tz) => {
            let wall = |t: i64| local(t, zone.offset_seconds_at(t));
            out.with_param("DTSTART", ("TZID", tz.name()), &wall(e.start_utc));
            out.with_param("DTEND", ("TZID", tz.name()), &wall(end));
        }
        None => {
            out.prop("DTSTART", &utc(e.start_utc));
            out.prop("DTEND", &utc(end));
        }
    }
}

/// What a password-protected event keeps to itself: description, place, people,
/// categories.
fn details(out: &mut Lines, e: &Event, links: &EventLinks, cx: &ViewContext<'_>) {
    let p = &e.post;
    let html = if p.description.is_empty() {
        &p.excerpt
    } else {
        &p.description
    };
    let description = plain_text(html);
    if !description.is_empty() {
        out.prop("DESCRIPTION", &description);
    }
    let shown = |post: &Post| cx.caller.reveal(post, None) == Reveal::Full;
    if let Some(v) = links.venue.as_ref().filter(|v| shown(v)) {
        let place = location(v);
        if !place.is_empty() {
            out.prop("LOCATION", &newlines(&place));
        }
        if let (Some(lat), Some(lng)) = (v.geo_lat, v.geo_lng) {
            out.prop("GEO", &format!("{lat:.6};{lng:.6}"));
        }
    }
    if let Some(o) = links
        .organizers
        .iter()
        .find(|o| shown(o) && is_email(&o.email))
    {
        // A parameter value cannot hold a double quote, escaped or not.
        let name = newlines(&o.title).replace('"', "'").replace('\n', " ");
        let mut prop = Property::new("ORGANIZER", format!("mailto:{}", o.email.trim()));
        if !name.trim().is_empty() {
            prop.add_parameter("CN", &format!("\"{}\"", name.trim()));
        }
        out.put(prop);
    }
    let names: Vec<String> = links.categories.iter().map(|t| text(&t.name)).collect();
    if !names.is_empty() {
        out.prop("CATEGORIES", &names.join(","));
    }
}

fn is_email(s: &str) -> bool {
    let s = s.trim();
    s.split_once('@')
        .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'))
        && !s.contains(char::is_whitespace)
}

/// The venue's name and address, as one line.
fn location(v: &Post) -> String {
    let region = if v.stateprovince.is_empty() {
        if v.state.is_empty() {
            &v.province
        } else {
            &v.state
        }
    } else {
        &v.stateprovince
    };
    [&v.title, &v.address, &v.city, region, &v.zip, &v.country]
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The description's HTML as text: paragraphs and line breaks kept, lists as
/// bullets, links followed by their address.
fn plain_text(html: &str) -> String {
    if html.trim().is_empty() {
        return String::new();
    }
    let text = crate::domain::plain_text::plain_text(html);
    match newlines(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(lines) => lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_what_rfc_5545_reserves() {
        assert_eq!(text("a,b;c\\d\r\ne"), "a\\,b\\;c\\\\d\\ne");
    }

    #[test]
    fn offsets_have_seconds_only_when_needed() {
        assert_eq!(utc_offset(3600), "+0100");
        assert_eq!(utc_offset(-12600), "-0330");
        assert_eq!(utc_offset(561), "+000921");
    }

    #[test]
    fn descriptions_keep_their_paragraphs_and_links() {
        let t = plain_text(
            "<p>One &amp; two</p><p>See <a href=\"https://x.test/\">this</a></p><ul><li>a</li><li>b</li></ul>",
        );
        assert_eq!(t, "One & two\n\nSee this (https://x.test/)\n\n- a\n- b");
    }

    #[test]
    fn long_lines_fold_at_75_octets_on_character_boundaries() {
        let mut out = Lines(String::new());
        out.prop("SUMMARY", &"é".repeat(100));
        for line in out.0.split("\r\n") {
            assert!(line.len() <= 75, "{} octets: {line}", line.len());
        }
        assert_eq!(
            out.0.replace("\r\n ", ""),
            format!("SUMMARY:{}\r\n", "é".repeat(100))
        );
    }
}
