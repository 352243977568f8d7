//! Small values with the reference's wire formats, serialised without building
//! intermediate strings: list responses carry thousands of them.

use std::fmt::{self, Display};

use chrono::{Datelike, NaiveDateTime, Timelike};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Writes `n` zero-padded to `width` digits.
fn pad(out: &mut [u8], mut n: u32, width: usize) {
    for slot in out[..width].iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// `YYYY-MM-DD HH:MM:SS`, the reference's date-time format.
#[derive(Clone, Copy, Debug)]
pub struct WpDate(pub NaiveDateTime);

impl WpDate {
    fn bytes(&self) -> [u8; 19] {
        let d = &self.0;
        let mut b = *b"0000-00-00 00:00:00";
        pad(&mut b[0..], d.year().clamp(0, 9999) as u32, 4);
        pad(&mut b[5..], d.month(), 2);
        pad(&mut b[8..], d.day(), 2);
        pad(&mut b[11..], d.hour(), 2);
        pad(&mut b[14..], d.minute(), 2);
        pad(&mut b[17..], d.second(), 2);
        b
    }
}

impl Display for WpDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The buffer holds ASCII digits and separators only.
        f.write_str(std::str::from_utf8(&self.bytes()).unwrap_or("0000-00-00 00:00:00"))
    }
}

impl Serialize for WpDate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `{year, month, day, hour, minutes, seconds}` as zero-padded strings.
#[derive(Clone, Copy, Debug)]
pub struct DateDetails(pub NaiveDateTime);

impl Serialize for DateDetails {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = WpDate(self.0).bytes();
        let part = |from: usize, to: usize| std::str::from_utf8(&b[from..to]).unwrap_or("00");
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("year", part(0, 4))?;
        m.serialize_entry("month", part(5, 7))?;
        m.serialize_entry("day", part(8, 10))?;
        m.serialize_entry("hour", part(11, 13))?;
        m.serialize_entry("minutes", part(14, 16))?;
        m.serialize_entry("seconds", part(17, 19))?;
        m.end()
    }
}

/// The documented shape of [`DateDetails`].
#[derive(utoipa::ToSchema)]
#[schema(as = DateDetails)]
#[allow(dead_code)]
pub struct DateDetailsSchema {
    year: String,
    month: String,
    day: String,
    hour: String,
    minutes: String,
    seconds: String,
}

/// An integer the reference sends as a string (post authors).
#[derive(Clone, Copy, Debug)]
pub struct IdString(pub i64);

impl Serialize for IdString {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A string, or `[]` where the reference blanks a protected value.
#[derive(Clone, Copy, Debug)]
pub enum TextOrEmpty<'a> {
    Text(&'a str),
    Empty,
}

impl Serialize for TextOrEmpty<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TextOrEmpty::Text(t) => s.serialize_str(t),
            TextOrEmpty::Empty => s.collect_seq(std::iter::empty::<()>()),
        }
    }
}

/// `[]`, a list the reference always sends empty.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmptyList;

impl Serialize for EmptyList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(std::iter::empty::<()>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::urls::GlobalId;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn dates_are_zero_padded() {
        let d = at("2027-01-05 09:03:07");
        assert_eq!(
            serde_json::to_string(&WpDate(d)).unwrap(),
            "\"2027-01-05 09:03:07\""
        );
        assert_eq!(
            serde_json::to_string(&DateDetails(d)).unwrap(),
            r#"{"year":"2027","month":"01","day":"05","hour":"09","minutes":"03","seconds":"07"}"#
        );
    }

    #[test]
    fn ids_and_blanks_have_the_reference_shapes() {
        assert_eq!(serde_json::to_string(&IdString(12)).unwrap(), "\"12\"");
        assert_eq!(
            serde_json::to_string(&GlobalId {
                host: "site.test",
                id: 4
            })
            .unwrap(),
            "\"site.test?id=4\""
        );
        assert_eq!(serde_json::to_string(&TextOrEmpty::Empty).unwrap(), "[]");
        assert_eq!(serde_json::to_string(&EmptyList).unwrap(), "[]");
    }
}
