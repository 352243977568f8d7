//! Posts a write names by value rather than by ID: an image by URL, a venue or
//! organizer by its fields. Each is found when it exists and created when not, so
//! repeated or concurrent creates share one post instead of making duplicates.

use sea_query::{Cond, Expr, ExprTrait, Func, Order, Query};

use super::{insert, type_of, unique_slug};
use crate::domain::post::{ImageRef, PostChanges, PostType, Status, Visibility};
use crate::domain::slug;
use crate::store::schema::Posts;
use crate::store::{Conn, StoreError};

/// Resolves an image reference to an attachment ID, creating the attachment for a new URL.
/// `Err(())` when the reference names no usable image.
pub async fn resolve_image(
    conn: &mut Conn,
    image: &ImageRef,
    author: i64,
    now: i64,
) -> Result<Result<Option<i64>, ()>, StoreError> {
    match image {
        ImageRef::None => Ok(Ok(None)),
        ImageRef::Id(id) => Ok(match type_of(conn, *id).await? {
            Some(PostType::Attachment) => Ok(Some(*id)),
            _ => Err(()),
        }),
        ImageRef::Url(url) => {
            let existing = conn
                .query_opt(
                    Query::select()
                        .column(Posts::Id)
                        .from(Posts::Table)
                        .and_where(Expr::col(Posts::PostType).eq(PostType::Attachment.as_str()))
                        .and_where(Expr::col(Posts::Guid).eq(url.as_str())),
                    |r| r.i64(0),
                )
                .await?;
            if let Some(id) = existing {
                return Ok(Ok(Some(id)));
            }
            let name = url.rsplit('/').next().unwrap_or("image");
            let slug = unique_slug(conn, PostType::Attachment, &slug::slugify(name), None).await?;
            let id = conn
                .query_one(
                    Query::insert()
                        .into_table(Posts::Table)
                        .columns([
                            Posts::PostType,
                            Posts::Author,
                            Posts::Status,
                            Posts::Slug,
                            Posts::Title,
                            Posts::Guid,
                            Posts::DateUtc,
                            Posts::ModifiedUtc,
                        ])
                        .values_panic([
                            PostType::Attachment.as_str().into(),
                            author.into(),
                            "inherit".into(),
                            slug.into(),
                            name.into(),
                            url.as_str().into(),
                            now.into(),
                            now.into(),
                        ])
                        .returning_col(Posts::Id),
                    |r| r.i64(0),
                )
                .await?;
            Ok(Ok(Some(id)))
        }
    }
}

/// The fields venue/organizer de-duplication compares, with the values a create gives.
fn dedup_fields(post_type: PostType, c: &PostChanges) -> Vec<(Posts, &str)> {
    let fields: Vec<(Posts, &Option<String>)> = match post_type {
        PostType::Venue => vec![
            (Posts::Title, &c.title),
            (Posts::Description, &c.description),
            (Posts::Excerpt, &c.excerpt),
            (Posts::Address, &c.address),
            (Posts::City, &c.city),
            (Posts::Country, &c.country),
            (Posts::Province, &c.province),
            (Posts::State, &c.state),
            (Posts::Stateprovince, &c.stateprovince),
            (Posts::Zip, &c.zip),
            (Posts::Phone, &c.phone),
            (Posts::Website, &c.website),
        ],
        _ => vec![
            (Posts::Title, &c.title),
            (Posts::Description, &c.description),
            (Posts::Excerpt, &c.excerpt),
            (Posts::Phone, &c.phone),
            (Posts::Email, &c.email),
            (Posts::Website, &c.website),
        ],
    };
    fields
        .into_iter()
        .filter_map(|(col, v)| v.as_deref().map(|s| (col, s)))
        .collect()
}

/// An existing, non-trashed venue or organizer whose every given field matches
/// (case-insensitively) the fields of a create request, among those the caller may
/// read in full: answering with a hidden one would hand its fields to the caller.
/// Not one restored while its events are still being unlinked from it: an event
/// write linking it would lose the link to the next batch (`linked_unlinks`).
pub async fn find_duplicate(
    conn: &mut Conn,
    post_type: PostType,
    changes: &PostChanges,
    visible: &Visibility,
    now: i64,
) -> Result<Option<i64>, StoreError> {
    let mut q = Query::select();
    q.column(Posts::Id)
        .from(Posts::Table)
        .and_where(Expr::col(Posts::PostType).eq(post_type.as_str()))
        .and_where(Expr::col(Posts::Status).ne(Status::Trash.as_str()))
        .and_where(crate::store::linked_unlinks::not_unlinking());
    let public = Cond::all()
        .add(super::published(now))
        .add(Expr::col(Posts::Password).eq(""));
    super::list::visible_under(&mut q, visible, public);
    for (column, value) in dedup_fields(post_type, changes) {
        q.and_where(Expr::expr(Func::lower(Expr::col(column))).eq(value.to_lowercase()));
    }
    q.order_by(Posts::Id, Order::Asc).limit(1);
    conn.query_opt(&q, |r| r.i64(0)).await
}

/// Finds a venue or organizer matching a create request, or creates it; returns its ID.
/// `Err(())` when its image names no usable image.
pub async fn find_or_create(
    tx: &mut Conn,
    t: PostType,
    changes: &PostChanges,
    image: Option<&ImageRef>,
    (author, visible): (i64, &Visibility),
    now: i64,
) -> Result<Result<i64, ()>, StoreError> {
    // Two identical creates at once must find each other, not make two venues.
    let name = changes.title.as_deref().unwrap_or_default().to_lowercase();
    tx.lock_key(&format!("dedup:{}:{name}", t.as_str())).await?;
    // An item created under its source's ID is that source's own, never merged.
    if changes.id.is_none()
        && let Some(id) = find_duplicate(tx, t, changes, visible, now).await?
    {
        return Ok(Ok(id));
    }
    let image_id = match image {
        Some(img) => match resolve_image(tx, img, author, now).await? {
            Ok(id) => id,
            Err(()) => return Ok(Err(())),
        },
        None => None,
    };
    insert(tx, t, changes, image_id, Vec::new(), now)
        .await
        .map(Ok)
}
