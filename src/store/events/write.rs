//! Writes of an event's own row: the insert that returns the event as stored, and
//! the locked read of its state a write starts from (its update is `posts::update`,
//! with its own columns). Its relations and term counts are written in `relations`
//! and `term_counts`.

use sea_query::{Expr, ExprTrait, LockType, Query};

use super::{event_from_row, returning_events};
use crate::domain::event::Event;
use crate::domain::post::PostType;
use crate::store::posts;
use crate::store::schema::Posts;
use crate::store::{Conn, StoreError};

/// Inserts an event (see [`posts::insert`]) and returns it as stored, in the same statement.
pub async fn insert(
    conn: &mut Conn,
    changes: &crate::domain::post::PostChanges,
    image_id: Option<i64>,
    columns: Vec<(Posts, sea_query::Value)>,
    now: i64,
) -> Result<Event, StoreError> {
    let mut insert =
        posts::insert_statement(conn, PostType::Event, changes, image_id, columns, now).await?;
    conn.query_one(
        insert.returning(Query::returning().exprs(returning_events())),
        event_from_row,
    )
    .await
}

/// What decides whether an event is counted in its terms, as stored.
pub struct CountedState {
    pub status: String,
    pub date_utc: i64,
    /// When it was last written: a scheduled event due by then was counted then.
    pub modified_utc: i64,
    /// When it starts and ends.
    pub span: (i64, i64),
    /// Writes since its creation.
    pub revision: i64,
    /// The text a search looks in.
    pub title: String,
    pub excerpt: String,
    pub description: String,
    pub venue_id: Option<i64>,
    /// Hidden from event listings.
    pub hidden: bool,
}

/// An event's status and dates, read inside a write transaction and locking the row
/// on PostgreSQL (SQLite's writer is already exclusive), so that two concurrent
/// writes of one event see each other and term counts move once, not twice.
pub async fn lock_state(conn: &mut Conn, id: i64) -> Result<Option<CountedState>, StoreError> {
    conn.query_opt(
        Query::select()
            .columns([
                Posts::Status,
                Posts::DateUtc,
                Posts::ModifiedUtc,
                Posts::StartUtc,
                Posts::EndUtc,
                Posts::Revision,
                Posts::Title,
                Posts::Excerpt,
                Posts::Description,
                Posts::VenueId,
                Posts::HideFromListings,
            ])
            .from(Posts::Table)
            .and_where(Expr::col(Posts::Id).eq(id))
            .and_where(Expr::col(Posts::PostType).eq(PostType::Event.as_str()))
            .lock(LockType::Update),
        |r| {
            Ok(CountedState {
                status: r.string(0)?,
                date_utc: r.i64(1)?,
                modified_utc: r.i64(2)?,
                span: (r.i64(3)?, r.i64(4)?),
                revision: r.i64(5)?,
                title: r.string(6)?,
                excerpt: r.string(7)?,
                description: r.string(8)?,
                venue_id: r.opt_i64(9)?,
                hidden: r.bool(10)?,
            })
        },
    )
    .await
}
