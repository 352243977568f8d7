//! The offsets a named zone goes through over a span of time: what an iCalendar
//! `VTIMEZONE` lists, so that a calendar application places every event at the
//! right hour without a time-zone database of its own.

use chrono::{DateTime, Offset, TimeZone};
use chrono_tz::{OffsetComponents, OffsetName, Tz};

/// One observance: from `onset_utc` on, the zone is `offset_after` seconds east of UTC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observance {
    pub onset_utc: i64,
    pub offset_before: i32,
    pub offset_after: i32,
    /// Daylight saving time (a `DAYLIGHT` observance), else standard time.
    pub daylight: bool,
    /// `CET`, `CEST`, or a numeric form (`+03`) for zones without a letter one.
    pub abbreviation: String,
}

/// The zone's state at an instant: its offset and whether it is daylight time.
#[derive(Clone, Copy, PartialEq, Eq)]
struct State {
    offset: i32,
    daylight: bool,
}

const DAY: i64 = 86_400;
/// How far back the onset of the observance in effect at the span's start is looked
/// for: every zone with daylight time changes at least once a year.
const LOOK_BACK: i64 = 400 * DAY;
/// The onset given to an observance with no change in the year before it: zones
/// without daylight time list it once, from a date before any event.
const EARLY_ONSET: i64 = 0;

fn state(tz: Tz, t: i64) -> State {
    let at = DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .naive_utc();
    let offset = tz.offset_from_utc_datetime(&at);
    State {
        offset: offset.fix().local_minus_utc(),
        daylight: !offset.dst_offset().is_zero(),
    }
}

/// `CET`, `CEST`, or the numeric form (`+03`) at an instant.
fn abbreviation(tz: Tz, t: i64) -> String {
    let at = DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .naive_utc();
    let offset = tz.offset_from_utc_datetime(&at);
    offset.abbreviation().unwrap_or_default().to_string()
}

fn observance(tz: Tz, onset: i64) -> Observance {
    let (before, after) = (state(tz, onset - 1), state(tz, onset));
    Observance {
        onset_utc: onset,
        offset_before: before.offset,
        offset_after: after.offset,
        daylight: after.daylight,
        abbreviation: abbreviation(tz, onset),
    }
}

/// The first second in `(from, to]` at which the state differs from the one at
/// `from`, given that it differs at `to`.
fn first_change(tz: Tz, from: i64, to: i64) -> i64 {
    let before = state(tz, from);
    let (mut lo, mut hi) = (from, to);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if state(tz, mid) == before {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Every change in `(from, to]`, scanning a day at a time: zones change at most
/// once in a day.
fn changes(tz: Tz, from: i64, to: i64) -> Vec<i64> {
    let mut found = Vec::new();
    let mut t = from;
    while t < to {
        let next = (t + DAY).min(to);
        if state(tz, next) != state(tz, t) {
            let change = first_change(tz, t, next);
            found.push(change);
            t = change;
        } else {
            t = next;
        }
    }
    found
}

/// The observances that cover `[from, to]`: the one in effect at `from` (with its
/// real onset when that is within a year), then one for every change up to `to`.
pub fn observances(tz: Tz, from: i64, to: i64) -> Vec<Observance> {
    let to = to.max(from);
    let first = match changes(tz, from - LOOK_BACK, from).last() {
        Some(&onset) => observance(tz, onset),
        None => {
            let now = state(tz, from);
            Observance {
                onset_utc: EARLY_ONSET.min(from),
                offset_before: now.offset,
                offset_after: now.offset,
                daylight: now.daylight,
                abbreviation: abbreviation(tz, from),
            }
        }
    };
    let mut all = vec![first];
    all.extend(changes(tz, from, to).into_iter().map(|t| observance(tz, t)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> i64 {
        chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
            .unwrap()
            .and_utc()
            .timestamp()
    }

    #[test]
    fn paris_over_a_year_has_its_two_changes_at_one_in_the_morning_utc() {
        let from = utc("2027-01-10 00:00:00");
        let to = utc("2027-12-20 00:00:00");
        let all = observances(chrono_tz::Europe::Paris, from, to);
        assert_eq!(all.len(), 3, "{all:?}");
        // In effect on 10 January: winter time, since the last Sunday of October 2026.
        assert_eq!(all[0].onset_utc, utc("2026-10-25 01:00:00"));
        assert_eq!((all[0].offset_before, all[0].offset_after), (7200, 3600));
        assert!(!all[0].daylight);
        assert_eq!(all[0].abbreviation, "CET");
        assert_eq!(all[1].onset_utc, utc("2027-03-28 01:00:00"));
        assert_eq!((all[1].offset_before, all[1].offset_after), (3600, 7200));
        assert!(all[1].daylight);
        assert_eq!(all[1].abbreviation, "CEST");
        assert_eq!(all[2].onset_utc, utc("2027-10-31 01:00:00"));
        assert!(!all[2].daylight);
    }

    #[test]
    fn a_zone_without_daylight_time_has_one_observance() {
        let from = utc("2027-01-10 00:00:00");
        let all = observances(chrono_tz::Asia::Tokyo, from, from + 300 * DAY);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].onset_utc, 0);
        assert_eq!((all[0].offset_before, all[0].offset_after), (32400, 32400));
        assert_eq!(all[0].abbreviation, "JST");
    }

    #[test]
    fn new_york_changes_at_two_in_the_morning_local() {
        let from = utc("2027-03-01 00:00:00");
        let all = observances(chrono_tz::America::New_York, from, from + 30 * DAY);
        assert_eq!(all.len(), 2);
        // 2027-03-14 02:00 EST = 07:00 UTC.
        assert_eq!(all[1].onset_utc, utc("2027-03-14 07:00:00"));
        assert_eq!(all[1].abbreviation, "EDT");
    }
}
