//! An iCalendar file (RFC 5545) read as event create requests, for
//! `calendar-events import FILE.ics`: each `VEVENT` becomes the body the event
//! create route takes. Parsing is the `icalendar` crate's; this is the mapping.
//!
//! - `DTSTART`/`DTEND` with `TZID` keep their wall time and zone; a UTC time
//!   (`…Z`) is written in UTC; a date (`VALUE=DATE`) is an all-day event whose
//!   `DTEND` is the day after its last; a floating time is the site's.
//! - `SUMMARY`, `DESCRIPTION`, `URL`, `CATEGORIES` (by name, created if new),
//!   `LOCATION` (a venue by that name: an existing identical one is reused),
//!   `ORGANIZER` (`CN`, and the `mailto:` address), `STATUS:CANCELLED`/`TENTATIVE`
//!   (a draft), `CLASS:PRIVATE` (private).
//! - `UID` identifies the event across imports. Recurrence rules are not expanded:
//!   the first occurrence is imported.

use chrono::{Days, NaiveDate, NaiveDateTime};
use icalendar::parser::{Component, Property, read_calendar, unfold};
use serde_json::{Map, Value, json};

/// One event of the file: what identifies it, and its create request.
#[derive(Debug, PartialEq)]
pub struct IcsEvent {
    pub uid: Option<String>,
    pub body: Map<String, Value>,
}

/// Every `VEVENT` of an iCalendar text.
pub fn events_of(text: &str) -> Result<Vec<IcsEvent>, String> {
    let unfolded = unfold(text);
    let calendar = read_calendar(&unfolded)?;
    Ok(calendar
        .components
        .iter()
        .filter(|c| c.name == "VEVENT")
        .map(event_of)
        .collect())
}

fn text(c: &Component<'_>, name: &str) -> Option<String> {
    let p = c.find_prop(name)?;
    let v = p.val.clone().unescape_text();
    Some(v.as_str().to_string()).filter(|s| !s.trim().is_empty())
}

fn param<'a>(p: &'a Property<'_>, key: &str) -> Option<&'a str> {
    p.params
        .iter()
        .find(|x| x.key.as_str().eq_ignore_ascii_case(key))
        .and_then(|x| x.val.as_ref())
        .map(|v| v.as_str().trim_matches('"'))
}

/// A date-time property: (`YYYY-MM-DD[ HH:MM:SS]`, its zone, whether it is a date).
fn when(c: &Component<'_>, name: &str) -> Option<(NaiveDateTime, Option<String>, bool)> {
    let p = c.find_prop(name)?;
    let raw = p.val.as_str().trim();
    if param(p, "VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE")) || raw.len() == 8 {
        let d = NaiveDate::parse_from_str(raw, "%Y%m%d").ok()?;
        return Some((d.and_hms_opt(0, 0, 0)?, None, true));
    }
    let (stamp, utc) = match raw.strip_suffix('Z') {
        Some(s) => (s, true),
        None => (raw, false),
    };
    let t = NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S").ok()?;
    let zone = match utc {
        true => Some("UTC".to_string()),
        false => param(p, "TZID").map(str::to_string),
    };
    Some((t, zone, false))
}

