//! The event list: its filters (status and visibility, search, dates, terms, venues,
//! organizers, …), one page of events and its total; and the venues in a bounding
//! box that a search near a place narrows the list to.

use sea_query::{Cond, Expr, ExprTrait, Order, Query, SelectStatement};

use super::{event_from_row, select_events};
use crate::domain::event::{Event, EventFilter};
use crate::domain::post::{PostType, Visibility};
use crate::store::posts::{self, col};
use crate::store::schema::{EventOrganizers, Posts, TermRelationships};
use crate::store::{Backend, Conn, StoreError};

fn search_filter(
    q: &mut SelectStatement,
    backend: Backend,
    words: &[String],
    protected_content: bool,
) {
    let haystack = "LOWER(posts.title || ' ' || posts.excerpt || ' ' || posts.description)";
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
        // Trigram indexes serve words of three characters or more; shorter ones
        // still match correctly through LIKE, just without the index.
        if backend == Backend::Sqlite && word.chars().count() >= 3 {
            let phrase = format!("\"{}\"", word.replace('"', "\"\""));
            // Events written since the last indexing batch wait in `search_queue`, not
            // yet in the index: they are scanned (see `SQLITE_AFTER_COMMIT`). CROSS JOIN
            // keeps SQLite from scanning `posts` for the few queued rows.
            q.and_where(Expr::cust_with_values(
                "posts.id IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? \
                 UNION ALL SELECT queued.id FROM search_queue queued \
                 CROSS JOIN posts unindexed ON unindexed.id = queued.id \
                 WHERE LOWER(unindexed.title || ' ' || unindexed.excerpt || ' ' || \
                 unindexed.description) LIKE ? ESCAPE '\\')",
                [phrase, pattern],
            ));
        } else {
            q.and_where(Expr::cust(haystack).like(sea_query::LikeExpr::new(pattern).escape('\\')));
        }
    }
}

fn list_filters(q: &mut SelectStatement, backend: Backend, eq: &EventFilter) {
    q.and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(col(Posts::HideFromListings).eq(false));
    posts::status_filters(q, &eq.statuses, &eq.visibility, eq.now_utc);
    if !eq.include.is_empty() {
        q.and_where(col(Posts::Id).is_in(eq.include.iter().copied()));
    }
    date_filters(q, eq);
    search_filter(
        q,
        backend,
        &eq.search_words,
        eq.visibility == Visibility::All,
    );
    link_filters(q, eq);
    place_filters(q, eq);
    if let Some(f) = eq.featured {
        q.and_where(col(Posts::Featured).eq(f));
    }
    protected_filters(q, eq);
    if let Some(parent) = eq.post_parent {
        q.and_where(col(Posts::PostParent).eq(parent));
    }
    if let Some(t) = eq.ticketed {
        q.and_where(if t {
            col(Posts::Tickets).ne("")
        } else {
            col(Posts::Tickets).eq("")
        });
    }
}

fn date_filters(q: &mut SelectStatement, eq: &EventFilter) {
    let bounds = [
        (eq.start_min, Posts::StartUtc, "gte"),
        (eq.end_max, Posts::EndUtc, "lte"),
        (eq.starts_before, Posts::StartUtc, "lt"),
        (eq.starts_after, Posts::StartUtc, "gt"),
        (eq.ends_before, Posts::EndUtc, "lt"),
        (eq.ends_after, Posts::EndUtc, "gt"),
        // No event ends before it starts, so upper bounds on the end bound the start
        // too: that turns a window into a range of the (post_type, start_utc) index.
        (eq.end_max, Posts::StartUtc, "lte"),
        (eq.ends_before, Posts::StartUtc, "lt"),
    ];
    for (value, column, op) in bounds {
        if let Some(v) = value {
            let c = col(column);
            q.and_where(match op {
                "gte" => c.gte(v),
                "lte" => c.lte(v),
                "lt" => c.lt(v),
                _ => c.gt(v),
            });
        }
    }
}

