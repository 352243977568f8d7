//! Reads of one event by ID or slug, and of what a page of events links to (terms,
//! venue, organizers) in two statements whatever the page's size.

use std::collections::HashMap;

use sea_query::{Expr, ExprTrait, Order, SelectStatement, UnionType};

use super::{event_from_row, select_events};
use crate::domain::event::{Event, EventLinks};
use crate::domain::post::{Post, PostType};
use crate::domain::term::Taxonomy;
use crate::store::posts::{
    POST_COLUMN_COUNT, col, post_from_row, post_type_off_its_index, select_posts,
};
use crate::store::schema::{EventOrganizers, LinkedUnlinksKept, Posts, TermRelationships, Terms};
use crate::store::terms::{TERM_COLUMN_COUNT, term_from_row};
use crate::store::{Backend, Conn, StoreError, linked_unlinks};

pub async fn get(conn: &mut Conn, id: i64) -> Result<Option<Event>, StoreError> {
    conn.by_key()
        .query_opt(
            select_events()
                .and_where(col(Posts::Id).eq(id))
                .and_where(col(Posts::PostType).eq(PostType::Event.as_str())),
            event_from_row,
        )
        .await
}

/// The events among these IDs that exist, in one statement: IDs the caller knows
/// to be events' (sync reads them from the events' own rows). The type is not
/// checked again in SQL: beside an `IN` list of keys, a `post_type` condition leads
/// SQLite (which keeps no statistics here) to walk a `post_type` index over every
/// event, 60 ms at a million, instead of seeking each key.
pub async fn get_many(conn: &mut Conn, ids: &[i64]) -> Result<Vec<Event>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    conn.by_key()
        .query(
            select_events().and_where(col(Posts::Id).is_in(ids.iter().copied())),
            event_from_row,
        )
        .await
}

pub async fn get_by_slug(conn: &mut Conn, slug: &str) -> Result<Option<Event>, StoreError> {
    conn.by_key()
        .query_opt(
            select_events()
                .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
                .and_where(col(Posts::Slug).eq(slug)),
            event_from_row,
        )
        .await
}

/// Each event of a page, with no links yet.
fn no_links(events: &[Event]) -> HashMap<i64, EventLinks> {
    events
        .iter()
        .map(|e| (e.post.id, EventLinks::default()))
        .collect()
}

/// Terms, venues and organizers of a page of events, in two statements.
pub async fn load_links(
    conn: &mut Conn,
    events: &[Event],
) -> Result<HashMap<i64, EventLinks>, StoreError> {
    let mut out = no_links(events);
    if events.is_empty() {
        return Ok(out);
    }
    let ids: Vec<i64> = events.iter().map(|e| e.post.id).collect();
    load_terms(conn, &ids, &mut out).await?;
    load_linked_posts(conn, events, &ids, &mut out).await?;
    Ok(out)
}

/// The events' terms, in the order events list them (name regardless of case).
async fn load_terms(
    conn: &mut Conn,
    ids: &[i64],
    out: &mut HashMap<i64, EventLinks>,
) -> Result<(), StoreError> {
    let mut terms = crate::store::terms::select_terms();
    terms
        .column((TermRelationships::Table, TermRelationships::PostId))
        // The unary plus keeps SQLite from driving the join from `terms` (a few hundred
        // rows, each probing the events' IDs: 2,300 index seeks for a page of ten);
        // from the events' IDs it is one probe each. PostgreSQL plans it as before.
        .inner_join(
            TermRelationships::Table,
            Expr::cust("+\"term_relationships\".\"term_id\" = \"terms\".\"id\""),
        )
        .and_where(
            Expr::col((TermRelationships::Table, TermRelationships::PostId))
                .is_in(ids.iter().copied()),
        )
        .order_by_expr(
            sea_query::Func::lower(Expr::col((Terms::Table, Terms::Name))).into(),
            Order::Asc,
        )
        .order_by((Terms::Table, Terms::Name), Order::Asc)
        .order_by((Terms::Table, Terms::Id), Order::Asc);
    let rows = conn
        .by_key()
        .query(&terms, |r| {
            Ok((term_from_row(r)?, r.i64(TERM_COLUMN_COUNT)?))
        })
        .await?;
    for (term, event_id) in rows {
        if let Some(links) = out.get_mut(&event_id) {
            match term.taxonomy {
                Taxonomy::Category => links.categories.push(term),
                Taxonomy::Tag => links.tags.push(term),
            }
        }
    }
    Ok(())
}

/// The events' venues by ID, then their organizers through their links, in one
/// `UNION ALL`; organizers in their order. A venue or organizer in the trash, or
/// restored before its last batch, is no link: its events are being unlinked from
/// it (`linked_unlinks`), but for those whose links to it were written meanwhile.
async fn load_linked_posts(
    conn: &mut Conn,
    events: &[Event],
    ids: &[i64],
    out: &mut HashMap<i64, EventLinks>,
) -> Result<(), StoreError> {
    let venue_ids: Vec<i64> = events.iter().filter_map(|e| e.venue_id).collect();
    let mut organizers = select_posts();
    organizers
        .column((EventOrganizers::Table, EventOrganizers::EventId))
        .column((EventOrganizers::Table, EventOrganizers::Position))
        .inner_join(
            EventOrganizers::Table,
            Expr::col((EventOrganizers::Table, EventOrganizers::OrganizerId))
                .equals((Posts::Table, Posts::Id)),
        )
        .and_where(
            Expr::col((EventOrganizers::Table, EventOrganizers::EventId))
                .is_in(ids.iter().copied()),
        )
        .and_where(linked_unlinks::links_shown_to(Expr::col((
            EventOrganizers::Table,
            EventOrganizers::EventId,
        ))));
    let linked = if venue_ids.is_empty() {
        organizers
    } else {
        let mut venues = select_venues(conn.backend(), &venue_ids);
        venues.union(UnionType::All, organizers);
        venues
    };
    read_linked_posts(conn, &linked, events, out).await
}

