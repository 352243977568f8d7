//! Date-time input and output.
//!
//! Inputs: `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, RFC 3339 / ISO 8601 with or without
//! an offset, unix timestamps, and simple relative English (`tomorrow 9am`,
//! `+5 days`). Values without an offset are wall time in the given zone.
//! Outputs: `YYYY-MM-DD HH:MM:SS`, as the reference prints them.

use chrono::{DateTime, LocalResult, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

const NAIVE_FORMATS: &[&str] = &[
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M:%S%.f",
];

/// Parses a date-time input into an instant. `zone` interprets values without an offset;
/// `now` anchors relative expressions. `None` means the input is not a date.
pub fn parse_instant(
    input: &str,
    zone: &impl TimeZone,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let s = input.trim();
    if s.is_empty() || s.len() > 100 {
        return None;
    }
    match absolute(s, zone) {
        Some(instant) => instant,
        None => relative(s, zone, now),
    }
    .filter(storable)
}

/// The first and last instants a date can name: years 1 to 9999 in UTC, what
/// `YYYY-MM-DD HH:MM:SS` can write back. Outside them a date is refused, never
/// moved to the nearest one that fits.
pub const EARLIEST: i64 = -62_135_596_800;
pub const LATEST: i64 = 253_402_300_799;

fn storable(instant: &DateTime<Utc>) -> bool {
    (EARLIEST..=LATEST).contains(&instant.timestamp())
}

/// [`parse_instant`] for inputs that name an instant whatever the time is: `None`
/// for relative expressions ("tomorrow", "+1 week") as for non-dates.
pub fn parse_absolute(input: &str, zone: &impl TimeZone) -> Option<DateTime<Utc>> {
    let s = input.trim();
    if s.is_empty() || s.len() > 100 {
        return None;
    }
    absolute(s, zone).flatten().filter(storable)
}

/// `Some` when `s` has an absolute form, holding the instant if there is one
/// (a wall-clock time skipped by a DST change has none).
fn absolute(s: &str, zone: &impl TimeZone) -> Option<Option<DateTime<Utc>>> {
    if let Some(ts) = parse_unix_timestamp(s) {
        return Some(DateTime::from_timestamp(ts, 0));
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(s) {
        return Some(Some(dt.with_timezone(&Utc)));
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%:z",
        "%Y-%m-%d %H:%M:%S%z",
        "%Y-%m-%dT%H:%M:%S%z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(s, fmt) {
            return Some(Some(dt.with_timezone(&Utc)));
        }
    }
    parse_naive(s).map(|naive| resolve_local(zone, naive))
}

fn parse_unix_timestamp(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    // Eight digits would be ambiguous with a compact date; timestamps that short are 1970.
    if digits.len() < 9 || digits.len() > 12 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses a wall-clock date-time without an offset.
pub fn parse_naive(s: &str) -> Option<NaiveDateTime> {
    for fmt in NAIVE_FORMATS {
        if let Ok(dt) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(dt);
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
}

fn relative(s: &str, zone: &impl TimeZone, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let lowered = s.to_ascii_lowercase();
    let text = lowered.trim_start_matches('+').trim();
    let now_local = now.with_timezone(zone);
    let parsed = match text {
        "now" => return Some(now),
        "today" | "midnight" => {
            interim::parse_date_string("today 00:00", now_local, interim::Dialect::Us)
        }
        _ => interim::parse_date_string(text, now_local, interim::Dialect::Us),
    };
    parsed.ok().map(|dt| dt.with_timezone(&Utc))
}

/// Wall time in a zone → instant. Ambiguous times (DST fall-back) take the earlier
/// instant; times in a DST gap move forward by the gap, as PHP does.
pub fn resolve_local(zone: &impl TimeZone, naive: NaiveDateTime) -> Option<DateTime<Utc>> {
    match zone.from_local_datetime(&naive) {
        LocalResult::Single(dt) => Some(dt.with_timezone(&Utc)),
        LocalResult::Ambiguous(early, _) => Some(early.with_timezone(&Utc)),
        LocalResult::None => {
            let shifted = naive + chrono::Duration::hours(1);
            zone.from_local_datetime(&shifted)
                .earliest()
                .map(|dt| dt.with_timezone(&Utc))
        }
    }
}

/// `YYYY-MM-DD HH:MM:SS` of an instant in a zone.
pub fn format_in(ts: i64, zone: &Tz) -> String {
    match DateTime::from_timestamp(ts, 0) {
        Some(dt) => dt
            .with_timezone(zone)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string(),
        None => "0000-00-00 00:00:00".to_string(),
    }
}

/// `YYYY-MM-DD HH:MM:SS` of an instant in UTC.
pub fn format_utc(ts: i64) -> String {
    format_in(ts, &Tz::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 8, 30, 0).unwrap()
    }

    fn parse(s: &str, tz: Tz) -> Option<String> {
        parse_instant(s, &tz, now()).map(|d| d.format("%Y-%m-%d %H:%M:%S").to_string())
    }

    #[test]
    fn wall_time_is_read_in_the_zone() {
        assert_eq!(
            parse("2027-01-05 09:00:00", Tz::UTC).unwrap(),
            "2027-01-05 09:00:00"
        );
        assert_eq!(
            parse("2027-01-05 09:00:00", chrono_tz::America::New_York).unwrap(),
            "2027-01-05 14:00:00"
        );
        assert_eq!(
            parse("2027-07-05", chrono_tz::Europe::Paris).unwrap(),
            "2027-07-04 22:00:00"
        );
    }

    #[test]
    fn offsets_and_timestamps_are_absolute() {
        assert_eq!(
            parse("2027-01-05T09:00:00+02:00", chrono_tz::America::New_York).unwrap(),
            "2027-01-05 07:00:00"
        );
        assert_eq!(parse("1800000000", Tz::UTC).unwrap(), "2027-01-15 08:00:00");
    }

    #[test]
    fn only_inputs_that_ignore_the_clock_are_absolute() {
        let tz = chrono_tz::Europe::Paris;
        for input in [
            "2027-01-05 09:00:00",
            "2027-01-05",
            "2027-01-05T09:00:00+02:00",
            "1800000000",
        ] {
            let absolute = parse_absolute(input, &tz).map(|d| d.timestamp());
            assert!(absolute.is_some(), "{input}");
            assert_eq!(
                absolute,
                parse_instant(input, &tz, now()).map(|d| d.timestamp())
            );
        }
        for input in ["tomorrow 9am", "+1 week", "now", "next friday", "", "soon"] {
            assert_eq!(parse_absolute(input, &tz), None, "{input}");
        }
    }

    #[test]
    fn relative_english_is_anchored_on_now() {
        assert_eq!(
            parse("tomorrow 9am", Tz::UTC).unwrap(),
            "2026-11-23 09:00:00"
        );
        assert_eq!(parse("+5 days", Tz::UTC).unwrap(), "2026-11-27 08:30:00");
        assert_eq!(parse("now", Tz::UTC).unwrap(), "2026-11-22 08:30:00");
    }

    #[test]
    fn dates_outside_years_1_to_9999_are_refused_not_moved() {
        for input in [
            "-0001-01-01",
            "0000-12-31 23:59:59",
            "+10000-01-01",
            "10000-01-01",
            "-99999999999",
            "999999999999",
            "+9000 years",
        ] {
            assert_eq!(parse(input, Tz::UTC), None, "{input}");
        }
        assert_eq!(parse("0001-01-01", Tz::UTC).unwrap(), "0001-01-01 00:00:00");
        assert_eq!(
            parse("9999-12-31 23:59:59", Tz::UTC).unwrap(),
            "9999-12-31 23:59:59"
        );
        assert_eq!(
            parse("9999-12-31 23:00:00", chrono_tz::America::New_York),
            None,
            "past the last instant in UTC"
        );
    }

    #[test]
    fn garbage_is_rejected() {
        assert_eq!(parse("not-a-date", Tz::UTC), None);
        assert_eq!(parse("before my birthday", Tz::UTC), None);
        assert_eq!(parse("", Tz::UTC), None);
    }

    #[test]
    fn dst_gap_moves_forward() {
        // 2027-03-14 02:30 does not exist in New York.
        assert_eq!(
            parse("2027-03-14 02:30:00", chrono_tz::America::New_York).unwrap(),
            "2027-03-14 07:30:00"
        );
    }
}
