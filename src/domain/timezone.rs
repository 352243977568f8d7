//! An event's time zone: an IANA zone, or a WordPress-style manual offset ("UTC+2").

use std::str::FromStr;

use chrono::{DateTime, Duration, FixedOffset, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

/// Manual offsets beyond this are not real-world zones (the extremes are −12 and +14).
const MAX_OFFSET_SECONDS: i32 = 14 * 3600;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventZone {
    Named(Tz),
    /// `label` is the normalised manual offset, e.g. `"UTC+2"`, `"UTC-3:30"`.
    Fixed {
        offset_seconds: i32,
        label: String,
    },
}

/// Accepts IANA names (any letter case), `UTC`, and manual offsets `UTC+2`, `UTC-5`,
/// `UTC+5:30`, `UTC+5.5`, `UTC+0` within ±14 hours.
pub fn parse_zone(s: &str) -> Option<EventZone> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if let Some(zone) = parse_manual_offset(s) {
        return Some(zone);
    }
    named_zone(s).map(EventZone::Named)
}

fn named_zone(s: &str) -> Option<Tz> {
    if let Ok(tz) = Tz::from_str(s) {
        return Some(tz);
    }
    // chrono-tz's own case-insensitive lookup needs a build-time feature; a scan of the
    // ~600 names is cheap and only runs for oddly cased input.
    chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(s))
        .copied()
}

fn parse_manual_offset(s: &str) -> Option<EventZone> {
    let head = s.get(..3)?;
    if !head.eq_ignore_ascii_case("UTC") {
        return None;
    }
    let rest = &s[3..];
    let sign = match rest.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let body = &rest[1..];
    let (hours, minutes) = if let Some((h, m)) = body.split_once(':') {
        if m.len() != 2 {
            return None;
        }
        (digits(h)?, digits(m)?)
    } else if let Some((h, frac)) = body.split_once('.') {
        // WordPress offers fractional hours (5.5, 5.75, 12.75); they must be whole minutes.
        let frac_value = digits(frac)?;
        let scale = 10u32.checked_pow(u32::try_from(frac.len()).ok()?)?;
        if (frac_value * 60) % scale != 0 {
            return None;
        }
        (digits(h)?, frac_value * 60 / scale)
    } else {
        (digits(body)?, 0)
    };
    if minutes >= 60 {
        return None;
    }
    let magnitude = i32::try_from(hours * 3600 + minutes * 60).ok()?;
    if magnitude > MAX_OFFSET_SECONDS {
        return None;
    }
    let offset_seconds = sign * magnitude;
    Some(EventZone::Fixed {
        offset_seconds,
        label: offset_label(offset_seconds),
    })
}

/// 1–2 ASCII digits; no signs, spaces or empty strings.
fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// WordPress's spelling of a manual offset: `UTC+2`, `UTC-3:30`, `UTC+0`.
fn offset_label(offset_seconds: i32) -> String {
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let magnitude = offset_seconds.unsigned_abs();
    let (hours, minutes) = (magnitude / 3600, magnitude % 3600 / 60);
    if minutes == 0 {
        format!("UTC{sign}{hours}")
    } else {
        format!("UTC{sign}{hours}:{minutes:02}")
    }
}

impl EventZone {
    /// The value reported as the event's `timezone`.
    pub fn name(&self) -> String {
        match self {
            EventZone::Named(tz) => tz.name().to_string(),
            EventZone::Fixed { label, .. } => label.clone(),
        }
    }

    /// The `timezone_abbr` in effect at an instant: "EST"/"EDT", "CET"/"CEST", "UTC";
    /// zones without a letter abbreviation give their numeric one ("+03"); manual offsets
    /// give their label.
    pub fn abbreviation_at(&self, utc_ts: i64) -> String {
        match self {
            EventZone::Named(tz) => tz.offset_from_utc_datetime(&utc_naive(utc_ts)).to_string(),
            EventZone::Fixed { label, .. } => label.clone(),
        }
    }

