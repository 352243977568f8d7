//! A keyed list's total: from per-day counts when it is one key's window, else
//! counted from the keys (each value's events the values before it did not have).

use std::collections::HashMap;

use sea_query::{
    Alias, Asterisk, Expr, ExprTrait, JoinType, Order, Query, SelectStatement, UnionType,
};

use super::{
    Texts, arms, bits, code, driver, has_key, has_key_probed, keyed, keyed_with, merged, merges,
};
use crate::domain::dates;
use crate::domain::event::{DAY_SECONDS, EventFilter};
use crate::domain::event_keys::{KeyFilter, KeyKind, pair_flags};
use crate::domain::post::{Status, Visibility};
use crate::store::event_count::KeyWindow;
use crate::store::schema::{EventKeys, TermAncestors, TermBits, Terms};
use crate::store::{Backend, Conn, StoreError};

/// The list's total as one key's window of per-day counts, when it is one: a plain
/// window (bounds below the start and above the end, and `starts_before` and
/// `ends_after` on UTC midnights, as a calendar page's days on a UTC site ask),
/// no search, `include` or parent, at most one key filter of one value among those
/// counted per day (every event, a term, a flag), for a caller whose view the
/// counts hold (an editor's, or a visitor's; an author's own unpublished posts are
/// not counted apart).
pub(in crate::store::events) fn aggregate_window(
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Option<KeyWindow> {
    // Bounds below the start and above the end; a side without one is open up to
    // the dates a post can have.
    let from = [eq.start_min, eq.starts_after.map(|t| t.saturating_add(1))]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(dates::EARLIEST);
    let to = [eq.end_max, eq.ends_before.map(|t| t.saturating_sub(1))]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(dates::LATEST);
    let midnight = |t: &Option<i64>| t.is_none_or(|t| t.rem_euclid(DAY_SECONDS) == 0);
    let plain = midnight(&eq.starts_before)
        && midnight(&eq.ends_after)
        && eq.search_words.is_empty()
        && eq.include.is_empty()
        && eq.post_parent.is_none();
    let key = match keys {
        [] => KeyFilter::every(),
        [only] if only.values.len() == 1 => only.clone(),
        _ => return None,
    };
    let counted_per_day = !matches!(key.kind, KeyKind::Venue | KeyKind::Organizer);
    if !plain || !counted_per_day {
        return None;
    }
    let asked: Vec<Status> = if eq.statuses.is_empty() {
        Status::ALL
            .into_iter()
            .filter(|s| *s != Status::Trash)
            .collect()
    } else {
        eq.statuses.clone()
    };
    let (statuses, due_by) = match eq.visibility {
        Visibility::All => (asked.iter().map(|s| s.as_str()).collect(), None),
        Visibility::Published => (
            if asked.contains(&Status::Publish) {
                vec![Status::Publish.as_str()]
            } else {
                Vec::new()
            },
            asked.contains(&Status::Future).then_some(eq.now_utc),
        ),
        Visibility::PublishedOrOwn(_) => return None,
    };
    Some(KeyWindow {
        kind: code(key.kind),
        value: key.values[0],
        statuses,
        unprotected_only: eq.visibility != Visibility::All && key.hides_protected(),
        from,
        to,
        before_day: eq.starts_before,
        ends_after_day: eq.ends_after,
        due_by,
    })
}

/// A term filter of one value with a flag asked unset (`featured=0`), in a window the
/// per-day counts serve: its total is the term's window less that of the term's keys
/// held by the flagged events (migration 18), where counting probed the flag for
/// each of the term's events (166 ms for a category of 300,000 events in the default
/// window at a million events).
pub(in crate::store::events) fn unset_flag_windows(
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Option<(KeyWindow, KeyWindow)> {
    let [term, flag] = keys else {
        return None;
    };
    let paired = flag.kind.with_terms()?;
    if term.kind != KeyKind::Term || term.values.len() != 1 || flag.values != [0] {
        return None;
    }
    let flagged = KeyFilter {
        kind: paired,
        ..term.clone()
    };
    Some((
        aggregate_window(eq, std::slice::from_ref(term))?,
        aggregate_window(eq, &[flagged])?,
    ))
}

/// Weighs the term filters by the terms' counts, each term with the terms below it
/// (an event of two of them counted twice), and pairs a set flag with the lightest
/// of them ([`pair_flags`]): the lighter of the first two term filters is read
/// first, and the driver's terms are put in the order [`count`] reads them best,
/// most events first. Returns the driver's weight when it is a filter of terms that
/// may meet an event twice.
pub(in crate::store::events) async fn weigh_terms(
    conn: &mut Conn,
    keys: &mut Vec<KeyFilter>,
) -> Result<Option<Weighed>, StoreError> {
    let terms: Vec<i64> = keys
        .iter()
        .filter(|k| k.kind == KeyKind::Term)
        .flat_map(|k| k.values.iter().copied())
        .collect();
    if terms.is_empty() {
        return Ok(None);
    }
    let (below, bits) = terms_below(conn, terms).await?;
    let mut weights: HashMap<i64, u64> = HashMap::new();
    for (term, _, count) in &below {
        *weights.entry(*term).or_default() += count;
    }
    for key in keys.iter_mut().filter(|k| k.kind == KeyKind::Term) {
        drop_descendants(key, &below);
    }
    let weight = |v: &i64| weights.get(v).copied().unwrap_or(0);
    for key in keys.iter_mut().filter(|k| k.kind == KeyKind::Term) {
        key.events = Some(key.values.iter().map(weight).sum());
    }
    pair_flags(keys);
    if let [first, second, ..] = &mut keys[..]
        && first.kind.of_terms()
        && second.kind.of_terms()
        && second.events < first.events
    {
        std::mem::swap(first, second);
    }
    if keys[0].kind.of_terms() && keys[0].may_repeat() {
        keys[0]
            .values
            .sort_by_key(|v| (std::cmp::Reverse(weight(v)), *v));
    }
    for key in keys.iter_mut().filter(|k| k.kind == KeyKind::Term) {
        key.bits = key
            .values
            .iter()
            .map(|v| bits.get(v).copied().flatten())
            .collect();
    }
    let first = &keys[0];
    if !first.kind.of_terms() || !first.may_repeat() {
        return Ok(None);
    }
    let later = first.values[1..].iter().map(weight);
    let probes = if first.mask().is_some() {
        // Each later value's range read once, its earlier values checked on its
        // rows' bits (migration 37): no lookup.
        later.sum::<u64>() / bits::SCANNED_PER_PROBE
    } else {
        (1u64..)
            .zip(later)
            .map(|(earlier, w)| earlier.saturating_mul(w))
            .sum()
    };
    Ok(first.events.map(|events| Weighed { events, probes }))
}

/// Each named term with each term below it (itself included) and that one's count.
type TermsBelow = Vec<(i64, i64, u64)>;
/// Each named term's bit, if it has one.
type TermBitsOf = HashMap<i64, Option<i64>>;

async fn terms_below(
    conn: &mut Conn,
    terms: Vec<i64>,
) -> Result<(TermsBelow, TermBitsOf), StoreError> {
    let (a, b) = (Alias::new("a"), Alias::new("b"));
    let mut bits = TermBitsOf::new();
    let below: TermsBelow = conn
        .query(
            Query::select()
                .column((a.clone(), TermAncestors::AncestorId))
                .column((a.clone(), TermAncestors::TermId))
                .column((Alias::new("t"), Terms::Count))
                .column((b.clone(), TermBits::Bit))
                .from_as(TermAncestors::Table, a.clone())
                .join_as(
                    JoinType::InnerJoin,
                    Terms::Table,
                    Alias::new("t"),
                    Expr::col((Alias::new("t"), Terms::Id))
                        .equals((a.clone(), TermAncestors::TermId)),
                )
                .join_as(
                    JoinType::LeftJoin,
                    TermBits::Table,
                    b.clone(),
                    Expr::col((b, TermBits::TermId)).equals((a.clone(), TermAncestors::AncestorId)),
                )
                .and_where(Expr::col((a, TermAncestors::AncestorId)).is_in(terms)),
            |r| {
                let named = r.i64(0)?;
                bits.insert(named, r.opt_i64(3)?);
                Ok((named, r.i64(1)?, u64::try_from(r.i64(2)?).unwrap_or(0)))
            },
        )
        .await?;
    Ok((below, bits))
}

/// A driver of several terms' weight: its terms' events (an event of two counted
/// twice), and the lookups counting it value by value makes ([`count`]: each
/// event of a value looked up once for each value before it).
#[derive(Clone, Copy, Debug)]
pub(in crate::store::events) struct Weighed {
    pub events: u64,
    pub probes: u64,
}

impl Weighed {
    /// Whether the driver's events are counted as a set of distinct events
    /// ([`distinct_count`]) rather than value by value ([`count`]), whose lookups
    /// grow with the values' events times the values before each: a hundred tags
    /// of a few thousand events each would make millions.
    pub fn counts_distinct(&self) -> bool {
        self.probes >= self.events.saturating_mul(PROBES_PER_DISTINCT_KEY)
    }

    /// What counting the driver without its terms' bits costs, in lookups: value
    /// by value, its probes; as a set, its keys, each about a lookup. Forty of the
    /// least used tags at a million events, each with a bit, are 60,000 keys: as a
    /// set, half the time of a pass over the default window's 620,000 events.
    pub fn lookups(&self) -> u64 {
        if self.counts_distinct() {
            self.events
        } else {
            self.probes
        }
    }
}

/// How many lookups a count value by value may make for each key of its values'
/// ranges before their events are counted as a set instead: a lookup costs
/// about what a key put in the set does (0.5-1 µs at a million events), and the
/// first value's range is often counted from the per-day counts, not read.
const PROBES_PER_DISTINCT_KEY: u64 = 2;

/// Drops from a filter of several terms those below another of them (`below`: each
/// term named, a term below it or itself, that one's count): a category's key is
/// held by the events of the categories below it too (migration 17), so the filter's
/// events are the same without them, and each value dropped is a range of keys the
/// list no longer reads and counts against the others (`categories=2,3` where 3 is
/// below 2 read both ranges, 560,000 and 163,000 keys at a million events, for the
/// events of 2 alone).
/// Of terms below each other both ways (a loop of parents, which the server refuses
/// to make but an import could hold), the first named is kept.
fn drop_descendants(key: &mut KeyFilter, below: &[(i64, i64, u64)]) {
    let is_below = |term: i64, other: i64| {
        term != other && below.iter().any(|(t, u, _)| *t == other && *u == term)
    };
    let mut kept: Vec<i64> = Vec::with_capacity(key.values.len());
    for &value in &key.values {
        if kept.iter().any(|&k| is_below(value, k)) {
            continue;
        }
        kept.retain(|&k| !is_below(k, value));
        kept.push(value);
    }
    key.values = kept;
}

/// `COUNT`s whose sum is the number of events a keyed list shows, in one statement.
/// With several values of a filter an event can meet more than once, each value
/// counts the events the values before it did not: the first value's range is
/// counted as it is, and each later one's events are probed for the earlier
/// values. Counting distinct IDs instead sorts every match (200 ms for the 260,000
/// events of two categories at a million events); this reads each range once and
/// probes only the later ones, so the largest value should come first.
pub(in crate::store::events) fn count(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> SelectStatement {
    count_up_to(backend, eq, keys, None)
}

/// `COUNT(*)` of the distinct events of a keyed list whose first filter has
/// several values an event can meet more than once: each key of the values' ranges
/// read once, its event put in a set (see [`Weighed::counts_distinct`]).
pub(in crate::store::events) fn distinct_count(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> SelectStatement {
    let mut events = keyed(backend, eq, keys);
    events.distinct().column((driver(), EventKeys::EventId));
    Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from_subquery(events, Alias::new("events"))
        .take()
}

/// [`count`], each of its `COUNT`s stopping past `limit` (when given): a sum past
/// `limit` is a floor.
pub(in crate::store::events) fn count_up_to(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    limit: Option<u64>,
) -> SelectStatement {
    if merges(backend, keys) {
        let mut merged = merged(backend, eq, keys);
        if let Some(limit) = limit {
            merged.limit(limit.saturating_add(1));
        }
        return Query::select()
            .expr(Expr::cust("COUNT(*)"))
            .from_subquery(merged, Alias::new("merged"))
            .take();
    }
    if !keys[0].may_repeat() {
        return counted(keyed(backend, eq, keys), limit);
    }
    value_counts(
        backend,
        eq,
        keys,
        0,
        (Probes::AsPlanned, Texts::InSet),
        |q| counted(q, limit),
    )
    .expect("a filter has a value")
}

/// The rows [`count_up_to`] counts, as each one's start and event, up to `limit + 1`
/// of each value of the driver, each value's in list order: the list's first
/// `limit` events are among them, so a count of at most `limit` keeps its page.
/// `None` for a driver whose values are merged ([`merges`]), which that count
/// reads as one range. `texts`: [`Texts::InSet`], or [`Texts::InMatched`].
pub(in crate::store::events) fn rows_up_to(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    limit: u64,
    texts: Texts,
) -> Option<SelectStatement> {
    if merges(backend, keys) {
        return None;
    }
    if !keys[0].may_repeat() {
        return Some(first_rows(keyed_with(backend, eq, keys, texts), limit));
    }
    value_counts(backend, eq, keys, 0, (Probes::AsPlanned, texts), |q| {
        first_rows(q, limit)
    })
}

/// The first `limit + 1` rows of `q` (which selects nothing yet) in list order, as
/// their start and event: a subquery, which a compound of several takes.
fn first_rows(mut q: SelectStatement, limit: u64) -> SelectStatement {
    q.column((driver(), EventKeys::StartUtc))
        .column((driver(), EventKeys::EventId))
        .order_by((driver(), EventKeys::StartUtc), Order::Asc)
        .order_by((driver(), EventKeys::EventId), Order::Asc)
        .limit(limit.saturating_add(1));
    Query::select()
        .column(Asterisk)
        .from_subquery(q, Alias::new("first"))
        .take()
}

/// How the counts of several values look up each event's earlier values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::store::events) enum Probes {
    /// As PostgreSQL plans it: an anti-join, by hash or merge when it expects both
    /// sides large. It expects a category's range to be less than half its size (a
    /// category of 555,000 keys, its subcategories' events included, taken for
    /// 238,000), and hashed it whole beside one of 11,000 events in the window:
    /// 175 ms, against 35 looked up one by one.
    AsPlanned,
    /// Each event's earlier values looked up by its key (see [`has_key_probed`]):
    /// about 3 µs each at a million events, where a hash costs 0.3 µs for each key
    /// of the earlier values' whole range.
    EachEvent,
}

/// `COUNT(*)` of the rows of `q` (which selects nothing yet), up to `limit + 1`.
fn counted(mut q: SelectStatement, limit: Option<u64>) -> SelectStatement {
    let Some(limit) = limit else {
        q.expr(Expr::cust("COUNT(*)"));
        return q;
    };
    q.expr(Expr::cust("1")).limit(limit.saturating_add(1));
    Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from_subquery(q, Alias::new("counted"))
        .take()
}

/// The counts of [`count_up_to`] from the `skip`-th value of the driver on: each
/// value's events that no value before it has, read by `tally` (a count, or the
/// rows), its words checked as `texts` says. `None` when no value is left.
fn value_counts(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    skip: usize,
    (probes, texts): (Probes, Texts),
    tally: impl Fn(SelectStatement) -> SelectStatement,
) -> Option<SelectStatement> {
    let mut counts = arms(keys)
        .into_iter()
        .enumerate()
        .skip(skip)
        .map(|(i, arm)| {
            let mut q = keyed_with(backend, eq, &arm, texts);
            if let Some(mask) = keys[0]
                .mask_of_first(i)
                .filter(|_| bits::carried(&keys[0]).terms())
            {
                // The earlier values' bits on the value's own rows (migration 37).
                q.and_where(bits::has_bits(driver(), mask).not());
            } else if i > 0 {
                let earlier = KeyFilter {
                    kind: keys[0].kind,
                    values: keys[0].values[..i].to_vec(),
                    events: None,
                    bits: Vec::new(),
                };
                let held = match probes {
                    // With the window's dates on PostgreSQL, which reads (or hashes)
                    // only the earlier values' keys inside it, not their whole ranges.
                    Probes::AsPlanned => has_key(backend, &earlier, Some(eq)),
                    Probes::EachEvent => has_key_probed(backend, &earlier),
                };
                q.and_where(held.not());
            }
            tally(q)
        });
    let mut first = counts.next()?;
    for q in counts {
        first.union(UnionType::All, q);
    }
    Some(first)
}

/// A list of several values of one filter (two categories, two tags) whose
/// values the per-day counts each serve alone: their windows, the first value's
/// first. The first value is the largest ([`weigh_terms`]), so its range, the one a
/// plain count would read one row at a time (410,000 events of a category at a
/// million: 40 ms), is not read: its window's count and [`other_value_counts`]
/// make the total.
pub(in crate::store::events) fn value_windows(
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Option<Vec<KeyWindow>> {
    if keys.len() != 1 || !keys[0].may_repeat() {
        return None;
    }
    each_value_window(eq, &keys[0])
}

/// The per-day counts' window of each of `key`'s values alone, with the list's
/// other conditions; `None` if they do not serve one of them.
pub(in crate::store::events) fn each_value_window(
    eq: &EventFilter,
    key: &KeyFilter,
) -> Option<Vec<KeyWindow>> {
    key.values
        .iter()
        .map(|value| {
            let one = KeyFilter {
                kind: key.kind,
                values: vec![*value],
                events: None,
                bits: Vec::new(),
            };
            aggregate_window(eq, std::slice::from_ref(&one))
        })
        .collect()
}

/// The counts of the events of a filter's values after the first that no value
/// before them holds (see [`value_windows`]).
pub(in crate::store::events) fn other_value_counts(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    probes: Probes,
) -> SelectStatement {
    value_counts(backend, eq, keys, 1, (probes, Texts::InSet), |q| {
        counted(q, None)
    })
    .expect("several values")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_below_another_one_named_is_dropped() {
        let mut key = KeyFilter {
            kind: KeyKind::Term,
            values: vec![3, 2, 7],
            events: None,
            bits: Vec::new(),
        };
        // 3 is below 2; 7 is below 9, which is not named.
        let below = [(2, 2, 10), (2, 3, 5), (3, 3, 5), (7, 7, 1), (9, 7, 1)];
        drop_descendants(&mut key, &below);
        assert_eq!(key.values, [2, 7]);
        // A loop keeps the first of its terms named, never none.
        let mut looped = KeyFilter {
            kind: KeyKind::Term,
            values: vec![5, 4, 8],
            events: None,
            bits: Vec::new(),
        };
        let below = [(4, 4, 1), (4, 5, 1), (5, 5, 1), (5, 4, 1), (8, 8, 1)];
        drop_descendants(&mut looped, &below);
        assert_eq!(looped.values, [5, 8]);
    }
}
