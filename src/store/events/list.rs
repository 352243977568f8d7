//! The event list: one page of events and its total, and the venues in a bounding box
//! that a search near a place narrows the list to. Lists read `event_keys` (see
//! `keys`) and count from its per-day counts where they can (`store::event_count`);
//! a search finds its matches as `search` chooses.

use sea_query::{Alias, Cond, Expr, ExprTrait, Order, Query, SelectStatement, SimpleExpr};

use super::{event_from_row, select_events};
use crate::domain::event::{Event, EventFilter, Total};
use crate::domain::event_keys::{KeyFilter, key_filters};
use crate::domain::post::{PostType, Visibility};
use crate::store::posts::{self, col, contains};
use crate::store::schema::Posts;
use crate::store::{Backend, Conn, StoreError};

/// Whether the trigram indexes can find `word`: they need three characters.
/// (PostgreSQL's serves a shorter `LIKE` too, by checking nearly every event.)
pub(super) fn indexed(word: &str) -> bool {
    word.chars().count() >= 3
}

/// The events whose title, excerpt or description contains `word` (lower-cased), as
/// a subquery of their IDs. SQLite's trigram index serves words of three characters
/// or more; PostgreSQL's serves the `LIKE` itself. Shorter words still match
/// correctly, through `LIKE`, just without an index.
pub(super) fn matching_events(backend: Backend, word: &str) -> SelectStatement {
    let words = [word.to_string()];
    if backend == Backend::Sqlite && indexed(word) {
        return index_matches(backend, &words).expect("the word is indexed");
    }
    let mut q = Query::select();
    q.column((Posts::Table, Posts::Id))
        .from(Posts::Table)
        .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(haystack("posts").like(like(word)));
    q
}

/// The IDs of the events whose text holds every indexed word (see [`indexed`]), as
/// the search index finds them, in no particular order and one at a time: `None`
/// when no word is indexed. Words the index cannot serve are the caller's.
pub(super) fn index_matches(backend: Backend, words: &[String]) -> Option<SelectStatement> {
    let words: Vec<&String> = words.iter().filter(|w| indexed(w)).collect();
    if words.is_empty() {
        return None;
    }
    if backend == Backend::Postgres {
        // No condition on the type: the matches' keys are looked up next, which only
        // events have, and a condition would have PostgreSQL AND the trigram index's
        // bitmap with every event's.
        let mut q = Query::select();
        q.expr_as(Expr::col((Posts::Table, Posts::Id)), Alias::new("id"))
            .from(Posts::Table);
        for word in words {
            q.and_where(haystack("posts").like(like(word)));
        }
        return Some(q);
    }
    let phrases: Vec<String> = words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    let mut values = vec![phrases.join(" AND ")];
    values.extend(words.iter().map(|w| format!("%{}%", posts::escape_like(w))));
    let queued = vec![format!("{HAYSTACK_QUEUED} LIKE ? ESCAPE '\\'"); words.len()].join(" AND ");
    // Events written since the last indexing batch wait in `search_queue`, not
    // yet in the index: they are scanned (see `SQLITE_AFTER_COMMIT`). CROSS JOIN
    // keeps SQLite from scanning `posts` for the few queued rows.
    Some(
        Query::select()
            .expr(Expr::cust_with_values(
                format!(
                    "rowid AS id FROM posts_fts WHERE posts_fts MATCH ? \
                     UNION ALL SELECT queued.id FROM search_queue queued \
                     CROSS JOIN posts unindexed ON unindexed.id = queued.id WHERE {queued}"
                ),
                values,
            ))
            .take(),
    )
}

/// What a search matches in, as the trigram indexes hold it, for `posts` under
/// the given name.
fn haystack(table: &str) -> Expr {
    Expr::cust(format!(
        "LOWER({table}.title || ' ' || {table}.excerpt || ' ' || {table}.description)"
    ))
}

/// The text of a queued event, not yet in SQLite's index.
const HAYSTACK_QUEUED: &str =
    "LOWER(unindexed.title || ' ' || unindexed.excerpt || ' ' || unindexed.description)";

/// `LIKE '%word%'`, escaped.
fn like(word: &str) -> sea_query::LikeExpr {
    sea_query::LikeExpr::new(format!("%{}%", posts::escape_like(word))).escape('\\')
}

