//! Events: their columns, relations (terms, venue, organizers), term counts,
//! and the list query. A page of events costs four statements whatever its
//! size: the page, the count, the terms, and the linked venues/organizers.

use std::collections::{BTreeMap, HashMap, HashSet};

use sea_query::{
    CaseStatement, Cond, Expr, ExprTrait, LockType, Order, Query, SelectStatement, UnionType,
};

use super::db::Statement;
use super::posts::{self, POST_COLUMN_COUNT, col, post_from_row, select_posts};
use super::schema::{EventOrganizers, Posts, TermRelationships, Terms};
use super::terms::{TERM_COLUMN_COUNT, term_from_row};
use super::{Backend, Conn, Row, StoreError, pieces};
use crate::domain::event::{Event, EventLinks, EventQuery, Ticket};
use crate::domain::post::{Post, PostType, Status, Visibility};
use crate::domain::term::Taxonomy;

/// Event columns, read after the post columns.
const EVENT_COLUMNS: [Posts; 12] = [
    Posts::Website,
    Posts::StartUtc,
    Posts::EndUtc,
    Posts::Timezone,
    Posts::AllDay,
    Posts::Cost,
    Posts::HideFromListings,
    Posts::Sticky,
    Posts::Featured,
    Posts::PostParent,
    Posts::VenueId,
    Posts::Tickets,
];

pub fn select_events() -> SelectStatement {
    let mut q = select_posts();
    for c in EVENT_COLUMNS {
        q.column((Posts::Table, c));
    }
    q
}

pub fn event_from_row(r: &Row<'_>) -> Result<Event, StoreError> {
    let post = post_from_row(r)?;
    let b = POST_COLUMN_COUNT;
    let cost = r.string(b + 5)?;
    let tickets = r.string(b + 11)?;
    Ok(Event {
        post,
        website: r.opt_string(b)?,
        start_utc: r.opt_i64(b + 1)?.unwrap_or(0),
        end_utc: r.opt_i64(b + 2)?.unwrap_or(0),
        timezone: r.string(b + 3)?,
        all_day: r.bool(b + 4)?,
        cost: if cost.is_empty() {
            Vec::new()
        } else {
            serde_json::from_str(&cost).unwrap_or_else(|_| vec![cost])
        },
        hide_from_listings: r.bool(b + 6)?,
        sticky: r.bool(b + 7)?,
        featured: r.bool(b + 8)?,
        post_parent: r.i64(b + 9)?,
        venue_id: r.opt_i64(b + 10)?,
        tickets: if tickets.is_empty() {
            Vec::new()
        } else {
            serde_json::from_str(&tickets).unwrap_or_default()
        },
    })
}

pub async fn get(conn: &mut Conn, id: i64) -> Result<Option<Event>, StoreError> {
    conn.query_opt(
        select_events()
            .and_where(col(Posts::Id).eq(id))
            .and_where(col(Posts::PostType).eq(PostType::Event.as_str())),
        event_from_row,
    )
    .await
}

pub async fn get_by_slug(conn: &mut Conn, slug: &str) -> Result<Option<Event>, StoreError> {
    conn.query_opt(
        select_events()
            .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
            .and_where(col(Posts::Slug).eq(slug)),
        event_from_row,
    )
    .await
}

/// Inserts an event (see [`posts::insert`]) and returns it as stored, in the same statement.
pub async fn insert(
    conn: &mut Conn,
    changes: &crate::domain::post::PostChanges,
    image_id: Option<i64>,
    columns: Vec<(Posts, sea_query::Value)>,
    now: i64,
) -> Result<Event, StoreError> {
    let mut insert =
        posts::insert_statement(conn, PostType::Event, changes, image_id, columns, now).await?;
    conn.query_one(
        insert.returning(Query::returning().exprs(returning_events())),
        event_from_row,
    )
    .await
}

/// What `select_events` yields, as a `RETURNING` list of a write to `posts`, so
/// [`event_from_row`] reads the rows as written.
pub fn returning_events() -> Vec<Expr> {
    let mut returning = posts::returning_posts();
    returning.extend(EVENT_COLUMNS.iter().map(|c| col(*c)));
    returning
}

