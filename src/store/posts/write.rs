//! Writes of posts: the columns a change sets, the insert of a new post (its type's
//! own columns written in the same row), and the update, trash and delete of
//! venues and organizers, with the unlinking from events that the last two need.

use sea_query::{Expr, ExprTrait, InsertStatement, Query};

use super::{unique_slug, wanted_slug};
use crate::domain::post::{Post, PostChanges, PostType, Status, trashed_slug, untrashed_slug};
use crate::domain::slug;
use crate::store::schema::{EventOrganizers, Posts};
use crate::store::{Conn, StoreError};

/// The text columns a venue or organizer change may set, with their new values.
fn text_changes(c: &PostChanges) -> Vec<(Posts, &Option<String>)> {
    vec![
        (Posts::Title, &c.title),
        (Posts::Description, &c.description),
        (Posts::Excerpt, &c.excerpt),
        (Posts::Password, &c.password),
        (Posts::Address, &c.address),
        (Posts::City, &c.city),
        (Posts::Country, &c.country),
        (Posts::Province, &c.province),
        (Posts::State, &c.state),
        (Posts::Zip, &c.zip),
        (Posts::Phone, &c.phone),
        (Posts::Stateprovince, &c.stateprovince),
        (Posts::Website, &c.website),
        (Posts::Email, &c.email),
    ]
}

/// Column → value pairs for the fields a change sets (image and slug excluded).
fn change_values(c: &PostChanges) -> Vec<(Posts, sea_query::Value)> {
    let mut v: Vec<(Posts, sea_query::Value)> = text_changes(c)
        .into_iter()
        .filter_map(|(col, val)| val.as_ref().map(|s| (col, s.as_str().into())))
        .collect();
    if let Some(a) = c.author {
        v.push((Posts::Author, a.into()));
    }
    if let Some(s) = c.status {
        v.push((Posts::Status, s.as_str().into()));
    }
    if let Some(d) = c.date_utc {
        v.push((Posts::DateUtc, d.into()));
    }
    if let Some(b) = c.show_map {
        v.push((Posts::ShowMap, b.into()));
    }
    if let Some(b) = c.show_map_link {
        v.push((Posts::ShowMapLink, b.into()));
    }
    if let Some(g) = c.geo_lat {
        v.push((Posts::GeoLat, g.into()));
    }
    if let Some(g) = c.geo_lng {
        v.push((Posts::GeoLng, g.into()));
    }
    v
}

/// Inserts a post. `changes` must carry title, author and status; `extra` holds the
/// columns of its type (an event's dates, venue, …), so the row is written once.
pub async fn insert(
    conn: &mut Conn,
    post_type: PostType,
    changes: &PostChanges,
    image_id: Option<i64>,
    extra: Vec<(Posts, sea_query::Value)>,
    now: i64,
) -> Result<i64, StoreError> {
    let mut insert = insert_statement(conn, post_type, changes, image_id, extra, now).await?;
    conn.query_one(insert.returning_col(Posts::Id), |r| r.i64(0))
        .await
}

/// The `INSERT` of [`insert`], with the slug made unique (under a lock on PostgreSQL,
/// held until the transaction ends), for callers that want more back than the ID.
pub(in crate::store) async fn insert_statement(
    conn: &mut Conn,
    post_type: PostType,
    changes: &PostChanges,
    image_id: Option<i64>,
    extra: Vec<(Posts, sea_query::Value)>,
    now: i64,
) -> Result<InsertStatement, StoreError> {
    let slug = unique_slug(conn, post_type, &wanted_slug(changes), None).await?;
    let values = insert_values(post_type, changes, image_id, extra, now, slug);
    let (cols, vals): (Vec<Posts>, Vec<sea_query::Value>) = values.into_iter().unzip();
    Ok(Query::insert()
        .into_table(Posts::Table)
        .columns(cols)
        .values_panic(vals.into_iter().map(Expr::val))
        .to_owned())
}

/// The columns of a new post's row, `extra` (its type's own) last.
pub(in crate::store) fn insert_values(
    post_type: PostType,
    changes: &PostChanges,
    image_id: Option<i64>,
    extra: Vec<(Posts, sea_query::Value)>,
    now: i64,
    slug: String,
) -> Vec<(Posts, sea_query::Value)> {
    let mut values = change_values(changes);
    if let Some(id) = changes.id {
        values.push((Posts::Id, id.into()));
    }
    if changes.date_utc.is_none() {
        values.push((Posts::DateUtc, now.into()));
    }
    values.push((Posts::ModifiedUtc, now.into()));
    values.push((Posts::PostType, post_type.as_str().into()));
    values.push((Posts::Slug, slug.into()));
    values.push((Posts::ImageId, image_id.into()));
    values.extend(extra);
    if post_type == PostType::Venue {
        // A venue created without map flags shows the map, as in the reference.
        for (flag, val) in [
            (Posts::ShowMap, changes.show_map),
            (Posts::ShowMapLink, changes.show_map_link),
        ] {
            if val.is_none() {
                values.push((flag, true.into()));
            }
        }
    }
    values
}

