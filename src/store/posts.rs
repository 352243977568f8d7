//! Posts shared by all types: venues, organizers, images; the event-specific
//! columns are read and written in `events.rs`.

use sea_query::{
    Alias, Cond, Expr, ExprTrait, Func, InsertStatement, IntoColumnRef, Order, Query,
    SelectStatement, SimpleExpr, UnionType,
};

use super::schema::{EventOrganizers, Posts};
use super::{Conn, Row, StoreError};
use crate::domain::post::{
    Image, ImageRef, LinkedPostQuery, Post, PostChanges, PostType, Status, TRASHED_SUFFIX,
    Visibility,
};
use crate::domain::slug;

/// Columns of [`Post`], in the order `post_from_row` reads them.
const POST_COLUMNS: [Posts; 25] = [
    Posts::Id,
    Posts::PostType,
    Posts::Author,
    Posts::Status,
    Posts::Password,
    Posts::Slug,
    Posts::Title,
    Posts::Description,
    Posts::Excerpt,
    Posts::DateUtc,
    Posts::ModifiedUtc,
    Posts::ImageId,
    Posts::Address,
    Posts::City,
    Posts::Country,
    Posts::Province,
    Posts::State,
    Posts::Zip,
    Posts::Phone,
    Posts::Stateprovince,
    Posts::Website,
    Posts::Email,
    Posts::ShowMap,
    Posts::ShowMapLink,
    Posts::GeoLat,
];

fn image_alias() -> Alias {
    Alias::new("img")
}

/// `SELECT <post columns>, img.guid FROM posts LEFT JOIN posts img ON …`.
pub fn select_posts() -> SelectStatement {
    let mut q = Query::select();
    for c in POST_COLUMNS {
        q.column((Posts::Table, c));
    }
    q.column((Posts::Table, Posts::GeoLng))
        .column((image_alias(), Posts::Guid))
        .from(Posts::Table)
        .join_as(
            sea_query::JoinType::LeftJoin,
            Posts::Table,
            image_alias(),
            Expr::col((image_alias(), Posts::Id)).equals((Posts::Table, Posts::ImageId)),
        );
    q
}

/// Number of columns `select_posts` yields; event queries append theirs after these.
pub const POST_COLUMN_COUNT: usize = POST_COLUMNS.len() + 2;

pub fn post_from_row(r: &Row<'_>) -> Result<Post, StoreError> {
    let image_id = r.opt_i64(11)?;
    let image_url = r.opt_string(26)?;
    Ok(Post {
        id: r.i64(0)?,
        post_type: PostType::parse(&r.string(1)?),
        author: r.i64(2)?,
        status: r.string(3)?,
        password: r.string(4)?,
        slug: r.string(5)?,
        title: r.string(6)?,
        description: r.string(7)?,
        excerpt: r.string(8)?,
        date_utc: r.i64(9)?,
        modified_utc: r.i64(10)?,
        image: match (image_id, image_url) {
            (Some(id), Some(url)) => Some(Image { id, url }),
            _ => None,
        },
        address: r.string(12)?,
        city: r.string(13)?,
        country: r.string(14)?,
        province: r.string(15)?,
        state: r.string(16)?,
        zip: r.string(17)?,
        phone: r.string(18)?,
        stateprovince: r.string(19)?,
        website: r.string(20)?,
        email: r.string(21)?,
        show_map: r.bool(22)?,
        show_map_link: r.bool(23)?,
        geo_lat: r.opt_f64(24)?,
        geo_lng: r.opt_f64(25)?,
    })
}

