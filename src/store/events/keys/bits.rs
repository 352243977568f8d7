//! A filter of several large terms counted by their bits (migration 32): one pass
//! over the window's events, each event's own key checked by the mask of the
//! filter's terms, instead of each value's range counted with every event of it
//! probed for the values before it ([`super::count`]), whose cost grows with the
//! values' events and, probe by probe, with how many values came before: six
//! unrelated categories of a million events read 900,000 keys in 2 s on
//! PostgreSQL. The pass reads each event of the window once, whatever the values.

use sea_query::{Expr, ExprTrait, IntoIden, Order, Query, SelectStatement, SimpleExpr};

use super::{Texts, aggregate_window, driver, listed_by};
use crate::domain::event::EventFilter;
use crate::domain::event_keys::{KeyFilter, KeyKind, TermMask};
use crate::store::schema::EventKeys;
use crate::store::{Backend, Conn, StoreError};

/// How many events of the window the mask passes over in the time a count by
/// values makes one of its lookups ([`super::Weighed::lookups`]): at a million
/// events, each lookup cost 0.5–0.8 µs on SQLite and 0.7–1 µs on PostgreSQL, each
/// event passed over 0.18 and 0.27 µs (the default window's 620,000 events: 110
/// and 170 ms).
pub(super) const SCANNED_PER_PROBE: u64 = 3;

/// The mask of the list's first filter when it is one of several terms, each with
/// a bit, whose count without the bits would make lookups enough (`lookups`) to cost
/// more than the mask's pass over the window ([`SCANNED_PER_PROBE`]); or one term
/// with a bit beside flags its rows do not carry, each looked up for each of its
/// events, where the per-day counts do not serve the list (the last page of a
/// category of 420,000 events with `featured=0&ticketed=0` at a million looked up
/// both flags for each: 1.5-1.8 s on PostgreSQL): the own keys carry both (migration
/// 41). The window's events are counted from the per-day counts, without the bounds
/// those do not serve (which can only narrow it): one statement.
pub(in crate::store::events) async fn driver_mask(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    lookups: u64,
) -> Result<Option<TermMask>, StoreError> {
    let Some(first) = keys.first() else {
        return Ok(None);
    };
    let Some(mask) = first.mask() else {
        return Ok(None);
    };
    let lookups = match flag_lookups(eq, keys) {
        Some(flags) => flags,
        None if first.kind == KeyKind::Term && first.may_repeat() => lookups,
        None => return Ok(None),
    };
    let wider = EventFilter {
        starts_before: None,
        ends_after: None,
        search_words: Vec::new(),
        include: Vec::new(),
        post_parent: None,
        ..eq.clone()
    };
    let scanned = match aggregate_window(&wider, &[KeyFilter::every()]) {
        Some(window) => crate::store::event_count::window(conn, &window).await?,
        // An author's own events are not counted apart.
        None => MASKED_WITHOUT_COUNT.saturating_mul(SCANNED_PER_PROBE),
    };
    if lookups.saturating_mul(SCANNED_PER_PROBE) < scanned {
        return Ok(None);
    }
    Ok(Some(mask))
}

/// The lookups of the flags of a list of one term and flags alone, when the per-day
/// counts serve neither its total nor its pages (a term with one flag unset): one
/// per flag for each of the term's events.
fn flag_lookups(eq: &EventFilter, keys: &[KeyFilter]) -> Option<u64> {
    let (first, flags) = keys.split_first()?;
    let alone = first.kind == KeyKind::Term
        && first.values.len() == 1
        && !flags.is_empty()
        && flags.iter().all(|k| k.kind.flag_bit().is_some())
        && super::count::unset_flag_windows(eq, keys).is_none();
    alone.then(|| {
        let flags = u64::try_from(flags.len()).unwrap_or(u64::MAX);
        first.events.unwrap_or(0).saturating_mul(flags)
    })
}

/// The lookups from which a window not counted is passed over with the mask (see
/// [`driver_mask`]): about what two categories of 100,000 and 200,000 events cost.
const MASKED_WITHOUT_COUNT: u64 = 200_000;