    /// Seconds east of UTC at an instant.
    pub fn offset_seconds_at(&self, utc_ts: i64) -> i32 {
        match self {
            EventZone::Named(tz) => tz
                .offset_from_utc_datetime(&utc_naive(utc_ts))
                .fix()
                .local_minus_utc(),
            EventZone::Fixed { offset_seconds, .. } => *offset_seconds,
        }
    }

    /// Wall time → instant. An ambiguous wall time (clocks going back) takes the earlier
    /// instant; one inside a gap (clocks going forward) moves forward by the gap, as PHP
    /// does: 02:30 on a New York spring-forward day is 03:30 EDT.
    pub fn to_utc(&self, naive: NaiveDateTime) -> Option<DateTime<Utc>> {
        match self {
            EventZone::Named(tz) => resolve(tz, naive),
            EventZone::Fixed { offset_seconds, .. } => {
                resolve(&FixedOffset::east_opt(*offset_seconds)?, naive)
            }
        }
    }

    /// Instant → wall time in this zone.
    pub fn local(&self, utc_ts: i64) -> NaiveDateTime {
        utc_naive(utc_ts) + Duration::seconds(i64::from(self.offset_seconds_at(utc_ts)))
    }
}

fn resolve<Z: TimeZone>(zone: &Z, naive: NaiveDateTime) -> Option<DateTime<Utc>> {
    match zone.from_local_datetime(&naive) {
        LocalResult::Single(dt) => Some(dt.with_timezone(&Utc)),
        LocalResult::Ambiguous(earlier, _) => Some(earlier.with_timezone(&Utc)),
        LocalResult::None => {
            // Read the wall time with the offset in force before the gap; a day back is
            // safely before it (no zone has two transitions a day apart).
            let before = zone
                .offset_from_utc_datetime(&(naive - Duration::days(1)))
                .fix();
            let instant =
                naive.checked_sub_signed(Duration::seconds(i64::from(before.local_minus_utc())))?;
            Some(Utc.from_utc_datetime(&instant))
        }
    }
}