/// Applies a change to an existing post, with the columns of its own type it changes
/// (an event's dates, venue, …; `EventRow::values`) in the same statement: one new
/// version of the row, and its triggers fired once.
pub async fn update(
    conn: &mut Conn,
    post: &Post,
    changes: &PostChanges,
    image_id: Option<Option<i64>>,
    own: Vec<(Posts, sea_query::Value)>,
    now: i64,
) -> Result<(), StoreError> {
    let post_type = post.post_type.unwrap_or(PostType::Venue);
    let mut values = change_values(changes);
    values.extend(own);
    if let Some(s) = &changes.slug {
        let wanted = Some(slug::slugify(s))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| slug::slugify(changes.title.as_deref().unwrap_or(&post.title)));
        let slug = unique_slug(conn, post_type, &wanted, Some(post.id)).await?;
        values.push((Posts::Slug, slug.into()));
    } else if let Some(base) = untrashed_slug(&post.slug)
        && changes.status.is_some_and(|s| s != Status::Trash)
    {
        // Restoring from the trash gives the post its slug back (or the next free one).
        let slug = unique_slug(conn, post_type, base, Some(post.id)).await?;
        values.push((Posts::Slug, slug.into()));
    }
    if let Some(img) = image_id {
        values.push((Posts::ImageId, img.into()));
    }
    if let Some(recorded) = trashed_status_change(post, changes.status) {
        values.push((Posts::TrashedStatus, recorded.into()));
    }
    values.push((Posts::ModifiedUtc, now.into()));
    conn.execute(
        Query::update()
            .table(Posts::Table)
            .values(values.into_iter().map(|(c, v)| (c, Expr::val(v))))
            .value(Posts::Revision, Expr::col(Posts::Revision).add(1))
            .and_where(Expr::col(Posts::Id).eq(post.id)),
    )
    .await?;
    Ok(())
}

/// What a status change does to the recorded status before the trash: going to the
/// trash records the status it leaves; leaving the trash forgets it.
fn trashed_status_change(post: &Post, new_status: Option<Status>) -> Option<Option<String>> {
    let was_trashed = post.status() == Some(Status::Trash);
    match new_status {
        Some(Status::Trash) if !was_trashed => Some(Some(post.status.clone())),
        Some(s) if s != Status::Trash && was_trashed => Some(None),
        _ => None,
    }
}

/// A post's revision, read inside a write transaction and locking the row on
/// PostgreSQL (SQLite's writer is already exclusive): what a conditional write checks.
pub async fn lock_revision(conn: &mut Conn, id: i64) -> Result<Option<i64>, StoreError> {
    conn.query_opt(
        Query::select()
            .column(Posts::Revision)
            .from(Posts::Table)
            .and_where(Expr::col(Posts::Id).eq(id))
            .lock(sea_query::LockType::Update),
        |r| r.i64(0),
    )
    .await
}

/// Moves a post to the trash, freeing its slug. A venue's or organizer's events
/// are unlinked from it by the caller ([`unlink`], or in steps: `linked_unlinks`).
pub async fn trash(conn: &mut Conn, post: &Post, now: i64) -> Result<(), StoreError> {
    let post_type = post.post_type.unwrap_or(PostType::Venue);
    let slug = unique_slug(conn, post_type, &trashed_slug(&post.slug), Some(post.id)).await?;
    conn.execute(
        Query::update()
            .table(Posts::Table)
            .values([
                (Posts::Status, Status::Trash.as_str().into()),
                (Posts::TrashedStatus, post.status.as_str().into()),
                (Posts::Slug, slug.into()),
                (Posts::ModifiedUtc, now.into()),
            ])
            .value(Posts::Revision, Expr::col(Posts::Revision).add(1))
            .and_where(Expr::col(Posts::Id).eq(post.id)),
    )
    .await?;
    Ok(())
}

/// Deletes a post for good; its links and term relationships go with it.
pub async fn delete(conn: &mut Conn, post: &Post) -> Result<(), StoreError> {
    unlink(conn, post).await?;
    conn.execute(
        Query::delete()
            .from_table(Posts::Table)
            .and_where(Expr::col(Posts::Id).eq(post.id)),
    )
    .await?;
    Ok(())
}

/// Unlinks a venue or organizer from every event that uses it, in one statement.
pub async fn unlink(conn: &mut Conn, post: &Post) -> Result<(), StoreError> {
    match post.post_type {
        Some(PostType::Venue) => {
            conn.execute(
                Query::update()
                    .table(Posts::Table)
                    .value(Posts::VenueId, Option::<i64>::None)
                    .and_where(Expr::col(Posts::VenueId).eq(post.id)),
            )
            .await?;
        }
        Some(PostType::Organizer) => {
            crate::store::sync::touch_events_of_organizer(conn, post.id).await?;
            conn.execute(
                Query::delete()
                    .from_table(EventOrganizers::Table)
                    .and_where(Expr::col(EventOrganizers::OrganizerId).eq(post.id)),
            )
            .await?;
        }
        _ => {}
    }
    Ok(())
}
