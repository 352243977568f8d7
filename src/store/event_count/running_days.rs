//! The events running on each of many days (a busy month's grid), counted at once:
//! the parts [`super::window`] sums for one day are read for all of them, each as
//! the rows a day's part selects from, and each day's count is summed from those
//! rows with the part's own bounds. Three statements for a grid of 42 days, where
//! one a day cost PostgreSQL a plan and a round trip each (0.4 ms at a million
//! events).

use sea_query::{Expr, ExprTrait};

use super::{KeyWindow, days, due_posts, midnight_end_keys, start_limit, whole_days};
use crate::domain::event::utc_day;
use crate::store::posts::col;
use crate::store::schema::{EventKeyDays, EventKeys, Posts};
use crate::store::{Conn, StoreError};

/// The count of each window, as [`super::window`] counts it alone: `None` unless
/// every one is a running window of whole UTC days ([`whole_days`] with an
/// `ends_after_day`) of the same key, statuses and caller.
pub(in crate::store) async fn running_days(
    conn: &mut Conn,
    ws: &[KeyWindow],
) -> Result<Option<Vec<u64>>, StoreError> {
    let Some(all) = envelope(ws) else {
        return Ok(None);
    };
    let (pairs, ends) = match all.statuses.is_empty() {
        true => (Vec::new(), Vec::new()),
        false => (
            pairs(conn, &all).await?,
            midnight_ends(conn, &all, ws).await?,
        ),
    };
    let due = match all.due_by {
        Some(now) => due(conn, &all, now).await?,
        None => Vec::new(),
    };
    Ok(Some(
        ws.iter()
            .map(|w| {
                let counted = pairs
                    .iter()
                    .filter(|p| pair_counted(w, p))
                    .map(|p| p.events)
                    .fold(0i64, i64::saturating_add);
                let ending = ends.iter().filter(|e| midnight_end_counted(w, e)).count();
                let due = due.iter().filter(|e| due_counted(w, e)).count();
                let sum = counted
                    .saturating_sub(i64::try_from(ending).unwrap_or(i64::MAX))
                    .saturating_add(i64::try_from(due).unwrap_or(i64::MAX));
                u64::try_from(sum).unwrap_or(0)
            })
            .collect(),
    ))
}

/// A window holding all of `ws`'s, which must differ only in their dates: the
/// rows of its parts are those of theirs, and more.
fn envelope(ws: &[KeyWindow]) -> Option<KeyWindow> {
    let first = ws.first()?;
    let alike = |w: &KeyWindow| {
        w.kind == first.kind
            && w.value == first.value
            && w.statuses == first.statuses
            && w.unprotected_only == first.unprotected_only
            && w.due_by == first.due_by
    };
    let running = |w: &KeyWindow| w.ends_after_day.is_some() && whole_days(w).is_some();
    if !ws.iter().all(|w| alike(w) && running(w) && w.from <= w.to) {
        return None;
    }
    Some(KeyWindow {
        from: ws.iter().map(|w| w.from).min()?,
        to: ws.iter().map(|w| w.to).max()?,
        before_day: ws.iter().map(start_limit).max(),
        ends_after_day: ws.iter().filter_map(|w| w.ends_after_day).min(),
        ..first.clone()
    })
}

/// Events of one (start day, end day) pair of the key's per-day counts.
struct Pair {
    start_day: i64,
    end_day: i64,
    events: i64,
}

/// The pairs of `all`'s days, its statuses and password states summed.
async fn pairs(conn: &mut Conn, all: &KeyWindow) -> Result<Vec<Pair>, StoreError> {
    let mut q = days(all);
    q.columns([EventKeyDays::StartDay, EventKeyDays::EndDay])
        .expr(Expr::cust("CAST(SUM(events) AS BIGINT)"))
        .and_where(Expr::col(EventKeyDays::StartDay).gte(utc_day(all.from)))
        .and_where(Expr::col(EventKeyDays::StartDay).lt(utc_day(start_limit(all))))
        .and_where(Expr::col(EventKeyDays::EndDay).lte(utc_day(all.to)))
        .group_by_col(EventKeyDays::StartDay)
        .group_by_col(EventKeyDays::EndDay);
    conn.query(&q, |r| {
        Ok(Pair {
            start_day: r.i64(0)?,
            end_day: r.i64(1)?,
            events: r.i64(2)?,
        })
    })
    .await
}

/// Whether [`whole_days`] sums the pair for `w`.
fn pair_counted(w: &KeyWindow, p: &Pair) -> bool {
    p.start_day >= utc_day(w.from)
        && p.start_day < utc_day(start_limit(w))
        && p.end_day <= utc_day(w.to)
        && w.ends_after_day.is_none_or(|day| p.end_day >= utc_day(day))
}

/// The start and end of an event, in seconds.
type Span = (i64, i64);

/// The events of `all` ending on the midnights `ws` run after, as
/// [`super::midnight_ends`] takes them away.
async fn midnight_ends(
    conn: &mut Conn,
    all: &KeyWindow,
    ws: &[KeyWindow],
) -> Result<Vec<Span>, StoreError> {
    let Some(last) = ws.iter().filter_map(|w| w.ends_after_day).max() else {
        return Ok(Vec::new());
    };
    let d = sea_query::Alias::new("d");
    let mut q = midnight_end_keys(all, last);
    q.column((d.clone(), EventKeys::StartUtc))
        .column((d, EventKeys::EndUtc));
    conn.query(&q, |r| Ok((r.i64(0)?, r.i64(1)?))).await
}

fn midnight_end_counted(w: &KeyWindow, &(start, end): &Span) -> bool {
    w.ends_after_day == Some(end) && start >= w.from && start < start_limit(w) && end <= w.to
}

/// The scheduled events of `all` whose date has come, as [`super::due`] counts them.
async fn due(conn: &mut Conn, all: &KeyWindow, now: i64) -> Result<Vec<Span>, StoreError> {
    let mut q = due_posts(all, now);
    q.expr(col(Posts::StartUtc)).expr(col(Posts::EndUtc));
    conn.query(&q, |r| Ok((r.i64(0)?, r.i64(1)?))).await
}

fn due_counted(w: &KeyWindow, &(start, end): &Span) -> bool {
    start >= w.from
        && start < start_limit(w)
        && end <= w.to
        && w.ends_after_day.is_none_or(|day| end > day)
}
