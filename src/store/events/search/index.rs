//! A search's matches read from the trigram index: counted, kept for the page, or
//! sorted into one.

use sea_query::{Alias, Expr, ExprTrait, Func, Order, Query, SelectStatement, SimpleExpr};

use super::count;
use crate::domain::event::EventFilter;
use crate::domain::event_keys::KeyFilter;
use crate::store::events::keys::{Texts, d, keyed_with, listed_matches, listed_on_rows};
use crate::store::posts::col;
use crate::store::schema::{EventKeys, Posts};
use crate::store::{Backend, Conn, StoreError};

/// How many of the index's matches a count may read as IDs, kept for the page: a
/// count of at most this many (the usual 1,000, or a page not deeper) gives its
/// page without a second pass over the index or a walk of the window. Past it, a
/// deep page's limit, they are counted only.
const KEPT_MATCHES: u64 = 2_000;

/// The search index's matches of the words, and how PostgreSQL checks them.
pub(super) struct Index {
    pub(super) matches: Box<SelectStatement>,
    /// PostgreSQL joins the matches with the driver's rows of the window as it
    /// chooses (a hash of those rows: cheap for a few thousand, not for a window
    /// of 600,000), rather than probing each match's keys.
    pub(super) joined: bool,
    /// PostgreSQL reads the matches through the trigram index alone, whatever the
    /// words: the count keeps one plan for every search of its shape
    /// (`Conn::one_plan`) rather than estimating each word against the column's
    /// statistics at every run. Not where PostgreSQL chooses, by those estimates,
    /// a join or an AND with the start index.
    pub(super) one_plan: bool,
}

/// The index's matches that the list shows, counted up to `limit`, and read as IDs
/// when `limit` is at most [`KEPT_MATCHES`].
pub(super) async fn index_count(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    index: &Index,
    limit: u64,
) -> Result<(u64, Option<Vec<i64>>), StoreError> {
    let shown = shown_matches(conn.backend(), eq, keys, index);
    if index.one_plan {
        conn.one_plan();
    }
    if limit > KEPT_MATCHES {
        return Ok((count(conn, bounded_count(shown, limit)).await?, None));
    }
    let ids = conn.query(&bounded(shown, limit), |r| r.i64(0)).await?;
    Ok((u64::try_from(ids.len()).unwrap_or(u64::MAX), Some(ids)))
}

/// `COUNT(*)` of at most `limit + 1` rows of `rows`.
pub(super) fn bounded_count(rows: SelectStatement, limit: u64) -> SelectStatement {
    Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from_subquery(bounded(rows, limit), Alias::new("counted"))
        .take()
}

/// At most `limit + 1` rows of `rows`: one more than a count of `limit` reports.
pub(super) fn bounded(mut rows: SelectStatement, limit: u64) -> SelectStatement {
    rows.limit(limit.saturating_add(1));
    rows
}

/// A page of the matches `kept`, every one the list shows, in list order: each
/// one's start read by its ID.
pub(super) fn kept_page(
    backend: Backend,
    eq: &EventFilter,
    kept: &[i64],
    offset: u64,
) -> SelectStatement {
    Query::select()
        .column((Posts::Table, Posts::Id))
        .from(Posts::Table)
        .and_where(id_among(backend, kept))
        .order_by((Posts::Table, Posts::StartUtc), Order::Asc)
        .order_by((Posts::Table, Posts::Id), Order::Asc)
        .limit(eq.per_page)
        .offset(offset)
        .take()
}

/// The IDs of a page already in list order, as they are: on SQLite, whose set of
/// matches alone gives such a page (`set::in_set`), no row of `posts` is read to
/// order them, as the page's rows are read next (a month's grid of `jazz` at a
/// million events: 735 matches, 4.5 ms with each row read twice, 2 ms once).
pub(super) fn listed_page(backend: Backend, page: &[i64]) -> SelectStatement {
    match backend {
        Backend::Sqlite => {
            let ids = Alias::new("ids");
            let each = Func::cust(Alias::new("json_each")).arg(id_list(backend, page));
            Query::select()
                .expr(Expr::col((ids.clone(), Alias::new("value"))))
                .from_function(each, ids)
                .take()
        }
        Backend::Postgres => Query::select()
            .column((Posts::Table, Posts::Id))
            .from(Posts::Table)
            .and_where(id_among(backend, page))
            .take(),
    }
}

