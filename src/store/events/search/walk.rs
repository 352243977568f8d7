//! The window read in list order: the probe of its first events, and the walks
//! that count its matches or find a page of them, each event's text read as it is
//! reached.

use sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, FunctionCall, Order, Query, SelectStatement,
    SimpleExpr, UnionType,
};

use super::{bounded_count, unsearched, without_every_driver};
use crate::domain::event::EventFilter;
use crate::domain::event_keys::{KeyFilter, KeyKind};
use crate::store::events::keys::{self, Texts, after_row, keyed_with};
use crate::store::events::list::start_range;
use crate::store::events::words::{text_on_row, text_row};
use crate::store::posts::col;
use crate::store::schema::{EventKeys, Posts};
use crate::store::{Backend, Conn, StoreError};

/// How many times the events the probe's rate expects to hold a page a bounded
/// walk of several values reads (see [`walked_page`]), and at least how many.
const WALK_MARGIN: u64 = 4;
const MIN_WALKED_ROWS: u64 = 200;

/// The window's first events, as the probe read them.
pub(in crate::store::events) struct Probed {
    /// How many events it asked for: the window's first so many.
    pub(super) rows: u64,
    /// Whether they are all the window's events (fewer than `rows` exist).
    pub(super) whole_window: bool,
    /// The IDs of those whose text holds the words, in list order.
    pub(super) hits: Vec<i64>,
    /// The last event read (start, ID): a walk goes on after it.
    pub(super) last: Option<(i64, i64)>,
    /// How many of its last events (at most [`TAIL_ROWS`]) it read with their
    /// match told, and how many of those match: whether the words are as frequent
    /// at its end as over it (none told of a grid's first events read alone).
    pub(super) tail_rows: u64,
    pub(super) tail_hits: u64,
}

/// The events at the end of a probe whose matches tell whether the words run on
/// past its first events ([`Probed::tail_hits`]).
const TAIL_ROWS: usize = 100;

impl Probed {
    pub(super) fn matched(&self) -> u64 {
        u64::try_from(self.hits.len()).unwrap_or(u64::MAX)
    }
}

/// The window's first `rows` events, each one's text checked; those `first` read
/// (a grid's probe, see `grid::probe`) are not read again.
pub(super) async fn probe(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    rows: u64,
    first: Option<Probed>,
) -> Result<Probed, StoreError> {
    let first = match first {
        Some(f) if f.whole_window || f.rows >= rows => return Ok(f),
        Some(f) => f,
        None => Probed {
            rows: 0,
            whole_window: false,
            hits: Vec::new(),
            last: None,
            tail_rows: 0,
            tail_hits: 0,
        },
    };
    let asked = rows - first.rows;
    let backend = conn.backend();
    let next = first_rows(backend, eq, keys, first.last, asked);
    // The text is read outside the first rows' query: a driver that is sorted
    // (several values) would otherwise read it for every row it sorts.
    let mut q = Query::select();
    q.column((Alias::new("d"), EventKeys::StartUtc))
        .column((Alias::new("d"), EventKeys::EventId))
        .expr(text_row(backend, text_on_row(backend, eq)))
        .from_subquery(next, Alias::new("d"));
    by_start(&mut q);
    let read = conn
        .query(&q, |r| Ok((r.i64(0)?, r.i64(1)?, r.bool(2)?)))
        .await?;
    let mut hits = first.hits;
    hits.extend(read.iter().filter(|r| r.2).map(|r| r.1));
    let tail = &read[read.len().saturating_sub(TAIL_ROWS)..];
    let as_u64 = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    Ok(Probed {
        rows,
        whole_window: as_u64(read.len()) < asked,
        hits,
        last: read.last().map(|r| (r.0, r.1)).or(first.last),
        tail_rows: as_u64(tail.len()),
        tail_hits: as_u64(tail.iter().filter(|r| r.2).count()),
    })
}

