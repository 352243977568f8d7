//! Moving a venue or an organizer of many events to the trash in steps (migration
//! 46): its status changes in the request, and its events lose their link to it a
//! batch per transaction. In one transaction, the trash of a venue of 100,000 events
//! holds the writer for half a minute on SQLite, three on PostgreSQL.
//!
//! Reads show no link to a post in the trash nor to one still queued
//! ([`links_shown`]: `events::load_links`, the event lists' venue and organizer
//! filters and points, the venue and organizer lists' event filters), so from the
//! answer on every event reads as unlinked, as the batches leave it. A restore
//! answers at once and the batches go on behind it: until the last one, the
//! restored post shows no events and de-duplication does not find it. An event
//! write that names it by ID links it at once and keeps that link (migration 47,
//! [`keep_links`]): the batches pass over it, and the event's own links show it
//! ([`links_shown_to`]), as do a filter naming only such posts ([`kept_events`])
//! and the venue and organizer lists by events ([`any_kept`]).
//! Its deletion for good marks it: the batch that unlinks its
//! last event deletes it ([`delete_when_unlinked`]), and meanwhile it is gone to
//! every read and write ([`deleted_among`]).

use sea_query::{
    Expr, ExprTrait, IntoColumnRef, LockType, OnConflict, Order, Query, SelectStatement, SimpleExpr,
};

use super::posts::{POST_COLUMN_COUNT, post_from_row, select_many};
use super::schema::{EventOrganizers, LinkedUnlinks, LinkedUnlinksKept, Posts};
use super::{Conn, Row, StoreError};
use crate::domain::post::{Post, PostType, Status};

/// The queued posts: a subquery, or the select the queue's other reads narrow.
fn unlinking() -> SelectStatement {
    Query::select()
        .column(LinkedUnlinks::PostId)
        .from(LinkedUnlinks::Table)
        .take()
}

/// Whether the statement's `posts` row shows its links to events: it is neither in
/// the trash nor queued (restored before its last batch).
pub(super) fn links_shown() -> SimpleExpr {
    Expr::col((Posts::Table, Posts::Status))
        .ne(Status::Trash.as_str())
        .and(not_unlinking())
}

/// The statement's `posts` row is not queued.
pub(super) fn not_unlinking() -> SimpleExpr {
    Expr::col((Posts::Table, Posts::Id)).not_in_subquery(unlinking())
}

/// Whether the statement's `posts` row shows its link to an event: as
/// [`links_shown`], or, queued and not in the trash, `kept` holds (the event linked
/// it while it was queued, [`keep_links`]).
pub(super) fn links_shown_or(kept: SimpleExpr) -> SimpleExpr {
    Expr::col((Posts::Table, Posts::Status))
        .ne(Status::Trash.as_str())
        .and(not_unlinking().or(kept))
}

/// Whether the statement's `posts` row shows its link to the event `event_id` (a
/// column or a value), as [`links_shown_or`] has it.
pub(super) fn links_shown_to(event_id: impl Into<SimpleExpr>) -> SimpleExpr {
    let kept = Query::select()
        .expr(Expr::cust("1"))
        .from(LinkedUnlinksKept::Table)
        .and_where(
            Expr::col((LinkedUnlinksKept::Table, LinkedUnlinksKept::PostId))
                .equals((Posts::Table, Posts::Id)),
        )
        .and_where(
            Expr::col((LinkedUnlinksKept::Table, LinkedUnlinksKept::EventId)).eq(event_id.into()),
        )
        .take();
    links_shown_or(Expr::exists(kept))
}

/// The posts of these IDs, each with whether it is queued: its events are still
/// being unlinked from it, whatever its status.
pub(super) fn select_marked(ids: &[i64]) -> SelectStatement {
    let mut q = select_many(ids);
    q.expr(Expr::exists(
        Query::select()
            .expr(Expr::cust("1"))
            .from(LinkedUnlinks::Table)
            .and_where(
                Expr::col((LinkedUnlinks::Table, LinkedUnlinks::PostId))
                    .equals((Posts::Table, Posts::Id)),
            )
            .take(),
    ));
    q
}

/// A row of [`select_marked`].
pub(super) fn marked_from_row(r: &Row<'_>) -> Result<(Post, bool), StoreError> {
    Ok((post_from_row(r)?, r.bool(POST_COLUMN_COUNT)?))
}

