//! A search over many days at once (a month's grid): whether its words are
//! common among the window's events, and each day's first matches.

use sea_query::SelectStatement;

use super::up_to;
use super::walk::{Probed, first_hits, first_matches, matched_throughout};
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

/// How many of the events the probe of a grid's search reads from each of a few
/// later starts in its window ([`matched_throughout`]) must match there too for
/// its words to be common (one in ten): a word common in the window's first
/// events alone (a festival's, on the grid's first days) would have each later
/// day's walk read every event running that day for its first matches (150 events
/// named so among a month's first, at a million events: 140 ms on SQLite, 330 on
/// PostgreSQL), where one search places the grid's few matches in 20-30.
const SAMPLED_MATCHES: u64 = 10;

/// What a grid's probe of its search found: words common in the window, or the
/// window's first events, which the search that places the grid reads on from.
pub(in crate::store::events) enum GridProbe {
    Common,
    /// `None` when the probe's matches are not all known (a window of at most
    /// [`PROBED_ROWS`] events, many of which match): the search probes again.
    Rare(Option<Probed>),
}

/// Whether the words of `eq`'s search are common in its window, by a walk of its
/// first events that stops at the last match it needs; if not, those events'
/// matches. PostgreSQL plans it once per connection ([`Conn::one_plan`]), as it
/// does the days' walks: the same walk of the start index whatever the words and
/// dates.
pub(in crate::store::events) async fn probe(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Result<GridProbe, StoreError> {
    let enough = PROBED_ROWS / ROWS_PER_COMMON_MATCH;
    let q = first_hits(conn.backend(), eq, keys, PROBED_ROWS, enough);
    let read = conn
        .one_plan()
        .query(&q, |r| Ok((r.i64(0)? == 1, r.i64(1)?, r.i64(2)?)))
        .await?;
    let (mut hits, next): (Vec<_>, Vec<_>) = read.into_iter().partition(|r| r.0);
    let whole_window = next.len() < 2;
    let all_hits = u64::try_from(hits.len()).unwrap_or(u64::MAX) < enough;
    if !all_hits {
        let common = !whole_window && matched_throughout(conn, eq, keys, SAMPLED_MATCHES).await?;
        return Ok(if common {
            GridProbe::Common
        } else {
            GridProbe::Rare(None)
        });
    }
    hits.sort_unstable_by_key(|r| (r.1, r.2));
    Ok(GridProbe::Rare(Some(Probed {
        rows: PROBED_ROWS,
        whole_window,
        hits: hits.into_iter().map(|r| r.2).collect(),
        last: next.first().map(|r| (r.1, r.2)),
        tail_rows: 0,
        tail_hits: 0,
    })))
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