/// `word` is in the text of the event row `p`.
pub(super) fn on_row(word: &str) -> SimpleExpr {
    haystack("p").like(like(word))
}

/// Every search word is in the text of the event row `p`, and a protected event,
/// for those who may not read it, matches on its title alone: matching its hidden
/// text would tell them what that text contains.
pub(super) fn text_on_row(eq: &EventFilter) -> SimpleExpr {
    let mut all = Cond::all();
    for word in &eq.search_words {
        all = all.add(on_row(word));
        if eq.visibility != Visibility::All {
            all = all.add(
                Cond::any()
                    .add(Expr::col((Alias::new("p"), Posts::Password)).eq(""))
                    .add(contains((Alias::new("p"), Posts::Title), word)),
            );
        }
    }
    all.into()
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
pub async fn list(conn: &mut Conn, eq: &EventFilter) -> Result<(Vec<Event>, Total), StoreError> {
    let Some(mut keys) = key_filters(eq) else {
        return Ok((Vec::new(), Total::exact(0)));
    };
    super::keys::largest_first(conn, &mut keys).await?;
    if keys.is_empty() {
        keys.push(KeyFilter::every());
    }
    let backend = conn.backend();
    let may_scan = super::keys::aggregate_window(eq, &keys).is_none();
    crate::store::sqlite::scanning(backend, may_scan, page_and_total(conn, eq, &keys)).await
}

async fn page_and_total(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Result<(Vec<Event>, Total), StoreError> {
    // A search counts its matches up to a limit (`search`); nothing else does.
    let (ids, total) = if !eq.search_words.is_empty() && !keys[0].may_repeat() {
        let found = super::search::page(conn, eq, keys).await?;
        (found.ids, found.total)
    } else {
        let total = Total::exact(exact_total(conn, eq, keys).await?);
        let ids = page_ids(conn, eq, keys, total.count).await?;
        (ids, total)
    };
    let Some(ids) = ids else {
        return Ok((Vec::new(), total));
    };
    let mut page = select_events();
    page.and_where(col(Posts::Id).in_subquery(ids))
        .order_by((Posts::Table, Posts::StartUtc), Order::Asc)
        .order_by((Posts::Table, Posts::Id), Order::Asc);
    let events = conn.query(&page, event_from_row).await?;
    Ok((events, total))
}

/// The number of events a list shows: from the per-day counts where they serve it.
async fn exact_total(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Result<u64, StoreError> {
    let backend = conn.backend();
    let sum = |parts: Vec<i64>| -> u64 {
        parts
            .into_iter()
            .map(|n| u64::try_from(n).unwrap_or(0))
            .sum()
    };
    if let Some(window) = super::keys::aggregate_window(eq, keys) {
        return crate::store::event_count::window(conn, &window).await;
    }
    if let Some((first, others)) = super::keys::first_value_window(backend, eq, keys) {
        let first = crate::store::event_count::window(conn, &first).await?;
        return Ok(first + sum(conn.query(&others, |r| r.i64(0)).await?));
    }
    let count = super::keys::count(backend, eq, keys);
    Ok(sum(conn.query(&count, |r| r.i64(0)).await?))
}

/// The IDs of the page's events, in list order, from an index alone (skipping to
/// a deep page then reads index entries, not the wide rows of every event before
/// it): `None` past the last page.
async fn page_ids(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    total: u64,
) -> Result<Option<SelectStatement>, StoreError> {
    let mut offset = (eq.page - 1).saturating_mul(eq.per_page);
    if total == 0 || offset >= total {
        return Ok(None);
    }
    // A deep page of a window the per-day counts serve starts reading at the day
    // its first event is on, not at the window's start.
    let mut sought;
    let mut eq = eq;
    if let Some(window) = super::keys::aggregate_window(eq, keys)
        && offset >= SEEK_FROM
        && let Some((start, skipped)) =
            crate::store::event_count::seek(conn, &window, offset).await?
    {
        sought = eq.clone();
        sought.start_min = Some(Ord::max(start, eq.start_min.unwrap_or(start)));
        offset -= skipped;
        eq = &sought;
    }
    Ok(Some(super::keys::page_ids(
        conn.backend(),
        eq,
        keys,
        offset,
    )))
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
