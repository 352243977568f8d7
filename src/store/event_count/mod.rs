//! Counting the events of a window without visiting each, from per-day counts.
//!
//! `event_key_days` holds, per key (every event, a term, a flag), status, password
//! state and (start day, end day) pair of UTC days, how many events not hidden from
//! listings there are; triggers on `event_keys` keep it exact through every write
//! (migration 7). The count of a window `start ≥ from, end ≤ to` is then
//!
//! - the events of the pairs strictly inside the window, summed: from their blocks
//!   of 32 days (`event_key_blocks`, migration 20) where a block's pairs are all
//!   inside, and from the day pairs themselves in the partial blocks at each end;
//! - plus the events that start on its first day or end on its last day, scanned
//!   from the key's rows where those days are only partly inside, and summed from
//!   their day pairs where the window holds them whole (a window from a midnight to
//!   the last second of a day, UTC, as the default list's is on a UTC site);
//! - plus, for visitors, the scheduled events already past their date, which they
//!   see too although their status is not `publish` (the scheduler publishes them
//!   before a read; this covers the moment it could not): few, and the status index
//!   of `posts` leads to them.
//!
//! A window also bounded by `start <` a UTC midnight and `end >` one (the events
//! running on a day, as a calendar page asks) sums the pairs of those days too, and
//! takes away the events that end on the second of that midnight ([`midnight_ends`]);
//! a bounded window of whole days is one range of pairs ([`whole_days`]). The
//! days of a month's grid are counted so all at once (`running_days`).
//!
//! So a list's total does not grow with the events of its window: at a million
//! events, counting the 620,000 of the default window one by one took 40–50 ms.

mod running_days;

pub(in crate::store) use running_days::running_days;

use sea_query::{Alias, Expr, ExprTrait, Func, Query, SelectStatement, UnionType};

use super::posts::col;
use super::schema::{EventKeyBlocks, EventKeyDays, EventKeys, Posts};
use super::{Backend, Conn, StoreError};
use crate::domain::changes::Seen;
use crate::domain::event::{DAY_SECONDS, utc_day};
use crate::domain::post::{PostType, Status};

/// One key's events in a window, as a list asks for them.
#[derive(Clone, Debug)]
pub(in crate::store) struct KeyWindow {
    /// The key's stored kind and value (0, 0: every event).
    pub kind: i64,
    pub value: i64,
    /// The statuses counted.
    pub statuses: Vec<&'static str>,
    /// Only events without a password (a filter on a field a password hides, for a
    /// caller who may not read protected events).
    pub unprotected_only: bool,
    /// `start ≥ from`, `end ≤ to` (and so `start ≤ to`).
    pub from: i64,
    pub to: i64,
    /// And `start <` this start of a day: a list's `starts_before` on a UTC
    /// midnight, or the day a page starts at (the events before it counted).
    pub before_day: Option<i64>,
    /// And `end >` this start of a day: a list's `ends_after` on a UTC midnight,
    /// the events still running after it (see [`midnight_ends`]).
    pub ends_after_day: Option<i64>,
    /// Also count scheduled events whose date is at or before this instant.
    pub due_by: Option<i64>,
}

/// The number of events of all the windows (an event in two counted twice), one
/// statement each.
pub(in crate::store) async fn windows(
    conn: &mut Conn,
    ws: &[KeyWindow],
) -> Result<u64, StoreError> {
    let mut events = 0u64;
    for w in ws {
        events = events.saturating_add(window(conn, w).await?);
    }
    Ok(events)
}

/// The number of events of the window, in one statement.
pub(in crate::store) async fn window(conn: &mut Conn, w: &KeyWindow) -> Result<u64, StoreError> {
    let Some(all) = union(parts(w)) else {
        return Ok(0);
    };
    let counts = conn.query(&all, |r| r.i64(0)).await?;
    Ok(events_of(counts))
}

