//! SQLite's way for a word rare in a window of up to a few hundred thousand rows:
//! the window's keys checked against the search index's matches as a set of IDs.

use sea_query::SelectStatement;

use super::index::{bounded_count, listed_page};
use super::{Found, Search, count, up_to, window_rows, without_every_driver};
use crate::domain::event_keys::KeyFilter;
use crate::store::events::{keys, words};
use crate::store::{Backend, Conn, StoreError};

/// How many rows in the window a driver may hold, per match counted, for SQLite to
/// check them against the index's matches as a set (see [`in_set`]) rather than
/// look up each match's keys: the rows are read in the order of their index, some
/// hundredths of a microsecond each, and each match's keys take a lookup of a few
/// microseconds. Two tags of 86,000 events in the window with `jazz` at a million:
/// 15 ms to count 1,000 matches so, 24 ms by the matches' keys; 200,000 rows are
/// read in 14 ms, however rare the words.
const SET_ROWS_PER_MATCH: u64 = 200;

/// How many matches in the whole calendar the index may give for SQLite to hold
/// them as a set (see [`in_set`]), in memory (`temp_store`) and built in the request:
/// about a megabyte and 5 ms. They are counted first, up to this (`jazz`, 20,000 at a
/// million events: 1 ms); a word rare in the window but common elsewhere (`the` in a
/// window of texts in French) has its matches' keys looked up instead.
pub(super) const MAX_SET_MATCHES: u64 = 50_000;

/// A search of words rare in a window of a few hundred thousand rows at most, on
/// SQLite: the window's keys, each checked against the index's matches as a set of
/// IDs, which SQLite builds for each value's count, read up to the limit (as the
/// rows the page is taken from, or counted). No event's text is read: a walk reads
/// each event of the window (a month of the biggest category with `jazz` at a
/// million events: 11,000 events, 30 ms, or 150 ms with their pages out of the OS
/// cache, against 5 ms so), and a driver of several values is read in list order
/// without sorting its window first (see [`super::walk::walk`]). The set holds every
/// match in the calendar: at most [`MAX_SET_MATCHES`] (`the`, in every event, took
/// 250 ms to build). Words shorter than a trigram alone are not looked up so: the
/// set of one letter may be every event.
pub(super) async fn in_set(
    conn: &mut Conn,
    s: &Search<'_>,
    keys: &[KeyFilter],
) -> Result<Found, StoreError> {
    let backend = conn.backend();
    let arms = if keys[0].may_repeat() {
        keys[0].values.len()
    } else {
        1
    };
    let kept_rows = u64::try_from(arms)
        .unwrap_or(u64::MAX)
        .saturating_mul(s.limit.saturating_add(1));
    if kept_rows <= KEPT_SET_ROWS
        && let Some(rows) = keys::rows_up_to(backend, s.eq, keys, s.limit, keys::Texts::InSet)
    {
        let rows = conn.query(&rows, |r| Ok((r.i64(0)?, r.i64(1)?))).await?;
        return Ok(kept_set_page(backend, s, rows));
    }
    let counts = keys::count_up_to(backend, s.eq, keys, Some(s.limit));
    let matched: u64 = conn
        .query(&counts, |r| r.i64(0))
        .await?
        .into_iter()
        .map(|n| u64::try_from(n).unwrap_or(0))
        .sum();
    let total = up_to(matched, s.limit);
    let ids = (s.offset < matched).then(|| keys::page_ids(backend, s.eq, keys, s.offset));
    Ok(Found { ids, total })
}

/// How many rows a search read from a set may keep for its page ([`in_set`]):
/// each value's first matches up to the limit, 1,001 for one value, 2,002 for two.
/// Reading the page again cost 4-7 ms at a million events (two tags, a category
/// with `jazz`), as the set of matches is built again for it.
const KEPT_SET_ROWS: u64 = 4_000;

