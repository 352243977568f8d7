//! Lists whose writes move only their total: a page of the events every visitor
//! sees in a window, full and followed by more, keeps its events when the events
//! written enter or leave the list after it — as most new events do the default
//! list's first page, which shows the next few of a year's events.
//!
//! Three things make that exact. The list holds nothing but the window's public
//! events (no filter the written state cannot decide). Each written state says
//! whether it is public and which event it is ([`Listed`]), so its place in the
//! list's order (start, then ID) is known. And each says which write made it (its
//! stamp), while the total says which writes it counted ([`Seen`]): a write the
//! count already saw moves nothing, whatever data version the answer is filed
//! under — a count may see writes whose versions are announced only after it. Anything
//! less and the answer is computed again, as any other list's.

use serde::{Deserialize, Serialize};

use super::EventState;

/// Where a written event stands in the lists every visitor sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Listed {
    pub id: i64,
    /// Every visitor's lists hold it: published, and not hidden from listings.
    pub public: bool,
    /// The state the write left it in; else the one it found.
    pub after: bool,
    /// The write that made it, once committed (see [`Seen`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<u64>,
}

/// The writes a count saw, by their stamps: on PostgreSQL its snapshot
/// (`xmin:xmax:xip,…`, of the writes' transaction IDs), on SQLite the number of
/// the last commit its snapshot holds (`calendar_version`: every commit up to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Every write below it…
    below: u64,
    /// …and those below this one, but for these, still running then.
    upto: u64,
    running: Vec<u64>,
}

impl Seen {
    fn heap_bytes(&self) -> usize {
        self.running.capacity() * size_of::<u64>()
    }

    /// From PostgreSQL's `pg_current_snapshot()` or SQLite's commit number, as text.
    pub fn parse(text: &str) -> Option<Seen> {
        let mut parts = text.split(':');
        let number = |t: &str| t.trim().parse::<u64>().ok();
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(version), None, None, None) => {
                let below = number(version)?.checked_add(1)?;
                Some(Seen {
                    below,
                    upto: below,
                    running: Vec::new(),
                })
            }
            (Some(xmin), Some(xmax), Some(running), None) => Some(Seen {
                below: number(xmin)?,
                upto: number(xmax)?,
                running: running
                    .split(',')
                    .filter(|t| !t.is_empty())
                    .map(number)
                    .collect::<Option<_>>()?,
            }),
            _ => None,
        }
    }

    /// Whether the write of this stamp, committed, was counted.
    pub fn holds(&self, stamp: u64) -> bool {
        stamp < self.below || (stamp < self.upto && !self.running.contains(&stamp))
    }
}

/// Whether an event is in the lists every visitor sees, by its status and its
/// hide-from-listings flag: `None` for a scheduled one, which enters them by the
/// clock.
pub fn public_by_status(status: &str, hidden: bool) -> Option<bool> {
    use crate::domain::post::Status;
    match Status::parse(status) {
        Some(Status::Publish) => Some(!hidden),
        Some(Status::Future) | None => None,
        Some(_) => Some(false),
    }
}

impl EventState {
    /// Saying where event `id` stands in every visitor's lists (`public`; `None`:
    /// unknown), before the write or after it.
    pub fn listed(mut self, id: i64, public: Option<bool>, after: bool) -> EventState {
        self.listed = public.map(|public| Listed {
            id,
            public,
            after,
            stamp: None,
        });
        self
    }
}

/// A full page of a list of exactly the events every visitor's lists hold in its
/// window, with more after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The (start, ID) of its last event: the list is in that order.
    pub last: (i64, i64),
    pub per_page: u64,
    /// The events up to the end of the page (page × per_page): the list must hold
    /// more for the page to keep its link to the next.
    pub through: u64,
    /// The writes its total counted.
    pub seen: Seen,
}

/// What a set of writes does to a cached answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Unchanged,
    /// Its list gained (or lost) this many events after its page, and nothing else.
    Total(i64),
    Changed,
}

