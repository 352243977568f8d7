//! A search over many days at once (a month's grid): whether its words are
//! common among the window's events, and each day's first matches.

use sea_query::SelectStatement;

use super::up_to;
use super::walk::{first_matches, matched_among_first};
use crate::domain::event::{EventFilter, Total};
use crate::domain::event_keys::KeyFilter;
use crate::store::{Backend, Conn, StoreError};

/// How many of the window's first events the probe of a grid's search reads at
/// most: one lookup of each one's text.
const PROBED_ROWS: u64 = 200;

/// One match in so many events or fewer makes a search's words common in a
/// window: each day's first ten matches are then found within some fifty events
/// of its own. A rarer word's grid is placed from one list, its matches found
/// through the index: at one in twenty, a probe of 100 events took `jazz` (one
/// event in fifty at a million events, though eight of a month's first hundred)
/// for common, and its month's days walked 200 ms.
const ROWS_PER_COMMON_MATCH: u64 = 5;

/// Whether the words of `eq`'s search are common in its window, by a walk of its
/// first events that stops at the last match it needs. PostgreSQL plans it once
/// per connection ([`Conn::one_plan`]), as it does the days' walks: the same walk
/// of the start index whatever the words and dates.
pub(in crate::store::events) async fn common(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Result<bool, StoreError> {
    let enough = PROBED_ROWS / ROWS_PER_COMMON_MATCH;
    let q = matched_among_first(conn.backend(), eq, keys, PROBED_ROWS, enough);
    let (matched, read) = conn
        .one_plan()
        .query_one(&q, |r| Ok((r.i64(0)?, r.i64(1)?)))
        .await?;
    let whole_window = u64::try_from(read).unwrap_or(0) <= PROBED_ROWS;
    Ok(!whole_window && u64::try_from(matched).unwrap_or(0) >= enough)
}

/// The IDs and starts of the first matches of `eq`'s window in list order, one
/// more than its count limit, so that [`day_total`] tells a day of more matches
/// than it counts; `None` when its driver has several values (see
/// [`first_matches`]).
pub(in crate::store::events) fn counted_matches(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Option<SelectStatement> {
    first_matches(backend, eq, keys, limit(eq).saturating_add(1))
}

/// A day's total from its matches read by [`counted_matches`].
pub(in crate::store::events) fn day_total(eq: &EventFilter, found: usize) -> Total {
    up_to(u64::try_from(found).unwrap_or(u64::MAX), limit(eq))
}

fn limit(eq: &EventFilter) -> u64 {
    Ord::max(eq.count_limit, 1)
}