/// As [`window`], with the writes the count saw: its statement's snapshot on
/// PostgreSQL, the data version its snapshot holds on SQLite (`calendar_version`,
/// written by each commit). `None` for an empty window.
pub(in crate::store) async fn window_seen(
    conn: &mut Conn,
    w: &KeyWindow,
) -> Result<(u64, Option<Seen>), StoreError> {
    let seen = Expr::cust(match conn.backend() {
        Backend::Postgres => "pg_current_snapshot()::text",
        Backend::Sqlite => "CAST((SELECT version FROM calendar_version) AS TEXT)",
    });
    let parts = parts(w).into_iter().map(|mut part| {
        part.expr(seen.clone());
        part
    });
    let Some(all) = union(parts.collect()) else {
        return Ok((0, None));
    };
    let rows = conn.query(&all, |r| Ok((r.i64(0)?, r.string(1)?))).await?;
    let seen = rows.first().and_then(|(_, text)| Seen::parse(text));
    Ok((events_of(rows.into_iter().map(|(n, _)| n).collect()), seen))
}

/// The statements whose counts add up to the window's events.
fn parts(w: &KeyWindow) -> Vec<SelectStatement> {
    let mut parts: Vec<SelectStatement> = Vec::new();
    if w.to < w.from {
        return parts;
    }
    if !w.statuses.is_empty() {
        match whole_days(w) {
            Some(all) => parts.push(all),
            None => {
                parts.extend(inner(w));
                parts.extend([first_day(w), last_day(w)]);
            }
        }
        parts.extend(midnight_ends(w));
    }
    if let Some(now) = w.due_by {
        parts.push(due(w, now));
    }
    parts
}

pub(in crate::store) fn union(parts: Vec<SelectStatement>) -> Option<SelectStatement> {
    let mut parts = parts.into_iter();
    let mut all = parts.next()?;
    for part in parts {
        all.union(UnionType::All, part);
    }
    Some(all)
}

/// The sum of the parts' counts, one of which may take events away
/// ([`midnight_ends`]).
fn events_of(counts: Vec<i64>) -> u64 {
    let sum = counts.into_iter().fold(0i64, i64::saturating_add);
    u64::try_from(sum).unwrap_or(0)
}

/// The key's per-day counts, of the statuses and password states counted, and
/// of the end days running past the window's `ends_after_day` if it has one.
fn days(w: &KeyWindow) -> SelectStatement {
    let mut q = key_counts(EventKeyDays::Table, w);
    if let Some(day) = w.ends_after_day {
        q.and_where(Expr::col(EventKeyDays::EndDay).gte(utc_day(day)));
    }
    q
}

/// The key's rows of `table`, one of the counts (`event_key_days`,
/// `event_key_blocks`), which name their key's columns alike.
fn key_counts(table: impl sea_query::IntoIden, w: &KeyWindow) -> SelectStatement {
    let mut q = Query::select();
    q.from(table)
        .and_where(Expr::col(EventKeyDays::Kind).eq(w.kind))
        .and_where(Expr::col(EventKeyDays::Value).eq(w.value))
        .and_where(Expr::col(EventKeyDays::Status).is_in(w.statuses.iter().copied()))
        .and_where(Expr::col(EventKeyDays::Protected).is_in(password_states(w)));
    q
}

/// The password states counted, named even when both are: the keys' indexes then
/// seek each one's range of days instead of reading every day of the key.
fn password_states(w: &KeyWindow) -> Vec<bool> {
    if w.unprotected_only {
        vec![false]
    } else {
        vec![false, true]
    }
}

/// The events of the counts' rows selected, as a `BIGINT` on both backends
/// (PostgreSQL's `SUM` of one is a `NUMERIC`).
const SUM_OF_EVENTS: &str = "CAST(COALESCE(SUM(events), 0) AS BIGINT)";

/// How many days a block of `event_key_blocks` spans (migration 20).
const BLOCK_DAYS: i64 = 32;

/// The key's per-block counts, as [`days`].
fn blocks(w: &KeyWindow) -> SelectStatement {
    key_counts(EventKeyBlocks::Table, w)
}

