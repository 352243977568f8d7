//! Categories and tags.

use sea_query::{Cond, Expr, ExprTrait, Func, Order, Query, SelectStatement};

use super::posts::contains;
use super::schema::{EventKeys, TermAncestors, TermRelationships, Terms};
use super::{Conn, Row, StoreError};
use crate::domain::slug;
use crate::domain::term::{Taxonomy, Term, TermChanges, TermOrderBy, TermQuery};

const TERM_COLUMNS: [Terms; 7] = [
    Terms::Id,
    Terms::Taxonomy,
    Terms::Name,
    Terms::Slug,
    Terms::Description,
    Terms::Parent,
    Terms::Count,
];

/// Number of columns `select_terms` yields.
pub const TERM_COLUMN_COUNT: usize = TERM_COLUMNS.len();

pub(in crate::store) fn select_terms() -> SelectStatement {
    let mut q = Query::select();
    for c in TERM_COLUMNS {
        q.column((Terms::Table, c));
    }
    q.from(Terms::Table);
    // A term being deleted (`term_deletion`) is in neither taxonomy.
    q.and_where(col(Terms::Taxonomy).is_in([Taxonomy::Category.as_str(), Taxonomy::Tag.as_str()]));
    q
}

pub(in crate::store) fn term_from_row(r: &Row<'_>) -> Result<Term, StoreError> {
    let taxonomy = match r.string(1)?.as_str() {
        "post_tag" => Taxonomy::Tag,
        _ => Taxonomy::Category,
    };
    Ok(Term {
        id: r.i64(0)?,
        taxonomy,
        name: r.string(2)?,
        slug: r.string(3)?,
        description: r.string(4)?,
        parent: r.i64(5)?,
        count: r.i64(6)?,
    })
}

fn col(c: Terms) -> Expr {
    Expr::col((Terms::Table, c))
}

/// The terms among these IDs that exist, in one statement, in the order events
/// list their terms (by name, then ID).
pub async fn get_many(conn: &mut Conn, ids: &[i64]) -> Result<Vec<Term>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(&select_many(ids), term_from_row).await
}

/// The terms of these IDs, in the order events list their terms (name regardless
/// of case, then ID).
pub(in crate::store) fn select_many(ids: &[i64]) -> SelectStatement {
    select_terms()
        .and_where(col(Terms::Id).is_in(ids.iter().copied()))
        .order_by_expr(Func::lower(Expr::col(Terms::Name)).into(), Order::Asc)
        .order_by(Terms::Name, Order::Asc)
        .order_by(Terms::Id, Order::Asc)
        .to_owned()
}

/// The counts of these terms (those that exist).
pub async fn counts(conn: &mut Conn, ids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(
        Query::select()
            .columns([Terms::Id, Terms::Count])
            .from(Terms::Table)
            .and_where(Expr::col(Terms::Id).is_in(ids.iter().copied())),
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )
    .await
}

pub async fn get(conn: &mut Conn, id: i64) -> Result<Option<Term>, StoreError> {
    conn.query_opt(
        select_terms().and_where(col(Terms::Id).eq(id)),
        term_from_row,
    )
    .await
}

/// A term of this taxonomy by ID (if `key` is numeric), slug or name, in that order.
pub async fn find(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    key: &str,
) -> Result<Option<Term>, StoreError> {
    let found = find_many(conn, taxonomy, &[key.to_string()]).await?;
    Ok(found.into_iter().next().flatten())
}

