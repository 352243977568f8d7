//! Moving a category of many events in steps (migration 45): the tree changes at
//! once, and the category keys of its subtree's events follow a batch per
//! transaction. In one transaction, a move above a category of 400,000 events would
//! hold the writer for minutes.
//!
//! A batch does not replay the move: it brings each event's category keys in line
//! with the event's categories and the tree as they are when it runs, so any number
//! of moves, deletions and edits meanwhile come out right.

use sea_query::{Alias, Expr, ExprTrait, JoinType, LockType, OnConflict, Order, Query};

use super::schema::{CategoryRekeys, EventKeys, Posts, TermAncestors, TermRelationships};
use super::{Conn, StoreError};

/// Whether the category is queued: a move of it then leaves its events' keys to the
/// batches, which must start over from its first event.
pub async fn is_queued(conn: &mut Conn, term_id: i64) -> Result<bool, StoreError> {
    let found = conn
        .query_opt(
            Query::select()
                .column(CategoryRekeys::TermId)
                .from(CategoryRekeys::Table)
                .and_where(Expr::col(CategoryRekeys::TermId).eq(term_id)),
            |r| r.i64(0),
        )
        .await?;
    Ok(found.is_some())
}

/// Queues the category and every one below it, from their first events: the move
/// about to be written leaves their keys to the batches (the trigger sees the queue).
pub async fn queue_subtree(conn: &mut Conn, term_id: i64) -> Result<(), StoreError> {
    conn.execute(
        Query::insert()
            .into_table(CategoryRekeys::Table)
            .columns([CategoryRekeys::TermId, CategoryRekeys::AfterEvent])
            .select_from(
                Query::select()
                    .column(TermAncestors::TermId)
                    .expr(Expr::cust("0"))
                    .from(TermAncestors::Table)
                    .and_where(Expr::col(TermAncestors::AncestorId).eq(term_id))
                    .take(),
            )
            .map_err(|e| StoreError::Internal(e.to_string()))?
            .on_conflict(
                OnConflict::column(CategoryRekeys::TermId)
                    .value(CategoryRekeys::AfterEvent, 0)
                    .to_owned(),
            ),
    )
    .await?;
    Ok(())
}

/// Whether any category is queued.
pub async fn any_queued(conn: &mut Conn) -> Result<bool, StoreError> {
    let found = conn
        .query_opt(
            Query::select()
                .column(CategoryRekeys::TermId)
                .from(CategoryRekeys::Table)
                .limit(1),
            |r| r.i64(0),
        )
        .await?;
    Ok(found.is_some())
}

/// Brings the category keys of up to `batch` events of the first queued category
/// in line, and moves its place on; a category whose events are all done leaves the
/// queue. Returns whether the queue is empty.
///
/// On PostgreSQL it shares the tree, as a change of an event's categories does, so no
/// move runs meanwhile, and locks its events' rows, as a write of one of them does
/// first, so none of their links changes meanwhile; then the rows their keys are
/// counted in, in the writers' order (`events::lock_shared_rows`). Other writes go on,
/// those of its events after it. Instances take the queue's first category in turns.
pub async fn rekey_batch(conn: &mut Conn, batch: u64) -> Result<bool, StoreError> {
    super::terms::share_tree(conn).await?;
    let next = conn
        .query_opt(
            Query::select()
                .columns([CategoryRekeys::TermId, CategoryRekeys::AfterEvent])
                .from(CategoryRekeys::Table)
                .order_by(CategoryRekeys::TermId, Order::Asc)
                .limit(1)
                .lock(LockType::Update),
            |r| Ok((r.i64(0)?, r.i64(1)?)),
        )
        .await?;
    let Some((term_id, after)) = next else {
        return Ok(true);
    };
    let events: Vec<i64> = conn
        .query(
            super::term_deletion::linked_events(term_id)
                .and_where(Expr::col(TermRelationships::PostId).gt(after))
                .limit(batch),
            |r| r.i64(0),
        )
        .await?;
    if !events.is_empty() {
        super::events::lock_events_of_batch(conn, &events, None, &[]).await?;
        rekey_events(conn, &events).await?;
    }
    let place = Expr::col(CategoryRekeys::TermId)
        .eq(term_id)
        .and(Expr::col(CategoryRekeys::AfterEvent).eq(after));
    match events.last() {
        Some(&last) if events.len() as u64 == batch => {
            conn.execute(
                Query::update()
                    .table(CategoryRekeys::Table)
                    .value(CategoryRekeys::AfterEvent, last)
                    .and_where(place),
            )
            .await?;
            Ok(false)
        }
        _ => {
            conn.execute(
                Query::delete()
                    .from_table(CategoryRekeys::Table)
                    .and_where(place),
            )
            .await?;
            any_queued(conn).await.map(|any| !any)
        }
    }
}

/// The events' category keys as their links and the tree give them: those no link
/// gives go (as when an event loses a term, migration 17), those missing come (as
/// when it gains one). The triggers on `event_keys` keep the counts and bits.
async fn rekey_events(conn: &mut Conn, events: &[i64]) -> Result<(), StoreError> {
    // `+kind`: SQLite finds the keys by event, not by the primary key's prefix.
    conn.execute(
        Query::delete()
            .from_table(EventKeys::Table)
            .and_where(Expr::col(EventKeys::EventId).is_in(events.iter().copied()))
            .and_where(Expr::cust("+kind = 1"))
            .and_where(Expr::cust(
                "NOT EXISTS (SELECT 1 FROM term_relationships r \
                 JOIN term_ancestors c ON c.term_id = r.term_id \
                 WHERE r.post_id = event_keys.event_id AND c.ancestor_id = event_keys.value)",
            )),
    )
    .await?;
    let (r, c, e) = (Alias::new("r"), Alias::new("c"), Alias::new("e"));
    let keys = Query::select()
        .distinct()
        .expr(Expr::cust("1"))
        .column((c.clone(), TermAncestors::AncestorId))
        .expr(Expr::cust("COALESCE(e.start_utc, 0)"))
        .column((e.clone(), Posts::Id))
        .expr(Expr::cust("COALESCE(e.end_utc, 0)"))
        .column((e.clone(), Posts::Status))
        .expr(Expr::cust("e.password <> ''"))
        .column((e.clone(), Posts::HideFromListings))
        .column((e.clone(), Posts::Author))
        .from_as(TermRelationships::Table, r.clone())
        .join_as(
            JoinType::InnerJoin,
            TermAncestors::Table,
            c.clone(),
            Expr::col((c, TermAncestors::TermId)).equals((r.clone(), TermRelationships::TermId)),
        )
        .join_as(
            JoinType::InnerJoin,
            Posts::Table,
            e.clone(),
            Expr::col((e.clone(), Posts::Id))
                .equals((r.clone(), TermRelationships::PostId))
                .and(Expr::col((e, Posts::PostType)).eq("event")),
        )
        .and_where(Expr::col((r, TermRelationships::PostId)).is_in(events.iter().copied()))
        .take();
    conn.execute(
        Query::insert()
            .into_table(EventKeys::Table)
            .columns([
                EventKeys::Kind,
                EventKeys::Value,
                EventKeys::StartUtc,
                EventKeys::EventId,
                EventKeys::EndUtc,
                EventKeys::Status,
                EventKeys::Protected,
                EventKeys::Hidden,
                EventKeys::Author,
            ])
            .select_from(keys)
            .map_err(|e| StoreError::Internal(e.to_string()))?
            .on_conflict(OnConflict::new().do_nothing().to_owned()),
    )
    .await?;
    Ok(())
}
