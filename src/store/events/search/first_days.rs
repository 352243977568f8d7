//! PostgreSQL: the page of a search whose words the window's first events do not
//! hold, from the index's matches among the window's first days, and its total
//! too when those days are expected to hold more matches than it counts.

use super::index::{Index, index_page, listed_page};
use super::{Found, Search, all_in_dates, counted_window, every_status, index_keys};
use crate::domain::event::{EventFilter, Total};
use crate::store::event_count;
use crate::store::events::keys::aggregate_window;
use crate::store::events::list::start_range;
use crate::store::events::words::dated_index_matches;
use crate::store::{Backend, Conn, StoreError};

/// How many events of every status, per match a search counts, the first days of a
/// window may hold for its page to be sought among them (see [`page`]): 30,000 at
/// the usual limit, a month at a million events. The start index's bitmap of three
/// months (91,000 events) outgrows PostgreSQL's memory for it (`work_mem`), and is
/// made of whole pages, each of whose rows is checked again: 105-150 ms for the
/// index's 4,000 matches among them.
const FIRST_DAYS_EVENTS_PER_COUNTED: u64 = 30;

/// The page of a search with more matches than it counts, too rare among the
/// window's first events for a walk to it, from the index's matches among the
/// window's first days ([`sorted_matches`]); `None` when they hold less than the
/// page, or the window no more than those days. Otherwise the page is the window's
/// keys in list order, each checked against the index's matches: PostgreSQL walks
/// them, looking each one's text up (a festival's word three weeks into the default
/// dates at a million events: 20,000 events, 180 ms), or reads every match from its
/// row to hash them.
pub(super) async fn page(conn: &mut Conn, s: &Search<'_>) -> Result<Option<Vec<i64>>, StoreError> {
    let page = sorted_matches(conn, s, s.eq.per_page, s.offset).await?;
    Ok(page.filter(|page| u64::try_from(page.len()).unwrap_or(u64::MAX) >= s.eq.per_page))
}

/// A search's total and page counted among the window's first days, ahead of the
/// index's matches of the whole window: when the words are expected there more
/// often than the search counts, and the page is among the matches counted. The
/// first days' matches, sorted, give both, where the count reads the whole
/// window's (a festival's word three weeks into the default dates at a million
/// events: its 49,000 matches, 11 ms) and the page the first days' (10 ms). `None`
/// when the words are not so expected, or the first days hold no more than the
/// limit: the count goes on as usual.
///
/// Expected as PostgreSQL's statistics of the index of whole words give the words'
/// share of the events (`EventFilter::search_pieces_share`), of the list's share of
/// the first days' events: its `window`'s rows (the per-day counts of its driver)
/// among every event of its dates: a category of a third of the events expects a
/// third of a festival's matches there.
pub(super) async fn counted(
    conn: &mut Conn,
    s: &Search<'_>,
    window: Option<u64>,
) -> Result<Option<Found>, StoreError> {
    let eq = s.eq;
    let by_pieces = eq
        .search_words
        .iter()
        .all(|w| eq.search_pieces.contains_key(w));
    let first_days_events = s.count_limit.saturating_mul(FIRST_DAYS_EVENTS_PER_COUNTED);
    let expected = |share_of_events: f64| {
        eq.search_pieces_share * share_of_events * first_days_events as f64 > s.count_limit as f64
    };
    let Some(window) = window.filter(|_| by_pieces && s.enough <= s.count_limit && expected(1.0))
    else {
        return Ok(None);
    };
    let Some(dates) = all_in_dates(conn, eq).await?.filter(|n| *n > 0) else {
        return Ok(None);
    };
    if !expected(window as f64 / dates as f64) {
        return Ok(None);
    }
    let Some(sorted) = sorted_matches(conn, s, s.count_limit.saturating_add(1), 0).await? else {
        return Ok(None);
    };
    if u64::try_from(sorted.len()).unwrap_or(0) <= s.count_limit {
        return Ok(None);
    }
    let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let page: Vec<i64> = sorted
        .into_iter()
        .skip(to_usize(s.offset))
        .take(to_usize(eq.per_page))
        .collect();
    Ok(Some(Found {
        ids: Some(listed_page(Backend::Postgres, &page)),
        total: Total::at_least(s.count_limit),
    }))
}

/// Up to `n` of the index's matches among the window's first days that hold
/// [`FIRST_DAYS_EVENTS_PER_COUNTED`] events per match counted, from the `offset`th,
/// in list order: read through the start index (`words::dated_index_matches`) and
/// sorted. `None` when the window is no more than those days.
async fn sorted_matches(
    conn: &mut Conn,
    s: &Search<'_>,
    n: u64,
    offset: u64,
) -> Result<Option<Vec<i64>>, StoreError> {
    let Some(window) = aggregate_window(&counted_window(&every_status(s.eq)), &[]) else {
        return Ok(None);
    };
    let most = s.count_limit.saturating_mul(FIRST_DAYS_EVENTS_PER_COUNTED);
    let Some(end) = event_count::first_days_end(conn, &window, most).await? else {
        return Ok(None);
    };
    let first_days = EventFilter {
        starts_before: Some(s.eq.starts_before.map_or(end, |t| Ord::min(t, end))),
        per_page: n,
        ..s.eq.clone()
    };
    let Some(matches) = dated_index_matches(s.eq, start_range(&first_days), true) else {
        return Ok(None);
    };
    let index = Index {
        matches: Box::new(matches),
        joined: false,
        one_plan: false,
    };
    let backend = Backend::Postgres;
    let keys = index_keys(backend, s);
    let q = index_page(backend, &first_days, keys, &index, offset);
    Ok(Some(conn.query(&q, |r| r.i64(0)).await?))
}
