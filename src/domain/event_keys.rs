//! What an event list filters on, as keys: every event is indexed once per key it has
//! (its categories and tags, venue, organizers, flags), in list order, so a list reads
//! the range of one key — the one expected to hold the fewest events — and checks the
//! others event by event.

use super::event::EventFilter;

/// A kind of key an event has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyKind {
    /// The event itself, of value 0: what a list with no key filter reads.
    Every,
    /// A category or tag of the event, or a category above one of its categories
    /// (a category matches its subcategories' events): the term's ID (both
    /// taxonomies share one ID sequence).
    Term,
    Venue,
    Organizer,
    /// 1 if featured, else 0.
    Featured,
    /// 1 if it has tickets, else 0.
    Ticketed,
    /// 1 if its venue has coordinates, else 0.
    Located,
    /// A term's key (as [`KeyKind::Term`]) held only by the featured events: a
    /// category with `featured=1` as one range, with its own per-day counts.
    FeaturedTerm,
    /// A term's key held only by the events with tickets.
    TicketedTerm,
}

impl KeyKind {
    /// Whether an event can have several keys of this kind (so that a filter on
    /// several values may meet an event more than once).
    pub fn multiple(self) -> bool {
        self.of_terms() || self == KeyKind::Organizer
    }

    /// Whether the key's values are term IDs (a term's, alone or with a flag).
    pub fn of_terms(self) -> bool {
        matches!(
            self,
            KeyKind::Term | KeyKind::FeaturedTerm | KeyKind::TicketedTerm
        )
    }

    /// The bit of a flag (featured, has tickets, located) on each event's own key
    /// (migration 41), set when the flag's key has value 1.
    pub fn flag_bit(self) -> Option<i64> {
        match self {
            KeyKind::Featured => Some(1),
            KeyKind::Ticketed => Some(2),
            KeyKind::Located => Some(4),
            _ => None,
        }
    }

    /// The kind of a term's key held by the events with this flag set, if there is one.
    pub fn with_terms(self) -> Option<KeyKind> {
        match self {
            KeyKind::Featured => Some(KeyKind::FeaturedTerm),
            KeyKind::Ticketed => Some(KeyKind::TicketedTerm),
            _ => None,
        }
    }
}

/// Events with any of these keys of one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyFilter {
    pub kind: KeyKind,
    pub values: Vec<i64>,
    /// About how many events hold these keys, where the store has weighed them (a
    /// term's by the counts of it and the terms below it): which of two filters to
    /// read first, and how to meet the second.
    pub events: Option<u64>,
    /// Each value's bit (migrations 32 and 34), in the order of `values`, where the
    /// store has read them (empty otherwise; `None` for a term without one): the
    /// event's own key and its term keys (migration 37) tell whether it holds those
    /// terms.
    pub bits: Vec<Option<i64>>,
}

/// A set of terms' bits, as the words an event's own key holds them in: bit `b` is
/// bit `b % 63` of word `b / 63` (a word's sign bit stays clear).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TermMask([i64; TermMask::WORDS]);

impl TermMask {
    /// The words of an own key's bits (`term_bits`, `term_bits_1`, …).
    pub const WORDS: usize = 4;
    const PER_WORD: i64 = 63;

    /// The mask of the terms of these bits, when each has one (in range).
    pub fn of(bits: &[Option<i64>]) -> Option<TermMask> {
        let limit = Self::PER_WORD * Self::WORDS as i64;
        bits.iter().try_fold(TermMask::default(), |mut mask, bit| {
            let bit = bit.filter(|b| (0..limit).contains(b))?;
            let word = usize::try_from(bit / Self::PER_WORD).ok()?;
            mask.0[word] |= 1i64 << (bit % Self::PER_WORD);
            Some(mask)
        })
    }

    /// The words with a bit set, each with its place among the own key's words.
    pub fn words(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.0
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, word)| *word != 0)
    }
}

impl KeyFilter {
    fn new(kind: KeyKind, values: &[i64]) -> KeyFilter {
        let mut values = values.to_vec();
        values.sort_unstable();
        values.dedup();
        KeyFilter {
            kind,
            values,
            events: None,
            bits: Vec::new(),
        }
    }

    fn flag(kind: KeyKind, on: bool) -> KeyFilter {
        KeyFilter::new(kind, &[i64::from(on)])
    }

    /// Every event, once: the key a list without key filters reads.
    pub fn every() -> KeyFilter {
        KeyFilter {
            kind: KeyKind::Every,
            values: vec![0],
            events: None,
            bits: Vec::new(),
        }
    }

    /// Whether the filter is on a field a password hides (all but [`KeyFilter::every`]):
    /// a protected event must then not match for those who may not read it.
    pub fn hides_protected(&self) -> bool {
        self.kind != KeyKind::Every
    }

    /// The mask of the filter's terms, when the store has read their bits and each
    /// has one.
    pub fn mask(&self) -> Option<TermMask> {
        self.mask_of_first(self.values.len())
    }

