//! PostgreSQL: the page of a search whose words the window's first events do not
//! hold, from the index's matches among the window's first days.

use super::index::{Index, index_page};
use super::{Search, counted_window, every_status, index_keys};
use crate::domain::event::EventFilter;
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
/// window's first days that hold [`FIRST_DAYS_EVENTS_PER_COUNTED`] events per match
/// counted, read through the start index (`words::dated_index_matches`) and sorted;
/// `None` when they hold less than the page, or the window no more than those days.
/// Otherwise the page is the window's keys in list order, each checked against the
/// index's matches: PostgreSQL walks them, looking each one's text up (a festival's
/// word three weeks into the default dates at a million events: 20,000 events,
/// 180 ms), or reads every match from its row to hash them.
pub(super) async fn page(conn: &mut Conn, s: &Search<'_>) -> Result<Option<Vec<i64>>, StoreError> {
    let Some(window) = aggregate_window(&counted_window(&every_status(s.eq)), &[]) else {
        return Ok(None);
    };
    let most = s.count_limit.saturating_mul(FIRST_DAYS_EVENTS_PER_COUNTED);
    let Some(end) = event_count::first_days_end(conn, &window, most).await? else {
        return Ok(None);
    };
    let first_days = EventFilter {
        starts_before: Some(s.eq.starts_before.map_or(end, |t| Ord::min(t, end))),
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
    let q = index_page(backend, &first_days, keys, &index, s.offset);
    let page = conn.query(&q, |r| r.i64(0)).await?;
    let whole = u64::try_from(page.len()).unwrap_or(u64::MAX) >= s.eq.per_page;
    Ok(whole.then_some(page))
}
