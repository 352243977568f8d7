//! Deleting a term of many events in steps (migration 43): set aside at once, its
//! links removed a batch per transaction, its row removed last. Deleting a term
//! costs a little for each of its events (their keys, per-day counts and bits
//! change, through the triggers); in one transaction, a category of 400,000
//! events held the writer for minutes.

use sea_query::{Expr, ExprTrait, Order, Query};

use super::schema::{TermRelationships, Terms};
use super::{Conn, StoreError};
use crate::domain::term::Term;

/// The taxonomy of a term set aside: no read of categories or tags finds it.
pub const DELETED: &str = "deleted";

/// Whether the term is linked to more than `limit` events (read no further).
pub async fn links_beyond(conn: &mut Conn, term_id: i64, limit: u64) -> Result<bool, StoreError> {
    let beyond = conn
        .query_opt(
            Query::select()
                .column(TermRelationships::PostId)
                .from(TermRelationships::Table)
                .and_where(Expr::col(TermRelationships::TermId).eq(term_id))
                .order_by(TermRelationships::PostId, Order::Asc)
                .offset(limit)
                .limit(1),
            |r| r.i64(0),
        )
        .await?;
    Ok(beyond.is_some())
}

/// Sets the term aside: it leaves its taxonomy (a trigger writes its tombstone for
/// incremental sync) and its slug, which a new term may take at once. Its children
/// move up to its parent, as in WordPress.
pub async fn set_aside(conn: &mut Conn, term: &Term) -> Result<(), StoreError> {
    super::terms::lock_tree(conn).await?;
    super::terms::adopt_children(conn, term).await?;
    conn.execute(
        Query::update()
            .table(Terms::Table)
            .value(Terms::Taxonomy, DELETED)
            .value(Terms::Slug, format!("deleted-{}", term.id))
            .and_where(Expr::col(Terms::Id).eq(term.id)),
    )
    .await?;
    Ok(())
}

/// The terms set aside whose links are still being removed.
pub async fn set_aside_terms(conn: &mut Conn) -> Result<Vec<i64>, StoreError> {
    conn.query(
        Query::select()
            .column(Terms::Id)
            .from(Terms::Table)
            .and_where(Expr::col(Terms::Taxonomy).eq(DELETED))
            .order_by(Terms::Id, Order::Asc),
        |r| r.i64(0),
    )
    .await
}

/// Removes up to `batch` links of a term set aside, stamping their events as
/// changed; when none remain, the term itself. Returns whether the term is gone.
/// Concurrent callers for one term (two instances) take turns.
pub async fn unlink_batch(conn: &mut Conn, term_id: i64, batch: u64) -> Result<bool, StoreError> {
    conn.lock_key(&format!("term-unlink-{term_id}")).await?;
    let events: Vec<i64> = conn
        .query(
            Query::select()
                .column(TermRelationships::PostId)
                .from(TermRelationships::Table)
                .and_where(Expr::col(TermRelationships::TermId).eq(term_id))
                .order_by(TermRelationships::PostId, Order::Asc)
                .limit(batch),
            |r| r.i64(0),
        )
        .await?;
    if !events.is_empty() {
        super::sync::touch_posts_with_ids(conn, &events).await?;
        conn.execute(
            Query::delete()
                .from_table(TermRelationships::Table)
                .and_where(Expr::col(TermRelationships::TermId).eq(term_id))
                .and_where(Expr::col(TermRelationships::PostId).is_in(events.iter().copied())),
        )
        .await?;
    }
    if (events.len() as u64) < batch {
        // Any link written since goes with the row, by cascade.
        conn.execute(
            Query::delete()
                .from_table(Terms::Table)
                .and_where(Expr::col(Terms::Id).eq(term_id))
                .and_where(Expr::col(Terms::Taxonomy).eq(DELETED)),
        )
        .await?;
        return Ok(true);
    }
    Ok(false)
}