/// `posts.id` is one of `ids`, given as one parameter (see [`id_list`]).
pub(in crate::store::events) fn id_among(backend: Backend, ids: &[i64]) -> SimpleExpr {
    match backend {
        Backend::Sqlite => col(Posts::Id).in_subquery(listed_page(backend, ids)),
        Backend::Postgres => Expr::cust_with_values(
            "posts.id = ANY(($1::text)::bigint[])",
            [id_list(backend, ids)],
        ),
    }
}

/// `ids` as one parameter whatever their number, a JSON array on SQLite and an
/// array's text on PostgreSQL: one statement for each connection to prepare and
/// keep (see `store::pieces`).
fn id_list(backend: Backend, ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let list = list.join(",");
    match backend {
        Backend::Sqlite => format!("[{list}]"),
        Backend::Postgres => format!("{{{list}}}"),
    }
}

/// Whether the matches the list shows are checked on their rows of `event_search`
/// (PostgreSQL, a list driven by every event's key or by terms, not joined).
fn checked_on_rows(backend: Backend, keys: &[KeyFilter], index: &Index) -> bool {
    backend == Backend::Postgres && listed_on_rows(keys) && !index.joined
}

/// The index's matches that the list shows: each one's keys looked up by its ID, or,
/// on PostgreSQL for a list driven by every event's key or by terms, checked on the
/// row the index's candidate was read from (`keys::listed_matches`).
pub(super) fn shown_matches(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    index: &Index,
) -> SelectStatement {
    let matches = &*index.matches;
    if checked_on_rows(backend, keys, index) {
        return listed_matches(eq, keys, matches);
    }
    let m = Alias::new("m");
    let texts = if index.joined {
        Texts::JoinedByCaller
    } else {
        Texts::ByCaller
    };
    let mut shown = keyed_with(backend, eq, keys, texts);
    shown
        .expr(Expr::cust("1"))
        .and_where(d(EventKeys::EventId).equals((m.clone(), Alias::new("id"))));
    if backend == Backend::Postgres && !index.joined {
        // Kept a probe of each match: as a semi-join, PostgreSQL hashes every key of
        // the window (600,000 rows at a million events) before the first match.
        // PostgreSQL does not pull up an `EXISTS` with an `OFFSET`.
        shown.offset(0);
    }
    let mut q = Query::select();
    q.column((m.clone(), Alias::new("id")))
        .from_subquery(matches.clone(), m)
        .and_where(crate::store::exists(shown));
    q
}

/// A page of a search whose matches in the window are few: all of them, sorted.
/// On PostgreSQL, matches checked on their rows of `event_search` are sorted by
/// the start those rows hold ([`with_starts`]); otherwise each match's start is
/// looked up by its ID. Either way no plan can walk every event in list order
/// instead, probing the matches: PostgreSQL chose that when it expected a thousand
/// matches spread over the list, and found five (0.7 s).
pub(super) fn index_page(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    index: &Index,
    offset: u64,
) -> SelectStatement {
    let sorted = Alias::new("sorted");
    Query::select()
        .column((sorted.clone(), Alias::new("id")))
        .from_subquery(with_starts(backend, eq, keys, index), sorted.clone())
        .order_by((sorted.clone(), Alias::new("start")), Order::Asc)
        .order_by((sorted, Alias::new("id")), Order::Asc)
        .limit(eq.per_page)
        .offset(offset)
        .take()
}

/// The matches the list shows ([`shown_matches`]) with their starts, as `id` and
/// `start`. Read from the matches' rows of `event_search` where the list's checks
/// are made on them (inside a subquery kept whole, which no index orders): a
/// lookup of each one's start in `posts` cost more than the rest of the page, 10 of
/// the 20 ms of a festival's first days (1,376 matches at a million events).
fn with_starts(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    index: &Index,
) -> SelectStatement {
    let (id, start) = (Alias::new("id"), Alias::new("start"));
    if checked_on_rows(backend, keys, index) {
        let mut shown = listed_matches(eq, keys, &index.matches);
        shown.expr_as(d(EventKeys::StartUtc), start);
        return shown;
    }
    let shown = Alias::new("shown");
    let start_of_match = Query::select()
        .column((Posts::Table, Posts::StartUtc))
        .from(Posts::Table)
        .and_where(col(Posts::Id).equals((shown.clone(), id.clone())))
        .take();
    Query::select()
        .column((shown.clone(), id))
        .expr_as(
            SimpleExpr::SubQuery(None, Box::new(start_of_match.into())),
            start,
        )
        .from_subquery(shown_matches(backend, eq, keys, index), shown)
        .take()
}