pub fn col(c: Posts) -> Expr {
    Expr::col((Posts::Table, c))
}

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
pub fn select_many(ids: &[i64]) -> SelectStatement {
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

/// A slug for `post_type` that no other post of that type has: `wanted`, or
/// `wanted-2`, `wanted-3`, … `except` is the post being renamed.
pub async fn unique_slug(
    conn: &mut Conn,
    post_type: PostType,
    wanted: &str,
    except: Option<i64>,
) -> Result<String, StoreError> {
    let base = slug_base(post_type, wanted);
    conn.lock_key(&slug_lock(post_type, &base)).await?;
    let mut scope = Query::select();
    scope
        .column(Posts::Slug)
        .from(Posts::Table)
        .and_where(Expr::col(Posts::PostType).eq(post_type.as_str()));
    if let Some(id) = except {
        scope.and_where(Expr::col(Posts::Id).ne(id));
    }
    let family = slug_family(&scope, Posts::Slug, &base);
    let taken = conn.query(&family, |r| r.string(0)).await?;
    Ok(slug::unique(&base, &taken))
}

/// What a slug is made unique from: the wanted one, or the type's name when there is none.
pub fn slug_base(post_type: PostType, wanted: &str) -> String {
    if wanted.is_empty() {
        post_type.as_str().to_string()
    } else {
        wanted.to_string()
    }
}

/// The lock that serialises writers choosing slugs from one base (see [`Conn::lock_key`]).
pub fn slug_lock(post_type: PostType, base: &str) -> String {
    format!("slug:{}:{base}", post_type.as_str())
}

/// The slugs `slug::unique` may collide with, `base` and `base-` followed by a digit,
/// selected by `scope` (which names the table and its other conditions). Two exact
/// ranges of the slug index, bytewise (SQLite's default collation, `COLLATE "C"` on
/// PostgreSQL; slugs hold only `[a-z0-9_-]` and `:` follows `9`): a plain "Concert"
/// neither reads nor walks every "concert-in-the-park-…" a site holds.
pub fn slug_family(
    scope: &SelectStatement,
    column: impl IntoColumnRef,
    base: &str,
) -> SelectStatement {
    let [mut exact, numbered] = slug_family_parts(scope, column, base);
    exact.union(UnionType::All, numbered);
    exact
}

/// The two parts of [`slug_family`], for a caller that unions several families.
pub fn slug_family_parts(
    scope: &SelectStatement,
    column: impl IntoColumnRef,
    base: &str,
) -> [SelectStatement; 2] {
    let column = column.into_column_ref();
    let mut exact = scope.clone();
    exact.and_where(Expr::col(column.clone()).eq(base));
    let mut numbered = scope.clone();
    numbered
        .and_where(Expr::col(column.clone()).gte(format!("{base}-0")))
        .and_where(Expr::col(column).lt(format!("{base}-:")));
    [exact, numbered]
}

/// Escapes `%` and `_` for a LIKE pattern. Both backends treat `\` as the escape
/// character only when told, so patterns built here are used with `like_escape`.
pub fn escape_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// `LOWER(column) LIKE '%needle%'` with escaping, for substring search.
pub fn contains(column: impl IntoColumnRef, needle: &str) -> SimpleExpr {
    let pattern = format!("%{}%", escape_like(&needle.to_lowercase()));
    Expr::expr(Func::lower(Expr::col(column))).like(sea_query::LikeExpr::new(pattern).escape('\\'))
}

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
pub async fn insert_statement(
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

/// The slug a new post asks for, before it is made unique: its own, or, when that has
/// nothing usable in it ("!!!"), its title's, as WordPress does.
pub fn wanted_slug(changes: &PostChanges) -> String {
    changes
        .slug
        .as_deref()
        .map(slug::slugify)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| slug::slugify(changes.title.as_deref().unwrap_or_default()))
}

/// The columns of a new post's row, `extra` (its type's own) last.
pub fn insert_values(
    post_type: PostType,
    changes: &PostChanges,
    image_id: Option<i64>,
    extra: Vec<(Posts, sea_query::Value)>,
    now: i64,
    slug: String,
) -> Vec<(Posts, sea_query::Value)> {
    let mut values = change_values(changes);
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

/// What `select_posts` yields, as a `RETURNING` list of a write to `posts`, so
/// [`post_from_row`] reads the row as written.
pub fn returning_posts() -> Vec<Expr> {
    let mut out: Vec<Expr> = POST_COLUMNS.iter().map(|c| col(*c)).collect();
    out.push(col(Posts::GeoLng));
    out.push(Expr::expr(SimpleExpr::from(
        Query::select()
            .column((image_alias(), Posts::Guid))
            .from_as(Posts::Table, image_alias())
            .and_where(Expr::col((image_alias(), Posts::Id)).equals((Posts::Table, Posts::ImageId)))
            .to_owned(),
    )));
    out
}

/// Applies a change to an existing venue or organizer.
pub async fn update(
    conn: &mut Conn,
    post: &Post,
    changes: &PostChanges,
    image_id: Option<Option<i64>>,
    now: i64,
) -> Result<(), StoreError> {
    let post_type = post.post_type.unwrap_or(PostType::Venue);
    let mut values = change_values(changes);
    if let Some(s) = &changes.slug {
        let wanted = Some(slug::slugify(s))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| slug::slugify(changes.title.as_deref().unwrap_or(&post.title)));
        let slug = unique_slug(conn, post_type, &wanted, Some(post.id)).await?;
        values.push((Posts::Slug, slug.into()));
    } else if changes.status.is_some_and(|s| s != Status::Trash)
        && post.slug.ends_with(TRASHED_SUFFIX)
    {
        // Restoring from the trash gives the post its slug back (or the next free one).
        let base = post.slug.trim_end_matches(TRASHED_SUFFIX).to_string();
        let slug = unique_slug(conn, post_type, &base, Some(post.id)).await?;
        values.push((Posts::Slug, slug.into()));
    }
    if let Some(img) = image_id {
        values.push((Posts::ImageId, img.into()));
    }
    values.push((Posts::ModifiedUtc, now.into()));
    conn.execute(
        Query::update()
            .table(Posts::Table)
            .values(values.into_iter().map(|(c, v)| (c, Expr::val(v))))
            .and_where(Expr::col(Posts::Id).eq(post.id)),
    )
    .await?;
    Ok(())
}

/// Moves a post to the trash, freeing its slug, and unlinks a venue or organizer
/// from the events that use it.
pub async fn trash(conn: &mut Conn, post: &Post, now: i64) -> Result<(), StoreError> {
    conn.execute(
        Query::update()
            .table(Posts::Table)
            .values([
                (Posts::Status, Status::Trash.as_str().into()),
                (
                    Posts::Slug,
                    format!("{}{}", post.slug, TRASHED_SUFFIX).into(),
                ),
                (Posts::ModifiedUtc, now.into()),
            ])
            .and_where(Expr::col(Posts::Id).eq(post.id)),
    )
    .await?;
    unlink(conn, post).await
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

async fn unlink(conn: &mut Conn, post: &Post) -> Result<(), StoreError> {
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
/// (case-insensitively) the fields of a create request.
pub async fn find_duplicate(
    conn: &mut Conn,
    post_type: PostType,
    changes: &PostChanges,
) -> Result<Option<i64>, StoreError> {
    let mut q = Query::select();
    q.column(Posts::Id)
        .from(Posts::Table)
        .and_where(Expr::col(Posts::PostType).eq(post_type.as_str()))
        .and_where(Expr::col(Posts::Status).ne(Status::Trash.as_str()));
    for (column, value) in dedup_fields(post_type, changes) {
        q.and_where(Expr::expr(Func::lower(Expr::col(column))).eq(value.to_lowercase()));
    }
    q.order_by(Posts::Id, Order::Asc).limit(1);
    conn.query_opt(&q, |r| r.i64(0)).await
}

/// The filters of a venue/organizer list, shared by its page and count queries.
fn linked_filters(q: &mut SelectStatement, lq: &LinkedPostQuery) {
    q.and_where(col(Posts::PostType).eq(lq.post_type.as_str()));
    if lq.statuses.is_empty() {
        q.and_where(col(Posts::Status).ne(Status::Trash.as_str()));
    } else {
        q.and_where(col(Posts::Status).is_in(lq.statuses.iter().map(|s| s.as_str())));
    }
    match lq.visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.cond_where(published(lq.now_utc));
        }
        Visibility::PublishedOrOwn(author) => {
            q.cond_where(
                Cond::any()
                    .add(published(lq.now_utc))
                    .add(col(Posts::Author).eq(author)),
            );
        }
    }
    if let Some(search) = &lq.search {
        let mut any = Cond::any();
        let columns: &[Posts] = match lq.post_type {
            PostType::Venue => &[
                Posts::Title,
                Posts::Description,
                Posts::Excerpt,
                Posts::Address,
                Posts::City,
                Posts::Province,
                Posts::State,
                Posts::Stateprovince,
                Posts::Zip,
                Posts::Phone,
            ],
            _ => &[
                Posts::Title,
                Posts::Description,
                Posts::Excerpt,
                Posts::Phone,
                Posts::Email,
                Posts::Website,
            ],
        };
        for c in columns {
            any = any.add(contains((Posts::Table, *c), search));
        }
        q.cond_where(any);
    }
    let events = Alias::new("ev");
    let linked_events = |extra: Option<SimpleExpr>| {
        let mut sub = Query::select();
        sub.expr(Expr::cust("1"))
            .from_as(Posts::Table, events.clone());
        match lq.post_type {
            PostType::Venue => {
                sub.and_where(
                    Expr::col((events.clone(), Posts::VenueId)).equals((Posts::Table, Posts::Id)),
                );
            }
            _ => {
                sub.inner_join(
                    EventOrganizers::Table,
                    Expr::col((EventOrganizers::Table, EventOrganizers::EventId))
                        .equals((events.clone(), Posts::Id)),
                )
                .and_where(
                    Expr::col((EventOrganizers::Table, EventOrganizers::OrganizerId))
                        .equals((Posts::Table, Posts::Id)),
                );
            }
        }
        sub.and_where(Expr::col((events.clone(), Posts::PostType)).eq(PostType::Event.as_str()));
        if let Some(e) = extra {
            sub.and_where(e);
        }
        sub
    };
    if let Some(event_id) = lq.event {
        q.and_where(Expr::exists(linked_events(Some(
            Expr::col((events.clone(), Posts::Id)).eq(event_id),
        ))));
    }
    if let Some(has) = lq.has_events {
        let sub = linked_events(Some(Expr::col((events.clone(), Posts::Status)).is_not_in(
            [
                Status::Draft.as_str(),
                Status::Pending.as_str(),
                Status::Trash.as_str(),
            ],
        )));
        q.and_where(if has {
            Expr::exists(sub)
        } else {
            Expr::exists(sub).not()
        });
    }
    if lq.only_with_upcoming {
        let status = Expr::col((events.clone(), Posts::Status));
        let visible =
            match lq.visibility {
                Visibility::All => status.ne(Status::Trash.as_str()),
                Visibility::Published => status.eq(Status::Publish.as_str()),
                Visibility::PublishedOrOwn(author) => status.eq(Status::Publish.as_str()).or(
                    Expr::col((events.clone(), Posts::Author))
                        .eq(author)
                        .and(Expr::col((events.clone(), Posts::Status)).ne(Status::Trash.as_str())),
                ),
            };
        let mut sub = linked_events(Some(visible));
        sub.and_where(Expr::col((events.clone(), Posts::StartUtc)).gte(lq.now_utc))
            .and_where(Expr::col((events.clone(), Posts::HideFromListings)).eq(false));
        q.and_where(Expr::exists(sub));
    }
}

/// `status = 'publish'`, or a scheduled post whose date has passed.
pub fn published(now: i64) -> Cond {
    Cond::any()
        .add(col(Posts::Status).eq(Status::Publish.as_str()))
        .add(
            col(Posts::Status)
                .eq(Status::Future.as_str())
                .and(col(Posts::DateUtc).lte(now)),
        )
}

/// One page of venues or organizers, newest first, and the total.
pub async fn list_linked(
    conn: &mut Conn,
    lq: &LinkedPostQuery,
) -> Result<(Vec<Post>, u64), StoreError> {
    let mut count = Query::select();
    count
        .expr(Expr::col((Posts::Table, Posts::Id)).count())
        .from(Posts::Table);
    linked_filters(&mut count, lq);
    let total = u64::try_from(conn.query_one(&count, |r| r.i64(0)).await?).unwrap_or(0);
    // A page past the last one is empty; its offset may not even fit a database integer.
    let offset = (lq.page - 1).saturating_mul(lq.per_page);
    if offset >= total {
        return Ok((Vec::new(), total));
    }
    let mut page = select_posts();
    linked_filters(&mut page, lq);
    page.order_by((Posts::Table, Posts::DateUtc), Order::Desc)
        .order_by((Posts::Table, Posts::Id), Order::Desc)
        .limit(lq.per_page)
        .offset(offset);
    let posts = conn.query(&page, post_from_row).await?;
    Ok((posts, total))
}

/// Finds a venue or organizer matching a create request, or creates it; returns its ID.
/// `Err(())` when its image names no usable image.
pub async fn find_or_create(
    tx: &mut Conn,
    t: PostType,
    changes: &PostChanges,
    image: Option<&ImageRef>,
    author: i64,
    now: i64,
) -> Result<Result<i64, ()>, StoreError> {
    // Two identical creates at once must find each other, not make two venues.
    let name = changes.title.as_deref().unwrap_or_default().to_lowercase();
    tx.lock_key(&format!("dedup:{}:{name}", t.as_str())).await?;
    if let Some(id) = find_duplicate(tx, t, changes).await? {
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