/// The key's rows (alias `d`), of the statuses and password states counted.
fn rows(w: &KeyWindow) -> SelectStatement {
    let d = |c: EventKeys| Expr::col((Alias::new("d"), c));
    let mut q = Query::select();
    q.expr(Expr::cust("COUNT(*)"))
        .from_as(EventKeys::Table, Alias::new("d"))
        .and_where(d(EventKeys::Kind).eq(w.kind))
        .and_where(d(EventKeys::Value).eq(w.value))
        .and_where(d(EventKeys::Hidden).eq(false))
        .and_where(d(EventKeys::Status).is_in(w.statuses.iter().copied()));
    if w.unprotected_only {
        q.and_where(d(EventKeys::Protected).eq(false));
    }
    if let Some(day) = w.ends_after_day {
        // As the per-day counts read it: from the day's first second on.
        q.and_where(end().gte(day));
    }
    q
}

fn start() -> Expr {
    Expr::col((Alias::new("d"), EventKeys::StartUtc))
}

fn end() -> Expr {
    Expr::col((Alias::new("d"), EventKeys::EndUtc))
}

/// The statements summing the pairs strictly inside the window (see [`inner_days`]):
/// those of the blocks wholly inside it, then those of the partial blocks at its
/// start and at its end, day by day. A window without a whole block inside, or
/// cut short by a day, sums its day pairs.
fn inner(w: &KeyWindow) -> Vec<SelectStatement> {
    let (first_day, last_day) = (utc_day(w.from), utc_day(w.to));
    // Blocks wholly after the first day and before the last.
    let first_block = first_day.div_euclid(BLOCK_DAYS) + 1;
    let last_block = last_day.div_euclid(BLOCK_DAYS) - 1;
    let bounded = w.before_day.is_some() || w.ends_after_day.is_some();
    if bounded || last_block < first_block {
        return vec![inner_days(w)];
    }
    let (head_end, tail_start) = (
        first_block.saturating_mul(BLOCK_DAYS),
        (last_block + 1).saturating_mul(BLOCK_DAYS),
    );
    let mut inside = blocks(w);
    inside
        .expr(Expr::cust(SUM_OF_EVENTS))
        .and_where(Expr::col(EventKeyBlocks::EndBlock).gte(first_block))
        .and_where(Expr::col(EventKeyBlocks::EndBlock).lte(last_block))
        .and_where(Expr::col(EventKeyBlocks::StartBlock).gte(first_block));
    // Pairs starting in the first partial block and ending before the last one: a
    // range of start days (`event_key_days_by_start`). `+ 0` keeps the planners off
    // the end day's range, which is the whole window.
    let mut head = days(w);
    head.expr(Expr::cust(SUM_OF_EVENTS))
        .and_where(Expr::col(EventKeyDays::StartDay).gt(first_day))
        .and_where(Expr::col(EventKeyDays::StartDay).lt(head_end))
        .and_where(Expr::col(EventKeyDays::EndDay).add(0).lt(tail_start));
    // Pairs ending in the last partial block, having started after the first day: a
    // range of end days.
    let mut tail = days(w);
    tail.expr(Expr::cust(SUM_OF_EVENTS))
        .and_where(Expr::col(EventKeyDays::EndDay).gte(tail_start))
        .and_where(Expr::col(EventKeyDays::EndDay).lt(last_day))
        .and_where(Expr::col(EventKeyDays::StartDay).add(0).gt(first_day));
    vec![inside, head, tail]
}

/// A bounded window (`before_day`, `ends_after_day`) of whole days, from a midnight
/// to a day's last second, as a calendar page's days are on a site in UTC: every
/// bound is a day, so its events are those of its pairs, summed in one range of
/// start days: one part, not three, where PostgreSQL plans the compound at each
/// request and each part adds to that.
fn whole_days(w: &KeyWindow) -> Option<SelectStatement> {
    let bounded = w.before_day.is_some() || w.ends_after_day.is_some();
    if !bounded || !whole_first_day(w) || !whole_last_day(w) {
        return None;
    }
    // A midnight: the window's end is a day's last second, `before_day` a midnight.
    let start_limit_day = utc_day(start_limit(w));
    let mut q = days(w);
    q.expr(Expr::cust(SUM_OF_EVENTS))
        .and_where(Expr::col(EventKeyDays::StartDay).gte(utc_day(w.from)))
        .and_where(Expr::col(EventKeyDays::StartDay).lt(start_limit_day))
        .and_where(Expr::col(EventKeyDays::EndDay).lte(utc_day(w.to)));
    Some(q)
}