/// `COUNT(*)` of the list's events, its first filter (of terms) read as `mask`.
pub(in crate::store::events) fn masked_count(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    mask: TermMask,
) -> SelectStatement {
    let mut q = masked(backend, eq, keys, mask);
    q.expr(Expr::cust("COUNT(*)"));
    q
}

/// How deep a page of several terms with a mask must be for skipping along the
/// window's events with their bits to beat merging the values' ranges, which reads
/// `offset` events of each value: the mask is there only when the values' events
/// are many beside the window's (see [`driver_mask`]).
pub(in crate::store::events) const MASKED_PAGE_FROM: u64 = 100;

/// The IDs of a page of the list, its first filter (of terms) read as `mask`: the
/// window's events in list order, skipping `offset` of those with one of its bits.
pub(in crate::store::events) fn masked_page_ids(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    mask: TermMask,
    offset: u64,
) -> SelectStatement {
    let mut q = masked(backend, eq, keys, mask);
    q.column((driver(), EventKeys::EventId))
        .order_by((driver(), EventKeys::StartUtc), Order::Asc)
        .order_by((driver(), EventKeys::EventId), Order::Asc)
        .limit(eq.per_page)
        .offset(offset);
    q
}

/// The list's events as every event's own key in the window with one of the mask's
/// bits, the list's other filters probed for each (selecting nothing yet), from the
/// index of those keys with their bits ([`own_keys`]).
fn masked(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    mask: TermMask,
) -> SelectStatement {
    let mut q = Query::select();
    q.from_as(EventKeys::Table, driver());
    own_keys(&mut q);
    q.and_where(has_bits(driver(), mask));
    listed_by(
        &mut q,
        backend,
        eq,
        keys,
        Carried::TermsAndFlags,
        &keys[1..],
        Texts::InSet,
    );
    q
}

/// Names the driver's rows `d` as every event's own key by constants, as PostgreSQL's
/// index of the own keys with their bits names them (migrations 32 and 41): bound, the
/// kind and value do not tell its planner that the index holds them, and it reads the
/// primary key and each row's bits from the table.
pub(super) fn own_keys(q: &mut SelectStatement) {
    q.and_where(Expr::cust("d.kind = 0"))
        .and_where(Expr::cust("d.value = 0"));
}

/// What the rows of a driver carry of their events' other keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Carried {
    Nothing,
    /// The term bits: the events' term keys (migration 37).
    Terms,
    /// The term bits and the flag bits: the events' own keys (migrations 32 and 41).
    TermsAndFlags,
}

impl Carried {
    pub(super) fn terms(self) -> bool {
        self != Carried::Nothing
    }

    pub(super) fn flags(self) -> bool {
        self == Carried::TermsAndFlags
    }
}

/// What the rows of a driver of `key`'s kind carry.
pub(super) fn carried(key: &KeyFilter) -> Carried {
    match key.kind {
        KeyKind::Every => Carried::TermsAndFlags,
        KeyKind::Term => Carried::Terms,
        _ => Carried::Nothing,
    }
}

/// A filter of one flag (`featured=0`, `geoloc=1`) as the own key `alias`'s bit of
/// it (migration 41): no lookup of the flag's key.
pub(super) fn flag_on_row(alias: impl IntoIden, key: &KeyFilter) -> Option<SimpleExpr> {
    let bit = key.kind.flag_bit()?;
    let held = Expr::col((alias, EventKeys::FlagBits)).bit_and(bit);
    match key.values[..] {
        [1] => Some(held.ne(0)),
        [0] => Some(held.eq(0)),
        _ => None,
    }
}

/// Whether the own key `alias` holds one of the mask's bits: `(term_bits & m) <> 0`
/// for each word the mask sets, any of them.
pub(super) fn has_bits(alias: impl IntoIden + Clone, mask: TermMask) -> SimpleExpr {
    const WORDS: [EventKeys; TermMask::WORDS] = [
        EventKeys::TermBits,
        EventKeys::TermBits1,
        EventKeys::TermBits2,
        EventKeys::TermBits3,
    ];
    mask.words()
        .map(|(word, bits)| Expr::col((alias.clone(), WORDS[word])).bit_and(bits).ne(0))
        .reduce(|any, next| any.or(next))
        .unwrap_or_else(|| Expr::cust("FALSE"))
}
