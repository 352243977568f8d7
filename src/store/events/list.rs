//! The event list: one page of events and its total, and the venues in a bounding box
//! that a search near a place narrows the list to. Lists read `event_keys` (see
//! `keys`) and count from its per-day counts where they can (`store::event_count`);
//! a PostgreSQL search with no other filter reads `posts`, with the filters below.

use sea_query::{Cond, Expr, ExprTrait, Order, Query, SelectStatement};

use super::{event_from_row, select_events};
use crate::domain::event::{Event, EventFilter};
use crate::domain::event_keys::{KeyFilter, key_filters};
use crate::domain::post::{PostType, Visibility};
use crate::store::posts::{self, col};
use crate::store::schema::Posts;
use crate::store::{Backend, Conn, StoreError};

/// The events whose title, excerpt or description contains `word` (lower-cased), as
/// a subquery of their IDs. SQLite's trigram index serves words of three characters
/// or more; PostgreSQL's serves the `LIKE` itself. Shorter words still match
/// correctly, through `LIKE`, just without an index.
pub(super) fn matching_events(backend: Backend, word: &str) -> SelectStatement {
    let pattern = format!("%{}%", posts::escape_like(word));
    if backend == Backend::Sqlite && word.chars().count() >= 3 {
        let phrase = format!("\"{}\"", word.replace('"', "\"\""));
        // Events written since the last indexing batch wait in `search_queue`, not
        // yet in the index: they are scanned (see `SQLITE_AFTER_COMMIT`). CROSS JOIN
        // keeps SQLite from scanning `posts` for the few queued rows.
        return Query::select()
            .expr(Expr::cust_with_values(
                "rowid FROM posts_fts WHERE posts_fts MATCH ? \
                 UNION ALL SELECT queued.id FROM search_queue queued \
                 CROSS JOIN posts unindexed ON unindexed.id = queued.id \
                 WHERE LOWER(unindexed.title || ' ' || unindexed.excerpt || ' ' || \
                 unindexed.description) LIKE ? ESCAPE '\\'",
                [phrase, pattern],
            ))
            .take();
    }
    let mut q = Query::select();
    q.column((Posts::Table, Posts::Id))
        .from(Posts::Table)
        .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(Expr::cust(HAYSTACK).like(sea_query::LikeExpr::new(pattern).escape('\\')));
    q
}

/// What a search matches in, as the trigram indexes hold it.
const HAYSTACK: &str = "LOWER(posts.title || ' ' || posts.excerpt || ' ' || posts.description)";

/// A search on `posts` itself (PostgreSQL's searches without key filters): on the
/// row, so that PostgreSQL can AND the trigram index's bitmap with the start
/// index's (migration 4).
fn search_filter(q: &mut SelectStatement, words: &[String], protected_content: bool) {
    for word in words {
        let pattern = format!("%{}%", posts::escape_like(word));
        if !protected_content {
            // A password-protected event may match on its title only: matching on its
            // hidden text would tell the searcher what that text contains.
            q.cond_where(
                Cond::any()
                    .add(col(Posts::Password).eq(""))
                    .add(posts::contains((Posts::Table, Posts::Title), word)),
            );
        }
        q.and_where(Expr::cust(HAYSTACK).like(sea_query::LikeExpr::new(pattern).escape('\\')));
    }
}

/// The filters of a PostgreSQL search with no key filter, on `posts` itself.
fn list_filters(q: &mut SelectStatement, eq: &EventFilter) {
    q.and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(col(Posts::HideFromListings).eq(false));
    posts::status_filters(q, &eq.statuses, &eq.visibility, eq.now_utc);
    if !eq.include.is_empty() {
        q.and_where(col(Posts::Id).is_in(eq.include.iter().copied()));
    }
    date_filters(q, eq, || col(Posts::StartUtc), || col(Posts::EndUtc));
    search_filter(q, &eq.search_words, eq.visibility == Visibility::All);
    if let Some(parent) = eq.post_parent {
        q.and_where(col(Posts::PostParent).eq(parent));
    }
}

/// The date bounds on the given start and end columns.
pub(super) fn date_filters(
    q: &mut SelectStatement,
    eq: &EventFilter,
    start: impl Fn() -> Expr,
    end: impl Fn() -> Expr,
) {
    // No event ends before it starts, so upper bounds on the end bound the start
    // too: that turns a window into a range of the start index.
    let upper_end = [eq.end_max, eq.ends_before.map(|t| t.saturating_sub(1))]
        .into_iter()
        .flatten()
        .min();
    let bounds = [
        (eq.start_min, start(), "gte"),
        (eq.end_max, end(), "lte"),
        (eq.starts_before, start(), "lt"),
        (eq.starts_after, start(), "gt"),
        (eq.ends_before, end(), "lt"),
        (eq.ends_after, end(), "gt"),
        (upper_end, start(), "lte"),
    ];
    for (value, c, op) in bounds {
        if let Some(v) = value {
            q.and_where(match op {
                "gte" => c.gte(v),
                "lte" => c.lte(v),
                "lt" => c.lt(v),
                _ => c.gt(v),
            });
        }
    }
}