/// An event's status and publication date, read inside a write transaction and locking
/// the row on PostgreSQL (SQLite's writer is already exclusive), so that two concurrent
/// writes of one event see each other and term counts move once, not twice.
pub async fn lock_state(conn: &mut Conn, id: i64) -> Result<Option<(String, i64)>, StoreError> {
    conn.query_opt(
        Query::select()
            .columns([Posts::Status, Posts::DateUtc])
            .from(Posts::Table)
            .and_where(Expr::col(Posts::Id).eq(id))
            .and_where(Expr::col(Posts::PostType).eq(PostType::Event.as_str()))
            .lock(LockType::Update),
        |r| Ok((r.string(0)?, r.i64(1)?)),
    )
    .await
}

/// Terms, venues and organizers of a page of events, in two statements.
pub async fn load_links(
    conn: &mut Conn,
    events: &[Event],
) -> Result<HashMap<i64, EventLinks>, StoreError> {
    let mut out: HashMap<i64, EventLinks> = events
        .iter()
        .map(|e| (e.post.id, EventLinks::default()))
        .collect();
    if events.is_empty() {
        return Ok(out);
    }
    let ids: Vec<i64> = events.iter().map(|e| e.post.id).collect();

    let mut terms = super::terms::select_terms();
    terms
        .column((TermRelationships::Table, TermRelationships::PostId))
        .inner_join(
            TermRelationships::Table,
            Expr::col((TermRelationships::Table, TermRelationships::TermId))
                .equals((Terms::Table, Terms::Id)),
        )
        .and_where(
            Expr::col((TermRelationships::Table, TermRelationships::PostId))
                .is_in(ids.iter().copied()),
        )
        .order_by((Terms::Table, Terms::Name), Order::Asc)
        .order_by((Terms::Table, Terms::Id), Order::Asc);
    for (term, event_id) in conn
        .query(&terms, |r| {
            Ok((term_from_row(r)?, r.i64(TERM_COLUMN_COUNT)?))
        })
        .await?
    {
        if let Some(links) = out.get_mut(&event_id) {
            match term.taxonomy {
                Taxonomy::Category => links.categories.push(term),
                Taxonomy::Tag => links.tags.push(term),
            }
        }
    }

    // Venues by ID, then organizers through their links, in one UNION ALL.
    let venue_ids: Vec<i64> = events.iter().filter_map(|e| e.venue_id).collect();
    let mut venues = select_posts();
    venues
        .expr(Expr::cust("NULL"))
        .expr(Expr::cust("NULL"))
        .and_where(col(Posts::Id).is_in(venue_ids.iter().copied()))
        .and_where(col(Posts::PostType).eq(PostType::Venue.as_str()));
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
        );
    let linked = if venue_ids.is_empty() {
        organizers
    } else {
        venues.union(UnionType::All, organizers);
        venues
    };
    let rows = conn
        .query(&linked, |r| {
            Ok((
                post_from_row(r)?,
                r.opt_i64(POST_COLUMN_COUNT)?,
                r.opt_i64(POST_COLUMN_COUNT + 1)?,
            ))
        })
        .await?;
    let mut venue_by_id: HashMap<i64, Post> = HashMap::new();
    let mut organizer_links: Vec<(i64, i64, Post)> = Vec::new();
    for (post, event_id, position) in rows {
        match (event_id, position) {
            (Some(event_id), Some(position)) => organizer_links.push((event_id, position, post)),
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
            links.venue = venue_by_id.get(&vid).cloned();
        }
    }
    Ok(out)
}

/// The event columns an insert or update writes.
pub struct EventRow<'a> {
    pub website: Option<Option<&'a str>>,
    pub start_utc: Option<i64>,
    pub end_utc: Option<i64>,
    pub timezone: Option<&'a str>,
    pub all_day: Option<bool>,
    pub cost: Option<&'a [String]>,
    pub hide_from_listings: Option<bool>,
    pub sticky: Option<bool>,
    pub featured: Option<bool>,
    pub post_parent: Option<i64>,
    pub venue_id: Option<Option<i64>>,
    pub tickets: Option<&'a [Ticket]>,
}

