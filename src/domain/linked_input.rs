//! Reading a venue or organizer write from its typed arguments, with no I/O.
//! That the author exists, and that an image may be used, the service checks.

use chrono::DateTime;
use chrono_tz::Tz;
use serde_json::Value;

use super::args::{OrganizerWriteArgs, VenueWriteArgs};
use super::dates::parse_instant;
use super::event_input::{LinkedDraft, image_ref, normalize_url};
use super::html::{sanitize_html, strip_tags};
use super::post::{PostChanges, Status};
use super::validation::{Invalid, Problems};

/// What a write is read against.
#[derive(Clone, Copy)]
pub struct LinkedContext {
    pub now: i64,
    pub site: Tz,
    /// A create, where the name is required.
    pub creating: bool,
}

/// A missing name: the create route's own required argument.
#[derive(Debug, PartialEq)]
pub struct MissingName(pub &'static str);

fn text(value: &Option<String>) -> Option<String> {
    value.as_deref().map(|s| strip_tags(s.trim()))
}

/// The fields venues and organizers share.
struct Common<'a> {
    name_key: &'static str,
    name: &'a Option<String>,
    author: Option<i64>,
    date: &'a Option<String>,
    date_utc: &'a Option<String>,
    description: &'a Option<String>,
    excerpt: &'a Option<String>,
    slug: &'a Option<String>,
    password: &'a Option<String>,
    status: &'a Option<String>,
    phone: &'a Option<String>,
    website: &'a Option<String>,
    image: &'a Option<Value>,
}

fn read_common(
    f: Common<'_>,
    cx: LinkedContext,
    p: &mut Problems,
) -> Result<LinkedDraft, MissingName> {
    let mut c = PostChanges::default();
    match text(f.name) {
        Some(name) => {
            if name.is_empty() {
                p.add(Invalid::param(f.name_key));
            }
            c.title = Some(name);
        }
        None if cx.creating && !p.has(f.name_key) => return Err(MissingName(f.name_key)),
        None => {}
    }
    // Wrapped in paragraphs as event descriptions are, as the reference does.
    c.description = f.description.as_deref().map(sanitize_html);
    c.excerpt = f.excerpt.as_deref().map(|s| s.trim().to_string());
    c.slug = text(f.slug);
    c.password = f.password.clone();
    c.phone = text(f.phone);
    c.author = f.author;
    if let Some(w) = text(f.website) {
        c.website = normalize_url(&w);
        if c.website.is_none() {
            p.add(Invalid::param("website"));
        }
    }
    if let Some(s) = f.status {
        c.status = Status::parse(s);
        if c.status.is_none() {
            p.add(Invalid::param("status"));
        }
    }
    read_publication_date(&mut c, f.date, f.date_utc, cx, p);
    let image = match f.image {
        None => None,
        Some(v) => p.check(image_ref("image", v)).ok().flatten(),
    };
    Ok(LinkedDraft { changes: c, image })
}

/// `date` (site zone) or `date_utc`; `date` wins when both are given.
fn read_publication_date(
    c: &mut PostChanges,
    date: &Option<String>,
    date_utc: &Option<String>,
    cx: LinkedContext,
    p: &mut Problems,
) {
    let now = DateTime::from_timestamp(cx.now, 0).unwrap_or_default();
    if let Some(d) = date_utc {
        match parse_instant(d, &Tz::UTC, now) {
            Some(t) => c.date_utc = Some(t.timestamp()),
            None => p.add(Invalid::param("date_utc")),
        }
    }
    if let Some(d) = date {
        match parse_instant(d, &cx.site, now) {
            Some(t) => c.date_utc = Some(t.timestamp()),
            None => p.add(Invalid::param("date")),
        }
    }
}