/// The (start, ID) of the window's first `rows` events after `after` (from its
/// first if `None`), in list order.
fn first_rows(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    after: Option<(i64, i64)>,
    rows: u64,
) -> SelectStatement {
    // The window's first events are the same whichever filter drives. Driven by
    // every event's key, a filter of many terms' events probed on each
    // (`list::searched_keys`), PostgreSQL sorted the terms' rows of the window to
    // merge them (two tags of 165,000 events with `jazz` at a million: 36 ms of a
    // 160 ms request, 74 ms without); each term's first events are read from its
    // own range in list order instead, and merged.
    let keys = without_every_driver(eq, keys);
    if keys[0].may_repeat() {
        // Each value's first events, merged: sorting the window's events first
        // (two tags of 165,000 events in the default window at a million) cost more
        // than the probe.
        return keys::first_merged(backend, &unsearched(eq), keys, after, rows);
    }
    let mut first = in_order(backend, &unsearched(eq), keys);
    after_row(&mut first, after);
    first.limit(rows);
    first
}

/// Which of the window's first `rows` events match, up to `limit` of them in no
/// order, each as (1, start, ID), its text read until the last of them; then the
/// window's events `rows` and `rows + 1` in list order, each as (0, start, ID),
/// their text unread: the last event read, and whether the window goes on.
pub(super) fn first_hits(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    rows: u64,
    limit: u64,
) -> SelectStatement {
    let d = Alias::new("d");
    let mut matched = Query::select();
    // Tagged as a 64-bit integer on both databases (PostgreSQL's `1` is 32-bit).
    matched
        .expr(Expr::cust("CAST(1 AS BIGINT)"))
        .column((d.clone(), EventKeys::StartUtc))
        .column((d.clone(), EventKeys::EventId))
        .from_subquery(first_rows(backend, eq, keys, None, rows), d.clone())
        .and_where(text_row(backend, text_on_row(backend, eq)))
        .limit(limit);
    let mut next = Query::select();
    next.expr(Expr::cust("CAST(0 AS BIGINT)"))
        .column((d.clone(), EventKeys::StartUtc))
        .column((d.clone(), EventKeys::EventId))
        .from_subquery(
            first_rows(backend, eq, keys, None, rows.saturating_add(1)),
            d,
        );
    by_start(&mut next);
    next.limit(2).offset(rows.saturating_sub(1));
    // Wrapped: SQLite takes no `ORDER BY` or `LIMIT` in an arm of a compound.
    let wrapped = |q: SelectStatement, name: &str| {
        Query::select()
            .column(Asterisk)
            .from_subquery(q, Alias::new(name))
            .take()
    };
    let mut q = wrapped(matched, "matched");
    q.union(UnionType::All, wrapped(next, "next"));
    q
}

/// How many later starts, spread evenly over a window after its first events,
/// [`matched_throughout`] samples, and how many events from each.
const SAMPLED_STARTS: i64 = 2;
pub(super) const SAMPLED_ROWS: u64 = 100;