    /// The mask of the filter's first `n` terms, when the store has read their bits
    /// and each has one.
    pub fn mask_of_first(&self, n: usize) -> Option<TermMask> {
        if self.bits.len() != self.values.len() || n == 0 {
            return None;
        }
        TermMask::of(&self.bits[..n.min(self.bits.len())])
    }

    /// Whether an event can meet this filter more than once.
    pub fn may_repeat(&self) -> bool {
        self.kind.multiple() && self.values.len() > 1
    }

    /// How many events the filter is expected to let through, relatively: a venue
    /// holds few of a calendar's events, an organizer more, a term many, a flag set
    /// a few percent, a flag unset nearly all. Ties keep the filters' order.
    fn expected_share(&self) -> u32 {
        let per_value: u32 = match self.kind {
            KeyKind::Venue => 1,
            KeyKind::Organizer => 2,
            KeyKind::Term => 20,
            KeyKind::FeaturedTerm | KeyKind::TicketedTerm => 2,
            KeyKind::Featured | KeyKind::Ticketed if self.values == [1] => 10,
            KeyKind::Located if self.values == [1] => 80,
            KeyKind::Every => 100,
            _ => 90,
        };
        per_value.saturating_mul(u32::try_from(self.values.len()).unwrap_or(u32::MAX))
    }
}

/// The list's key filters (categories and tags are two filters: an event must meet
/// both), the one to read first at the front; `None` when a filter can match nothing
/// (no venue near the point asked for, only venues without links named). Empty when
/// the list filters on no key.
pub fn key_filters(f: &EventFilter) -> Option<Vec<KeyFilter>> {
    if f.names_only_unlinked {
        return None;
    }
    let mut keys = Vec::new();
    for (kind, values) in [
        (KeyKind::Venue, &f.venues),
        (KeyKind::Organizer, &f.organizers),
        // Tags before categories: a calendar has more of them, each on fewer events.
        (KeyKind::Term, &f.tags),
        (KeyKind::Term, &f.categories),
    ] {
        if !values.is_empty() {
            keys.push(KeyFilter::new(kind, values));
        }
    }
    if let Some(near) = &f.near_venues {
        if near.is_empty() {
            return None;
        }
        keys.push(KeyFilter::new(KeyKind::Venue, near));
    }
    for (kind, flag) in [
        (KeyKind::Featured, f.featured),
        (KeyKind::Ticketed, f.ticketed),
        (KeyKind::Located, f.geoloc),
    ] {
        if let Some(on) = flag {
            keys.push(KeyFilter::flag(kind, on));
        }
    }
    // Stable: among equal shares, the order above.
    keys.sort_by_key(KeyFilter::expected_share);
    Some(keys)
}

/// Whether the list's first filter, beside others, is a flag on most events (asked
/// unset, or `geoloc=1`): everything else weighs more (other such flags, many
/// terms). Every event's own key then drives instead: it carries the flags' bits
/// (migration 41) and the terms' (migrations 32 and 34), so each filter is checked on
/// the row it reads, where the flag's range, at most a fifth fewer rows, had each
/// event looked up for every other filter (thirty categories, the hundred most used
/// tags and three flags at a million events: three lookups for each of 800,000
/// events; the last page of `featured=0&ticketed=0` over every date, 756,000).
pub fn common_flag_drives(keys: &[KeyFilter]) -> bool {
    let [first, _, ..] = keys else {
        return false;
    };
    let rare_set = first.kind.with_terms().is_some() && first.values == [1];
    first.kind.flag_bit().is_some() && !rare_set
}

/// How many times fewer events a term's flagged key is expected to hold than the
/// term: a flag set is on a few percent of a calendar's events.
const FLAGGED_SHARE: u64 = 10;