impl EventRow<'_> {
    pub fn values(&self) -> Vec<(Posts, sea_query::Value)> {
        let mut v: Vec<(Posts, sea_query::Value)> = Vec::new();
        if let Some(w) = self.website {
            v.push((Posts::Website, w.map(str::to_string).into()));
        }
        let ints = [
            (Posts::StartUtc, self.start_utc),
            (Posts::EndUtc, self.end_utc),
            (Posts::PostParent, self.post_parent),
        ];
        for (c, val) in ints {
            if let Some(x) = val {
                v.push((c, x.into()));
            }
        }
        let bools = [
            (Posts::AllDay, self.all_day),
            (Posts::HideFromListings, self.hide_from_listings),
            (Posts::Sticky, self.sticky),
            (Posts::Featured, self.featured),
        ];
        for (c, val) in bools {
            if let Some(x) = val {
                v.push((c, x.into()));
            }
        }
        if let Some(tz) = self.timezone {
            v.push((Posts::Timezone, tz.into()));
        }
        if let Some(cost) = self.cost {
            let text = if cost.is_empty() {
                String::new()
            } else {
                serde_json::to_string(cost).unwrap_or_default()
            };
            v.push((Posts::Cost, text.into()));
        }
        if let Some(venue) = self.venue_id {
            v.push((Posts::VenueId, venue.into()));
        }
        if let Some(t) = self.tickets {
            let text = if t.is_empty() {
                String::new()
            } else {
                serde_json::to_string(t).unwrap_or_default()
            };
            v.push((Posts::Tickets, text.into()));
        }
        v
    }
}

/// Writes the event's own columns.
pub async fn write_columns(conn: &mut Conn, id: i64, row: &EventRow<'_>) -> Result<(), StoreError> {
    let values = row.values();
    if values.is_empty() {
        return Ok(());
    }
    conn.execute(
        Query::update()
            .table(Posts::Table)
            .values(values.into_iter().map(|(c, v)| (c, Expr::val(v))))
            .and_where(Expr::col(Posts::Id).eq(id)),
    )
    .await?;
    Ok(())
}

/// The term IDs an event has, in both taxonomies.
pub async fn term_ids(conn: &mut Conn, event_id: i64) -> Result<Vec<i64>, StoreError> {
    conn.query(
        Query::select()
            .column(TermRelationships::TermId)
            .from(TermRelationships::Table)
            .and_where(Expr::col(TermRelationships::PostId).eq(event_id)),
        |r| r.i64(0),
    )
    .await
}

/// The organizers and terms an event write sets; `None` leaves a relation as it is.
#[derive(Default)]
pub struct Relations<'a> {
    pub organizers: Option<&'a [i64]>,
    pub categories: Option<&'a [i64]>,
    pub tags: Option<&'a [i64]>,
}

/// Whether the event already has relations to replace, or was just inserted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    Replace,
    New,
}

/// Writes an event's organizers (in order) and terms: at most one statement to clear
/// each replaced relation and one to insert each, so a new event's links cost two.
pub async fn set_relations(
    conn: &mut Conn,
    event_id: i64,
    rel: &Relations<'_>,
    existing: Existing,
) -> Result<(), StoreError> {
    conn.execute_all(&relation_statements(event_id, rel, existing))
        .await
}

/// The statements [`set_relations`] runs, for callers that send more with them.
pub fn relation_statements(
    event_id: i64,
    rel: &Relations<'_>,
    existing: Existing,
) -> Vec<Box<dyn Statement>> {
    let mut out: Vec<Box<dyn Statement>> = Vec::new();
    if existing == Existing::Replace {
        if rel.organizers.is_some() {
            out.push(Box::new(
                Query::delete()
                    .from_table(EventOrganizers::Table)
                    .and_where(Expr::col(EventOrganizers::EventId).eq(event_id))
                    .to_owned(),
            ));
        }
        let replaced: Vec<&str> = [
            (rel.categories, Taxonomy::Category),
            (rel.tags, Taxonomy::Tag),
        ]
        .into_iter()
        .filter_map(|(ids, t)| ids.map(|_| t.as_str()))
        .collect();
        if !replaced.is_empty() {
            // Correlated, so it reads only this event's few relationship rows.
            out.push(Box::new(
                Query::delete()
                    .from_table(TermRelationships::Table)
                    .and_where(Expr::col(TermRelationships::PostId).eq(event_id))
                    .and_where(Expr::exists(
                        Query::select()
                            .expr(Expr::cust("1"))
                            .from(Terms::Table)
                            .and_where(
                                Expr::col((Terms::Table, Terms::Id))
                                    .equals((TermRelationships::Table, TermRelationships::TermId)),
                            )
                            .and_where(Expr::col((Terms::Table, Terms::Taxonomy)).is_in(replaced))
                            .take(),
                    ))
                    .to_owned(),
            ));
        }
    }
    let terms = distinct_terms(rel);
    out.extend(insert_relations([(
        event_id,
        rel.organizers.unwrap_or_default(),
        terms.as_slice(),
    )]));
    out
}

