//! Counting the events of a plain window (the default list) without visiting each.
//!
//! `listed_event_days` holds, per (start day, end day) pair of UTC days, how many
//! published events not hidden from listings there are; triggers keep it exact
//! through every insert, update and delete (migration 3). A window's count is then
//!
//! - the published events of the pairs strictly inside the window, summed;
//! - plus the published events that start on its first day or end on its last
//!   day, scanned, since those days are only partly inside;
//! - plus the scheduled events already past their date, which every visitor sees
//!   too but which the pairs do not hold (they become visible by the clock, not by
//!   a write), scanned: they are few, and an index leads to them.
//!
//! So a write does not make the next default list count the whole window again,
//! which at a million events takes 150–450 ms.

use sea_query::{Expr, ExprTrait, Func, Query, SelectStatement, UnionType};

use super::posts::col;
use super::schema::{ListedEventDays, Posts};
use super::{Conn, StoreError};
use crate::domain::event::{DAY_SECONDS, utc_day};
use crate::domain::post::{PostType, Status};

/// Published, listed events of the window `start ≥ from`, `end ≤ to` (and
/// `start ≤ to`), as every visitor sees them at `now`, in one statement.
pub async fn plain_window(
    conn: &mut Conn,
    (from, to): (i64, i64),
    now: i64,
) -> Result<u64, StoreError> {
    if to < from {
        return Ok(0);
    }
    let (first_day, last_day) = (utc_day(from), utc_day(to));
    let second_day_start = (first_day + 1).saturating_mul(DAY_SECONDS);
    let last_day_start = last_day.saturating_mul(DAY_SECONDS);

    // Pairs strictly inside: start after the first day, end before the last. Since
    // no event ends before it starts, these also start before the last day.
    let mut inner = Query::select();
    inner
        .expr(Expr::cust("CAST(COALESCE(SUM(events), 0) AS BIGINT)"))
        .from(ListedEventDays::Table)
        .and_where(Expr::col(ListedEventDays::EndDay).gt(first_day))
        .and_where(Expr::col(ListedEventDays::EndDay).lt(last_day))
        .and_where(Expr::col(ListedEventDays::StartDay).gt(first_day));

    // Each scan below gives the start index exactly one lower and one upper bound:
    // offered two, SQLite keeps whichever it likes, and may scan the whole window.

    // Published events starting on the first day.
    let mut first = published();
    first
        .and_where(col(Posts::StartUtc).gte(from))
        .and_where(col(Posts::StartUtc).lt(Ord::min(second_day_start, to.saturating_add(1))))
        .and_where(col(Posts::EndUtc).lte(to));

    // Published events ending on the last day, having started after the first: from
    // the earliest start day among them, which is after the first day (and so never
    // counts an event of the first scan again).
    let earliest_start_day = Query::select()
        .expr(Func::coalesce([
            Func::min(Expr::col(ListedEventDays::StartDay)).into(),
            // None: a day after the window, so the scan is empty.
            Expr::val(last_day.saturating_add(1)),
        ]))
        .from(ListedEventDays::Table)
        .and_where(Expr::col(ListedEventDays::EndDay).eq(last_day))
        .and_where(Expr::col(ListedEventDays::StartDay).gt(first_day))
        .and_where(Expr::col(ListedEventDays::Events).gt(0))
        .take();
    let mut last = published();
    last.and_where(
        col(Posts::StartUtc)
            .gte(Expr::SubQuery(None, Box::new(earliest_start_day.into())).mul(DAY_SECONDS)),
    )
    .and_where(col(Posts::StartUtc).lte(to))
    .and_where(col(Posts::EndUtc).gte(last_day_start))
    .and_where(col(Posts::EndUtc).lte(to));

    // Scheduled events whose date has come: visible, but not in the pairs. There are
    // few, and the status index finds them; `+ 0` keeps the planners off the start
    // index, whose range here is the whole window.
    let mut due = listed();
    due.and_where(col(Posts::Status).eq(Status::Future.as_str()))
        .and_where(col(Posts::DateUtc).lte(now))
        .and_where(col(Posts::StartUtc).add(0).gte(from))
        .and_where(col(Posts::StartUtc).add(0).lte(to))
        .and_where(col(Posts::EndUtc).lte(to));

    inner
        .union(UnionType::All, first)
        .union(UnionType::All, last)
        .union(UnionType::All, due);
    let parts = conn.query(&inner, |r| r.i64(0)).await?;
    Ok(parts
        .into_iter()
        .map(|n| u64::try_from(n).unwrap_or(0))
        .sum())
}

/// `COUNT(*)` of the events lists may show, whatever their status.
fn listed() -> SelectStatement {
    Query::select()
        .expr(col(Posts::Id).count())
        .from(Posts::Table)
        .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(col(Posts::HideFromListings).eq(false))
        .take()
}

fn published() -> SelectStatement {
    let mut q = listed();
    q.and_where(col(Posts::Status).eq(Status::Publish.as_str()));
    q
}
