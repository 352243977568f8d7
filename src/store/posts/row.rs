//! The shape of a post row: the columns every post query selects (with its image's
//! URL), the `RETURNING` list that reads a write back the same way, and the reader
//! that turns either into a [`Post`]. Event queries append their own columns after these.

use sea_query::{Alias, Expr, ExprTrait, Query, SelectStatement, SimpleExpr};

use crate::domain::post::{Image, Post, PostType, Status};
use crate::store::schema::Posts;
use crate::store::{Backend, Row, StoreError};

/// Columns of [`Post`], in the order `post_from_row` reads them.
const POST_COLUMNS: [Posts; 26] = [
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
    Posts::TrashedStatus,
];

fn image_alias() -> Alias {
    Alias::new("img")
}

/// `SELECT <post columns>, img.guid FROM posts LEFT JOIN posts img ON …`.
pub(in crate::store) fn select_posts() -> SelectStatement {
    let mut q = Query::select();
    for c in POST_COLUMNS {
        q.column((Posts::Table, c));
    }
    q.column((Posts::Table, Posts::GeoLng))
        .column((Posts::Table, Posts::Revision))
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
pub const POST_COLUMN_COUNT: usize = POST_COLUMNS.len() + 3;

pub(in crate::store) fn post_from_row(r: &Row<'_>) -> Result<Post, StoreError> {
    let image_id = r.opt_i64(11)?;
    let image_url = r.opt_string(28)?;
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
        trashed_status: r.opt_string(25)?.as_deref().and_then(Status::parse),
        geo_lng: r.opt_f64(26)?,
        revision: r.i64(27)?,
    })
}

pub(in crate::store) fn col(c: Posts) -> Expr {
    Expr::col((Posts::Table, c))
}

/// `posts.post_type`, kept off the type's indexes on SQLite by a unary plus, for a
/// query another index serves better: without statistics SQLite prefers the type's
/// equality to any range or list. PostgreSQL has no unary plus for text, and weighs
/// the plans by their costs.
pub(in crate::store) fn post_type_off_its_index(backend: Backend) -> Expr {
    match backend {
        Backend::Sqlite => Expr::cust("+\"posts\".\"post_type\""),
        Backend::Postgres => col(Posts::PostType),
    }
}

/// What `select_posts` yields, as a `RETURNING` list of a write to `posts`, so
/// [`post_from_row`] reads the row as written.
pub(in crate::store) fn returning_posts() -> Vec<Expr> {
    let mut out: Vec<Expr> = POST_COLUMNS.iter().map(|c| col(*c)).collect();
    out.push(col(Posts::GeoLng));
    out.push(col(Posts::Revision));
    out.push(Expr::expr(SimpleExpr::from(
        Query::select()
            .column((image_alias(), Posts::Guid))
            .from_as(Posts::Table, image_alias())
            .and_where(Expr::col((image_alias(), Posts::Id)).equals((Posts::Table, Posts::ImageId)))
            .to_owned(),
    )));
    out
}