/// Inserts linking new events to their organizers (in order, each once) and to their
/// terms (`(event, organizers, distinct terms)`), in [`pieces`] of rows.
pub fn insert_relations<'a>(
    events: impl IntoIterator<Item = (i64, &'a [i64], &'a [i64])>,
) -> Vec<Box<dyn Statement>> {
    let mut organizers: Vec<[sea_query::Value; 3]> = Vec::new();
    let mut terms: Vec<[sea_query::Value; 2]> = Vec::new();
    for (event_id, organizer_ids, term_ids) in events {
        let mut seen = HashSet::new();
        for (pos, id) in organizer_ids
            .iter()
            .filter(|id| seen.insert(**id))
            .enumerate()
        {
            organizers.push([event_id.into(), (*id).into(), (pos as i64).into()]);
        }
        terms.extend(term_ids.iter().map(|id| [event_id.into(), (*id).into()]));
    }
    let mut out: Vec<Box<dyn Statement>> = Vec::new();
    for rows in pieces(&organizers) {
        let mut insert = Query::insert();
        insert.into_table(EventOrganizers::Table).columns([
            EventOrganizers::EventId,
            EventOrganizers::OrganizerId,
            EventOrganizers::Position,
        ]);
        for row in rows {
            insert.values_panic(row.iter().cloned().map(Expr::val));
        }
        out.push(Box::new(insert));
    }
    for rows in pieces(&terms) {
        let mut insert = Query::insert();
        insert
            .into_table(TermRelationships::Table)
            .columns([TermRelationships::PostId, TermRelationships::TermId]);
        for row in rows {
            insert.values_panic(row.iter().cloned().map(Expr::val));
        }
        out.push(Box::new(insert));
    }
    out
}

/// The terms a write names, each once, in the order given.
pub fn distinct_terms(rel: &Relations<'_>) -> Vec<i64> {
    let mut seen = HashSet::new();
    rel.categories
        .into_iter()
        .chain(rel.tags)
        .flatten()
        .copied()
        .filter(|id| seen.insert(*id))
        .collect()
}

/// Serialises the writers that change term counts, until their transactions end.
///
/// An `UPDATE … WHERE id IN …` locks its rows in the order its scan meets them,
/// and on a table as small as `terms` PostgreSQL scans it whole, in an order that
/// changes as updates move rows: two writers whose terms overlap could lock them in
/// opposite orders and deadlock (a one-second stall before PostgreSQL notices).
/// Callers take this first and change counts last, just before the commit, so it
/// is held briefly.
pub async fn lock_counts(conn: &mut Conn) -> Result<(), StoreError> {
    conn.lock_key("term-counts").await
}

/// Adds to each term's count the events it `gained`, returning each term's count as
/// it then is (see [`count_from_row`]). Meant last in a transaction (see
/// `Tx::commit_after`), so that PostgreSQL holds these busy rows only until the
/// commit. The caller holds [`lock_counts`].
pub fn add_to_counts(gained: &BTreeMap<i64, i64>) -> Vec<Box<dyn Statement>> {
    change_counts(gained, true)
}

