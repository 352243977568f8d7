//! Deleting a term of many events in steps (migration 43): set aside at once, its
//! links removed a batch per transaction, its row removed last. Deleting a term
//! costs a little for each of its events (their keys, per-day counts and bits
//! change, through the triggers); in one transaction, a category of 400,000
//! events would hold the writer for minutes.

use sea_query::{Cond, Expr, ExprTrait, Order, Query, SelectStatement};

use super::schema::{EventKeys, TermRelationships, Terms};
use super::{Conn, StoreError};
use crate::domain::term::Term;

/// The taxonomy of a term set aside: no read of categories or tags finds it.
pub const DELETED: &str = "deleted";

/// The events the term is linked to, in ID order (its index's).
pub(super) fn linked_events(term_id: i64) -> SelectStatement {
    Query::select()
        .column(TermRelationships::PostId)
        .from(TermRelationships::Table)
        .and_where(Expr::col(TermRelationships::TermId).eq(term_id))
        .order_by(TermRelationships::PostId, Order::Asc)
        .take()
}

/// Whether deleting or moving the term touches more than `limit` events: those
/// linked to it, or those holding its key (a category's include its subcategories'
/// events). Reads at most `limit + 1` index entries of each.
pub async fn events_beyond(conn: &mut Conn, term_id: i64, limit: u64) -> Result<bool, StoreError> {
    let linked = conn
        .query_opt(linked_events(term_id).offset(limit).limit(1), |r| r.i64(0))
        .await?;
    if linked.is_some() {
        return Ok(true);
    }
    let keyed = conn
        .query_opt(
            Query::select()
                .column(EventKeys::EventId)
                .from(EventKeys::Table)
                .cond_where(term_keys(term_id))
                .offset(limit)
                .limit(1),
            |r| r.i64(0),
        )
        .await?;
    Ok(keyed.is_some())
}

/// The category keys (kind 1) of a term: its events' and those of the terms below it.
pub(super) fn term_keys(term_id: i64) -> Cond {
    Cond::all()
        .add(Expr::col(EventKeys::Kind).eq(1))
        .add(Expr::col(EventKeys::Value).eq(term_id))
}

/// Sets the term aside: it leaves its taxonomy (a trigger writes its tombstone for
/// incremental sync) and its slug, which a new term may take at once. Then its
/// children move up to its parent, as in WordPress; their events keep the term's key
/// (migration 44), which [`unlink_batch`] removes.
pub async fn set_aside(conn: &mut Conn, term: &Term) -> Result<(), StoreError> {
    super::terms::lock_tree(conn).await?;
    conn.execute(
        Query::update()
            .table(Terms::Table)
            .value(Terms::Taxonomy, DELETED)
            .value(Terms::Slug, format!("deleted-{}", term.id))
            .and_where(Expr::col(Terms::Id).eq(term.id)),
    )
    .await?;
    super::terms::adopt_children(conn, term).await
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
/// changed; once none remain, up to the rest of `batch` of the keys its former
/// subcategories' events hold through it; once none of those remain either, the
/// term itself. Returns whether the term is gone. Concurrent callers for one term
/// (two instances) take turns.
pub async fn unlink_batch(conn: &mut Conn, term_id: i64, batch: u64) -> Result<bool, StoreError> {
    conn.lock_key(&format!("term-unlink-{term_id}")).await?;
    let events: Vec<i64> = conn
        .query(linked_events(term_id).limit(batch), |r| r.i64(0))
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
    let room = batch - events.len() as u64;
    if room == 0 || !remove_inherited_keys(conn, term_id, room).await? {
        return Ok(false);
    }
    // Any link written since goes with the row, by cascade.
    conn.execute(
        Query::delete()
            .from_table(Terms::Table)
            .and_where(Expr::col(Terms::Id).eq(term_id))
            .and_where(Expr::col(Terms::Taxonomy).eq(DELETED)),
    )
    .await?;
    Ok(true)
}

/// Removes up to `limit` of the category keys (kind 1) of a term set aside that
/// no link gives any more: those its former subcategories' events kept (migration
/// 44). Their events' representations do not change. The first `limit` in key
/// order are one range of the primary key, up to the last of them. Returns whether
/// none was left beyond them.
async fn remove_inherited_keys(
    conn: &mut Conn,
    term_id: i64,
    limit: u64,
) -> Result<bool, StoreError> {
    let last = conn
        .query_opt(
            Query::select()
                .columns([EventKeys::StartUtc, EventKeys::EventId])
                .from(EventKeys::Table)
                .cond_where(term_keys(term_id))
                .order_by(EventKeys::StartUtc, Order::Asc)
                .order_by(EventKeys::EventId, Order::Asc)
                .offset(limit - 1)
                .limit(1),
            |r| Ok((r.i64(0)?, r.i64(1)?)),
        )
        .await?;
    let mut range = term_keys(term_id);
    if let Some((start, event)) = last {
        // A bound on the start first, which both backends seek by.
        range = range.add(Expr::col(EventKeys::StartUtc).lte(start)).add(
            Cond::any()
                .add(Expr::col(EventKeys::StartUtc).lt(start))
                .add(Expr::col(EventKeys::EventId).lte(event)),
        );
    }
    conn.execute(
        Query::delete()
            .from_table(EventKeys::Table)
            .cond_where(range),
    )
    .await?;
    Ok(last.is_none())
}