/// Pairs strictly inside: start after the first day, end before the last. Since no
/// event ends before it starts, these also start before the last day.
fn inner_days(w: &KeyWindow) -> SelectStatement {
    let (first_day, last_day) = (utc_day(w.from), utc_day(w.to));
    let mut q = days(w);
    q.expr(Expr::cust(SUM_OF_EVENTS))
        .and_where(Expr::col(EventKeyDays::EndDay).gt(first_day))
        .and_where(Expr::col(EventKeyDays::EndDay).lt(last_day))
        .and_where(Expr::col(EventKeyDays::StartDay).gt(first_day));
    if let Some(day) = w.before_day {
        q.and_where(Expr::col(EventKeyDays::StartDay).lt(utc_day(day)));
    }
    q
}

/// The exclusive upper bound of the starts counted: the window's end, or the day
/// the count stops at.
fn start_limit(w: &KeyWindow) -> i64 {
    let end = w.to.saturating_add(1);
    w.before_day.map_or(end, |day| Ord::min(day, end))
}

// Each scan below gives the start index exactly one lower and one upper bound:
// offered two, SQLite keeps whichever it likes, and may scan the whole window.

/// Whether the window holds its first day whole: it starts at the day's midnight.
fn whole_first_day(w: &KeyWindow) -> bool {
    w.from.rem_euclid(DAY_SECONDS) == 0
}

/// Whether the window holds its last day whole: it ends at the day's last second.
fn whole_last_day(w: &KeyWindow) -> bool {
    w.to.rem_euclid(DAY_SECONDS) == DAY_SECONDS - 1
}

/// Events starting on the first day.
fn first_day(w: &KeyWindow) -> SelectStatement {
    let first_day = utc_day(w.from);
    let second_day_start = (first_day + 1).saturating_mul(DAY_SECONDS);
    if whole_first_day(w) && whole_last_day(w) && start_limit(w) >= second_day_start {
        // Every event starting that day and ending by the last day is in: their pairs.
        let mut q = days(w);
        q.expr(Expr::cust(SUM_OF_EVENTS))
            .and_where(Expr::col(EventKeyDays::StartDay).eq(first_day))
            .and_where(Expr::col(EventKeyDays::EndDay).lte(utc_day(w.to)));
        return q;
    }
    let mut q = rows(w);
    q.and_where(start().gte(w.from))
        .and_where(start().lt(Ord::min(second_day_start, start_limit(w))))
        .and_where(end().lte(w.to));
    q
}

/// Events ending on the last day, having started after the first: from the earliest
/// start day among them, which is after the first day (so no event of the first
/// scan is counted again).
fn last_day(w: &KeyWindow) -> SelectStatement {
    let (first_day, last_day) = (utc_day(w.from), utc_day(w.to));
    let last_day_start = last_day.saturating_mul(DAY_SECONDS);
    if whole_last_day(w) {
        // Every event ending that day is in, as far as its end goes: their pairs.
        let mut q = days(w);
        q.expr(Expr::cust(SUM_OF_EVENTS))
            .and_where(Expr::col(EventKeyDays::EndDay).eq(last_day))
            .and_where(Expr::col(EventKeyDays::StartDay).gt(first_day));
        if let Some(day) = w.before_day {
            q.and_where(Expr::col(EventKeyDays::StartDay).lt(utc_day(day)));
        }
        return q;
    }
    let mut earliest = days(w);
    earliest
        .expr(Func::coalesce([
            Func::min(Expr::col(EventKeyDays::StartDay)).into(),
            // None: a day after the window, so the scan is empty.
            Expr::val(last_day.saturating_add(1)),
        ]))
        .and_where(Expr::col(EventKeyDays::EndDay).eq(last_day))
        .and_where(Expr::col(EventKeyDays::StartDay).gt(first_day))
        .and_where(Expr::col(EventKeyDays::Events).gt(0));
    let mut q = rows(w);
    q.and_where(start().gte(Expr::SubQuery(None, Box::new(earliest.into())).mul(DAY_SECONDS)))
        .and_where(start().lt(start_limit(w)))
        .and_where(end().gte(last_day_start))
        .and_where(end().lte(w.to));
    q
}

