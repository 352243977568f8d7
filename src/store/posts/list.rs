//! The venue and organizer list (one page and its total, under the same filters;
//! its search is in `search`), and the filter pieces event and term lists share
//! with it: escaped substring search and the "published by now" rule.

use sea_query::{
    Alias, Cond, Expr, ExprTrait, Func, IntoColumnRef, IntoCondition, Order, Query,
    SelectStatement, SimpleExpr,
};

use super::search::{Pairs, indexable, rare_pair, search_filter};
use super::{col, post_from_row, select_posts};
use crate::domain::event::Total;
use crate::domain::event_keys::KeyKind;
use crate::domain::post::{LinkedPostQuery, Post, PostType, Status, Visibility};
use crate::store::schema::{EventKeys, LinkedEventStats, LinkedUnlinksKept, Posts};
use crate::store::{Backend, Conn, StoreError};

/// Escapes `%` and `_` for a LIKE pattern. Both backends treat `\` as the escape
/// character only when told, so patterns built here are used with `like_escape`.
pub(in crate::store) fn escape_like(s: &str) -> String {
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
pub(in crate::store) fn contains(column: impl IntoColumnRef, needle: &str) -> SimpleExpr {
    let pattern = format!("%{}%", escape_like(&needle.to_lowercase()));
    Expr::expr(Func::lower(Expr::col(column))).like(sea_query::LikeExpr::new(pattern).escape('\\'))
}

/// How a list reads the venues or organizers whose summaries qualify them (see
/// [`summarized`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Summaries {
    Joined,
    AsArray,
}

impl Summaries {
    /// PostgreSQL's, beside a search the trigram index does not serve: an array.
    fn of(lq: &LinkedPostQuery, backend: Backend, pairs: Pairs) -> Summaries {
        let unindexed_search = lq
            .search
            .as_deref()
            .is_some_and(|w| !indexable(&w.to_lowercase(), pairs));
        match backend == Backend::Postgres && unindexed_search {
            true => Summaries::AsArray,
            false => Summaries::Joined,
        }
    }
}

/// The filters of a venue/organizer list, shared by its page and count queries.
fn linked_filters(
    q: &mut SelectStatement,
    lq: &LinkedPostQuery,
    backend: Backend,
    summaries: Summaries,
    pairs: Pairs,
) {
    let word = lq.search.as_deref().map(str::to_lowercase);
    let indexed = word.as_deref().filter(|w| indexable(w, pairs));
    if backend == Backend::Sqlite && (indexed.is_some() || lq.event.is_some()) {
        // Unindexable (`+`): without statistics SQLite would read every venue through
        // an index on the type and probe the candidates for each (16 ms at 20,000
        // venues for a search's, 2.5 ms for an event's one or two), rather than read
        // the candidates' rows by ID (2 ms; 0.02 ms).
        q.and_where(Expr::cust_with_values(
            "+posts.post_type = ?",
            [lq.post_type.as_str()],
        ));
    } else {
        // The type written out, not bound: the partial index of the type's posts in
        // list order (migration 19) is one SQLite's planner may only choose when it
        // sees the value as it plans, and the server's connections keep the plan made
        // before any value is bound (the query planner stability guarantee, see
        // `store::sqlite`). The value is one of two constants.
        let literal = format!("'{}'", lq.post_type.as_str());
        q.and_where(col(Posts::PostType).eq(Expr::cust(literal)));
    }
    status_filters(q, &lq.statuses, &lq.visibility, lq.now_utc);
    if lq.statuses.contains(&Status::Trash) {
        q.and_where(crate::store::linked_unlinks::not_being_deleted());
    }
    if let Some(word) = &word {
        search_filter(q, lq, backend, word, indexed.is_some());
    }
    event_filters(q, lq, summaries == Summaries::AsArray);
}

/// Which statuses a list shows (any but trash unless some are asked for), and
/// which posts of them the caller may see: shared by every post list.
pub(in crate::store) fn status_filters(
    q: &mut SelectStatement,
    statuses: &[Status],
    visibility: &Visibility,
    now: i64,
) {
    if statuses.is_empty() {
        q.and_where(col(Posts::Status).ne(Status::Trash.as_str()));
    } else {
        q.and_where(col(Posts::Status).is_in(statuses.iter().map(|s| s.as_str())));
    }
    visible_under(q, visibility, published(now));
}

/// Keeps the posts `visibility` lets its caller see when `open` says which anyone
/// may: every post, those, or those and the caller's own.
pub(in crate::store) fn visible_under(
    q: &mut SelectStatement,
    visibility: &Visibility,
    open: impl IntoCondition,
) {
    match visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.cond_where(open);
        }
        Visibility::PublishedOrOwn(author) => {
            q.cond_where(Cond::any().add(open).add(col(Posts::Author).eq(*author)));
        }
    }
}