/// A term filter and a flag asked set (`featured=1`, `ticketed=1`) become one filter
/// on the term's flagged keys, in the place of the earlier of the two (a venue or an
/// organizer, narrower still, stays ahead): where the flag's range was read and each
/// event probed for the term (or both ranges merged), and counted so, it is one
/// range with its own per-day counts. Of several term filters the lightest is
/// paired (their `events` weighed by the store); of two flags, the first.
pub fn pair_flags(keys: &mut Vec<KeyFilter>) {
    let Some(flag) = keys
        .iter()
        .position(|k| k.kind.with_terms().is_some() && k.values == [1])
    else {
        return;
    };
    let Some(term) = keys
        .iter()
        .enumerate()
        .filter(|(_, k)| k.kind == KeyKind::Term)
        .min_by_key(|(i, k)| (k.events.unwrap_or(u64::MAX), *i))
        .map(|(i, _)| i)
    else {
        return;
    };
    let mut paired = keys[term].clone();
    paired.kind = keys[flag].kind.with_terms().expect("a flag with terms");
    paired.events = paired.events.map(|n| n / FLAGGED_SHARE);
    // The bits tell the terms an event holds, not whether it holds them flagged.
    paired.bits = Vec::new();
    keys.remove(flag.max(term));
    keys.remove(flag.min(term));
    keys.insert(flag.min(term), paired);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_on_most_events_gives_way_to_the_own_keys() {
        let flag = KeyFilter::flag;
        let term = KeyFilter::new(KeyKind::Term, &[3]);
        let unset = [
            flag(KeyKind::Featured, false),
            flag(KeyKind::Ticketed, false),
        ];
        assert!(common_flag_drives(&unset));
        let many = KeyFilter::new(KeyKind::Term, &[1, 2, 3, 4, 5, 6]);
        assert!(common_flag_drives(&[flag(KeyKind::Located, true), many]));
        assert!(
            !common_flag_drives(&unset[..1]),
            "one flag is its own range"
        );
        assert!(
            !common_flag_drives(&[flag(KeyKind::Featured, true), unset[1].clone()]),
            "a rare flag set drives"
        );
        assert!(!common_flag_drives(&[term, unset[0].clone()]));
    }

    #[test]
    fn a_term_without_a_bit_leaves_no_mask() {
        let words = |m: TermMask| m.words().collect::<Vec<_>>();
        let mask = TermMask::of(&[Some(0), Some(3), Some(62)]).unwrap();
        assert_eq!(words(mask), vec![(0, 1 | 8 | (1 << 62))]);
        let mask = TermMask::of(&[Some(1), Some(63), Some(64), Some(251)]).unwrap();
        assert_eq!(words(mask), vec![(0, 2), (1, 3), (3, 1 << 62)]);
        assert_eq!(TermMask::of(&[Some(0), None]), None, "a term past the bits");
        assert_eq!(TermMask::of(&[Some(252)]), None, "out of range");
        assert_eq!(TermMask::of(&[Some(-1)]), None, "out of range");
    }

    fn filter() -> EventFilter {
        EventFilter::default()
    }

    #[test]
    fn a_list_without_key_filters_has_none() {
        assert_eq!(key_filters(&filter()), Some(Vec::new()));
    }

    #[test]
    fn the_narrowest_filter_is_read_first() {
        let f = EventFilter {
            categories: vec![3, 1, 3],
            featured: Some(false),
            venues: vec![9],
            ..filter()
        };
        let keys = key_filters(&f).unwrap();
        let kinds: Vec<_> = keys.iter().map(|k| k.kind).collect();
        assert_eq!(kinds, [KeyKind::Venue, KeyKind::Term, KeyKind::Featured]);
        assert_eq!(keys[1].values, [1, 3], "values sorted, repeats dropped");
        assert_eq!(keys[2].values, [0]);
        assert!(keys[1].may_repeat());
        assert!(!keys[0].may_repeat());
    }

    #[test]
    fn a_set_flag_is_read_before_a_term_and_an_unset_one_after() {
        let f = EventFilter {
            tags: vec![5],
            ticketed: Some(true),
            geoloc: Some(false),
            ..filter()
        };
        let kinds: Vec<_> = key_filters(&f).unwrap().iter().map(|k| k.kind).collect();
        assert_eq!(kinds, [KeyKind::Ticketed, KeyKind::Term, KeyKind::Located]);
    }

    #[test]
    fn a_set_flag_pairs_with_the_lightest_term_filter() {
        let f = EventFilter {
            tags: vec![5],
            categories: vec![1, 2],
            featured: Some(true),
            ticketed: Some(true),
            ..filter()
        };
        let mut keys = key_filters(&f).unwrap();
        for k in keys.iter_mut() {
            if k.kind == KeyKind::Term {
                k.events = Some(if k.values == [5] { 9_000 } else { 400_000 });
            }
        }
        pair_flags(&mut keys);
        let kinds: Vec<_> = keys.iter().map(|k| k.kind).collect();
        assert_eq!(
            kinds,
            [KeyKind::FeaturedTerm, KeyKind::Ticketed, KeyKind::Term]
        );
        assert_eq!(keys[0].values, [5]);
        assert_eq!(keys[0].events, Some(900));
        assert_eq!(keys[2].values, [1, 2]);
    }

    #[test]
    fn a_venue_stays_ahead_of_a_paired_filter() {
        let f = EventFilter {
            venues: vec![9],
            categories: vec![1],
            featured: Some(true),
            ..filter()
        };
        let mut keys = key_filters(&f).unwrap();
        pair_flags(&mut keys);
        let kinds: Vec<_> = keys.iter().map(|k| k.kind).collect();
        assert_eq!(kinds, [KeyKind::Venue, KeyKind::FeaturedTerm]);
        assert_eq!(keys[1].values, [1]);
    }

    #[test]
    fn an_unset_flag_or_no_term_pairs_nothing() {
        for f in [
            EventFilter {
                tags: vec![5],
                featured: Some(false),
                ..filter()
            },
            EventFilter {
                venues: vec![5],
                ticketed: Some(true),
                ..filter()
            },
        ] {
            let mut keys = key_filters(&f).unwrap();
            let before = keys.clone();
            pair_flags(&mut keys);
            assert_eq!(keys, before);
        }
    }

    #[test]
    fn no_venue_near_the_point_matches_nothing() {
        let f = EventFilter {
            near_venues: Some(Vec::new()),
            ..filter()
        };
        assert_eq!(key_filters(&f), None);
    }
}