/// A list's totals, as its body and headers show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Totals {
    pub total: u64,
    pub total_pages: u64,
}

impl Tally {
    pub fn heap_bytes(&self) -> usize {
        self.seen.heap_bytes()
    }

    /// What written states the list's window holds do to its page.
    pub(super) fn effect<'a>(&self, reached: impl Iterator<Item = &'a EventState>) -> Effect {
        let mut moved: i64 = 0;
        for state in reached {
            let Some(l) = state.listed else {
                return Effect::Changed;
            };
            if !l.public {
                continue;
            }
            match l.stamp {
                Some(stamp) if (state.span.0, l.id) > self.last => {
                    if !self.seen.holds(stamp) {
                        moved += if l.after { 1 } else { -1 };
                    }
                }
                _ => return Effect::Changed,
            }
        }
        if moved == 0 {
            Effect::Unchanged
        } else {
            Effect::Total(moved)
        }
    }

    /// The totals after `moved` events entered (or left) the list, where `total`
    /// is the list's total now; `None` when the page would lose its next page.
    pub fn moved(&self, total: u64, moved: i64) -> Option<Totals> {
        let total = total.checked_add_signed(moved)?;
        (total > self.through).then(|| Totals {
            total,
            total_pages: total.div_ceil(self.per_page.max(1)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::changes::{Changes, Reach, Reads, Window};

    const PAGE_LAST: (i64, i64) = (1_000, 50);

    /// Page 1 of a list whose total counted every write up to stamp 7.
    fn front_page() -> Reads {
        Reads {
            events: (41..=50).collect(),
            list: Some(Reach::window(Window {
                start: (i64::MIN, i64::MAX),
                end: (900, i64::MAX),
            })),
            tally: Some(Tally {
                last: PAGE_LAST,
                per_page: 10,
                through: 10,
                seen: Seen::parse("7").unwrap(),
            }),
            ..Reads::default()
        }
    }

    fn created(id: i64, start: i64, public: Option<bool>) -> EventState {
        EventState::new((start, start + 60), [3]).listed(id, public, true)
    }

    fn written(
        events: &[i64],
        states: impl IntoIterator<Item = EventState>,
        stamp: u64,
    ) -> Changes {
        let mut c = Changes::events(events.iter().copied(), [3], states);
        c.stamp(stamp);
        c
    }

    #[test]
    fn public_events_written_after_the_page_move_its_total_only() {
        let page = front_page();
        let create = written(&[60], [created(60, 5_000, Some(true))], 8);
        assert_eq!(page.effect(&create), Effect::Total(1));
        let counted = written(&[60], [created(60, 5_000, Some(true))], 7);
        assert_eq!(page.effect(&counted), Effect::Unchanged, "the total saw it");
        let same_start = written(&[60], [created(60, PAGE_LAST.0, Some(true))], 8);
        assert_eq!(page.effect(&same_start), Effect::Total(1), "a later ID");
        let draft = written(&[60], [created(60, 5_000, Some(false))], 8);
        assert_eq!(page.effect(&draft), Effect::Unchanged);
        let outside = written(&[60], [created(60, 100, Some(true))], 8);
        assert_eq!(
            page.effect(&outside),
            Effect::Unchanged,
            "ends before the window"
        );
        let trashed = [
            created(70, 5_000, Some(true)).listed(70, Some(true), false),
            created(70, 5_000, Some(false)),
        ];
        assert_eq!(page.effect(&written(&[70], trashed, 9)), Effect::Total(-1));
    }

    #[test]
    fn an_event_on_or_before_the_page_or_of_unknown_standing_changes_it() {
        let page = front_page();
        let early = written(&[60], [created(60, 950, Some(true))], 8);
        assert_eq!(page.effect(&early), Effect::Changed, "enters the page");
        let counted_early = written(&[60], [created(60, 950, Some(true))], 7);
        assert_eq!(
            page.effect(&counted_early),
            Effect::Changed,
            "the page did not see it"
        );
        let earlier_id = written(&[49], [created(49, PAGE_LAST.0, Some(true))], 8);
        assert_eq!(page.effect(&earlier_id), Effect::Changed);
        let scheduled = written(&[60], [created(60, 5_000, None)], 8);
        assert_eq!(page.effect(&scheduled), Effect::Changed);
        let unstamped = Changes::events([60], [3], [created(60, 5_000, Some(true))]);
        assert_eq!(
            page.effect(&unstamped),
            Effect::Changed,
            "its write unknown"
        );
        assert_eq!(
            page.effect(&written(&[45], [], 8)),
            Effect::Changed,
            "an event it shows"
        );
        assert_eq!(page.effect(&Changes::anything()), Effect::Changed);
        let untallied = Reads {
            tally: None,
            ..front_page()
        };
        let create = written(&[60], [created(60, 5_000, Some(true))], 8);
        assert_eq!(untallied.effect(&create), Effect::Changed);
    }

    #[test]
    fn writes_merged_count_each_event_they_moved() {
        let page = front_page();
        let cost_update = |id| {
            [
                created(id, 5_000, Some(true)).listed(id, Some(true), false),
                created(id, 5_000, Some(true)),
            ]
        };
        let mut merged = written(&[60], [created(60, 5_000, Some(true))], 8);
        merged.merge(written(&[61], [created(61, 6_000, Some(true))], 9));
        merged.merge(written(&[60], cost_update(60), 10));
        merged.merge(written(&[60], cost_update(60), 11));
        assert_eq!(page.effect(&merged), Effect::Total(2));
        let mut group = Changes::events([60], [], cost_update(60));
        group.merge(Changes::events([60], [], cost_update(60)));
        group.merge(Changes::events([62], [], [created(62, 6_000, Some(true))]));
        group.stamp(12);
        assert_eq!(
            page.effect(&group),
            Effect::Total(1),
            "one commit of three writes"
        );
        let text = serde_json::to_string(&merged).unwrap();
        let read: Changes = serde_json::from_str(&text).unwrap();
        assert_eq!(
            page.effect(&read),
            Effect::Total(2),
            "as the change log keeps them"
        );
    }

    #[test]
    fn the_page_keeps_its_next_page_or_is_computed_again() {
        let tally = front_page().tally.unwrap();
        let totals = |total, total_pages| Some(Totals { total, total_pages });
        assert_eq!(tally.moved(11, 1), totals(12, 2));
        assert_eq!(tally.moved(20, 1), totals(21, 3));
        assert_eq!(tally.moved(21, -1), totals(20, 2));
        assert_eq!(tally.moved(11, -1), None, "the page would be the last");
        assert_eq!(tally.moved(0, -1), None);
    }

    #[test]
    fn a_snapshot_holds_the_writes_committed_before_it() {
        let pg = Seen::parse("100:105:101,103").unwrap();
        assert!(pg.holds(99) && pg.holds(102) && pg.holds(104));
        assert!(!pg.holds(101) && !pg.holds(103) && !pg.holds(105) && !pg.holds(200));
        let none_running = Seen::parse("100:100:").unwrap();
        assert!(none_running.holds(99) && !none_running.holds(100));
        let sqlite = Seen::parse("7").unwrap();
        assert!(sqlite.holds(7) && !sqlite.holds(8));
        for bad in ["", "x", "1:2", "1:2:x", "1:2:3:4"] {
            assert_eq!(Seen::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn standing_follows_status_and_the_hidden_flag() {
        assert_eq!(public_by_status("publish", false), Some(true));
        assert_eq!(public_by_status("publish", true), Some(false));
        assert_eq!(public_by_status("draft", false), Some(false));
        assert_eq!(public_by_status("trash", false), Some(false));
        assert_eq!(public_by_status("future", false), None);
        assert_eq!(public_by_status("nonsense", false), None);
    }
}