/// Reads a venue write; every invalid argument is noted in `p`.
pub fn read_venue(
    a: &VenueWriteArgs,
    cx: LinkedContext,
    p: &mut Problems,
) -> Result<LinkedDraft, MissingName> {
    let common = Common {
        name_key: "venue",
        name: &a.venue,
        author: a.author,
        date: &a.date,
        date_utc: &a.date_utc,
        description: &a.description,
        excerpt: &a.excerpt,
        slug: &a.slug,
        password: &a.password,
        status: &a.status,
        phone: &a.phone,
        website: &a.website,
        image: &a.image,
    };
    let mut draft = read_common(common, cx, p)?;
    let c = &mut draft.changes;
    for (value, slot) in [
        (&a.address, &mut c.address),
        (&a.city, &mut c.city),
        (&a.country, &mut c.country),
        (&a.province, &mut c.province),
        (&a.state, &mut c.state),
        (&a.zip, &mut c.zip),
        (&a.stateprovince, &mut c.stateprovince),
    ] {
        *slot = text(value);
    }
    for (value, slot) in [
        (&a.show_map, &mut c.show_map),
        (&a.show_map_link, &mut c.show_map_link),
    ] {
        // Typed string in the reference: any truthy text shows the map.
        *slot = value.as_deref().map(|s| {
            super::args::parse_bool(&Value::String(s.to_string())).unwrap_or(!s.trim().is_empty())
        });
    }
    for (name, value, slot, limit) in [
        ("geo_lat", a.geo_lat, &mut c.geo_lat, 90.0),
        ("geo_lng", a.geo_lng, &mut c.geo_lng, 180.0),
    ] {
        if let Some(v) = value {
            if v.abs() > limit {
                p.add(Invalid::param(name));
            }
            *slot = Some(Some(v));
        }
    }
    Ok(draft)
}

/// Reads an organizer write; every invalid argument is noted in `p`.
pub fn read_organizer(
    a: &OrganizerWriteArgs,
    cx: LinkedContext,
    p: &mut Problems,
) -> Result<LinkedDraft, MissingName> {
    let common = Common {
        name_key: "organizer",
        name: &a.organizer,
        author: a.author,
        date: &a.date,
        date_utc: &a.date_utc,
        description: &a.description,
        excerpt: &a.excerpt,
        slug: &a.slug,
        password: &a.password,
        status: &a.status,
        phone: &a.phone,
        website: &a.website,
        image: &a.image,
    };
    let mut draft = read_common(common, cx, p)?;
    if let Some(e) = text(&a.email) {
        if !e.is_empty() && !looks_like_email(&e) {
            p.add(Invalid::param("email"));
        }
        draft.changes.email = Some(e);
    }
    Ok(draft)
}

fn looks_like_email(s: &str) -> bool {
    match s.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !s.chars().any(|c| c.is_whitespace() || c == '<' || c == '>')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(creating: bool) -> LinkedContext {
        LinkedContext {
            now: 1_795_336_200,
            site: Tz::UTC,
            creating,
        }
    }

    #[test]
    fn a_create_needs_a_name_and_every_invalid_field_is_noted() {
        let mut p = Problems::default();
        let missing = read_venue(&VenueWriteArgs::default(), cx(true), &mut p);
        assert_eq!(missing.err(), Some(MissingName("venue")));
        let a = VenueWriteArgs {
            venue: Some(" <b>Hall</b> ".into()),
            website: Some("not a url".into()),
            geo_lat: Some(91.0),
            status: Some("nope".into()),
            show_map: Some("yes please".into()),
            description: Some("A hall".into()),
            ..VenueWriteArgs::default()
        };
        let draft = read_venue(&a, cx(true), &mut p).unwrap();
        assert_eq!(draft.changes.title.as_deref(), Some("Hall"));
        assert_eq!(draft.changes.description.as_deref(), Some("<p>A hall</p>"));
        assert_eq!(draft.changes.show_map, Some(true));
        for name in ["website", "geo_lat", "status"] {
            assert!(p.has(name), "{name}");
        }
    }

    #[test]
    fn organizer_emails_must_look_like_emails() {
        let mut p = Problems::default();
        let a = OrganizerWriteArgs {
            organizer: Some("O".into()),
            email: Some("nope".into()),
            ..OrganizerWriteArgs::default()
        };
        read_organizer(&a, cx(false), &mut p).unwrap();
        assert!(p.has("email"));
        assert!(looks_like_email("a@b.org") && !looks_like_email("a@b"));
    }
}
