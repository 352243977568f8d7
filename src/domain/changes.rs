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

mod recent;
mod tally;

pub use recent::RecentChanges;
pub use tally::{Effect, Listed, Seen, Tally, Totals, public_by_status};

/// What one or more committed writes may have changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "ChangesWire", into = "ChangesWire")]
pub struct Changes {
    /// Anything may have changed: no cached answer survives.
    pub anything: bool,
    /// Events created, updated, trashed or deleted.
    pub events: Vec<i64>,
    /// Terms whose events, and so whose counts, may have changed.
    pub terms: Vec<i64>,
    /// The written events as they were before and are after: what decides which
    /// lists could show them.
    pub states: Vec<EventState>,
}

/// An event as a write found or left it, as far as deciding which lists could show it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EventState {
    /// Its (start, end) UTC instants.
    pub span: (i64, i64),
    /// Its own categories and tags (not the categories above them); `None` when
    /// unknown, which any list filtered by terms may hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<Vec<i64>>,
    /// The words of its text (see [`text_words`]); `None` when unknown or too
    /// long to carry, which any search may find.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<String>,
    /// Its venue and organizers, sorted; `None` when unknown, which any list
    /// filtered by venue or organizer may hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<i64>>,
    /// Where it stands in the lists every visitor sees, when the writer knew:
    /// what lets a page such a list holds ahead of it keep its events and move
    /// only its total ([`Tally`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<Listed>,
}

impl EventState {
    pub fn new(span: (i64, i64), terms: impl IntoIterator<Item = i64>) -> EventState {
        let mut terms: Vec<i64> = terms.into_iter().collect();
        terms.sort_unstable();
        terms.dedup();
        EventState {
            span,
            terms: Some(terms),
            words: None,
            links: None,
            listed: None,
        }
    }

    /// An event of whose terms and text nothing is known.
    pub fn at(span: (i64, i64)) -> EventState {
        EventState {
            span,
            terms: None,
            words: None,
            links: None,
            listed: None,
        }
    }

    /// With the text a search looks in: its title, excerpt and description.
    pub fn with_text(mut self, title: &str, excerpt: &str, description: &str) -> EventState {
        self.words = text_words(&[title, excerpt, description]);
        self
    }

    /// How many terms, venues and organizers it lists.
    fn listed_ids(&self) -> usize {
        let listed = |ids: &Option<Vec<i64>>| ids.as_ref().map_or(0, Vec::len);
        listed(&self.terms) + listed(&self.links)
    }

    /// With its venue (if any) and organizers.
    pub fn with_links(mut self, venue: Option<i64>, organizers: &[i64]) -> EventState {
        let mut links: Vec<i64> = venue
            .into_iter()
            .chain(organizers.iter().copied())
            .collect();
        links.sort_unstable();
        links.dedup();
        self.links = Some(links);
        self
    }
}

/// Past this many bytes of distinct words, a written event's text is not carried:
/// any search may find it.
const MAX_WORD_BYTES: usize = 2048;

/// The distinct words of a text, lower-cased, sorted, separated by spaces: a search
/// word (which holds no white space) found in the lower-cased text is within one of
/// them, and so found in this string. Both ways of lower-casing are kept: Rust's
/// and SQLite's (`store::sqlite::functions`) map `İ` to `i̇` and a final `Σ` to
/// `ς`, PostgreSQL's to `i` and `σ`.
pub fn text_words(parts: &[&str]) -> Option<String> {
    let mut lowered = Vec::with_capacity(parts.len() * 2);
    for part in parts {
        lowered.push(part.to_lowercase());
        lowered.push(part.chars().flat_map(|c| c.to_lowercase().next()).collect());
    }
    let mut words: Vec<&str> = lowered.iter().flat_map(|t| t.split_whitespace()).collect();
    words.sort_unstable();
    words.dedup();
    let joined = words.join(" ");
    (joined.len() <= MAX_WORD_BYTES).then_some(joined)
}

/// [`Changes`] as the change log of PostgreSQL stores them. `spans` repeats the
/// states' spans for instances that predate `states` and read only `spans`; an
/// entry of such an instance, with `spans` alone, reads as states of unknown terms.
#[derive(Default, Serialize, Deserialize)]
struct ChangesWire {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    anything: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    events: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    terms: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    spans: Vec<(i64, i64)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    states: Vec<EventState>,
}