/// [`find`] for each key, in two statements whatever their number (a list of 200
/// tags named them with 200 lookups): the keys that are IDs of this taxonomy's
/// terms, then the others by slug, else by name, the lowest ID first.
pub async fn find_many(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    keys: &[String],
) -> Result<Vec<Option<Term>>, StoreError> {
    let ids: Vec<i64> = keys.iter().filter_map(|k| k.parse().ok()).collect();
    let by_id = get_many(conn, &ids).await?;
    let by_id = |key: &str| {
        let id = key.parse::<i64>().ok()?;
        by_id.iter().find(|t| t.id == id && t.taxonomy == taxonomy)
    };
    let named: Vec<&str> = keys
        .iter()
        .map(String::as_str)
        .filter(|k| by_id(k).is_none())
        .collect();
    let mut by_name = Vec::new();
    if !named.is_empty() {
        let mut q = select_terms();
        q.and_where(col(Terms::Taxonomy).eq(taxonomy.as_str()))
            .cond_where(
                Cond::any()
                    .add(col(Terms::Slug).is_in(named.iter().copied()))
                    .add(col(Terms::Name).is_in(named.iter().copied())),
            )
            .order_by(Terms::Id, Order::Asc);
        by_name = conn.query(&q, term_from_row).await?;
    }
    Ok(keys
        .iter()
        .map(|key| {
            by_id(key)
                .or_else(|| by_name.iter().find(|t| t.slug == *key))
                .or_else(|| by_name.iter().find(|t| t.name == *key))
                .cloned()
        })
        .collect())
}

/// The ID of a term with this name under this parent, if any (WordPress forbids duplicates).
pub async fn name_taken(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    name: &str,
    parent: i64,
    except: Option<i64>,
) -> Result<Option<i64>, StoreError> {
    let mut q = Query::select();
    q.column(Terms::Id)
        .from(Terms::Table)
        .and_where(Expr::col(Terms::Taxonomy).eq(taxonomy.as_str()))
        .and_where(Expr::col(Terms::Name).eq(name))
        .and_where(Expr::col(Terms::Parent).eq(parent));
    if let Some(id) = except {
        q.and_where(Expr::col(Terms::Id).ne(id));
    }
    conn.query_opt(&q, |r| r.i64(0)).await
}

/// True when a term of this taxonomy already uses this exact slug.
pub async fn slug_taken(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    slug: &str,
    except: Option<i64>,
) -> Result<bool, StoreError> {
    let mut q = Query::select();
    q.column(Terms::Id)
        .from(Terms::Table)
        .and_where(Expr::col(Terms::Taxonomy).eq(taxonomy.as_str()))
        .and_where(Expr::col(Terms::Slug).eq(slug));
    if let Some(id) = except {
        q.and_where(Expr::col(Terms::Id).ne(id));
    }
    Ok(conn.query_opt(&q, |r| r.i64(0)).await?.is_some())
}

async fn unique_slug(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    base: &str,
) -> Result<String, StoreError> {
    let base = if base.is_empty() { "term" } else { base };
    conn.lock_key(&format!("term-slug:{}:{base}", taxonomy.as_str()))
        .await?;
    let scope = Query::select()
        .column(Terms::Slug)
        .from(Terms::Table)
        .and_where(Expr::col(Terms::Taxonomy).eq(taxonomy.as_str()))
        .to_owned();
    let family = super::posts::slug_family(&scope, Terms::Slug, base);
    let taken = conn.query(&family, |r| r.string(0)).await?;
    Ok(slug::unique(base, &taken))
}

/// Inserts a term; `changes.name` must be set. A slug derived from the name is made
/// unique; an explicit slug is used as given (the caller checks it is free).
pub async fn insert(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    changes: &TermChanges,
) -> Result<i64, StoreError> {
    let name = changes.name.clone().unwrap_or_default();
    let slug = match &changes.slug {
        Some(s) if !s.is_empty() => slug::slugify(s),
        _ => unique_slug(conn, taxonomy, &slug::slugify(&name)).await?,
    };
    let mut values: Vec<(Terms, sea_query::Value)> = vec![
        (Terms::Taxonomy, taxonomy.as_str().into()),
        (Terms::Name, name.into()),
        (Terms::Slug, slug.into()),
        (
            Terms::Description,
            changes.description.clone().unwrap_or_default().into(),
        ),
        (Terms::Parent, changes.parent.unwrap_or(0).into()),
    ];
    if let Some(id) = changes.id {
        values.push((Terms::Id, id.into()));
    }
    let (cols, vals): (Vec<Terms>, Vec<sea_query::Value>) = values.into_iter().unzip();
    conn.query_one(
        Query::insert()
            .into_table(Terms::Table)
            .columns(cols)
            .values_panic(vals.into_iter().map(Expr::val))
            .returning_col(Terms::Id),
        |r| r.i64(0),
    )
    .await
}

