//! Dates as a visitor reads them, in the page's language: month and weekday names
//! from a small table (four languages do not justify a locale-data crate), and the
//! order each language writes a date in.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};

use crate::domain::timezone::EventZone;

const MONTHS: &[(&str, [&str; 12])] = &[
    (
        "en",
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
    ),
    (
        "fr",
        [
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ],
    ),
    (
        "de",
        [
            "Januar",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ],
    ),
    (
        "es",
        [
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ],
    ),
];

/// Monday first, as the grid's columns.
const WEEKDAYS: &[(&str, [&str; 7])] = &[
    (
        "en",
        [
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
            "Sunday",
        ],
    ),
    (
        "fr",
        [
            "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
        ],
    ),
    (
        "de",
        [
            "Montag",
            "Dienstag",
            "Mittwoch",
            "Donnerstag",
            "Freitag",
            "Samstag",
            "Sonntag",
        ],
    ),
    (
        "es",
        [
            "lunes",
            "martes",
            "miércoles",
            "jueves",
            "viernes",
            "sábado",
            "domingo",
        ],
    ),
];

fn table<'a, const N: usize>(t: &'a [(&str, [&'a str; N])], lang: &str) -> &'a [&'a str; N] {
    t.iter()
        .find(|(l, _)| *l == lang)
        .map_or(&t[0].1, |(_, names)| names)
}

pub fn month_name(lang: &str, month: u32) -> &'static str {
    table(MONTHS, lang)[(month as usize + 11) % 12]
}

/// Monday is 0.
pub fn weekday_name(lang: &str, weekday: usize) -> &'static str {
    table(WEEKDAYS, lang)[weekday % 7]
}

/// "March 2027", "mars 2027".
pub fn month_year(lang: &str, d: NaiveDate) -> String {
    format!("{} {}", month_name(lang, d.month()), d.year())
}

/// "Friday, March 5, 2027", "vendredi 5 mars 2027", "Freitag, 5. März 2027".
pub fn long_date(lang: &str, d: NaiveDate) -> String {
    let (day, month, year) = (d.day(), month_name(lang, d.month()), d.year());
    let weekday = weekday_name(lang, d.weekday().num_days_from_monday() as usize);
    match lang {
        "fr" => format!("{weekday} {day} {month} {year}"),
        "de" => format!("{weekday}, {day}. {month} {year}"),
        "es" => format!("{weekday}, {day} de {month} de {year}"),
        _ => format!("{weekday}, {month} {day}, {year}"),
    }
}

/// A wall-clock time: 12-hour in English, 24-hour elsewhere.
pub fn time(lang: &str, t: NaiveDateTime) -> String {
    match lang {
        "en" => {
            let (pm, hour) = t.hour12();
            format!("{hour}:{:02} {}", t.minute(), if pm { "pm" } else { "am" })
        }
        _ => format!("{:02}:{:02}", t.hour(), t.minute()),
    }
}

/// `2027-03-05T19:00:00+01:00`: a `<time datetime>` value.
pub fn iso(zone: &EventZone, ts: i64) -> String {
    let offset = zone.offset_seconds_at(ts);
    let wall = zone.local(ts).format("%Y-%m-%dT%H:%M:%S");
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.abs();
    format!("{wall}{sign}{:02}:{:02}", abs / 3600, (abs % 3600) / 60)
}

/// The local days an event covers: its end is exclusive to the second, so an
/// event that ends at midnight does not spill onto the next day.
pub fn days_covered(zone: &EventZone, start: i64, end: i64) -> (NaiveDate, NaiveDate) {
    let first = zone.local(start).date();
    let last = zone.local(end.saturating_sub(1).max(start)).date();
    (first, last.max(first))
}

pub fn parse_day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// `2027-03` (or a day in that month).
pub fn parse_month(s: &str) -> Option<NaiveDate> {
    parse_day(s)
        .or_else(|| parse_day(&format!("{s}-01")))
        .and_then(|d| d.with_day(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_in_each_language() {
        let d = parse_day("2027-03-05").unwrap();
        assert_eq!(long_date("en", d), "Friday, March 5, 2027");
        assert_eq!(long_date("fr", d), "vendredi 5 mars 2027");
        assert_eq!(long_date("de", d), "Freitag, 5. März 2027");
        assert_eq!(month_year("es", d), "marzo 2027");
    }

    #[test]
    fn an_event_ending_at_midnight_covers_only_its_day() {
        let zone = EventZone::Named(chrono_tz::Tz::UTC);
        let start = 1_804_204_800; // 2027-03-05 00:00 UTC
        let (first, last) = days_covered(&zone, start, start + 86_400);
        assert_eq!((first, last), (parse_day("2027-03-05").unwrap(), first));
    }
}