fn event_of(c: &Component<'_>) -> IcsEvent {
    let mut body = Map::new();
    let mut put = |k: &str, v: Value| {
        body.insert(k.to_string(), v);
    };
    if let Some(s) = text(c, "SUMMARY") {
        put("title", s.into());
    }
    if let Some(s) = text(c, "DESCRIPTION") {
        put("description", s.into());
    }
    if let Some(s) = text(c, "URL") {
        put("website", s.into());
    }
    if let Some((start, zone, all_day)) = when(c, "DTSTART") {
        let end = when(c, "DTEND").map_or(start, |(e, _, _)| e);
        let format = |t: NaiveDateTime| t.format("%Y-%m-%d %H:%M:%S").to_string();
        if all_day {
            // DTEND is the day after the last one.
            let last = end
                .checked_sub_days(Days::new(1))
                .filter(|l| *l >= start)
                .unwrap_or(start);
            put("all_day", true.into());
            put("start_date", start.format("%Y-%m-%d").to_string().into());
            put("end_date", last.format("%Y-%m-%d").to_string().into());
        } else {
            put("start_date", format(start).into());
            put("end_date", format(end).into());
        }
        if let Some(z) = zone {
            put("timezone", z.into());
        }
    }
    if let Some(s) = text(c, "LOCATION") {
        put("venue", json!({"venue": s}));
    }
    if let Some(p) = c.find_prop("ORGANIZER") {
        let email = p.val.as_str().strip_prefix("mailto:").unwrap_or("");
        let name = param(p, "CN")
            .map(str::to_string)
            .unwrap_or_else(|| email.to_string());
        if !name.is_empty() {
            let mut o = json!({"organizer": name});
            if !email.is_empty() {
                o["email"] = email.into();
            }
            put("organizer", json!([o]));
        }
    }
    let categories: Vec<Value> = c
        .properties
        .iter()
        .filter(|p| p.name == "CATEGORIES")
        .flat_map(|p| split_list(p.val.as_str()))
        .map(|name| json!({"name": name}))
        .collect();
    if !categories.is_empty() {
        put("categories", categories.into());
    }
    let status = match text(c, "STATUS").as_deref() {
        Some("CANCELLED") | Some("TENTATIVE") => "draft",
        _ if text(c, "CLASS").as_deref() == Some("PRIVATE") => "private",
        _ => "publish",
    };
    put("status", status.into());
    IcsEvent {
        uid: text(c, "UID"),
        body,
    }
}

/// A comma-separated TEXT list, with `\,` kept inside a value.
fn split_list(raw: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = raw.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                if let Some(next) = chars.next() {
                    out.last_mut().expect("one").push(match next {
                        'n' | 'N' => '\n',
                        other => other,
                    });
                }
            }
            ',' => out.push(String::new()),
            other => out.last_mut().expect("one").push(other),
        }
    }
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\
BEGIN:VEVENT\r\nUID:a@x\r\nSUMMARY:Nuit blanche\\, Paris\r\nDTSTART;TZID=Europe/Paris:20270327T230000\r\n\
DTEND;TZID=Europe/Paris:20270328T040000\r\nLOCATION:Hôtel de Ville\r\n\
ORGANIZER;CN=\"Ville de Paris\":mailto:nuit@paris.example\r\nCATEGORIES:Art,Nuit\r\n\
DESCRIPTION:Toute la nuit.\\nGratuit.\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:b@x\r\nSUMMARY:Fair\r\nDTSTART;VALUE=DATE:20270601\r\nDTEND;VALUE=DATE:20270603\r\n\
STATUS:TENTATIVE\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nSUMMARY:Call\r\nDTSTART:20270105T150000Z\r\nDTEND:20270105T160000Z\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

    #[test]
    fn events_map_to_create_requests() {
        let events = events_of(ICS).unwrap();
        assert_eq!(events.len(), 3);
        let night = &events[0];
        assert_eq!(night.uid.as_deref(), Some("a@x"));
        let b = &night.body;
        assert_eq!(b["title"], "Nuit blanche, Paris");
        assert_eq!(b["start_date"], "2027-03-27 23:00:00");
        assert_eq!(b["end_date"], "2027-03-28 04:00:00");
        assert_eq!(b["timezone"], "Europe/Paris");
        assert_eq!(b["venue"], json!({"venue": "Hôtel de Ville"}));
        assert_eq!(
            b["organizer"],
            json!([{"organizer": "Ville de Paris", "email": "nuit@paris.example"}])
        );
        assert_eq!(b["categories"], json!([{"name": "Art"}, {"name": "Nuit"}]));
        assert_eq!(b["description"], "Toute la nuit.\nGratuit.");
        let fair = &events[1].body;
        assert_eq!(fair["all_day"], true);
        assert_eq!(
            (&fair["start_date"], &fair["end_date"]),
            (&json!("2027-06-01"), &json!("2027-06-02"))
        );
        assert_eq!(fair["status"], "draft");
        let call = &events[2];
        assert_eq!(call.uid, None);
        assert_eq!(call.body["timezone"], "UTC");
        assert_eq!(call.body["start_date"], "2027-01-05 15:00:00");
    }

    #[test]
    fn lists_keep_escaped_commas() {
        assert_eq!(split_list(r"Rock\, Pop,Jazz"), ["Rock, Pop", "Jazz"]);
    }
}