/// The posts among these IDs that exist, each with whether it is queued.
pub async fn posts_marked(conn: &mut Conn, ids: &[i64]) -> Result<Vec<(Post, bool)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(&select_marked(ids), marked_from_row).await
}

/// The events linked to the venue or organizer, up to `limit` of them: by its
/// index on either table, in no particular order.
fn linked_events(t: PostType, post_id: i64, limit: u64) -> SelectStatement {
    match t {
        PostType::Venue => Query::select()
            .column(Posts::Id)
            .from(Posts::Table)
            .and_where(Expr::col(Posts::VenueId).eq(post_id))
            .limit(limit)
            .take(),
        _ => Query::select()
            .column(EventOrganizers::EventId)
            .from(EventOrganizers::Table)
            .and_where(Expr::col(EventOrganizers::OrganizerId).eq(post_id))
            .limit(limit)
            .take(),
    }
}

/// The column [`linked_events`] reads the events' IDs from.
fn linked_event_column(t: PostType) -> sea_query::ColumnRef {
    match t {
        PostType::Venue => (Posts::Table, Posts::Id).into_column_ref(),
        _ => (EventOrganizers::Table, EventOrganizers::EventId).into_column_ref(),
    }
}

/// Whether the venue or organizer has more than a batch of events: its trash then
/// unlinks them in steps. Reads `batch + 1` index entries at most.
pub async fn links_beyond(conn: &mut Conn, post: &Post, batch: u64) -> Result<bool, StoreError> {
    let Some(t) = post.post_type.filter(|t| *t != PostType::Event) else {
        return Ok(false);
    };
    let linked = conn
        .query(&linked_events(t, post.id, batch + 1), |r| r.i64(0))
        .await?;
    Ok(linked.len() as u64 > batch)
}

/// Queues the post: its events are unlinked in batches behind the answer, those
/// kept while it was queued before too.
pub async fn queue(conn: &mut Conn, post_id: i64) -> Result<(), StoreError> {
    forget_kept(conn, post_id).await?;
    conn.execute(
        Query::insert()
            .into_table(LinkedUnlinks::Table)
            .columns([LinkedUnlinks::PostId])
            .values_panic([post_id.into()])
            .on_conflict(OnConflict::new().do_nothing().to_owned()),
    )
    .await?;
    Ok(())
}

/// Those of these posts still queued, for a write that links an event to them; on
/// PostgreSQL their queue rows are taken in share, so that a batch of one of them,
/// which takes its row first, runs wholly before the write or wholly after it,
/// seeing the links the write kept ([`keep_links`]).
pub async fn share_queued(conn: &mut Conn, post_ids: &[i64]) -> Result<Vec<i64>, StoreError> {
    if post_ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(
        queued_among(post_ids)
            .order_by(LinkedUnlinks::PostId, Order::Asc)
            .lock(LockType::Share),
        |r| r.i64(0),
    )
    .await
}

/// Whether the post is queued, its queue row locked for the rest of the
/// transaction (on PostgreSQL): a deletion for good takes it before the post's.
pub async fn lock_queued(conn: &mut Conn, post_id: i64) -> Result<bool, StoreError> {
    let row = queued_among(&[post_id]).lock(LockType::Update).take();
    Ok(conn.query_opt(&row, |r| r.i64(0)).await?.is_some())
}

/// Those of these posts still queued.
fn queued_among(post_ids: &[i64]) -> SelectStatement {
    unlinking()
        .and_where(Expr::col(LinkedUnlinks::PostId).is_in(post_ids.iter().copied()))
        .take()
}

/// Keeps the event's links to these queued posts ([`share_queued`]'s, in the
/// transaction that links them): their batches pass over the event, and reads show
/// the links ([`links_shown_to`]).
pub async fn keep_links(conn: &mut Conn, queued: &[i64], event_id: i64) -> Result<(), StoreError> {
    if queued.is_empty() {
        return Ok(());
    }
    let mut insert = Query::insert();
    insert
        .into_table(LinkedUnlinksKept::Table)
        .columns([LinkedUnlinksKept::PostId, LinkedUnlinksKept::EventId])
        .on_conflict(OnConflict::new().do_nothing().to_owned());
    for &post_id in queued {
        insert.values_panic([post_id.into(), event_id.into()]);
    }
    conn.execute(&insert).await?;
    Ok(())
}