/// The total and page of a search from the `rows` (start, event) of its set's count:
/// each value's first matches in list order, so the page's are among them.
fn kept_set_page(backend: Backend, s: &Search<'_>, mut rows: Vec<(i64, i64)>) -> Found {
    let matched = u64::try_from(rows.len()).unwrap_or(u64::MAX);
    rows.sort_unstable();
    let offset = usize::try_from(s.offset).unwrap_or(usize::MAX);
    let per_page = usize::try_from(s.eq.per_page).unwrap_or(usize::MAX);
    let page: Vec<i64> = rows
        .iter()
        .skip(offset)
        .take(per_page)
        .map(|(_, id)| *id)
        .collect();
    Found {
        ids: (!page.is_empty()).then(|| listed_page(backend, &page)),
        total: up_to(matched, s.limit),
    }
}

/// The keys SQLite reads a search with from a set of the index's `matches` (see
/// [`in_set`]), `None` when it should not; and the window of `keys`' driver, when it
/// was counted for them (the set's keys are the list's), for the walk to reuse. A set
/// is read for a window of at most [`SET_ROWS_PER_MATCH`] rows per match counted and
/// at most [`MAX_SET_MATCHES`] matches in the calendar, when the rows it is expected
/// to read to count them cost less than the lookups of the matches' keys
/// ([`set_reads_less`]).
pub(super) async fn set_route<'k>(
    conn: &mut Conn,
    s: &Search<'k>,
    matches: &SelectStatement,
) -> Result<(Option<&'k [KeyFilter]>, Option<u64>), StoreError> {
    let set_keys = without_every_driver(s.eq, s.keys);
    let window = window_rows(conn, s.eq, set_keys).await?;
    let lists_window = window.filter(|_| set_keys.len() == s.keys.len());
    let Some(rows) = window.filter(|n| *n <= s.count_limit.saturating_mul(SET_ROWS_PER_MATCH))
    else {
        return Ok((None, lists_window));
    };
    let found = count(conn, bounded_count(matches.clone(), MAX_SET_MATCHES)).await?;
    let set = found <= MAX_SET_MATCHES && set_reads_less(s, rows, found);
    Ok((set.then_some(set_keys), lists_window))
}

/// How many rows of a window SQLite checks against a set of matches in the time it
/// looks a match's keys up by its ID (some tenths of a microsecond against one or
/// two microseconds, each at a million events).
const SET_ROWS_PER_LOOKUP: u64 = 5;

/// Whether counting the list's matches up to its limit reads fewer rows of its
/// window of `rows`, checked against the set of the calendar's `found` matches, than
/// [`SET_ROWS_PER_LOOKUP`] times the matches whose keys the index's way looks up:
/// the window's rows up to its `limit`-th match at the probe's rate, against the
/// matches read in ID order until `limit` of them are in the window, at the share
/// of the calendar's matches the window is expected to hold. Two tags of 150,000
/// events in the window with `jazz` at a million events (20,000 matches, one event
/// of the window in fifty): 50,000 rows, against 6,700 lookups.
fn set_reads_less(s: &Search<'_>, rows: u64, found: u64) -> bool {
    let set_rows = Ord::min(rows, s.rows_for(s.limit));
    let in_window = Ord::max(s.at_rate(rows), 1);
    let lookups = Ord::min(s.limit.saturating_mul(found) / in_window, found);
    set_rows <= lookups.saturating_mul(SET_ROWS_PER_LOOKUP)
}

/// Whether SQLite's index gives the words' matches as a set cheaply: some word is
/// a phrase, and none is of two characters, whose trigrams with each character
/// next to it are OR-ed, each list read whole (`lantern zz` in a month of a
/// category: 100 ms as a set, 24 ms walked). A letter is OR-ed so only when few
/// pairs hold it, and otherwise left to the rows (see `words::sqlite_match_query`).
pub(super) fn as_set(words: &[String]) -> bool {
    words.iter().any(|w| words::indexed(w)) && words.iter().all(|w| w.chars().count() != 2)
}
