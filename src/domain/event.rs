//! Events: what is stored, what a write may change, and what a list asks for.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::post::{ImageRef, Post, PostChanges, Status, Visibility};
use super::term::Term;

/// A ticket offer (extension): `{name, url, price, currency}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Ticket {
    pub name: String,
    pub url: String,
    pub price: String,
    pub currency: String,
}

/// A stored event: the common post columns plus the event's own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Event {
    pub post: Post,
    /// `None` when the event never had a website set: the permalink is shown instead.
    pub website: Option<String>,
    pub start_utc: i64,
    pub end_utc: i64,
    /// The zone name as stored (`America/New_York`, `UTC+2`); empty means the site zone.
    pub timezone: String,
    pub all_day: bool,
    /// The cost inputs, as given.
    pub cost: Vec<String>,
    pub hide_from_listings: bool,
    pub sticky: bool,
    pub featured: bool,
    pub post_parent: i64,
    pub venue_id: Option<i64>,
    pub tickets: Vec<Ticket>,
}

/// What an event links to, loaded in batches for a page of events.
#[derive(Clone, Debug, Default)]
pub struct EventLinks {
    pub categories: Vec<Term>,
    pub tags: Vec<Term>,
    pub venue: Option<Post>,
    pub organizers: Vec<Post>,
}

/// A venue or organizer named in an event write: an existing one, or fields for a new one.
#[derive(Clone, Debug)]
pub enum LinkedRef {
    Existing(i64),
    New(Box<PostChanges>, Option<ImageRef>),
}

/// A category or tag named in an event write.
#[derive(Clone, Debug, PartialEq)]
pub enum TermRef {
    Existing(i64),
    /// A name that matches no term: it is created.
    New(String),
}

/// Values for an event create or update; `None` keeps the stored value.
#[derive(Clone, Debug, Default)]
pub struct EventChanges {
    pub post: PostChanges,
    pub image: Option<ImageRef>,
    /// `Some(None)` clears the website (the permalink is then shown).
    pub website: Option<Option<String>>,
    pub start_utc: Option<i64>,
    pub end_utc: Option<i64>,
    pub timezone: Option<String>,
    pub all_day: Option<bool>,
    pub cost: Option<Vec<String>>,
    pub hide_from_listings: Option<bool>,
    pub sticky: Option<bool>,
    pub featured: Option<bool>,
    pub post_parent: Option<i64>,
    pub categories: Option<Vec<TermRef>>,
    pub tags: Option<Vec<TermRef>>,
    /// `Some(None)` unlinks the venue.
    pub venue: Option<Option<LinkedRef>>,
    pub organizers: Option<Vec<LinkedRef>>,
    pub tickets: Option<Vec<Ticket>>,
}

/// An event list as the store runs it: every reference resolved to IDs, every
/// bound an absolute instant (see `event_list::EventQuery` for the request).
#[derive(Clone, Debug, Default)]
pub struct EventFilter {
    pub page: u64,
    pub per_page: u64,
    /// start ≥
    pub start_min: Option<i64>,
    /// end ≤
    pub end_max: Option<i64>,
    /// start <
    pub starts_before: Option<i64>,
    /// start >
    pub starts_after: Option<i64>,
    /// end <
    pub ends_before: Option<i64>,
    /// end >
    pub ends_after: Option<i64>,
    /// Each word must appear in the title, excerpt or description.
    pub search_words: Vec<String>,
    pub categories: Vec<i64>,
    pub tags: Vec<i64>,
    pub venues: Vec<i64>,
    pub organizers: Vec<i64>,
    /// Every venue, or every organizer, the list names is in the trash or restored
    /// before its last batch: it has no events (its links are being undone), so the
    /// list has none.
    pub names_only_unlinked: bool,
    pub featured: Option<bool>,
    /// Explicit statuses; empty means every status the caller may see but trash.
    pub statuses: Vec<Status>,
    pub visibility: Visibility,
    pub geoloc: Option<bool>,
    /// Venues within the radius: their IDs, resolved before the query.
    pub near_venues: Option<Vec<i64>>,
    pub include: Vec<i64>,
    pub post_parent: Option<i64>,
    pub ticketed: Option<bool>,
    pub now_utc: i64,
    /// How many matches a search counts before its total becomes a floor
    /// ([`SEARCH_COUNT_LIMIT`] unless the operator sets another).
    pub count_limit: u64,
    /// For each search word PostgreSQL reads from its index of whole words, the
    /// pieces of the calendar's text holding it (`domain::search_tokens`): looked
    /// up in its vocabulary before the list's statements, which are planned with
    /// them (`store::events::word_index`). Empty where no word is so read.
    pub search_pieces: BTreeMap<String, Vec<String>>,
    /// PostgreSQL: the share of the events expected to hold every word of
    /// [`search_pieces`](Self::search_pieces), as its index's statistics give each
    /// word's (their product); 0 where no word is so read, or none is counted there.
    pub search_pieces_share: f64,
    /// SQLite: the search words shorter than a trigram whose neighbours make more
    /// trigrams than its index is read for (`store::events::word_index`): checked on
    /// each event's row alone, as every short word is checked anyway. Empty where
    /// none is.
    pub search_unindexed: BTreeSet<String>,
}