/// Writes a term's changes. A change of parent moves a subtree: the caller holds
/// the tree ([`lock_tree`]) from before it checked the move.
pub async fn update(conn: &mut Conn, term: &Term, changes: &TermChanges) -> Result<(), StoreError> {
    let mut values: Vec<(Terms, sea_query::Value)> = Vec::new();
    if let Some(n) = &changes.name {
        values.push((Terms::Name, n.as_str().into()));
    }
    if let Some(s) = &changes.slug {
        values.push((Terms::Slug, slug::slugify(s).into()));
    }
    if let Some(d) = &changes.description {
        values.push((Terms::Description, d.as_str().into()));
    }
    if let Some(p) = changes.parent {
        values.push((Terms::Parent, p.into()));
    }
    if values.is_empty() {
        return Ok(());
    }
    conn.execute(
        Query::update()
            .table(Terms::Table)
            .values(values.into_iter().map(|(c, v)| (c, Expr::val(v))))
            .and_where(Expr::col(Terms::Id).eq(term.id)),
    )
    .await?;
    Ok(())
}

/// Holds the categories' tree still until the transaction ends: a move keys the
/// events of the moved subtree again (migration 17), and a writer that gave one of
/// them a category meanwhile, from the ancestors as they were, would leave it the
/// keys of its former place. PostgreSQL's triggers share the lock whenever an
/// event's terms change; SQLite has one writer at a time.
pub async fn lock_tree(conn: &mut Conn) -> Result<(), StoreError> {
    conn.lock_key("term-tree").await
}

/// Shares the tree until the transaction ends, as a change of an event's categories
/// does on PostgreSQL (migration 17's `term_tree_shared`): no move runs meanwhile.
/// SQLite has one writer at a time.
pub async fn share_tree(conn: &mut Conn) -> Result<(), StoreError> {
    if conn.backend() == super::Backend::Postgres {
        conn.query_opt(
            Query::select().expr(Expr::cust("term_tree_shared()")),
            |_| Ok(()),
        )
        .await?;
    }
    Ok(())
}

/// Deletes a term for good; its children move up to its parent, as in WordPress.
pub async fn delete(conn: &mut Conn, term: &Term) -> Result<(), StoreError> {
    lock_tree(conn).await?;
    crate::store::sync::touch_posts_of_term(conn, term.id).await?;
    adopt_children(conn, term).await?;
    conn.execute(
        Query::delete()
            .from_table(Terms::Table)
            .and_where(Expr::col(Terms::Id).eq(term.id)),
    )
    .await?;
    // Keys its subcategories' events held through it where their move was queued
    // (migration 45): the batches behind it would no longer find them.
    conn.execute(
        Query::delete()
            .from_table(EventKeys::Table)
            .cond_where(super::term_deletion::term_keys(term.id)),
    )
    .await?;
    Ok(())
}

/// Moves the term's children up to its parent. The caller holds [`lock_tree`].
pub(in crate::store) async fn adopt_children(
    conn: &mut Conn,
    term: &Term,
) -> Result<(), StoreError> {
    conn.execute(
        Query::update()
            .table(Terms::Table)
            .value(Terms::Parent, term.parent)
            .and_where(Expr::col(Terms::Parent).eq(term.id)),
    )
    .await?;
    Ok(())
}

/// True when making `candidate_parent` the parent of `term_id` would close a
/// cycle: `candidate_parent` is the term itself or lies below it
/// (`term_ancestors` holds every term with itself and each term above it).
pub async fn would_cycle(
    conn: &mut Conn,
    term_id: i64,
    candidate_parent: i64,
) -> Result<bool, StoreError> {
    let found = conn
        .query(
            Query::select()
                .column(TermAncestors::TermId)
                .from(TermAncestors::Table)
                .and_where(Expr::col(TermAncestors::TermId).eq(candidate_parent))
                .and_where(Expr::col(TermAncestors::AncestorId).eq(term_id))
                .limit(1),
            |r| r.i64(0),
        )
        .await?;
    Ok(!found.is_empty())
}

