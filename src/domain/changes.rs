//! What a write changed, and what a cached answer was computed from: a write drops
//! only the cached answers it can change.
//!
//! A write that does not say what it changed has changed anything. Event writes
//! say which events they wrote, the terms whose counts may have moved (term lists
//! are ordered and filtered by them; inside other answers the cache fills counts
//! in as it serves them), and the spans the events had and have, which decide
//! whether a list could show them. An answer that does not say what it read has
//! read everything.

use serde::{Deserialize, Serialize};

/// What one or more committed writes may have changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// Anything may have changed: no cached answer survives.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anything: bool,
    /// Events created, updated, trashed or deleted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<i64>,
    /// Terms whose events, and so whose counts, may have changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<i64>,
    /// The (start, end) UTC instants the written events had before and have after.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<(i64, i64)>,
}

/// Past this many items, a set of changes is kept as "anything": checking every
/// cached answer against it would cost more than computing them again.
const MAX_ITEMS: usize = 4096;

impl Changes {
    pub fn anything() -> Changes {
        Changes {
            anything: true,
            ..Changes::default()
        }
    }

    /// Writes of events: these IDs, their terms before and after, their spans
    /// before and after.
    pub fn events(
        events: impl IntoIterator<Item = i64>,
        terms: impl IntoIterator<Item = i64>,
        spans: impl IntoIterator<Item = (i64, i64)>,
    ) -> Changes {
        let mut c = Changes {
            anything: false,
            events: events.into_iter().collect(),
            terms: terms.into_iter().collect(),
            spans: spans.into_iter().collect(),
        };
        c.tidy();
        c
    }

    /// Nothing any answer is computed from: the write keeps every cached answer.
    pub fn nothing() -> Changes {
        Changes::default()
    }

    /// These changes and `other`'s.
    pub fn merge(&mut self, other: Changes) {
        if self.anything || other.anything {
            *self = Changes::anything();
            return;
        }
        self.events.extend(other.events);
        self.terms.extend(other.terms);
        self.spans.extend(other.spans);
        self.tidy();
    }

    fn tidy(&mut self) {
        for list in [&mut self.events, &mut self.terms] {
            list.sort_unstable();
            list.dedup();
        }
        self.spans.sort_unstable();
        self.spans.dedup();
        if self.events.len() + self.terms.len() + self.spans.len() > MAX_ITEMS {
            *self = Changes::anything();
        }
    }

    pub fn is_nothing(&self) -> bool {
        !self.anything && self.events.is_empty() && self.terms.is_empty() && self.spans.is_empty()
    }
}

/// The events an event list can show: those starting and ending within these
/// inclusive bounds (UTC instants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: (i64, i64),
    pub end: (i64, i64),
}

impl Window {
    pub const ALL: Window = Window {
        start: (i64::MIN, i64::MAX),
        end: (i64::MIN, i64::MAX),
    };

    /// Whether an event with this span is within it.
    pub fn holds(&self, (start, end): (i64, i64)) -> bool {
        (self.start.0..=self.start.1).contains(&start) && (self.end.0..=self.end.1).contains(&end)
    }
}

/// What a cached answer was computed from, as far as event writes go (any other
/// write drops it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Events it shows.
    pub events: Vec<i64>,
    /// It lists terms, in an order or a choice that their counts decide.
    pub every_term: bool,
    /// It lists events: any event within this window may enter or leave it.
    pub window: Option<Window>,
    /// It depends on which events exist at all (venues or organizers with events).
    pub every_event: bool,
}

impl Reads {
    /// Whether `changes` can change the answer.
    pub fn changed_by(&self, changes: &Changes) -> bool {
        if changes.anything || self.every_event && !changes.events.is_empty() {
            return true;
        }
        if self.every_term && !changes.terms.is_empty() {
            return true;
        }
        if changes.events.iter().any(|e| self.events.contains(e)) {
            return true;
        }
        self.window
            .is_some_and(|w| changes.spans.iter().any(|&span| w.holds(span)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn june_2030() -> Window {
        // 2030-06-01 to 2030-06-30, both ends.
        Window {
            start: (1_906_502_400, 1_909_094_399),
            end: (1_906_502_400, i64::MAX),
        }
    }

    #[test]
    fn an_event_write_reaches_what_shows_the_event_or_could_list_it() {
        let write = Changes::events([7], [3, 4], [(1_907_000_000, 1_907_003_600)]);
        let by_id = |id| Reads {
            events: vec![id],
            ..Reads::default()
        };
        assert!(by_id(7).changed_by(&write));
        assert!(!by_id(8).changed_by(&write));
        let list = |window| Reads {
            window: Some(window),
            ..Reads::default()
        };
        assert!(list(june_2030()).changed_by(&write));
        let july = Window {
            start: (1_909_094_400, 1_911_772_799),
            end: (i64::MIN, i64::MAX),
        };
        assert!(!list(july).changed_by(&write));
        let venues_with_events = Reads {
            every_event: true,
            ..Reads::default()
        };
        assert!(venues_with_events.changed_by(&write));
        let terms = Reads {
            every_term: true,
            ..Reads::default()
        };
        assert!(terms.changed_by(&write));
        assert!(!terms.changed_by(&Changes::events([7], [], [])));
        let a_venue = Reads::default();
        assert!(!a_venue.changed_by(&write));
        assert!(a_venue.changed_by(&Changes::anything()));
    }

    #[test]
    fn a_write_that_moves_an_event_reaches_both_windows() {
        let moved = Changes::events([7], [], [(1_907_000_000, 1_907_000_001), (0, 1)]);
        let early = Window {
            start: (0, 10),
            end: (0, 10),
        };
        assert!(
            Reads {
                window: Some(early),
                ..Reads::default()
            }
            .changed_by(&moved)
        );
        assert!(
            Reads {
                window: Some(june_2030()),
                ..Reads::default()
            }
            .changed_by(&moved)
        );
    }

    #[test]
    fn merged_changes_keep_every_item_once_and_anything_wins() {
        let mut c = Changes::events([2, 1], [5], [(1, 2)]);
        c.merge(Changes::events([1, 3], [5, 6], [(1, 2)]));
        assert_eq!(c, Changes::events([1, 2, 3], [5, 6], [(1, 2)]));
        c.merge(Changes::anything());
        assert!(c.anything && c.events.is_empty());
        let many = Changes::events(0..5000, [], []);
        assert!(
            many.anything,
            "too many items to check are kept as anything"
        );
        assert!(Changes::nothing().is_nothing());
    }

    #[test]
    fn changes_travel_as_compact_json() {
        let c = Changes::events([1], [2], [(3, 4)]);
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(text, r#"{"events":[1],"terms":[2],"spans":[[3,4]]}"#);
        assert_eq!(serde_json::from_str::<Changes>(&text).unwrap(), c);
        let anything = serde_json::to_string(&Changes::anything()).unwrap();
        assert_eq!(anything, r#"{"anything":true}"#);
    }
}