impl EventChanges {
    /// Whether the write names a venue, organizer or term to create.
    pub fn names_new_links(&self) -> bool {
        let new_term = |refs: &Option<Vec<TermRef>>| {
            refs.iter().flatten().any(|r| matches!(r, TermRef::New(_)))
        };
        let new_post = |r: &LinkedRef| matches!(r, LinkedRef::New(..));
        new_term(&self.categories)
            || new_term(&self.tags)
            || self.venue.iter().flatten().any(new_post)
            || self.organizers.iter().flatten().any(new_post)
    }
}

/// The terms whose counts a write of an event can move: all of them when it starts
/// or stops counting as published, those it gains or loses while it counts.
pub fn recounted_terms(before: (&[i64], bool), after: (&[i64], bool)) -> Vec<i64> {
    let ((was_in, was), (is_in, is)) = (before, after);
    let mut terms: Vec<i64> = match (was, is) {
        (false, false) => Vec::new(),
        (true, true) => was_in
            .iter()
            .filter(|t| !is_in.contains(t))
            .chain(is_in.iter().filter(|t| !was_in.contains(t)))
            .copied()
            .collect(),
        (true, false) => was_in.to_vec(),
        (false, true) => is_in.to_vec(),
    };
    terms.sort_unstable();
    terms.dedup();
    terms
}

impl EventFilter {
    /// Whether the list holds exactly the events every visitor's lists hold in its
    /// window: it asks nothing else of them, for a caller who sees what every
    /// visitor does (see `changes::Tally`).
    pub fn every_public_event_of_window(&self) -> bool {
        self.visibility == Visibility::Published
            && self.search_words.is_empty()
            && self.categories.is_empty()
            && self.tags.is_empty()
            && self.venues.is_empty()
            && self.organizers.is_empty()
            && !self.names_only_unlinked
            && self.featured.is_none()
            && self.statuses.is_empty()
            && self.geoloc.is_none()
            && self.near_venues.is_none()
            && self.include.is_empty()
            && self.post_parent.is_none()
            && self.ticketed.is_none()
    }

    /// Whether the list names its events by ID (`include`) or by their parent
    /// (`post_parent`): a set of events its other filters are checked on, however
    /// many events those filters hold.
    pub fn names_its_events(&self) -> bool {
        !self.include.is_empty() || self.post_parent.is_some()
    }

    /// The starts and ends of every event the list can show, whatever else it asks.
    pub fn window(&self) -> super::changes::Window {
        let after = |t: Option<i64>| t.map(|t| t.saturating_add(1));
        let before = |t: Option<i64>| t.map(|t| t.saturating_sub(1));
        let highest = |a: Option<i64>, b: Option<i64>| a.into_iter().chain(b).max();
        let lowest = |a: Option<i64>, b: Option<i64>| a.into_iter().chain(b).min();
        super::changes::Window {
            start: (
                highest(self.start_min, after(self.starts_after)).unwrap_or(i64::MIN),
                before(self.starts_before).unwrap_or(i64::MAX),
            ),
            end: (
                after(self.ends_after).unwrap_or(i64::MIN),
                lowest(self.end_max, before(self.ends_before)).unwrap_or(i64::MAX),
            ),
        }
    }
}

/// Where an event of a list falls: its ID, its dates and its zone, without the
/// rest of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSpan {
    pub id: i64,
    pub start_utc: i64,
    pub end_utc: i64,
    pub timezone: String,
}

impl EventSpan {
    /// The zone its wall times are in, as [`zone_of`] finds an event's.
    pub fn zone(&self, site: chrono_tz::Tz) -> super::timezone::EventZone {
        zone_named(&self.timezone, site)
    }
}

/// The zone an event's wall times are in: its own, or the site's when it has none.
pub fn zone_of(event: &Event, site: chrono_tz::Tz) -> super::timezone::EventZone {
    zone_named(&event.timezone, site)
}