/// The venues of a page of events, in one statement: a view that shows an event's
/// venue and not its terms or organizers (a day's list) reads no more.
pub async fn load_venues(
    conn: &mut Conn,
    events: &[Event],
) -> Result<HashMap<i64, EventLinks>, StoreError> {
    let mut out = no_links(events);
    let venue_ids: Vec<i64> = events.iter().filter_map(|e| e.venue_id).collect();
    if !venue_ids.is_empty() {
        let venues = select_venues(conn.backend(), &venue_ids);
        read_linked_posts(conn, &venues, events, &mut out).await?;
    }
    Ok(out)
}

/// The venues with these IDs, as rows of [`give_linked_posts`]. A queued venue is a
/// row per event that kept its link (with its ID), or none; any other one is a row
/// without one. Joined by the venue alone: one probe of an index empty but for the
/// links written while a trash is unlinked in steps, where the page's IDs would
/// make one probe per event for each venue (2 % of the server's CPU for a page of
/// 50 events).
fn select_venues(backend: Backend, venue_ids: &[i64]) -> SelectStatement {
    let kept = |c| Expr::col((LinkedUnlinksKept::Table, c));
    let mut venues = select_posts();
    venues
        .expr(kept(LinkedUnlinksKept::EventId))
        // Typed: read alone, PostgreSQL takes a bare `NULL` column as text.
        .expr(Expr::cust("CAST(NULL AS BIGINT)"))
        .left_join(
            LinkedUnlinksKept::Table,
            kept(LinkedUnlinksKept::PostId).equals((Posts::Table, Posts::Id)),
        )
        .and_where(col(Posts::Id).is_in(venue_ids.iter().copied()))
        // By ID, never by the type's index: SQLite would walk every venue for a page
        // of ten events.
        .and_where(post_type_off_its_index(backend).eq(PostType::Venue.as_str()))
        .and_where(linked_unlinks::links_shown_or(
            kept(LinkedUnlinksKept::EventId).is_not_null(),
        ));
    venues
}

/// Runs `linked` (rows of venues, organizers or both) and gives them to the events.
async fn read_linked_posts(
    conn: &mut Conn,
    linked: &SelectStatement,
    events: &[Event],
    out: &mut HashMap<i64, EventLinks>,
) -> Result<(), StoreError> {
    let rows = conn
        .by_key()
        .query(linked, |r| {
            Ok((
                post_from_row(r)?,
                r.opt_i64(POST_COLUMN_COUNT)?,
                r.opt_i64(POST_COLUMN_COUNT + 1)?,
            ))
        })
        .await?;
    give_linked_posts(rows, events, out);
    Ok(())
}

/// Gives each event its venue and organizers from the rows of [`load_linked_posts`]:
/// (post, event, position) for an organizer's link, (post, event, none) for a
/// queued venue whose link the event kept, (post, none, none) for any other venue.
fn give_linked_posts(
    rows: Vec<(Post, Option<i64>, Option<i64>)>,
    events: &[Event],
    out: &mut HashMap<i64, EventLinks>,
) {
    let mut venue_by_id: HashMap<i64, Post> = HashMap::new();
    let mut kept_venues: HashMap<i64, Post> = HashMap::new();
    let mut organizer_links: Vec<(i64, i64, Post)> = Vec::new();
    for (post, event_id, position) in rows {
        match (event_id, position) {
            (Some(event_id), Some(position)) => organizer_links.push((event_id, position, post)),
            (Some(event_id), None) => {
                kept_venues.insert(event_id, post);
            }
            _ => {
                venue_by_id.insert(post.id, post);
            }
        }
    }
    organizer_links.sort_by_key(|(event_id, position, _)| (*event_id, *position));
    for (event_id, _, post) in organizer_links {
        if let Some(links) = out.get_mut(&event_id) {
            links.organizers.push(post);
        }
    }
    for e in events {
        if let (Some(vid), Some(links)) = (e.venue_id, out.get_mut(&e.post.id)) {
            let kept = kept_venues.get(&e.post.id).filter(|v| v.id == vid);
            links.venue = venue_by_id.get(&vid).or(kept).cloned();
        }
    }
}

/// The terms and the posts with these IDs (those that exist), as an event write
/// names them: terms in the order events list them, each post with whether its
/// events are still being unlinked from it (`linked_unlinks`). On PostgreSQL the
/// two statements travel in one flight.
pub async fn terms_and_posts(
    conn: &mut Conn,
    term_ids: &[i64],
    post_ids: &[i64],
) -> Result<
    (
        Vec<crate::domain::term::Term>,
        Vec<(crate::domain::post::Post, bool)>,
    ),
    StoreError,
> {
    use crate::store::terms;
    match (term_ids.is_empty(), post_ids.is_empty()) {
        (true, true) => Ok((Vec::new(), Vec::new())),
        (false, false) => {
            conn.query_two(
                &terms::select_many(term_ids),
                terms::term_from_row,
                &linked_unlinks::select_marked(post_ids),
                linked_unlinks::marked_from_row,
            )
            .await
        }
        (false, true) => Ok((terms::get_many(conn, term_ids).await?, Vec::new())),
        (true, false) => Ok((
            Vec::new(),
            linked_unlinks::posts_marked(conn, post_ids).await?,
        )),
    }
}