impl From<ChangesWire> for Changes {
    fn from(w: ChangesWire) -> Changes {
        let mut states = w.states;
        // Every span of an entry comes with its state, or none does.
        if states.len() < w.spans.len() {
            states = w.spans.into_iter().map(EventState::at).collect();
        }
        let mut c = Changes {
            anything: w.anything,
            events: w.events,
            terms: w.terms,
            states,
        };
        c.tidy();
        c
    }
}

impl From<Changes> for ChangesWire {
    fn from(c: Changes) -> ChangesWire {
        let mut spans: Vec<(i64, i64)> = c.states.iter().map(|s| s.span).collect();
        spans.sort_unstable();
        spans.dedup();
        ChangesWire {
            anything: c.anything,
            events: c.events,
            terms: c.terms,
            spans,
            states: c.states,
        }
    }
}

/// Past this many items, a set of changes is kept as "anything": checking every
/// cached answer against it would cost more than computing them again.
const MAX_ITEMS: usize = 4096;

/// Past this many bytes of words in all, the written events of a set of changes
/// lose theirs (any search may find them). A set is often several writes merged
/// (a group commit, a cache's catch-up over the writes of a slow computation): at
/// 4 KiB, twenty creates lost their words, and every search list whose window and
/// terms they entered was computed again. What keeps many sets bounds their words
/// in all (the response cache's recent changes).
const MAX_CHANGE_WORD_BYTES: usize = 64 * 1024;

impl Changes {
    pub fn anything() -> Changes {
        Changes {
            anything: true,
            ..Changes::default()
        }
    }

    /// Writes of events: these IDs, the terms whose counts they moved, the
    /// events' states before and after.
    pub fn events(
        events: impl IntoIterator<Item = i64>,
        terms: impl IntoIterator<Item = i64>,
        states: impl IntoIterator<Item = EventState>,
    ) -> Changes {
        let mut c = Changes {
            anything: false,
            events: events.into_iter().collect(),
            terms: terms.into_iter().collect(),
            states: states.into_iter().collect(),
        };
        c.tidy();
        c
    }

    /// Marks the states written as the write of this stamp made them (see
    /// [`Seen`]), once it is committed.
    pub fn stamp(&mut self, stamp: u64) {
        for listed in self.states.iter_mut().filter_map(|s| s.listed.as_mut()) {
            listed.stamp.get_or_insert(stamp);
        }
        self.states.sort_unstable();
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
        self.states.extend(other.states);
        self.tidy();
    }

    fn tidy(&mut self) {
        for list in [&mut self.events, &mut self.terms] {
            list.sort_unstable();
            list.dedup();
        }
        self.states.sort_unstable();
        dedup_states(&mut self.states);
        if self.word_bytes() > MAX_CHANGE_WORD_BYTES {
            for state in &mut self.states {
                state.words = None;
            }
            self.states.sort_unstable();
            dedup_states(&mut self.states);
        }
        let state_items: usize = self
            .states
            .iter()
            .map(|s| s.listed_ids() + usize::from(s.words.is_some()))
            .sum();
        if self.events.len() + self.terms.len() + self.states.len() + state_items > MAX_ITEMS {
            *self = Changes::anything();
        }
    }

    /// The bytes of the written events' words, in all.
    pub fn word_bytes(&self) -> usize {
        self.states
            .iter()
            .flat_map(|s| &s.words)
            .map(String::len)
            .sum()
    }

    /// About how much memory it holds: what keeps many sets bounds them by it.
    pub fn heap_bytes(&self) -> usize {
        let states: usize = self
            .states
            .iter()
            .map(|s| {
                std::mem::size_of::<EventState>()
                    + 8 * s.listed_ids()
                    + s.words.as_ref().map_or(0, String::len)
            })
            .sum();
        8 * (self.events.len() + self.terms.len()) + states
    }

    pub fn is_nothing(&self) -> bool {
        !self.anything && self.events.is_empty() && self.terms.is_empty() && self.states.is_empty()
    }
}