/// The kind of key a venue or organizer is to its events.
fn linked_kind(t: PostType) -> i64 {
    crate::store::events::key_code(match t {
        PostType::Venue => KeyKind::Venue,
        _ => KeyKind::Organizer,
    })
}

/// The listed venue's or organizer's key rows in `event_keys` (alias `ev`), with
/// `extra`: one range of its primary key, whatever the number of events.
fn linked_events(t: PostType, extra: SimpleExpr) -> SelectStatement {
    let kind = linked_kind(t);
    let ev = Alias::new("ev");
    Query::select()
        .expr(Expr::cust("1"))
        .from_as(EventKeys::Table, ev.clone())
        .and_where(Expr::col((ev.clone(), EventKeys::Kind)).eq(kind))
        .and_where(Expr::col((ev, EventKeys::Value)).equals((Posts::Table, Posts::Id)))
        .and_where(extra)
        .take()
}

/// `event`, `has_events` and `only_with_upcoming`; `as_array`: see [`summarized`].
/// A post in the trash, or restored before its last batch, has no events: they are
/// being unlinked from it (`linked_unlinks`), and its keys with them; but for the
/// events whose links to it were written meanwhile, which `event` finds and which
/// `has_events` and `only_with_upcoming` count ([`or_kept`]).
fn event_filters(q: &mut SelectStatement, lq: &LinkedPostQuery, as_array: bool) {
    let summarized = |summaries| summarized(as_array, summaries);
    let ev = |c: EventKeys| Expr::col((Alias::new("ev"), c));
    let links_shown = crate::store::linked_unlinks::links_shown;
    if lq.has_events != Some(true)
        && !lq.only_with_upcoming
        && let Some(event_id) = lq.event
    {
        q.and_where(crate::store::linked_unlinks::links_shown_to(event_id));
    }
    if let Some(event_id) = lq.event {
        // From the event's keys, not a probe of every venue's.
        q.and_where(
            col(Posts::Id).in_subquery(
                Query::select()
                    .column(EventKeys::Value)
                    .from(EventKeys::Table)
                    .and_where(Expr::col(EventKeys::EventId).eq(event_id))
                    .and_where(Expr::col(EventKeys::Kind).eq(linked_kind(lq.post_type)))
                    .take(),
            ),
        );
    }
    let counted = || ev(EventKeys::Status).is_not_in(UNCOUNTED.map(Status::as_str));
    if let Some(has) = lq.has_events {
        let with_events = stats(lq.post_type, Expr::col(LinkedEventStats::Counted).gt(0));
        q.and_where(if has {
            or_kept(lq, links_shown().and(summarized(with_events)), counted())
        } else {
            let none = col(Posts::Id)
                .not_in_subquery(with_events)
                .or(links_shown().not());
            match lq.kept_links {
                true => none.and(kept_linked(lq.post_type, counted()).not()),
                false => none,
            }
        });
    }
    if lq.only_with_upcoming {
        q.and_where(upcoming_filter(lq, as_array));
    }
}

/// `only_with_upcoming`: the post has an upcoming event the caller may see, from the
/// summaries where they serve the caller (see [`event_filters`]).
fn upcoming_filter(lq: &LinkedPostQuery, as_array: bool) -> SimpleExpr {
    let ev = |c: EventKeys| Expr::col((Alias::new("ev"), c));
    let links_shown = crate::store::linked_unlinks::links_shown;
    let latest = |c: LinkedEventStats| stats(lq.post_type, Expr::col(c).gte(lq.now_utc));
    let listed = |visible: SimpleExpr| {
        visible
            .and(ev(EventKeys::StartUtc).gte(lq.now_utc))
            .and(ev(EventKeys::Hidden).eq(false))
    };
    let (summaries, visible) = match lq.visibility {
        Visibility::All => (
            Some(latest(LinkedEventStats::ListedLast)),
            ev(EventKeys::Status).ne(Status::Trash.as_str()),
        ),
        Visibility::Published => (
            Some(latest(LinkedEventStats::PublicLast)),
            ev(EventKeys::Status).eq(Status::Publish.as_str()),
        ),
        // Published events, or the author's own: not summarized, so looked for.
        Visibility::PublishedOrOwn(author) => (
            None,
            ev(EventKeys::Status)
                .eq(Status::Publish.as_str())
                .or(ev(EventKeys::Author)
                    .eq(author)
                    .and(ev(EventKeys::Status).ne(Status::Trash.as_str()))),
        ),
    };
    let shown = match summaries {
        Some(summaries) => summarized(as_array, summaries),
        None => crate::store::exists(linked_events(lq.post_type, listed(visible.clone()))),
    };
    or_kept(lq, links_shown().and(shown), listed(visible))
}