/// Categories and tags (OR within each, AND between them), venues and organizers.
fn link_filters(q: &mut SelectStatement, eq: &EventFilter) {
    for ids in [&eq.categories, &eq.tags] {
        if !ids.is_empty() {
            q.and_where(crate::store::exists(
                Query::select()
                    .expr(Expr::cust("1"))
                    .from(TermRelationships::Table)
                    .and_where(
                        Expr::col((TermRelationships::Table, TermRelationships::PostId))
                            .equals((Posts::Table, Posts::Id)),
                    )
                    .and_where(
                        Expr::col((TermRelationships::Table, TermRelationships::TermId))
                            .is_in(ids.iter().copied()),
                    )
                    .take(),
            ));
        }
    }
    if !eq.venues.is_empty() {
        q.and_where(col(Posts::VenueId).is_in(eq.venues.iter().copied()));
    }
    if !eq.organizers.is_empty() {
        q.and_where(crate::store::exists(
            Query::select()
                .expr(Expr::cust("1"))
                .from(EventOrganizers::Table)
                .and_where(
                    Expr::col((EventOrganizers::Table, EventOrganizers::EventId))
                        .equals((Posts::Table, Posts::Id)),
                )
                .and_where(
                    Expr::col((EventOrganizers::Table, EventOrganizers::OrganizerId))
                        .is_in(eq.organizers.iter().copied()),
                )
                .take(),
        ));
    }
}

/// `geoloc` (a venue with coordinates, or not) and the venues near a point.
fn place_filters(q: &mut SelectStatement, eq: &EventFilter) {
    if let Some(g) = eq.geoloc {
        let located = Query::select()
            .column(Posts::Id)
            .from(Posts::Table)
            .and_where(Expr::col(Posts::PostType).eq(PostType::Venue.as_str()))
            .and_where(Expr::col(Posts::GeoLat).is_not_null())
            .and_where(Expr::col(Posts::GeoLng).is_not_null())
            .take();
        if g {
            q.and_where(col(Posts::VenueId).in_subquery(located));
        } else {
            q.cond_where(
                Cond::any()
                    .add(col(Posts::VenueId).is_null())
                    .add(col(Posts::VenueId).not_in_subquery(located)),
            );
        }
    }
    if let Some(near) = &eq.near_venues {
        // PostgreSQL rejects `IN ()`, which is what no venue in range would render.
        q.and_where(if near.is_empty() {
            Expr::cust("1 = 0")
        } else {
            col(Posts::VenueId).is_in(near.iter().copied())
        });
    }
}

/// A password-protected event shows its title only to those who may not edit it:
/// its terms, venue, organizers, flags and tickets are blanked. Filters on those
/// must not match it for them, or the list would tell what the event hides.
fn protected_filters(q: &mut SelectStatement, eq: &EventFilter) {
    let filters_hidden_fields = !eq.categories.is_empty()
        || !eq.tags.is_empty()
        || !eq.venues.is_empty()
        || !eq.organizers.is_empty()
        || eq.featured.is_some()
        || eq.ticketed.is_some()
        || eq.geoloc.is_some()
        || eq.near_venues.is_some();
    if !filters_hidden_fields {
        return;
    }
    match eq.visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.and_where(col(Posts::Password).eq(""));
        }
        Visibility::PublishedOrOwn(author) => {
            q.cond_where(
                Cond::any()
                    .add(col(Posts::Password).eq(""))
                    .add(col(Posts::Author).eq(author)),
            );
        }
    }
}

/// One page of events, ordered by start then ID, and the total.
pub async fn list(conn: &mut Conn, eq: &EventFilter) -> Result<(Vec<Event>, u64), StoreError> {
    let backend = conn.backend();
    let may_scan = eq.plain_window().is_none();
    crate::store::sqlite::scanning(backend, may_scan, page_and_total(conn, eq)).await
}

async fn page_and_total(
    conn: &mut Conn,
    eq: &EventFilter,
) -> Result<(Vec<Event>, u64), StoreError> {
    let backend = conn.backend();
    let total = match eq.plain_window() {
        Some(window) => crate::store::event_count::plain_window(conn, window, eq.now_utc).await?,
        None => {
            let mut count = Query::select();
            count.expr(col(Posts::Id).count()).from(Posts::Table);
            list_filters(&mut count, backend, eq);
            u64::try_from(conn.query_one(&count, |r| r.i64(0)).await?).unwrap_or(0)
        }
    };
    let offset = (eq.page - 1).saturating_mul(eq.per_page);
    if total == 0 || offset >= total {
        return Ok((Vec::new(), total));
    }
    let mut page = select_events();
    list_filters(&mut page, backend, eq);
    page.order_by((Posts::Table, Posts::StartUtc), Order::Asc)
        .order_by((Posts::Table, Posts::Id), Order::Asc)
        .limit(eq.per_page)
        .offset(offset);
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