/// Whether any event keeps its link to a post restored before its last batch: the
/// venue and organizer lists by events then count those events too.
pub async fn any_kept(conn: &mut Conn) -> Result<bool, StoreError> {
    let one = Query::select()
        .column(LinkedUnlinksKept::EventId)
        .from(LinkedUnlinksKept::Table)
        .limit(1)
        .take();
    Ok(conn.query_opt(&one, |r| r.i64(0)).await?.is_some())
}

/// The events whose links to these posts their writes kept ([`keep_links`]), up to
/// `limit`, in ID order: a filter by posts restored before their last batch lists
/// them.
pub async fn kept_events(
    conn: &mut Conn,
    post_ids: &[i64],
    limit: u64,
) -> Result<Vec<i64>, StoreError> {
    if post_ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(
        Query::select()
            .distinct()
            .column(LinkedUnlinksKept::EventId)
            .from(LinkedUnlinksKept::Table)
            .and_where(Expr::col(LinkedUnlinksKept::PostId).is_in(post_ids.iter().copied()))
            .order_by(LinkedUnlinksKept::EventId, Order::Asc)
            .limit(limit),
        |r| r.i64(0),
    )
    .await
}

/// Marks the queued post to be deleted for good by the batch that unlinks its last
/// event, and moves it to the trash if it is not there (restored before its last
/// batch); the links kept meanwhile are unlinked by the batches too. Whether it was
/// queued: if not, the deletion is the caller's, in this transaction.
pub async fn delete_when_unlinked(
    conn: &mut Conn,
    post: &Post,
    now: i64,
) -> Result<bool, StoreError> {
    let marked = conn
        .execute(
            Query::update()
                .table(LinkedUnlinks::Table)
                .value(LinkedUnlinks::ThenDelete, true)
                .and_where(Expr::col(LinkedUnlinks::PostId).eq(post.id)),
        )
        .await?;
    if marked == 0 {
        return Ok(false);
    }
    forget_kept(conn, post.id).await?;
    if post.status() != Some(Status::Trash) {
        super::posts::trash(conn, post, now).await?;
    }
    Ok(true)
}

/// Forgets the links kept from the post's batches: they unlink those events too.
async fn forget_kept(conn: &mut Conn, post_id: i64) -> Result<(), StoreError> {
    conn.execute(
        Query::delete()
            .from_table(LinkedUnlinksKept::Table)
            .and_where(Expr::col(LinkedUnlinksKept::PostId).eq(post_id)),
    )
    .await?;
    Ok(())
}

/// Whether the post is deleted for good once its events are unlinked: no write
/// changes it meanwhile. On PostgreSQL its queue row is taken in share, so that
/// the deletion's mark comes wholly before the write or after it.
pub async fn is_being_deleted(conn: &mut Conn, post_id: i64) -> Result<bool, StoreError> {
    let marked = conn
        .query_opt(mark_of(post_id).lock(LockType::Share), |r| r.bool(0))
        .await?;
    Ok(marked.unwrap_or(false))
}

/// Those of these posts deleted for good whose rows wait for their last batch: a
/// read finds them gone, as every write does (reads by ID, the event lists' filters,
/// sync). Only a post in the trash can be marked: the others cost no lookup.
pub async fn deleted_among<'a>(
    conn: &mut Conn,
    posts: impl IntoIterator<Item = &'a Post>,
) -> Result<Vec<i64>, StoreError> {
    let post_ids: Vec<i64> = posts
        .into_iter()
        .filter(|p| p.status() == Some(Status::Trash))
        .map(|p| p.id)
        .collect();
    if post_ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(
        queued_among(&post_ids).and_where(Expr::col(LinkedUnlinks::ThenDelete).eq(true)),
        |r| r.i64(0),
    )
    .await
}

/// The post's mark, if it is queued.
fn mark_of(post_id: i64) -> SelectStatement {
    Query::select()
        .column(LinkedUnlinks::ThenDelete)
        .from(LinkedUnlinks::Table)
        .and_where(Expr::col(LinkedUnlinks::PostId).eq(post_id))
        .take()
}

/// Whether the statement's `posts` row is not marked for deletion: the lists that
/// show the trash leave a marked post out, as reads by ID do ([`deleted_among`]).
pub(super) fn not_being_deleted() -> SimpleExpr {
    Expr::col((Posts::Table, Posts::Id)).not_in_subquery(
        unlinking()
            .and_where(Expr::col(LinkedUnlinks::ThenDelete).eq(true))
            .take(),
    )
}

/// The posts whose events are still being unlinked.
pub async fn queued(conn: &mut Conn) -> Result<Vec<i64>, StoreError> {
    conn.query(&unlinking(), |r| r.i64(0)).await
}