/// Keeps each state once, but those saying where their event is listed: each is one
/// event entering or leaving the lists every visitor sees, and two writes of the
/// same event can leave it alike (two updates of its cost), each counted.
fn dedup_states(states: &mut Vec<EventState>) {
    states.dedup_by(|a, b| a == b && a.listed.is_none());
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

/// The events a list can show, whatever else it asks of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Those starting and ending within it.
    pub window: Window,
    /// Those holding one term of each set, each set sorted: a category filter's
    /// set holds the categories below those it names.
    pub terms: Vec<Vec<i64>>,
    /// Those whose lower-cased text holds every one of these words.
    pub search: Vec<String>,
    /// Those linked to one venue or organizer of each set (post IDs), each set sorted.
    pub links: Vec<Vec<i64>>,
}

impl Reach {
    fn heap_bytes(&self) -> usize {
        let sets = |sets: &Vec<Vec<i64>>| {
            sets.capacity() * size_of::<Vec<i64>>()
                + sets
                    .iter()
                    .map(|s| s.capacity() * size_of::<i64>())
                    .sum::<usize>()
        };
        sets(&self.terms)
            + sets(&self.links)
            + self.search.capacity() * size_of::<String>()
            + self.search.iter().map(String::capacity).sum::<usize>()
    }

    /// A list of the events within this window, of any terms and text.
    pub fn window(window: Window) -> Reach {
        Reach {
            window,
            terms: Vec::new(),
            search: Vec::new(),
            links: Vec::new(),
        }
    }

    /// Whether an event in this state could be in the list.
    pub fn may_hold(&self, state: &EventState) -> bool {
        self.window.holds(state.span)
            && holds_one_of_each(state.terms.as_deref(), &self.terms)
            && holds_one_of_each(state.links.as_deref(), &self.links)
            && self.may_find(state)
    }

    fn may_find(&self, state: &EventState) -> bool {
        let Some(words) = &state.words else {
            return true;
        };
        self.search.iter().all(|w| words.contains(w.as_str()))
    }
}

/// Whether `held` (`None`: unknown) has one item of each sorted set.
fn holds_one_of_each(held: Option<&[i64]>, sets: &[Vec<i64>]) -> bool {
    let Some(held) = held else {
        return true;
    };
    sets.iter()
        .all(|set| held.iter().any(|t| set.binary_search(t).is_ok()))
}

/// What a cached answer was computed from, as far as event writes go (any other
/// write drops it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Events it shows.
    pub events: Vec<i64>,
    /// It lists terms, in an order or a choice that their counts decide.
    pub every_term: bool,
    /// It lists events: any event it can show may enter or leave it, or change its total.
    pub list: Option<Reach>,
    /// It depends on which events exist at all (venues or organizers with events).
    pub every_event: bool,
    /// Its list holds exactly the events every visitor's lists hold in its window,
    /// and its page is full and followed by more: events entering or leaving the
    /// list past the page move only its total.
    pub tally: Option<Tally>,
}

impl Reads {
    /// The memory it holds beside itself, which a cache keeping it counts.
    pub fn heap_bytes(&self) -> usize {
        self.events.capacity() * size_of::<i64>()
            + self.list.as_ref().map_or(0, Reach::heap_bytes)
            + self.tally.as_ref().map_or(0, Tally::heap_bytes)
    }

    /// Whether `changes` can change the answer.
    pub fn changed_by(&self, changes: &Changes) -> bool {
        self.effect(changes) != Effect::Unchanged
    }

    /// What `changes` do to the answer.
    pub fn effect(&self, changes: &Changes) -> Effect {
        let shown = || changes.events.iter().any(|e| self.events.contains(e));
        if changes.anything
            || self.every_event && !changes.events.is_empty()
            || self.every_term && !changes.terms.is_empty()
            || shown()
        {
            return Effect::Changed;
        }
        let Some(reach) = &self.list else {
            return Effect::Unchanged;
        };
        let mut reached = changes.states.iter().filter(|s| reach.may_hold(s));
        match &self.tally {
            Some(tally) => tally.effect(reached),
            None if reached.next().is_some() => Effect::Changed,
            None => Effect::Unchanged,
        }
    }
}

#[cfg(test)]
mod tests;