fn zone_named(timezone: &str, site: chrono_tz::Tz) -> super::timezone::EventZone {
    super::timezone::parse_zone(timezone).unwrap_or(super::timezone::EventZone::Named(site))
}

/// Whether an event in this status, published at `date_utc`, was counted in its
/// terms by a write at `written`: published, or scheduled and already due then.
/// One scheduled for later is counted when it goes live (`store::events::publish_due`).
pub fn counts_as_published(status: &str, date_utc: i64, written: i64) -> bool {
    status == Status::Publish.as_str() || (status == Status::Future.as_str() && date_utc <= written)
}

/// Seconds in a UTC day, the unit of the per-day event counts.
pub const DAY_SECONDS: i64 = 86_400;

/// The UTC day an instant falls on (days before 1970 are negative).
pub fn utc_day(t: i64) -> i64 {
    t.div_euclid(DAY_SECONDS)
}

/// How many matches a search counts by default (`--search-count-limit`): past
/// them its total is a floor (`Total::at_least`), since an exact count of a common
/// word's matches costs seconds at a million events (docs/departures.md, "Totals
/// of searches").
pub const SEARCH_COUNT_LIMIT: u64 = 1_000;

/// How many matches a search's pages reach by default (`--search-depth`): its
/// first 10,000, or as many as it counts when the operator counts more. A page of
/// a search is found by walking the matches before it, in list order, each checked
/// for the words (no index gives the matches of a word in date order), so its cost
/// grows with its depth: page 4,000 of 50 of `the` took 3.3 s on SQLite and 4.7 s
/// on PostgreSQL at a million events, and the deepest pages would take twenty. Elasticsearch stops
/// at the same depth by default (`index.max_result_window`), for the same reason
/// (docs/departures.md, "Totals of searches").
pub const SEARCH_DEPTH: u64 = 10_000;

/// The matches a search pages through: `depth`, or more when it counts more.
pub fn search_depth(depth: u64, count_limit: u64) -> u64 {
    Ord::max(count_limit, depth)
}

/// A list's total: exact, or, for a search with more matches than it counts, how
/// many it found at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Total {
    pub count: u64,
    pub at_least: bool,
}

impl Total {
    pub fn exact(count: u64) -> Total {
        Total {
            count,
            at_least: false,
        }
    }

    pub fn at_least(count: u64) -> Total {
        Total {
            count,
            at_least: true,
        }
    }
}

/// Splits a search into the words that must all match, lower-cased.
pub fn search_words(search: &str) -> Vec<String> {
    let mut words: Vec<String> = search
        .split_whitespace()
        .map(|w| w.trim_matches('"').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    words.sort();
    words.dedup();
    words.truncate(16);
    words
}

/// Great-circle distance in kilometres.
pub fn distance_km(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = (lat2 - lat1).to_radians();
    let dl = (lng2 - lng1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    6371.0088 * 2.0 * a.sqrt().asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_recounts_the_terms_whose_counts_it_can_move() {
        let (a, b) = (&[1, 2][..], &[2, 3][..]);
        assert_eq!(recounted_terms((a, true), (b, true)), vec![1, 3]);
        assert_eq!(recounted_terms((a, true), (a, true)), Vec::<i64>::new());
        assert_eq!(recounted_terms((a, false), (b, false)), Vec::<i64>::new());
        assert_eq!(recounted_terms((a, true), (b, false)), vec![1, 2]);
        assert_eq!(recounted_terms((a, false), (b, true)), vec![2, 3]);
    }

    #[test]
    fn a_list_window_holds_exactly_the_spans_its_bounds_allow() {
        let filter = EventFilter {
            start_min: Some(100),
            starts_after: Some(150),
            ends_before: Some(300),
            end_max: Some(400),
            ..EventFilter::default()
        };
        let w = filter.window();
        assert!(w.holds((151, 299)));
        assert!(!w.holds((150, 200)), "starts_after is exclusive");
        assert!(!w.holds((200, 300)), "ends_before is exclusive");
        assert!(EventFilter::default().window().holds((i64::MIN, i64::MAX)));
    }

    #[test]
    fn search_words_are_lowercased_and_unique() {
        assert_eq!(search_words("  Jazz  NIGHT jazz "), vec!["jazz", "night"]);
        assert!(search_words("   ").is_empty());
    }

    #[test]
    fn paris_to_london_is_about_344_km() {
        let d = distance_km(48.8566, 2.3522, 51.5074, -0.1278);
        assert!((d - 343.5).abs() < 2.0, "{d}");
    }
}
