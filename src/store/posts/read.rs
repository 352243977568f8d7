//! Reads of single posts by ID or slug, of several by ID, and the cheap lookups
//! (a post's type, the next scheduled go-live) that avoid loading a whole post.

use sea_query::{Expr, ExprTrait, Query, SelectStatement};

use super::{col, post_from_row, select_posts};
use crate::domain::post::{Post, PostType, Status};
use crate::store::schema::Posts;
use crate::store::{Conn, StoreError};

pub async fn get(conn: &mut Conn, id: i64) -> Result<Option<Post>, StoreError> {
    conn.query_opt(
        select_posts().and_where(col(Posts::Id).eq(id)),
        post_from_row,
    )
    .await
}

pub async fn get_by_slug(
    conn: &mut Conn,
    post_type: PostType,
    slug: &str,
) -> Result<Option<Post>, StoreError> {
    conn.query_opt(
        select_posts()
            .and_where(col(Posts::PostType).eq(post_type.as_str()))
            .and_where(col(Posts::Slug).eq(slug)),
        post_from_row,
    )
    .await
}

/// The posts among these IDs that exist, in one statement.
pub async fn get_many(conn: &mut Conn, ids: &[i64]) -> Result<Vec<Post>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(&select_many(ids), post_from_row).await
}

/// The posts of these IDs, of any type.
pub(in crate::store) fn select_many(ids: &[i64]) -> SelectStatement {
    select_posts()
        .and_where(col(Posts::Id).is_in(ids.iter().copied()))
        .to_owned()
}

/// The type of a post, if it exists; used to validate IDs without loading the post.
pub async fn type_of(conn: &mut Conn, id: i64) -> Result<Option<PostType>, StoreError> {
    let t = conn
        .query_opt(
            Query::select()
                .column(Posts::PostType)
                .from(Posts::Table)
                .and_where(Expr::col(Posts::Id).eq(id)),
            |r| r.string(0),
        )
        .await?;
    Ok(t.as_deref().and_then(PostType::parse))
}

/// The earliest moment after `now` at which a scheduled event, venue or organizer
/// goes live: until then, what anonymous visitors may see changes only by writes.
/// One seek of the status index per post type.
pub async fn next_go_live(conn: &mut Conn, now: i64) -> Result<Option<i64>, StoreError> {
    conn.query_one(
        Query::select()
            .expr(Expr::col(Posts::DateUtc).min())
            .from(Posts::Table)
            .and_where(Expr::col(Posts::PostType).is_in([
                PostType::Event.as_str(),
                PostType::Venue.as_str(),
                PostType::Organizer.as_str(),
            ]))
            .and_where(Expr::col(Posts::Status).eq(Status::Future.as_str()))
            .and_where(Expr::col(Posts::DateUtc).gt(now)),
        |r| r.opt_i64(0),
    )
    .await
}