/// Whether the words match `matches` or more of the first [`SAMPLED_ROWS`] events
/// from each of [`SAMPLED_STARTS`] starts spread evenly over the window's events
/// ([`sampled_range`]; `true` when none is in it). A probe's rate is of the
/// window's first events: a word common there alone (a festival's) would have a
/// walk read the rest of the window for matches it does not hold, where the index
/// finds them at once.
pub(super) async fn matched_throughout(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    matches: u64,
) -> Result<bool, StoreError> {
    let Some((first, last)) = sampled_range(conn, eq).await? else {
        return Ok(true);
    };
    let step = (last - first) / (SAMPLED_STARTS + 1);
    // Each sample's start bounds its window's start: a second bound beside the
    // window's own, SQLite ranged over the first and filtered to the second (the
    // default window's last third with `salsa` at a million events: 67 ms).
    let samples: Vec<EventFilter> = (1..=SAMPLED_STARTS)
        .map(|n| EventFilter {
            start_min: Some(first + n * step),
            ..eq.clone()
        })
        .collect();
    let q = matched_in(conn.backend(), &samples, keys, matches);
    let counts = conn
        .one_plan()
        .query_one(&q, |r| {
            (0..samples.len())
                .map(|i| r.i64(i))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(counts
        .iter()
        .all(|n| u64::try_from(*n).unwrap_or(0) >= matches))
}

/// The starts the samples of `eq`'s window are spread over: its dates, within the
/// first and last start of the calendar's events, `None` when none is inside. Spread
/// over its dates alone, every date (2000 to 2100) put both samples where no event
/// is, and an unbounded window took none: `quiet` (an event in twelve) over every date
/// at a million events, counted from the index for want of matches in empty samples,
/// 67-77 ms on PostgreSQL, walked 27-29.
async fn sampled_range(
    conn: &mut Conn,
    eq: &EventFilter,
) -> Result<Option<(i64, i64)>, StoreError> {
    let bound = |f: fn(Expr) -> FunctionCall| {
        let every = keys::code(KeyKind::Every);
        let q = Query::select()
            .expr(f(Expr::col(EventKeys::StartUtc)))
            .from(EventKeys::Table)
            .and_where(Expr::col(EventKeys::Kind).eq(every))
            .and_where(Expr::col(EventKeys::Value).eq(0))
            .take();
        SimpleExpr::SubQuery(None, Box::new(q.into()))
    };
    let q = Query::select()
        .expr(bound(Func::min))
        .expr(bound(Func::max))
        .take();
    let (earliest, latest) = conn
        .query_one(&q, |r| Ok((r.opt_i64(0)?, r.opt_i64(1)?)))
        .await?;
    let (Some(earliest), Some(latest)) = (earliest, latest) else {
        return Ok(None);
    };
    let (first, last) = start_range(eq);
    let first = first.map_or(earliest, |f| Ord::max(f, earliest));
    let last = last.map_or(latest, |l| Ord::min(l, latest));
    Ok((first < last).then_some((first, last)))
}

/// How many of the first [`SAMPLED_ROWS`] events of each list of `eqs` match, up
/// to `limit` each, each one's text read until the last of them: one row, a count
/// for each.
fn matched_in(
    backend: Backend,
    eqs: &[EventFilter],
    keys: &[KeyFilter],
    limit: u64,
) -> SelectStatement {
    let mut counts = Query::select();
    for eq in eqs {
        let mut matched = Query::select();
        matched
            .expr(Expr::cust("1"))
            .from_subquery(
                first_rows(backend, eq, keys, None, SAMPLED_ROWS),
                Alias::new("d"),
            )
            .and_where(text_row(backend, text_on_row(backend, eq)));
        let count = bounded_count(matched, limit.saturating_sub(1));
        counts.expr(SimpleExpr::SubQuery(None, Box::new(count.into())));
    }
    counts
}

/// The window's events after `after` (a start and an ID; all of them if `None`) in
/// list order, each one's text read as it is reached. A driver of several values is
/// sorted first, its text unread: in one statement, PostgreSQL reads the text of
/// every row it sorts (two tags of 61,000 events with `the`: 1.1 s at a million
/// events).
///
/// `within`: for a driver of several values, only the next so many events, each
/// value's merged in list order without sorting the window (see
/// [`walked_page`]).
fn walk(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    after: Option<(i64, i64)>,
    within: Option<u64>,
) -> SelectStatement {
    if !keys[0].may_repeat() {
        let mut q = keyed_with(backend, eq, keys, Texts::OnRow);
        after_row(&mut q, after);
        by_start(&mut q);
        return q;
    }
    let sorted = if let Some(rows) = within {
        keys::first_merged(backend, &unsearched(eq), keys, after, rows)
    } else {
        let mut sorted = in_order(backend, &unsearched(eq), keys);
        after_row(&mut sorted, after);
        // A limit keeps the sort a subquery of its own (PostgreSQL would pull it up).
        sorted.limit(i64::MAX.unsigned_abs());
        sorted
    };
    let mut q = Query::select();
    q.from_subquery(sorted, Alias::new("d"))
        .and_where(text_row(backend, text_on_row(backend, eq)));
    by_start(&mut q);
    q
}

/// The (start, ID) of the window's events, in list order, each once: a driver of
/// several values (two tags) meets an event of two of them twice, and drops the
/// second once sorted.
fn in_order(backend: Backend, eq: &EventFilter, keys: &[KeyFilter]) -> SelectStatement {
    let d = Alias::new("d");
    let mut q = keyed_with(backend, eq, keys, Texts::OnRow);
    q.column((d.clone(), EventKeys::StartUtc))
        .column((d, EventKeys::EventId));
    if keys[0].may_repeat() {
        q.distinct();
    }
    by_start(&mut q);
    q
}

/// List order, on the rows named `d`.
fn by_start(q: &mut SelectStatement) {
    let d = Alias::new("d");
    q.order_by((d.clone(), EventKeys::StartUtc), Order::Asc)
        .order_by((d, EventKeys::EventId), Order::Asc);
}

/// The matches of the window after its first `skipped` events, among the next
/// `rows` of them (all when `None`), counted up to `limit`: the skipped events'
/// text is not read.
pub(super) fn walk_count_after(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    (skipped, rows): (u64, Option<u64>),
    limit: u64,
) -> SelectStatement {
    let mut rest = in_order(backend, &unsearched(eq), keys);
    rest.limit(rows.unwrap_or(i64::MAX.unsigned_abs()))
        .offset(skipped);
    let mut q = Query::select();
    q.expr(Expr::cust("1"))
        .from_subquery(rest, Alias::new("d"))
        .and_where(text_row(backend, text_on_row(backend, eq)));
    bounded_count(q, limit)
}

/// The IDs and starts of the window's first `n` matches, in list order, each
/// event's text read as it is reached; `None` for a driver of several values,
/// whose window would be sorted whole first.
pub(super) fn first_matches(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    n: u64,
) -> Option<SelectStatement> {
    if keys[0].may_repeat() {
        return None;
    }
    let mut q = walk(backend, eq, keys, None, None);
    q.column((Alias::new("d"), EventKeys::EventId))
        .column((Alias::new("d"), EventKeys::StartUtc))
        .limit(n);
    Some(q)
}

/// A page of the window's matches in list order: those the probe found first, then
/// a walk on from the last event it read. The probe's events are not read again
/// (each is a lookup of its text, 5-10 µs at a million events): a rare word's
/// first page is often all in them.
pub(super) fn walk_page(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    probed: &Probed,
    offset: u64,
    within: Option<u64>,
) -> SelectStatement {
    let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let known: Vec<i64> = probed
        .hits
        .iter()
        .copied()
        .skip(to_usize(offset))
        .take(to_usize(eq.per_page))
        .collect();
    let rest = eq
        .per_page
        .saturating_sub(u64::try_from(known.len()).unwrap_or(u64::MAX));
    let mut listed = listed(known.iter().copied());
    if rest == 0 || probed.whole_window {
        return listed;
    }
    let mut walked = walk(backend, eq, keys, probed.last, within);
    walked
        .column((Alias::new("d"), EventKeys::EventId))
        .limit(rest)
        .offset(offset.saturating_sub(probed.matched()));
    if known.is_empty() {
        return walked;
    }
    // Wrapped: SQLite takes no `ORDER BY` or `LIMIT` in an arm of a compound.
    let walked = Query::select()
        .column(Asterisk)
        .from_subquery(walked, Alias::new("walked"))
        .take();
    listed.union(UnionType::All, walked);
    listed
}

/// A page of the window's matches walked ([`walk_page`]). A driver of several
/// values walks each value's next `expected_rows × WALK_MARGIN` events merged in
/// list order first, as many as the probe's rate says hold the page and some more:
/// sorting the rest of the window instead cost 58 ms for two tags of 82,000 events
/// with `jazz` at a million, to read 203 of them. Only when those events hold too
/// few matches for the page is the window sorted.
pub(super) async fn walked_page(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    probed: &Probed,
    offset: u64,
    expected_rows: u64,
) -> Result<SelectStatement, StoreError> {
    let backend = conn.backend();
    let whole = walk_page(backend, eq, keys, probed, offset, None);
    let known = u64::try_from(
        probed
            .hits
            .len()
            .saturating_sub(usize::try_from(offset).unwrap_or(usize::MAX)),
    )
    .unwrap_or(u64::MAX);
    if !keys[0].may_repeat() || probed.whole_window || known >= eq.per_page {
        return Ok(whole);
    }
    let rows = Ord::max(expected_rows.saturating_mul(WALK_MARGIN), MIN_WALKED_ROWS);
    let within = walk_page(backend, eq, keys, probed, offset, Some(rows));
    let ids = conn.query(&within, |r| r.i64(0)).await?;
    if u64::try_from(ids.len()).unwrap_or(0) < eq.per_page {
        return Ok(whole);
    }
    Ok(listed(ids))
}

/// The IDs of the posts `ids`, as a set (the caller orders the page).
fn listed(ids: impl IntoIterator<Item = i64>) -> SelectStatement {
    Query::select()
        .column((Posts::Table, Posts::Id))
        .from(Posts::Table)
        .and_where(col(Posts::Id).is_in(ids))
        .take()
}