/// `shown`, or, for a post restored before its last batch, an event kept linked to
/// it that meets `events`: looked for beside the summaries only while there are any.
fn or_kept(lq: &LinkedPostQuery, shown: SimpleExpr, events: SimpleExpr) -> SimpleExpr {
    match lq.kept_links {
        true => shown.or(kept_linked(lq.post_type, events)),
        false => shown,
    }
}

/// The statuses of events that do not count as a venue's or organizer's events
/// (`linked_event_stats.counted`, migration 7).
const UNCOUNTED: [Status; 3] = [Status::Draft, Status::Pending, Status::Trash];

/// The post is one of those with an event kept linked to it that meets `events`
/// (on its key row, alias `ev`): from the few kept links, each event's key row found
/// by the event. Its kind and value are written unindexable (`+`): SQLite, without
/// statistics, would otherwise walk the post's range of keys, every event not
/// unlinked yet (100,000 for a venue at a million events), or all the kind's keys,
/// where the kept links are a handful (`venues?has_events=1` at 100,000 events with
/// one kept link: 21 ms of server time, against 1.2 ms; bench/HISTORY.md).
fn kept_linked(t: PostType, events: SimpleExpr) -> SimpleExpr {
    let (k, ev) = (Alias::new("k"), Alias::new("ev"));
    let key_row = Query::select()
        .expr(Expr::cust("1"))
        .from_as(EventKeys::Table, ev.clone())
        .and_where(
            Expr::col((ev, EventKeys::EventId)).equals((k.clone(), LinkedUnlinksKept::EventId)),
        )
        .and_where(Expr::cust(format!("+ev.kind = {}", linked_kind(t))))
        .and_where(Expr::cust("+ev.value = k.post_id"))
        .and_where(events)
        .take();
    col(Posts::Id).in_subquery(
        Query::select()
            .column((k.clone(), LinkedUnlinksKept::PostId))
            .from_as(LinkedUnlinksKept::Table, k)
            .and_where(Expr::exists(key_row))
            .take(),
    )
}

/// The post is one of the venues or organizers `summaries` selects; `as_array`: as
/// an array of their IDs computed once, each looked up by ID (PostgreSQL, beside a
/// search too short for the trigram index). As a semi-join, expecting a few hundred
/// venues of such a search's `LIKE`s, PostgreSQL merged the summaries with every
/// post's ID in order (`venues?only_with_upcoming=1&search=e` at a million events:
/// 950 ms; as an array, 100); without a search, or beside the trigram index's own
/// array of candidates, the semi-join is the faster (20 and 28 ms, against 77 and
/// 1,360).
fn summarized(as_array: bool, summaries: SelectStatement) -> SimpleExpr {
    if !as_array {
        return col(Posts::Id).in_subquery(summaries);
    }
    // The subquery is written in parentheses: `ARRAY (SELECT …)`.
    Expr::cust_with_expr(
        "posts.id = ANY(ARRAY $1)",
        SimpleExpr::SubQuery(None, Box::new(summaries.into())),
    )
}

/// The venues or organizers whose summary of their events (`linked_event_stats`,
/// migration 7) meets `cond`.
fn stats(t: PostType, cond: SimpleExpr) -> SelectStatement {
    Query::select()
        .column(LinkedEventStats::Value)
        .from(LinkedEventStats::Table)
        .and_where(Expr::col(LinkedEventStats::Kind).eq(linked_kind(t)))
        .and_where(cond)
        .take()
}

/// `status = 'publish'`, or a scheduled post whose date has passed.
pub(in crate::store) fn published(now: i64) -> Cond {
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
) -> Result<(Vec<Post>, Total), StoreError> {
    let backend = conn.backend();
    let may_scan = lq.search.is_some()
        || lq.event.is_some()
        || lq.has_events.is_some()
        || lq.only_with_upcoming;
    crate::store::sqlite::scanning(backend, may_scan, linked_page_and_total(conn, lq)).await
}