/// How deep a page must be for seeking its first day to beat walking to it.
const SEEK_FROM: u64 = 1_000;

/// One page of events, ordered by start then ID, and the total.
pub async fn list(conn: &mut Conn, eq: &EventFilter) -> Result<(Vec<Event>, u64), StoreError> {
    let Some(mut keys) = key_filters(eq) else {
        return Ok((Vec::new(), 0));
    };
    super::keys::largest_first(conn, &mut keys).await?;
    let backend = conn.backend();
    let may_scan = super::keys::aggregate_window(eq, &keys).is_none();
    crate::store::sqlite::scanning(backend, may_scan, page_and_total(conn, eq, &keys)).await
}

async fn page_and_total(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Result<(Vec<Event>, u64), StoreError> {
    let backend = conn.backend();
    // On PostgreSQL a search with no key filter reads `posts`, where it can AND its
    // trigram index's bitmap with the start index's (migration 4); every other list
    // reads keys, every event being one when no filter names another.
    let on_posts = backend == Backend::Postgres && keys.is_empty() && !eq.search_words.is_empty();
    let every = [KeyFilter::every()];
    let keys = if keys.is_empty() { &every[..] } else { keys };
    let window = super::keys::aggregate_window(eq, keys);
    let first_value = match &window {
        None => super::keys::first_value_window(backend, eq, keys),
        Some(_) => None,
    };
    let total = if let Some(window) = &window {
        crate::store::event_count::window(conn, window).await?
    } else if let Some((first, others)) = &first_value {
        let first = crate::store::event_count::window(conn, first).await?;
        let others = conn.query(others, |r| r.i64(0)).await?;
        first
            + others
                .into_iter()
                .map(|n| u64::try_from(n).unwrap_or(0))
                .sum::<u64>()
    } else {
        let count = if on_posts {
            let mut count = Query::select();
            count.expr(col(Posts::Id).count()).from(Posts::Table);
            list_filters(&mut count, eq);
            count
        } else {
            super::keys::count(backend, eq, keys)
        };
        let parts = conn.query(&count, |r| r.i64(0)).await?;
        parts
            .into_iter()
            .map(|n| u64::try_from(n).unwrap_or(0))
            .sum()
    };
    let mut offset = (eq.page - 1).saturating_mul(eq.per_page);
    if total == 0 || offset >= total {
        return Ok((Vec::new(), total));
    }
    // A deep page of a window the per-day counts serve starts reading at the day
    // its first event is on, not at the window's start.
    let mut sought;
    let mut eq = eq;
    if let Some(window) = &window
        && offset >= SEEK_FROM
        && let Some((start, skipped)) =
            crate::store::event_count::seek(conn, window, offset).await?
    {
        sought = eq.clone();
        sought.start_min = Some(Ord::max(start, eq.start_min.unwrap_or(start)));
        offset -= skipped;
        eq = &sought;
    }
    // The page's IDs first, from an index alone, then its rows: skipping to a deep
    // page then reads index entries, not the wide rows of every event before it.
    let ids = if on_posts {
        let mut ids = Query::select();
        ids.column((Posts::Table, Posts::Id)).from(Posts::Table);
        list_filters(&mut ids, eq);
        ids.order_by((Posts::Table, Posts::StartUtc), Order::Asc)
            .order_by((Posts::Table, Posts::Id), Order::Asc)
            .limit(eq.per_page)
            .offset(offset);
        ids
    } else {
        super::keys::page_ids(backend, eq, keys, offset)
    };
    let mut page = select_events();
    page.and_where(col(Posts::Id).in_subquery(ids))
        .order_by((Posts::Table, Posts::StartUtc), Order::Asc)
        .order_by((Posts::Table, Posts::Id), Order::Asc);
    let events = conn.query(&page, event_from_row).await?;
    Ok((events, total))
}

/// Venues with coordinates inside a bounding box: `(id, lat, lng)`.
pub async fn venues_in_box(
    conn: &mut Conn,
    lat: (f64, f64),
    lng: (f64, f64),
) -> Result<Vec<(i64, f64, f64)>, StoreError> {
    conn.query(
        Query::select()
            .columns([Posts::Id, Posts::GeoLat, Posts::GeoLng])
            .from(Posts::Table)
            .and_where(Expr::col(Posts::PostType).eq(PostType::Venue.as_str()))
            .and_where(Expr::col(Posts::GeoLat).between(lat.0, lat.1))
            .and_where(Expr::col(Posts::GeoLng).between(lng.0, lng.1)),
        |r| {
            Ok((
                r.i64(0)?,
                r.opt_f64(1)?.unwrap_or(0.0),
                r.opt_f64(2)?.unwrap_or(0.0),
            ))
        },
    )
    .await
}
