//! Reading an event write (every field of the interface and our extensions) from its typed
//! arguments, with no I/O: every field is parsed and checked here, and every
//! invalid one noted. What needs the database — that an author, a parent event,
//! an image or a named post exists and may be used — the service checks next.

mod links;
#[cfg(test)]
mod tests;

use chrono::{DateTime, NaiveTime, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value};

pub use links::{LinkedItem, MAX_LINKS, image_ref, normalize_url, scalar};

use super::args::EventWriteArgs;
use super::event::{Event, EventChanges, Ticket, zone_of};
use super::html::{sanitize_html, strip_tags};
use super::message::Msg;
use super::post::{PostChanges, PostType, Status};
use super::timezone::{EventZone, parse_zone};
use super::validation::{Invalid, Problems};

/// A venue or organizer given inline, by its fields, as its own create route reads them.
#[derive(Clone, Debug, Default)]
pub struct LinkedDraft {
    pub changes: PostChanges,
    pub image: Option<super::post::ImageRef>,
}

/// Reads the fields of an inline venue or organizer (`{"venue": "Hall", …}`) as its
/// own create route would; `Err` when they are not valid there.
pub type InlineReader<'a> =
    &'a (dyn Fn(PostType, &Map<String, Value>) -> Result<LinkedDraft, ()> + Sync);

/// An event write as its arguments give it: the changes, with the terms, venue
/// and organizers it names still to be resolved.
#[derive(Clone, Debug, Default)]
pub struct EventDraft {
    /// Everything but the links (`categories`, `tags`, `venue`, `organizers` are `None`).
    pub changes: EventChanges,
    /// Term IDs, slugs or names, as given.
    pub categories: Option<Vec<String>>,
    pub tags: Option<Vec<String>>,
    /// `Some(None)` unlinks the venue.
    pub venue: Option<Option<LinkedItem>>,
    pub organizers: Option<Vec<LinkedItem>>,
}

/// What a write is read against.
#[derive(Clone, Copy)]
pub struct WriteContext<'a> {
    pub now: i64,
    pub site: Tz,
    /// The event an update changes; `None` for a create.
    pub existing: Option<&'a Event>,
}

/// Reads an event write; every invalid argument is noted in `p`.
pub fn read(
    args: &EventWriteArgs,
    cx: WriteContext<'_>,
    inline: InlineReader<'_>,
    p: &mut Problems,
) -> EventDraft {
    let mut d = EventDraft::default();
    let c = &mut d.changes;
    let now = DateTime::from_timestamp(cx.now, 0).unwrap_or_default();
    read_post_fields(c, args, p);
    c.post.author = args.author;
    let zone = read_zone(c, args, cx, p);
    read_publication_date(c, args, &zone, now, p);
    read_dates(c, args, cx, &zone, now, p);
    if let Some(v) = &args.image {
        c.image = p.check(image_ref("image", v)).ok().flatten();
    }
    if let Some(v) = &args.cost {
        c.cost = p.check(read_cost(v)).ok().flatten();
    }
    if let Some(w) = &args.website {
        let url = scalar(w).and_then(|text| normalize_url(&text));
        c.website = p
            .check(url.map(Some).ok_or_else(|| Invalid::param("website")))
            .ok()
            .flatten();
    }
    c.post.show_map = args.show_map;
    c.post.show_map_link = args.show_map_link;
    c.hide_from_listings = args.hide_from_listings;
    c.sticky = args.sticky;
    c.featured = args.featured;
    c.post_parent = args.post_parent.map(|parent| parent.max(0));
    if args.post_parent.is_some_and(|parent| parent < 0) {
        p.add(Invalid::param("post_parent"));
    }
    if let Some(v) = &args.tickets {
        c.tickets = p.check(read_tickets(v)).ok().flatten();
    }
    links::read(&mut d, args, inline, p);
    d
}

/// Title, description, excerpt, slug, password and status.
fn read_post_fields(c: &mut EventChanges, args: &EventWriteArgs, p: &mut Problems) {
    if let Some(t) = &args.title {
        let t = strip_tags(t.trim());
        if t.is_empty() {
            p.add(Invalid::param("title"));
        }
        c.post.title = Some(t);
    }
    c.post.description = args.description.as_deref().map(sanitize_html);
    c.post.excerpt = args.excerpt.as_deref().map(sanitize_html);
    c.post.slug = args.slug.as_deref().map(|s| strip_tags(s.trim()));
    c.post.password = args.password.clone();
    if let Some(s) = &args.status {
        c.post.status = Status::parse(s);
        if c.post.status.is_none() {
            p.add(Invalid::param("status"));
        }
    }
}

/// The zone the event's dates are read in: the new one, the event's, or the
/// site's. Dates in an invalid zone are still checked, in the zone they would
/// otherwise use.
fn read_zone(
    c: &mut EventChanges,
    args: &EventWriteArgs,
    cx: WriteContext<'_>,
    p: &mut Problems,
) -> EventZone {
    let current = cx
        .existing
        .map_or(EventZone::Named(cx.site), |e| zone_of(e, cx.site));
    let zone = match args.timezone.as_deref().map(str::trim) {
        Some("") => EventZone::Named(cx.site),
        Some(name) => match parse_zone(name) {
            Some(z) => z,
            None => {
                p.add(Invalid::param("timezone"));
                return current;
            }
        },
        None => {
            if cx.existing.is_none() {
                c.timezone = Some(current.name());
            }
            return current;
        }
    };
    c.timezone = Some(zone.name());
    zone
}