/// The count of the list's posts; a search's up to its `count_limit` or the end of
/// the asked page, whichever is further. A word of one or two characters is mostly
/// common (`a`: every one of the 20,000 venues of a million events): counting every
/// match read and checked every venue (96 ms on SQLite, 150 on PostgreSQL), where
/// the first thousand take a twentieth of them.
fn linked_count(
    lq: &LinkedPostQuery,
    backend: Backend,
    pairs: Pairs,
) -> (SelectStatement, Option<u64>) {
    let mut matching = Query::select();
    matching
        .column((Posts::Table, Posts::Id))
        .from(Posts::Table);
    linked_filters(
        &mut matching,
        lq,
        backend,
        Summaries::of(lq, backend, pairs),
        pairs,
    );
    let limit = lq.search.as_ref().map(|_| {
        // A database integer, with room for the one past it: a page far past the
        // last one asks for every match.
        let enough = Ord::min(lq.page.saturating_mul(lq.per_page), i64::MAX as u64 - 1);
        Ord::max(Ord::max(lq.count_limit, 1), enough)
    });
    let mut count = Query::select();
    match limit {
        None => {
            count
                .expr(Expr::col((Posts::Table, Posts::Id)).count())
                .from(Posts::Table);
            linked_filters(
                &mut count,
                lq,
                backend,
                Summaries::of(lq, backend, pairs),
                pairs,
            );
        }
        Some(limit) => {
            // One past the limit tells a count that reached it from one that ended.
            matching.limit(limit.saturating_add(1));
            count
                .expr(Expr::cust("COUNT(*)"))
                .from_subquery(matching, Alias::new("matching"));
        }
    }
    (count, limit)
}

async fn linked_page_and_total(
    conn: &mut Conn,
    lq: &LinkedPostQuery,
) -> Result<(Vec<Post>, Total), StoreError> {
    let pairs = rare_pair(conn, lq).await?;
    let (count, limit) = linked_count(lq, conn.backend(), pairs);
    let counted = u64::try_from(conn.query_one(&count, |r| r.i64(0)).await?).unwrap_or(0);
    let total = match limit {
        Some(limit) if counted > limit => Total::at_least(limit),
        _ => Total::exact(counted),
    };
    // A page past the last one is empty; its offset may not even fit a database integer.
    let offset = (lq.page - 1).saturating_mul(lq.per_page);
    if offset >= counted {
        return Ok((Vec::new(), total));
    }
    // Many matches, of a search too short for the index: walked in list order, the
    // summaries probed for each, the page's are soon found (`venues?
    // only_with_upcoming=1&search=a` at a million events: 0.5 ms, where the array's
    // 20,000 venues were read and sorted in 67); few are better read from the array
    // and sorted.
    let summaries = match total.at_least {
        true => Summaries::Joined,
        false => Summaries::of(lq, conn.backend(), pairs),
    };
    let posts = linked_page(conn, lq, summaries, pairs, offset).await?;
    Ok((posts, total))
}

/// The first page of a linked list (`lq.page` aside), uncounted: a calendar page's
/// choices of venues and organizers shows them, not how many there are, and
/// counting every visible venue cost each page 2 ms at 20,000 venues.
pub async fn first_linked(conn: &mut Conn, lq: &LinkedPostQuery) -> Result<Vec<Post>, StoreError> {
    let backend = conn.backend();
    let pairs = rare_pair(conn, lq).await?;
    let summaries = Summaries::of(lq, backend, pairs);
    let may_scan = lq.search.is_some() || lq.has_events.is_some() || lq.only_with_upcoming;
    crate::store::sqlite::scanning(
        backend,
        may_scan,
        linked_page(conn, lq, summaries, pairs, 0),
    )
    .await
}

/// The posts of a linked list from `offset`, `lq.per_page` of them.
async fn linked_page(
    conn: &mut Conn,
    lq: &LinkedPostQuery,
    summaries: Summaries,
    pairs: Pairs,
    offset: u64,
) -> Result<Vec<Post>, StoreError> {
    // The page's IDs first, then its rows: sorting whole rows, SQLite read and copied
    // every matching venue (descriptions and all) to keep ten, 20 times slower at
    // 20,000 venues. The index on (post_type, status, date_utc, id) answers the IDs.
    let mut ids = Query::select();
    ids.column((Posts::Table, Posts::Id)).from(Posts::Table);
    linked_filters(&mut ids, lq, conn.backend(), summaries, pairs);
    ids.order_by((Posts::Table, Posts::DateUtc), Order::Desc)
        .order_by((Posts::Table, Posts::Id), Order::Desc)
        .limit(lq.per_page)
        .offset(offset);
    let mut page = select_posts();
    page.and_where(col(Posts::Id).in_subquery(ids))
        .order_by((Posts::Table, Posts::DateUtc), Order::Desc)
        .order_by((Posts::Table, Posts::Id), Order::Desc);
    conn.query(&page, post_from_row).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_read_as_an_array_are_one_array() {
        let mut q = Query::select();
        q.column(Posts::Id).from(Posts::Table).and_where(summarized(
            true,
            stats(PostType::Venue, Expr::col(LinkedEventStats::Counted).gt(0)),
        ));
        let sql = q.to_string(sea_query::PostgresQueryBuilder);
        assert!(
            sql.contains(r#"posts.id = ANY(ARRAY (SELECT "value" FROM "linked_event_stats""#),
            "{sql}"
        );
    }
}