fn utc_naive(utc_ts: i64) -> NaiveDateTime {
    DateTime::from_timestamp(utc_ts, 0)
        .unwrap_or_default()
        .naive_utc()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    fn ts(utc: &str) -> i64 {
        naive(utc).and_utc().timestamp()
    }

    fn zone(s: &str) -> EventZone {
        parse_zone(s).unwrap_or_else(|| panic!("{s} should parse"))
    }

    fn utc_of(z: &str, local: &str) -> String {
        zone(z)
            .to_utc(naive(local))
            .unwrap()
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    }

    fn fixed(offset_seconds: i32, label: &str) -> EventZone {
        EventZone::Fixed {
            offset_seconds,
            label: label.to_string(),
        }
    }

    #[test]
    fn iana_names_parse_with_canonical_spelling() {
        assert_eq!(
            zone("America/New_York"),
            EventZone::Named(Tz::America__New_York)
        );
        assert_eq!(zone("america/new_york").name(), "America/New_York");
        assert_eq!(zone("EUROPE/PARIS").name(), "Europe/Paris");
        assert_eq!(zone(" Asia/Kolkata ").name(), "Asia/Kolkata");
    }

    #[test]
    fn utc_is_a_named_zone() {
        assert_eq!(zone("UTC"), EventZone::Named(Tz::UTC));
        assert_eq!(zone("utc").name(), "UTC");
        assert_eq!(zone("UTC").abbreviation_at(0), "UTC");
        assert_eq!(zone("Etc/UTC").abbreviation_at(0), "UTC");
    }

    #[test]
    fn manual_offsets_parse_and_normalise() {
        assert_eq!(zone("UTC+2"), fixed(7200, "UTC+2"));
        assert_eq!(zone("UTC-5"), fixed(-18000, "UTC-5"));
        assert_eq!(zone("UTC+5:30"), fixed(19800, "UTC+5:30"));
        assert_eq!(zone("UTC+5.5"), fixed(19800, "UTC+5:30"));
        assert_eq!(zone("UTC+5.75"), fixed(20700, "UTC+5:45"));
        assert_eq!(zone("UTC-9.5"), fixed(-34200, "UTC-9:30"));
        assert_eq!(zone("UTC+0"), fixed(0, "UTC+0"));
        assert_eq!(zone("UTC-0"), fixed(0, "UTC+0"));
        assert_eq!(zone("UTC+05:00"), fixed(18000, "UTC+5"));
        assert_eq!(zone("utc+2"), fixed(7200, "UTC+2"));
        assert_eq!(zone("UTC+14"), fixed(50400, "UTC+14"));
        assert_eq!(zone("UTC-12"), fixed(-43200, "UTC-12"));
    }

    #[test]
    fn invalid_zones_are_rejected() {
        let bad = "|  |Mars/Olympus|UTC+15|UTC-14:30|UTC+14.5|UTC+5:60|UTC+5:3|UTC+|UTC+a|UTC 2|\
                   UTC+2:|UTC+.5|UTC+5.33|UTC++2|UTC+123|+02:00";
        for bad in bad.split('|') {
            assert_eq!(parse_zone(bad), None, "{bad:?}");
        }
    }

    fn abbr(z: &str, utc: &str) -> String {
        zone(z).abbreviation_at(ts(utc))
    }

    #[test]
    fn abbreviations_follow_dst() {
        assert_eq!(abbr("America/New_York", "2027-01-05 14:00:00"), "EST");
        assert_eq!(abbr("America/New_York", "2027-07-05 14:00:00"), "EDT");
        assert_eq!(abbr("Europe/Paris", "2027-01-05 12:00:00"), "CET");
        assert_eq!(abbr("Europe/Paris", "2027-07-05 12:00:00"), "CEST");
    }

    #[test]
    fn numeric_abbreviations_are_passed_through() {
        assert_eq!(abbr("Europe/Istanbul", "2027-01-05 12:00:00"), "+03");
        assert_eq!(abbr("Asia/Kathmandu", "2027-01-05 12:00:00"), "+0545");
    }

    #[test]
    fn fixed_offset_abbreviation_is_its_label() {
        assert_eq!(zone("UTC+5.5").abbreviation_at(0), "UTC+5:30");
        assert_eq!(zone("UTC-5").abbreviation_at(0), "UTC-5");
    }

    #[test]
    fn west_of_utc_converts_both_ways() {
        assert_eq!(
            utc_of("America/New_York", "2027-01-05 09:00:00"),
            "2027-01-05 14:00:00"
        );
        assert_eq!(
            utc_of("America/New_York", "2027-07-05 09:00:00"),
            "2027-07-05 13:00:00"
        );
        let ny = zone("America/New_York");
        assert_eq!(
            ny.local(ts("2027-01-05 14:00:00")),
            naive("2027-01-05 09:00:00")
        );
        assert_eq!(ny.offset_seconds_at(ts("2027-07-05 13:00:00")), -4 * 3600);
    }

    #[test]
    fn east_of_utc_converts_both_ways() {
        assert_eq!(
            utc_of("Asia/Tokyo", "2027-01-05 09:00:00"),
            "2027-01-05 00:00:00"
        );
        assert_eq!(
            utc_of("Asia/Kolkata", "2027-01-05 00:00:00"),
            "2027-01-04 18:30:00"
        );
        let tokyo = zone("Asia/Tokyo");
        assert_eq!(
            tokyo.local(ts("2027-01-05 20:00:00")),
            naive("2027-01-06 05:00:00")
        );
    }

    #[test]
    fn new_york_spring_forward_gap_moves_forward() {
        // 2027-03-14: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist.
        assert_eq!(
            utc_of("America/New_York", "2027-03-14 02:30:00"),
            "2027-03-14 07:30:00"
        );
        let ny = zone("America/New_York");
        let instant = ny.to_utc(naive("2027-03-14 02:30:00")).unwrap().timestamp();
        assert_eq!(ny.local(instant), naive("2027-03-14 03:30:00"));
        assert_eq!(ny.abbreviation_at(instant), "EDT");
        assert_eq!(
            utc_of("America/New_York", "2027-03-14 01:59:59"),
            "2027-03-14 06:59:59"
        );
        assert_eq!(
            utc_of("America/New_York", "2027-03-14 03:00:00"),
            "2027-03-14 07:00:00"
        );
    }

    #[test]
    fn new_york_fall_back_ambiguity_takes_the_earlier_instant() {
        // 2027-11-07: 01:00–02:00 happens twice; the first one is EDT.
        assert_eq!(
            utc_of("America/New_York", "2027-11-07 01:30:00"),
            "2027-11-07 05:30:00"
        );
        let ny = zone("America/New_York");
        assert_eq!(ny.abbreviation_at(ts("2027-11-07 05:30:00")), "EDT");
        assert_eq!(ny.abbreviation_at(ts("2027-11-07 06:30:00")), "EST");
        assert_eq!(
            ny.local(ts("2027-11-07 06:30:00")),
            naive("2027-11-07 01:30:00")
        );
    }

    #[test]
    fn paris_transitions() {
        // 2027-03-28: 02:00 CET jumps to 03:00 CEST.
        assert_eq!(
            utc_of("Europe/Paris", "2027-03-28 02:15:00"),
            "2027-03-28 01:15:00"
        );
        assert_eq!(
            zone("Europe/Paris").local(ts("2027-03-28 01:15:00")),
            naive("2027-03-28 03:15:00")
        );
        // 2027-10-31: 02:00–03:00 happens twice; the earlier is CEST (UTC+2).
        assert_eq!(
            utc_of("Europe/Paris", "2027-10-31 02:30:00"),
            "2027-10-31 00:30:00"
        );
    }

    #[test]
    fn half_hour_gap_moves_by_half_an_hour() {
        // Lord Howe Island springs forward by 30 minutes: 02:00 → 02:30 (UTC+10:30 → +11).
        assert_eq!(
            utc_of("Australia/Lord_Howe", "2027-10-03 02:15:00"),
            "2027-10-02 15:45:00"
        );
        let lh = zone("Australia/Lord_Howe");
        let instant = lh.to_utc(naive("2027-10-03 02:15:00")).unwrap().timestamp();
        assert_eq!(lh.local(instant), naive("2027-10-03 02:45:00"));
    }

    #[test]
    fn fixed_offsets_convert_both_ways() {
        assert_eq!(
            utc_of("UTC+2", "2027-01-05 09:00:00"),
            "2027-01-05 07:00:00"
        );
        assert_eq!(
            utc_of("UTC-5", "2027-01-05 21:00:00"),
            "2027-01-06 02:00:00"
        );
        assert_eq!(
            utc_of("UTC+5:30", "2027-01-05 00:00:00"),
            "2027-01-04 18:30:00"
        );
        let z = zone("UTC-3:30");
        assert_eq!(
            z.local(ts("2027-01-05 00:00:00")),
            naive("2027-01-04 20:30:00")
        );
        assert_eq!(z.offset_seconds_at(0), -12600);
        assert_eq!(z.name(), "UTC-3:30");
    }

    #[test]
    fn utc_round_trips() {
        let utc = zone("UTC");
        assert_eq!(utc_of("UTC", "2027-01-05 09:00:00"), "2027-01-05 09:00:00");
        assert_eq!(
            utc.local(ts("2027-01-05 09:00:00")),
            naive("2027-01-05 09:00:00")
        );
    }
}