fn parse_in_zone(input: &str, zone: &EventZone, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match zone {
        EventZone::Named(tz) => super::dates::parse_instant(input, tz, now),
        EventZone::Fixed { offset_seconds, .. } => {
            let fixed = chrono::FixedOffset::east_opt(*offset_seconds)?;
            super::dates::parse_instant(input, &fixed, now)
        }
    }
}

/// `date` is wall time in the event's zone; `date_utc` is UTC. `date` wins when both are given.
fn read_publication_date(
    c: &mut EventChanges,
    args: &EventWriteArgs,
    zone: &EventZone,
    now: DateTime<Utc>,
    p: &mut Problems,
) {
    if let Some(d) = &args.date_utc {
        match super::dates::parse_instant(d, &Utc, now) {
            Some(t) => c.post.date_utc = Some(t.timestamp()),
            None => p.add(Invalid::param("date_utc")),
        }
    }
    if let Some(d) = &args.date {
        match parse_in_zone(d, zone, now) {
            Some(t) => c.post.date_utc = Some(t.timestamp()),
            None => p.add(Invalid::param("date")),
        }
    }
}

/// Start and end: parsed in the event's zone, widened for all-day events, and in order.
fn read_dates(
    c: &mut EventChanges,
    args: &EventWriteArgs,
    cx: WriteContext<'_>,
    zone: &EventZone,
    now: DateTime<Utc>,
    p: &mut Problems,
) {
    let mut date = |name: &str, value: &Option<String>| -> Option<i64> {
        let parsed = parse_in_zone(value.as_deref()?, zone, now);
        if parsed.is_none() {
            p.add(Invalid::param(name));
        }
        parsed.map(|d| d.timestamp())
    };
    let (mut start, mut end) = (
        date("start_date", &args.start_date),
        date("end_date", &args.end_date),
    );
    // Omitted on update keeps the stored value (the reference resets it to false).
    c.all_day = match cx.existing {
        None => Some(args.all_day.unwrap_or(false)),
        Some(_) => args.all_day,
    };
    if p.has("start_date") || p.has("end_date") {
        // No order to check between dates that are not both valid.
        return;
    }
    if let Some(e) = cx.existing
        && c.timezone.is_some()
    {
        // A new zone without new dates keeps the wall-clock times, as the reference stores them.
        let old_zone = zone_of(e, cx.site);
        start = start.or_else(|| {
            zone.to_utc(old_zone.local(e.start_utc))
                .map(|d| d.timestamp())
        });
        end = end.or_else(|| {
            zone.to_utc(old_zone.local(e.end_utc))
                .map(|d| d.timestamp())
        });
    }
    let existing = cx.existing;
    if c.all_day.or(existing.map(|e| e.all_day)).unwrap_or(false) {
        let last = NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN);
        let edge = |t: Option<i64>, time: NaiveTime| {
            t.and_then(|t| zone.to_utc(zone.local(t).date().and_time(time)))
                .map(|d| d.timestamp())
        };
        start = edge(start.or(existing.map(|e| e.start_utc)), NaiveTime::MIN);
        end = edge(end.or(existing.map(|e| e.end_utc)), last);
    }
    let final_start = start.or(existing.map(|e| e.start_utc));
    let final_end = end.or(existing.map(|e| e.end_utc));
    if let (Some(s), Some(e)) = (final_start, final_end)
        && e < s
    {
        p.add(Invalid::because(
            "end_date",
            "rest_invalid_date_range",
            Msg::EndBeforeStart,
        ));
    }
    c.start_utc = start;
    c.end_utc = end;
}

fn read_cost(v: &Value) -> Result<Vec<String>, Invalid> {
    let bad = || Invalid::param("cost");
    let items: Vec<String> = match v {
        Value::Array(a) => a
            .iter()
            .map(scalar)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?,
        Value::Bool(false) => Vec::new(),
        other => vec![scalar(other).ok_or_else(bad)?],
    };
    Ok(items
        .into_iter()
        .map(|s| strip_tags(s.trim()))
        .filter(|s| !s.is_empty())
        .collect())
}

fn read_tickets(v: &Value) -> Result<Vec<Ticket>, Invalid> {
    let list = match v {
        Value::Array(a) => a.clone(),
        Value::Object(_) => vec![v.clone()],
        Value::String(s) if s.trim().is_empty() => Vec::new(),
        _ => return Err(Invalid::param("tickets")),
    };
    if list.len() > MAX_LINKS {
        return Err(Invalid::param("tickets"));
    }
    list.iter().map(read_ticket).collect()
}

fn read_ticket(item: &Value) -> Result<Ticket, Invalid> {
    let bad = || Invalid::param("tickets");
    let Value::Object(o) = item else {
        return Err(bad());
    };
    let field = |k: &str| -> Result<String, Invalid> {
        match o.get(k) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(v) => scalar(v).map(|s| strip_tags(s.trim())).ok_or_else(bad),
        }
    };
    let url = normalize_url(&field("url")?).ok_or_else(bad)?;
    let currency = field("currency")?;
    if currency.len() > 10 {
        return Err(bad());
    }
    Ok(Ticket {
        name: field("name")?,
        url,
        price: field("price")?,
        currency,
    })
}