/// Unlinks up to `batch` events from the queued post, passing over those whose links
/// were kept ([`keep_links`]); the post leaves the queue, and those records with it,
/// once no other event is linked to it. Returns whether it is done (or was not
/// queued).
///
/// On PostgreSQL it locks the queue row (instances take turns), then the events'
/// rows in ID order and the rows their keys are counted in, in the writers' order
/// (`events::lock_events_of_batch`): a write of one of them waits for the batch
/// rather than meeting it in a deadlock that PostgreSQL breaks after a second (the
/// loser is run again, so the outcome is the same; the second is not); others go on.
pub async fn unlink_batch(conn: &mut Conn, post_id: i64, batch: u64) -> Result<bool, StoreError> {
    let queued = conn
        .query_opt(
            Query::select()
                .column((Posts::Table, Posts::PostType))
                .column((LinkedUnlinks::Table, LinkedUnlinks::ThenDelete))
                .from(LinkedUnlinks::Table)
                .inner_join(
                    Posts::Table,
                    Expr::col((Posts::Table, Posts::Id))
                        .equals((LinkedUnlinks::Table, LinkedUnlinks::PostId)),
                )
                .and_where(Expr::col((LinkedUnlinks::Table, LinkedUnlinks::PostId)).eq(post_id))
                .lock_with_tables(LockType::Update, [LinkedUnlinks::Table]),
            |r| Ok((r.string(0)?, r.bool(1)?)),
        )
        .await?;
    let Some((t, then_delete)) = queued.and_then(|(t, d)| Some((PostType::parse(&t)?, d))) else {
        return Ok(true);
    };
    let mut linked = linked_events(t, post_id, batch);
    linked.and_where(
        Expr::col(linked_event_column(t)).not_in_subquery(
            Query::select()
                .column(LinkedUnlinksKept::EventId)
                .from(LinkedUnlinksKept::Table)
                .and_where(Expr::col(LinkedUnlinksKept::PostId).eq(post_id))
                .take(),
        ),
    );
    let mut events = conn.query(&linked, |r| r.i64(0)).await?;
    events.sort_unstable();
    if !events.is_empty() {
        unlink_events(conn, t, post_id, &events).await?;
    }
    if (events.len() as u64) < batch {
        leave_queue(conn, post_id, then_delete).await?;
        return Ok(true);
    }
    Ok(false)
}

/// Takes the post out of the queue, its last event unlinked: deleted for good with
/// its row if its deletion waited for that ([`delete_when_unlinked`]).
async fn leave_queue(conn: &mut Conn, post_id: i64, then_delete: bool) -> Result<(), StoreError> {
    let post = match then_delete {
        true => super::posts::get(conn, post_id).await?,
        false => None,
    };
    match post {
        // The queue's row goes with the post's.
        Some(post) => super::posts::delete(conn, &post).await,
        None => conn
            .execute(
                Query::delete()
                    .from_table(LinkedUnlinks::Table)
                    .and_where(Expr::col(LinkedUnlinks::PostId).eq(post_id)),
            )
            .await
            .map(drop),
    }
}

/// Unlinks these events (sorted) from the venue or organizer. The triggers on
/// `posts` and `event_organizers` keep the events' keys and their summaries.
async fn unlink_events(
    conn: &mut Conn,
    t: PostType,
    post_id: i64,
    events: &[i64],
) -> Result<(), StoreError> {
    let one = [post_id];
    let (venue, organizers): (Option<i64>, &[i64]) = match t {
        PostType::Venue => (Some(post_id), &[]),
        _ => (None, &one),
    };
    super::events::lock_events_of_batch(conn, events, venue, organizers).await?;
    match t {
        PostType::Venue => {
            conn.execute(
                Query::update()
                    .table(Posts::Table)
                    .value(Posts::VenueId, Option::<i64>::None)
                    .and_where(Expr::col(Posts::Id).is_in(events.iter().copied()))
                    .and_where(Expr::col(Posts::VenueId).eq(post_id)),
            )
            .await?;
        }
        _ => {
            super::sync::touch_posts_with_ids(conn, events).await?;
            conn.execute(
                Query::delete()
                    .from_table(EventOrganizers::Table)
                    .and_where(Expr::col(EventOrganizers::OrganizerId).eq(post_id))
                    .and_where(Expr::col(EventOrganizers::EventId).is_in(events.iter().copied())),
            )
            .await?;
        }
    }
    Ok(())
}
