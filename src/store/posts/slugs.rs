//! Slugs: what a post asks for, and making it unique among its type's slugs under a
//! lock, reading only the slugs it could collide with. Terms share the family query.

use sea_query::{Expr, ExprTrait, IntoColumnRef, Query, SelectStatement, UnionType};

use crate::domain::post::{PostChanges, PostType};
use crate::domain::slug;
use crate::store::schema::Posts;
use crate::store::{Conn, StoreError};

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
pub(in crate::store) fn slug_base(post_type: PostType, wanted: &str) -> String {
    if wanted.is_empty() {
        post_type.as_str().to_string()
    } else {
        wanted.to_string()
    }
}

/// The lock that serialises writers choosing slugs from one base (see [`Conn::lock_key`]).
pub(in crate::store) fn slug_lock(post_type: PostType, base: &str) -> String {
    format!("slug:{}:{base}", post_type.as_str())
}

/// The slugs `slug::unique` may collide with, `base` and `base-` followed by a digit,
/// selected by `scope` (which names the table and its other conditions). Two exact
/// ranges of the slug index, bytewise (SQLite's default collation, `COLLATE "C"` on
/// PostgreSQL; slugs hold only `[a-z0-9_-]` and `:` follows `9`): a plain "Concert"
/// neither reads nor walks every "concert-in-the-park-…" a site holds.
pub(in crate::store) fn slug_family(
    scope: &SelectStatement,
    column: impl IntoColumnRef,
    base: &str,
) -> SelectStatement {
    let [mut exact, numbered] = slug_family_parts(scope, column, base);
    exact.union(UnionType::All, numbered);
    exact
}

/// The two parts of [`slug_family`], for a caller that unions several families.
pub(in crate::store) fn slug_family_parts(
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

/// The slug a new post asks for, before it is made unique: its own, or, when that has
/// nothing usable in it ("!!!"), its title's, as WordPress does.
pub(in crate::store) fn wanted_slug(changes: &PostChanges) -> String {
    changes
        .slug
        .as_deref()
        .map(slug::slugify)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| slug::slugify(changes.title.as_deref().unwrap_or_default()))
}
