//! Scheduled posts going live: a due `future` post becomes `publish`, as
//! WordPress's scheduler makes it, with the counts of its terms in the same
//! transaction.

use std::collections::BTreeMap;

use sea_query::{Expr, ExprTrait, Query};

use super::term_counts::{change_counts, lock_counts};
use crate::domain::post::{PostType, Status};
use crate::store::schema::{Posts, TermRelationships};
use crate::store::{Conn, StoreError};

const SCHEDULED_TYPES: [&str; 3] = ["event", "venue", "organizer"];

/// The earliest moment a scheduled event, venue or organizer is due, whenever
/// that is (past or future). One seek of the status index per post type.
pub async fn next_due(conn: &mut Conn) -> Result<Option<i64>, StoreError> {
    conn.query_one(
        Query::select()
            .expr(Expr::col(Posts::DateUtc).min())
            .from(Posts::Table)
            .and_where(Expr::col(Posts::PostType).is_in(SCHEDULED_TYPES))
            .and_where(Expr::col(Posts::Status).eq(Status::Future.as_str())),
        |r| r.opt_i64(0),
    )
    .await
}

/// Publishes every scheduled post due by `now`, and counts each such event in its
/// terms, unless the write that scheduled it counted it already (it was due when
/// written: `date_utc <= modified_utc`). Inside the caller's transaction; on
/// PostgreSQL the `UPDATE` locks the rows, so that instances publishing at the
/// same moment each publish a different post, and count it once. Returns how many
/// posts went live.
pub async fn publish_due(conn: &mut Conn, now: i64) -> Result<usize, StoreError> {
    let published = conn
        .query(
            Query::update()
                .table(Posts::Table)
                .value(Posts::Status, Status::Publish.as_str())
                .and_where(Expr::col(Posts::PostType).is_in(SCHEDULED_TYPES))
                .and_where(Expr::col(Posts::Status).eq(Status::Future.as_str()))
                .and_where(Expr::col(Posts::DateUtc).lte(now))
                .returning(Query::returning().exprs([
                    Expr::col(Posts::Id),
                    Expr::col(Posts::PostType),
                    Expr::col(Posts::DateUtc).gt(Expr::col(Posts::ModifiedUtc)),
                ])),
            |r| Ok((r.i64(0)?, r.string(1)?, r.bool(2)?)),
        )
        .await?;
    let uncounted: Vec<i64> = published
        .iter()
        .filter(|(_, t, uncounted)| *uncounted && t == PostType::Event.as_str())
        .map(|(id, _, _)| *id)
        .collect();
    if !uncounted.is_empty() {
        count_events(conn, &uncounted).await?;
    }
    Ok(published.len())
}

/// Adds these events (newly published) to the counts of their terms.
async fn count_events(conn: &mut Conn, events: &[i64]) -> Result<(), StoreError> {
    let per_term = conn
        .query(
            Query::select()
                .column(TermRelationships::TermId)
                .expr(Expr::col(TermRelationships::PostId).count())
                .from(TermRelationships::Table)
                .and_where(Expr::col(TermRelationships::PostId).is_in(events.iter().copied()))
                .group_by_col(TermRelationships::TermId),
            |r| Ok((r.i64(0)?, r.i64(1)?)),
        )
        .await?;
    let gained: BTreeMap<i64, i64> = per_term.into_iter().collect();
    if gained.is_empty() {
        return Ok(());
    }
    lock_counts(conn).await?;
    conn.execute_all(&change_counts(&gained, false)).await
}