/// The terms at or below these in their tree, each once and sorted; at most
/// `limit` rows of `term_ancestors` are read, so a longer answer is cut short.
pub async fn at_or_below(conn: &mut Conn, ids: &[i64], limit: u64) -> Result<Vec<i64>, StoreError> {
    let mut below = conn
        .query(
            Query::select()
                .column(TermAncestors::TermId)
                .from(TermAncestors::Table)
                .and_where(Expr::col(TermAncestors::AncestorId).is_in(ids.iter().copied()))
                .limit(limit),
            |r| r.i64(0),
        )
        .await?;
    below.sort_unstable();
    below.dedup();
    Ok(below)
}

fn term_filters(q: &mut SelectStatement, tq: &TermQuery) {
    q.and_where(col(Terms::Taxonomy).eq(tq.taxonomy.as_str()));
    if let Some(s) = &tq.search {
        q.cond_where(
            Cond::any()
                .add(contains((Terms::Table, Terms::Name), s))
                .add(contains((Terms::Table, Terms::Slug), s)),
        );
    }
    if !tq.include.is_empty() {
        q.and_where(col(Terms::Id).is_in(tq.include.iter().copied()));
    }
    if !tq.exclude.is_empty() {
        q.and_where(col(Terms::Id).is_not_in(tq.exclude.iter().copied()));
    }
    if tq.hide_empty {
        q.and_where(col(Terms::Count).gt(0i64));
    }
    if let Some(p) = tq.parent {
        q.and_where(col(Terms::Parent).eq(p));
    }
    if let Some(s) = &tq.slug {
        q.and_where(col(Terms::Slug).eq(s.as_str()));
    }
    if let Some(post) = tq.post {
        q.and_where(
            col(Terms::Id).in_subquery(
                Query::select()
                    .column(TermRelationships::TermId)
                    .from(TermRelationships::Table)
                    .and_where(Expr::col(TermRelationships::PostId).eq(post))
                    .take(),
            ),
        );
    }
}

/// The term of this taxonomy with this name, created if there is none. A concurrent
/// writer may be creating it too: the key lock makes the second find the first's.
pub async fn find_or_insert(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    name: &str,
) -> Result<i64, StoreError> {
    conn.lock_key(&format!(
        "term:{}:{}",
        taxonomy.as_str(),
        name.to_lowercase()
    ))
    .await?;
    match find(conn, taxonomy, name).await? {
        Some(t) => Ok(t.id),
        None => {
            let changes = TermChanges {
                name: Some(name.to_string()),
                ..Default::default()
            };
            insert(conn, taxonomy, &changes).await
        }
    }
}

/// One page of terms and the total.
pub async fn list(conn: &mut Conn, tq: &TermQuery) -> Result<(Vec<Term>, u64), StoreError> {
    let mut count = Query::select();
    count.expr(col(Terms::Id).count()).from(Terms::Table);
    term_filters(&mut count, tq);
    let total = u64::try_from(conn.query_one(&count, |r| r.i64(0)).await?).unwrap_or(0);
    // A page past the last one is empty; its offset may not even fit a database integer.
    let offset = (tq.page - 1).saturating_mul(tq.per_page);
    if offset >= total {
        return Ok((Vec::new(), total));
    }
    let mut page = select_terms();
    term_filters(&mut page, tq);
    let order = if tq.order_desc {
        Order::Desc
    } else {
        Order::Asc
    };
    let column = match tq.orderby {
        TermOrderBy::Name => Terms::Name,
        TermOrderBy::Slug | TermOrderBy::IncludeSlugs => Terms::Slug,
        TermOrderBy::Description => Terms::Description,
        TermOrderBy::Count => Terms::Count,
        TermOrderBy::Id | TermOrderBy::TermGroup | TermOrderBy::Include => Terms::Id,
    };
    if matches!(column, Terms::Name | Terms::Description) {
        // People read "A, b, C", not the code-point order "A, C, b" (WordPress sorts
        // with MySQL's case-insensitive collation).
        page.order_by_expr(
            Func::lower(Expr::col((Terms::Table, column))).into(),
            order.clone(),
        );
    }
    page.order_by((Terms::Table, column), order.clone())
        .order_by((Terms::Table, Terms::Id), order)
        .limit(tq.per_page)
        .offset(offset);
    let terms = conn.query(&page, term_from_row).await?;
    Ok((terms, total))
}
