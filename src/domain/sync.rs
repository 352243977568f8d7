//! Incremental sync's rules, without I/O: where a reader of changes stands (its
//! cursor), which list arguments a sync request may carry, who sees which
//! tombstones, and when a request reaches back past what is still known.
//!
//! Every write of a post or term stamps it with a change position (migration 10);
//! a delete leaves a tombstone under one. Changes are read in (position, ID)
//! order; a cursor is the last pair a reader has seen.

use std::fmt;

use super::args::SyncArgs;
use super::dates::parse_instant;
use super::message::Msg;
use super::post::Visibility;
use super::validation::{Invalid, Problems};

/// The arguments a sync request may carry besides `modified_after` and `cursor`:
/// a mirror holds every item the caller may read, so content filters do not apply.
pub const SYNC_COMPATIBLE: &[&str] = &["per_page", "page", "modified_after", "cursor"];

/// How long tombstones are kept by default, in days.
pub const DEFAULT_RETENTION_DAYS: u32 = 90;

/// How far before a `modified_after` instant the read of changes starts: a
/// PostgreSQL transaction that stamped a row before that instant and commits after
/// it is still found, if it ran for less than this.
pub const START_MARGIN_SECONDS: i64 = 300;

/// A place in the order of changes: the last (position, ID) a reader has seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SyncCursor {
    pub position: i64,
    pub id: i64,
}

impl SyncCursor {
    /// Before every change.
    pub const START: SyncCursor = SyncCursor { position: 0, id: 0 };

    /// After every change at positions before `below`.
    pub fn before(below: i64) -> SyncCursor {
        SyncCursor {
            position: below.saturating_sub(1).max(0),
            id: i64::MAX,
        }
    }

    /// Reads what [`Display`](fmt::Display) prints: `0` (the start), `<position>`
    /// (after every change at that position), or `<position>.<id>`.
    pub fn parse(s: &str) -> Option<SyncCursor> {
        let digits =
            |x: &str| !x.is_empty() && x.len() <= 19 && x.bytes().all(|b| b.is_ascii_digit());
        let Some((p, i)) = s.split_once('.') else {
            if !digits(s) {
                return None;
            }
            let position: i64 = s.parse().ok()?;
            return Some(match position {
                0 => SyncCursor::START,
                _ => SyncCursor {
                    position,
                    id: i64::MAX,
                },
            });
        };
        if !digits(p) || !digits(i) {
            return None;
        }
        Some(SyncCursor {
            position: p.parse().ok()?,
            id: i.parse().ok()?,
        })
    }
}

impl fmt::Display for SyncCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.position, self.id) {
            (0, 0) => write!(f, "0"),
            (p, i64::MAX) if p > 0 => write!(f, "{p}"),
            (p, i) => write!(f, "{p}.{i}"),
        }
    }
}

/// Where a sync request starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncStart {
    /// After this cursor, from a previous answer.
    Cursor(SyncCursor),
    /// Changes at or after this instant (UTC seconds).
    Since(i64),
}

/// What a sync request asks for, read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncQuery {
    pub start: SyncStart,
    pub per_page: u64,
}

/// Whether a list request asks for changes rather than a page of items.
pub fn is_sync(args: &SyncArgs) -> bool {
    args.modified_after.is_some() || args.cursor.is_some()
}

/// Reads a sync request: `given` are the argument names the request carried.
pub fn sync_query(
    args: &SyncArgs,
    given: &[&str],
    zone: chrono_tz::Tz,
    now: i64,
    per_page_max: u64,
    p: &mut Problems,
) -> Option<SyncQuery> {
    for name in given.iter().filter(|n| !SYNC_COMPATIBLE.contains(n)) {
        p.add(Invalid::because(name, "rest_sync_filter", Msg::SyncFilter));
    }
    if args.page != 1 {
        p.add(Invalid::because(
            "page",
            "rest_sync_filter",
            Msg::SyncFilter,
        ));
    }
    let per_page = u64::try_from(args.per_page)
        .unwrap_or(1)
        .clamp(1, per_page_max);
    let start = if let Some(c) = &args.cursor {
        let Some(cursor) = SyncCursor::parse(c.trim()) else {
            p.add(Invalid::because(
                "cursor",
                "rest_invalid_cursor",
                Msg::SyncCursor,
            ));
            return None;
        };
        SyncStart::Cursor(cursor)
    } else {
        let text = args.modified_after.as_deref().unwrap_or_default();
        let now = chrono::DateTime::from_timestamp(now, 0).unwrap_or_default();
        let Some(instant) = parse_instant(text, &zone, now) else {
            p.add(Invalid::param("modified_after"));
            return None;
        };
        SyncStart::Since(instant.timestamp())
    };
    Some(SyncQuery { start, per_page })
}

/// One change as stored: a live row, or a tombstone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeRow {
    pub cursor: SyncCursor,
    /// When it changed (UTC seconds).
    pub changed_utc: i64,
    /// Whether it is a tombstone.
    pub deleted: bool,
}

/// Whose changes a reader may learn of, even as tombstones: nothing of a post it
/// could never read, not even that it existed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    Everything,
    PublicOrAuthor(i64),
    Public,
}

impl From<Visibility> for Audience {
    fn from(v: Visibility) -> Audience {
        match v {
            Visibility::All => Audience::Everything,
            Visibility::PublishedOrOwn(a) => Audience::PublicOrAuthor(a),
            Visibility::Published => Audience::Public,
        }
    }
}

/// How far tombstones have been forgotten.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Tombstones at or below this position are gone.
    pub through_position: i64,
    /// Tombstones of deletes before this instant are gone.
    pub before_utc: i64,
}

impl Forgotten {
    /// Whether a request from `start` could miss a delete that is no longer known.
    /// The start of everything (`cursor=0`) misses nothing a new mirror needs.
    pub fn expired(&self, start: SyncStart) -> bool {
        match start {
            SyncStart::Cursor(c) => c != SyncCursor::START && c.position < self.through_position,
            SyncStart::Since(t) => t < self.before_utc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_read_back_what_they_print() {
        let c = SyncCursor {
            position: 42,
            id: 7,
        };
        assert_eq!(SyncCursor::parse(&c.to_string()), Some(c));
        let after_all = SyncCursor::before(43);
        assert_eq!(after_all.to_string(), "42");
        assert_eq!(SyncCursor::parse("42"), Some(after_all));
        assert_eq!(SyncCursor::parse("0"), Some(SyncCursor::START));
        assert_eq!(SyncCursor::START.to_string(), "0");
        for bad in [
            "",
            "1.",
            ".2",
            "-1.2",
            "-1",
            "1.2.3",
            "a.b",
            "99999999999999999999.1",
        ] {
            assert_eq!(SyncCursor::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_start_before_forgotten_deletes_has_expired() {
        let f = Forgotten {
            through_position: 10,
            before_utc: 1000,
        };
        assert!(f.expired(SyncStart::Cursor(SyncCursor { position: 9, id: 3 })));
        assert!(!f.expired(SyncStart::Cursor(SyncCursor {
            position: 10,
            id: 3
        })));
        assert!(!f.expired(SyncStart::Cursor(SyncCursor::START)));
        assert!(f.expired(SyncStart::Since(999)));
        assert!(!f.expired(SyncStart::Since(1000)));
    }
}
