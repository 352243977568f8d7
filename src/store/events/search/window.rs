//! A grid's search of a word rare among its first events, its matches read from
//! the search index at once: every match of the grid's window, which it places.

use sea_query::{Alias, CommonTableExpression, Expr, Query, UnionType, WithClause};

use super::index::{Index, bounded, shown_matches};
use super::set::{MAX_SET_MATCHES, as_set};
use super::walk::{Probed, SAMPLED_ROWS, matched_throughout};
use super::{DATED_EVENTS, window_rows, without_every_driver};
use crate::domain::event::EventFilter;
use crate::domain::event_keys::KeyFilter;
use crate::store::events::keys::{self, MATCHED, Texts};
use crate::store::events::list::start_range;
use crate::store::events::words::{dated_index_matches, index_matches};
use crate::store::{Backend, Conn, StoreError};

/// What a window holds of a search's matches, as the index gives them at once.
pub(in crate::store::events) enum WindowMatches {
    /// The ID of every match, no more than asked, in no useful order.
    All(Vec<i64>),
    /// More than asked.
    More,
    /// The index does not give them cheaply (see [`window_matches`]).
    Unserved,
}

/// Every match of `eq`'s window, up to `most`, read from the search index at once,
/// for a grid to place them: a grid whose words are rare among its first events
/// but run on past its count limit (a festival's, on half the events of a month's
/// first three days and none of its others) read each of its days' first matches
/// instead, each day of the festival's absence walked whole (35 walks of 1,000
/// events at a million events: 121 ms on SQLite, 211 on PostgreSQL).
///
/// On SQLite, the window's keys are checked against the index's matches as a set
/// (`set::in_set`), when the words make one and the calendar holds at most
/// [`MAX_SET_MATCHES`] of them. On PostgreSQL, the index's matches are read among
/// the events of the window's dates through the start index (`search::dated`),
/// when those dates hold at most [`DATED_EVENTS`] events.
///
/// Not tried when the grid's probe (`first`) read its whole window, which its
/// matches then hold, nor when its words are expected more than `most` times in
/// the window, as the per-day counts give its events, at the probe's rate and at
/// its samples' ([`matched_throughout`]): the search's usual count tells that
/// first. A festival's first days are among a grid's first events, and its
/// samples are not.
pub(in crate::store::events) async fn window_matches(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    first: Option<&Probed>,
    most: u64,
) -> Result<WindowMatches, StoreError> {
    if let Some(p) = first {
        if p.whole_window {
            return Ok(WindowMatches::Unserved);
        }
        let window = window_rows(conn, eq, keys).await?.filter(|n| *n > 0);
        if let Some(n) =
            window.filter(|n| n.saturating_mul(p.matched()) / Ord::max(p.rows, 1) > most)
        {
            let sampled = most.saturating_mul(SAMPLED_ROWS).div_ceil(n);
            if matched_throughout(conn, eq, keys, sampled).await? {
                return Ok(WindowMatches::Unserved);
            }
        }
    }
    let rows = match conn.backend() {
        Backend::Sqlite => sqlite_matches(conn, eq, keys, most).await?,
        Backend::Postgres => postgres_matches(conn, eq, keys, most).await?,
    };
    let Some(mut ids) = rows else {
        return Ok(WindowMatches::Unserved);
    };
    ids.sort_unstable();
    // A driver of several values gives an event once for each value it holds.
    ids.dedup();
    if u64::try_from(ids.len()).unwrap_or(u64::MAX) > most {
        return Ok(WindowMatches::More);
    }
    Ok(WindowMatches::All(ids))
}

/// How many values a driver of several (tags, categories) may have for SQLite to read
/// a grid's matches at once: each value's are read up to the grid's bound, and a
/// grid of many values counts its matches as a list does, up to its limit.
const MAX_VALUES: usize = 4;

/// SQLite: the IDs of the window's matches, up to `most + 1` of each of the
/// driver's values; `None` when the words make no set, the calendar holds more
/// than [`MAX_SET_MATCHES`] matches, or the driver more than [`MAX_VALUES`] values.
/// One statement reads the index once: its matches, up to one past that bound, are
/// a table of its own that the window's keys are checked against, and it gives
/// their number beside the rows (`jazz`, 20,000 matches at a million events: 1 ms;
/// `carnival`, 49,000 of them, 36 ms through the trigram index, which a count
/// first read again, and 1.5 ms through the index of whole words, `word_index`).
async fn sqlite_matches(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    most: u64,
) -> Result<Option<Vec<i64>>, StoreError> {
    let backend = Backend::Sqlite;
    if !as_set(&eq.search_words) {
        return Ok(None);
    }
    let Some(matches) = index_matches(backend, eq) else {
        return Ok(None);
    };
    let driven = without_every_driver(eq, keys);
    if driven[0].may_repeat() && driven[0].values.len() > MAX_VALUES {
        return Ok(None);
    }
    let Some(mut rows) = keys::rows_up_to(backend, eq, driven, most, Texts::InMatched) else {
        return Ok(None);
    };
    // The set's size, on a row of its own: its event is NULL.
    rows.union(
        UnionType::All,
        Query::select()
            .expr(Expr::cust("COUNT(*)"))
            .expr(Expr::cust("NULL"))
            .from(Alias::new(MATCHED))
            .take(),
    );
    let set = Query::select()
        .column(Alias::new("id"))
        .from_subquery(matches, Alias::new("m"))
        .limit(MAX_SET_MATCHES.saturating_add(1))
        .take();
    let statement = rows.with(
        WithClause::new()
            .cte(
                CommonTableExpression::new()
                    .query(set)
                    .table_name(Alias::new(MATCHED))
                    .materialized(true)
                    .to_owned(),
            )
            .to_owned(),
    );
    let read = conn
        .query(&statement, |r| Ok((r.i64(0)?, r.opt_i64(1)?)))
        .await?;
    let (ids, size): (Vec<_>, Vec<_>) = read.into_iter().partition(|(_, id)| id.is_some());
    let size = size
        .first()
        .map_or(0, |(n, _)| u64::try_from(*n).unwrap_or(0));
    Ok((size <= MAX_SET_MATCHES).then(|| ids.into_iter().filter_map(|(_, id)| id).collect()))
}

/// PostgreSQL: the IDs of the window's matches, up to `most + 1`; `None`
/// when its dates are not bounded both ways, hold more than [`DATED_EVENTS`] events,
/// or the index serves no word.
async fn postgres_matches(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    most: u64,
) -> Result<Option<Vec<i64>>, StoreError> {
    let backend = Backend::Postgres;
    let range = start_range(eq);
    if range.0.is_none() || range.1.is_none() {
        return Ok(None);
    }
    let dates = window_rows(conn, eq, &[KeyFilter::every()]).await?;
    if dates.is_none_or(|n| n > DATED_EVENTS) {
        return Ok(None);
    }
    let Some(matches) = dated_index_matches(eq, range, true) else {
        return Ok(None);
    };
    let index = Index {
        matches: Box::new(matches),
        joined: false,
        one_plan: false,
    };
    let shown = bounded(shown_matches(backend, eq, keys, &index), most);
    Ok(Some(conn.query(&shown, |r| r.i64(0)).await?))
}