/// Adds `deltas` to the terms' counts, in [`pieces`] of terms; none when there are
/// none. The caller holds [`lock_counts`].
fn change_counts(deltas: &BTreeMap<i64, i64>, returning: bool) -> Vec<Box<dyn Statement>> {
    let deltas: Vec<(i64, i64)> = deltas.iter().map(|(id, n)| (*id, *n)).collect();
    pieces(&deltas)
        .map(|piece| {
            let first = piece[0].1;
            let by = if piece.iter().all(|(_, n)| *n == first) {
                Expr::val(first)
            } else {
                let mut case = CaseStatement::new();
                for (id, n) in piece {
                    // Typed, or PostgreSQL takes a CASE of bare parameters for text.
                    case = case.case(
                        Expr::col(Terms::Id).eq(*id),
                        Expr::val(*n).cast_as("BIGINT"),
                    );
                }
                case.finally(0).into()
            };
            let mut update = Query::update();
            update
                .table(Terms::Table)
                .value(Terms::Count, Expr::col(Terms::Count).add(by))
                .and_where(Expr::col(Terms::Id).is_in(piece.iter().map(|(id, _)| *id)));
            if returning {
                update.returning(Query::returning().columns([Terms::Id, Terms::Count]));
            }
            Box::new(update) as Box<dyn Statement>
        })
        .collect()
}

/// A term and its count, as [`add_to_counts`] returns them.
pub fn count_from_row(r: &Row<'_>) -> Result<(i64, i64), StoreError> {
    Ok((r.i64(0)?, r.i64(1)?))
}

/// Keeps `terms.count` (published events per term) right after a change:
/// terms the event counted for lose one, terms it counts for now gain one.
/// Increments rather than recounts, so concurrent writers on PostgreSQL cannot
/// overwrite each other's counts.
pub async fn adjust_counts(
    conn: &mut Conn,
    before: (&[i64], bool),
    after: (&[i64], bool),
) -> Result<(), StoreError> {
    let statements = count_statements(before, after);
    if !statements.is_empty() {
        lock_counts(conn).await?;
    }
    conn.execute_all(&statements).await
}

/// The statements [`adjust_counts`] runs.
pub fn count_statements(before: (&[i64], bool), after: (&[i64], bool)) -> Vec<Box<dyn Statement>> {
    let mut delta: BTreeMap<i64, i64> = BTreeMap::new();
    if before.1 {
        for id in before.0 {
            *delta.entry(*id).or_default() -= 1;
        }
    }
    if after.1 {
        for id in after.0 {
            *delta.entry(*id).or_default() += 1;
        }
    }
    delta.retain(|_, n| *n != 0);
    change_counts(&delta, false)
}

/// Visibility and status rules shared by every event list.
fn status_filters(q: &mut SelectStatement, statuses: &[Status], visibility: &Visibility, now: i64) {
    if statuses.is_empty() {
        q.and_where(col(Posts::Status).ne(Status::Trash.as_str()));
    } else {
        q.and_where(col(Posts::Status).is_in(statuses.iter().map(|s| s.as_str())));
    }
    match visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.cond_where(posts::published(now));
        }
        Visibility::PublishedOrOwn(author) => {
            q.cond_where(
                Cond::any()
                    .add(posts::published(now))
                    .add(col(Posts::Author).eq(*author)),
            );
        }
    }
}

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
            // yet in the index: they are scanned (see `SQLITE_BEFORE_COMMIT`). CROSS JOIN
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

fn list_filters(q: &mut SelectStatement, backend: Backend, eq: &EventQuery) {
    q.and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(col(Posts::HideFromListings).eq(false));
    status_filters(q, &eq.statuses, &eq.visibility, eq.now_utc);
    if !eq.include.is_empty() {
        q.and_where(col(Posts::Id).is_in(eq.include.iter().copied()));
    }
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
    search_filter(
        q,
        backend,
        &eq.search_words,
        eq.visibility == Visibility::All,
    );
    for ids in [&eq.categories, &eq.tags] {
        if !ids.is_empty() {
            q.and_where(Expr::exists(
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
        q.and_where(Expr::exists(
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
    if let Some(f) = eq.featured {
        q.and_where(col(Posts::Featured).eq(f));
    }
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

/// One page of events, ordered by start then ID, and the total.
pub async fn list(conn: &mut Conn, eq: &EventQuery) -> Result<(Vec<Event>, u64), StoreError> {
    let backend = conn.backend();
    let total = match eq.plain_window() {
        Some(window) => super::event_count::plain_window(conn, window, eq.now_utc).await?,
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