/// With `ends_after_day`, the events every other part counted that end on that
/// day's first second, taken away (a negative count): the per-day counts hold an
/// end day, not the second of it, so they count all the events ending that day,
/// and so do the scans, which read `end >=` it to agree. A partial index
/// (`event_keys_midnight_ends`, migration 49) holds the keys of the events that
/// end on a UTC midnight, the few that can be these. Its condition is written out
/// for SQLite, which uses such an index only for a query that states it; and the
/// end is a range of one second, not an equality, which SQLite would substitute
/// into that condition and so lose it.
fn midnight_ends(w: &KeyWindow) -> Option<SelectStatement> {
    let day = w.ends_after_day?;
    let mut q = midnight_end_keys(w, day);
    q.expr(Expr::cust("-COUNT(*)"));
    Some(q)
}

/// The keys of the window's events that end on a UTC midnight from its
/// `ends_after_day` to `last_midnight` (see [`midnight_ends`]), nothing selected.
fn midnight_end_keys(w: &KeyWindow, last_midnight: i64) -> SelectStatement {
    let first_midnight = w.ends_after_day.unwrap_or(last_midnight);
    let mut q = Query::select();
    let d = |c: EventKeys| Expr::col((Alias::new("d"), c));
    q.from_as(EventKeys::Table, Alias::new("d"))
        .and_where(d(EventKeys::Kind).eq(w.kind))
        .and_where(d(EventKeys::Value).eq(w.value))
        .and_where(end().gte(first_midnight))
        .and_where(end().lte(last_midnight))
        .and_where(Expr::cust(r#""d"."end_utc" % 86400 = 0"#))
        .and_where(d(EventKeys::Status).is_in(w.statuses.iter().copied()))
        .and_where(d(EventKeys::Hidden).eq(false))
        .and_where(start().gte(w.from))
        .and_where(start().lt(start_limit(w)))
        .and_where(end().lte(w.to));
    if w.unprotected_only {
        q.and_where(d(EventKeys::Protected).eq(false));
    }
    q
}

/// Scheduled events of the key whose date has come.
fn due(w: &KeyWindow, now: i64) -> SelectStatement {
    let mut q = due_posts(w, now);
    q.expr(col(Posts::Id).count());
    q
}

/// The posts [`due`] counts, nothing selected. `+ 0` keeps the planners on the
/// status index: the start index's range here is the whole window.
fn due_posts(w: &KeyWindow, now: i64) -> SelectStatement {
    let mut q = Query::select();
    q.from(Posts::Table)
        .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(col(Posts::HideFromListings).eq(false))
        .and_where(col(Posts::Status).eq(Status::Future.as_str()))
        .and_where(col(Posts::DateUtc).lte(now))
        .and_where(col(Posts::StartUtc).add(0).gte(w.from))
        .and_where(col(Posts::StartUtc).add(0).lt(start_limit(w)))
        .and_where(col(Posts::EndUtc).lte(w.to));
    if let Some(day) = w.ends_after_day {
        q.and_where(col(Posts::EndUtc).gt(day));
    }
    if w.unprotected_only {
        q.and_where(col(Posts::Password).eq(""));
    }
    if w.kind != 0 {
        let o = Alias::new("o");
        q.and_where(crate::store::exists(
            Query::select()
                .expr(Expr::cust("1"))
                .from_as(EventKeys::Table, o.clone())
                .and_where(
                    Expr::col((o.clone(), EventKeys::EventId)).equals((Posts::Table, Posts::Id)),
                )
                .and_where(Expr::col((o.clone(), EventKeys::Kind)).eq(w.kind))
                .and_where(Expr::col((o, EventKeys::Value)).eq(w.value))
                .take(),
        ));
    }
    q
}

/// Where a page deep in a window can start reading: the start of a day before which
/// `skipped ≤ offset` of the window's events lie, so the page skips `offset -
/// skipped` events from there instead of `offset` from the window's start (at a
/// million events, walking to the 560,000th took 45 ms on SQLite). `less`: the
/// events of a second window are not the list's (a term's flagged events, for the
/// term with the flag unset: `keys::unset_flag_windows`). `None` when no day is
/// worth it.
pub(in crate::store) async fn seek(
    conn: &mut Conn,
    w: &KeyWindow,
    less: Option<&KeyWindow>,
    offset: u64,
) -> Result<Option<(i64, u64)>, StoreError> {
    if w.statuses.is_empty() {
        return Ok(None);
    }
    let first_day = utc_day(w.from);
    let mut per_day = events_per_start_day(conn, w).await?;
    if let Some(less) = less {
        for (day, events) in events_per_start_day(conn, less).await? {
            *per_day.entry(day).or_default() -= events;
        }
    }
    // The last day whose earlier days hold no more than `offset` events.
    let mut before = 0u64;
    let mut chosen = None;
    for (day, events) in per_day {
        if before > offset {
            break;
        }
        if day > first_day {
            chosen = Some(day);
        }
        before = before.saturating_add(u64::try_from(events).unwrap_or(0));
    }
    let Some(day) = chosen else {
        return Ok(None);
    };
    let start = day.saturating_mul(DAY_SECONDS);
    let before_day = |w: &KeyWindow| KeyWindow {
        before_day: Some(w.before_day.map_or(start, |day| Ord::min(day, start))),
        ..w.clone()
    };
    let mut skipped = window(conn, &before_day(w)).await?;
    if let Some(less) = less {
        skipped = skipped.saturating_sub(window(conn, &before_day(less)).await?);
    }
    // Scheduled events past their date are not in the per-day counts: with some, the
    // bound may not hold, and the page walks from the window's start.
    Ok((skipped <= offset).then_some((start, skipped)))
}

/// The start of the window's first day by which more than `events` of its events
/// have started (counted by their start days, with the earlier days): the window's
/// days up to it hold at most so many. `None` when the whole window holds no more.
pub(in crate::store) async fn first_days_end(
    conn: &mut Conn,
    w: &KeyWindow,
    events: u64,
) -> Result<Option<i64>, StoreError> {
    if w.statuses.is_empty() {
        return Ok(None);
    }
    let mut started = 0u64;
    for (day, n) in events_per_start_day(conn, w).await? {
        started = started.saturating_add(u64::try_from(n).unwrap_or(0));
        if started > events {
            return Ok(Some(day.saturating_mul(DAY_SECONDS)));
        }
    }
    Ok(None)
}

/// Per start day, the events of its pairs inside the window's days: at least those
/// of the window (whole days hold more than the window's partial edge days).
async fn events_per_start_day(
    conn: &mut Conn,
    w: &KeyWindow,
) -> Result<std::collections::BTreeMap<i64, i64>, StoreError> {
    let mut per_day = days(w);
    per_day
        .column(EventKeyDays::StartDay)
        .expr(Expr::cust("CAST(SUM(events) AS BIGINT)"))
        .and_where(Expr::col(EventKeyDays::StartDay).gte(utc_day(w.from)))
        .and_where(Expr::col(EventKeyDays::EndDay).lte(utc_day(w.to)))
        .group_by_col(EventKeyDays::StartDay);
    let days = conn.query(&per_day, |r| Ok((r.i64(0)?, r.i64(1)?))).await?;
    Ok(days.into_iter().collect())
}

/// The most days a listed event runs past the day it starts (its end day less its
/// start day, in UTC days): how far back a view of a day must look for events
/// still running on it. The last pair of every event's per-day counts by length
/// that still counts one (`event_key_days_by_length`, migration 50), read
/// backwards from the longest.
pub async fn longest_listed_days(conn: &mut Conn) -> Result<i64, StoreError> {
    let span = || Expr::col(EventKeyDays::EndDay).sub(Expr::col(EventKeyDays::StartDay));
    let longest = conn
        .query(
            Query::select()
                .expr(span())
                .from(EventKeyDays::Table)
                .and_where(Expr::col(EventKeyDays::Kind).eq(0))
                .and_where(Expr::col(EventKeyDays::Events).gt(0))
                .order_by_expr(span(), sea_query::Order::Desc)
                .limit(1),
            |r| r.i64(0),
        )
        .await?;
    Ok(longest.first().copied().unwrap_or(0))
}
