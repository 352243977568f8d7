//! The event list: one page of events and its total, and the venues in a bounding box
//! that a search near a place narrows the list to. Lists read `event_keys` (see
//! `keys`) and count from its per-day counts where they can (`store::event_count`);
//! a search finds its matches as `search` chooses.

use sea_query::{Expr, ExprTrait, Order, Query, SelectStatement};

use super::keys::{Probes, Weighed};
use super::search::{self, GridProbe, Probed, WindowMatches};
use super::word_index::with_lookups;
use super::{event_from_row, select_events};
use crate::domain::changes::Seen;
use crate::domain::event::{Event, EventFilter, EventSpan, Total};
use crate::domain::event_keys::{KeyFilter, KeyKind, TermMask, common_flag_drives, key_filters};
use crate::domain::post::PostType;
use crate::store::event_count::KeyWindow;
use crate::store::posts::{self, col};
use crate::store::schema::Posts;
use crate::store::{Backend, Conn, StoreError, linked_unlinks};

/// The first and last start a list's date filters allow (`None`: unbounded). No
/// event ends before it starts, so the end's upper bound bounds the start too.
pub(super) fn start_range(eq: &EventFilter) -> (Option<i64>, Option<i64>) {
    let window = eq.window();
    let to = Ord::min(window.start.1, window.end.1);
    (
        (window.start.0 != i64::MIN).then_some(window.start.0),
        (to != i64::MAX).then_some(to),
    )
}

/// The date bounds on the given start and end columns.
pub(super) fn date_filters(
    q: &mut SelectStatement,
    eq: &EventFilter,
    start: impl Fn() -> Expr,
    end: impl Fn() -> Expr,
) {
    // No event ends before it starts, so upper bounds on the end bound the start
    // too: that turns a window into a range of the start index.
    let upper_end = [eq.end_max, eq.ends_before.map(|t| t.saturating_sub(1))]
        .into_iter()
        .flatten()
        .min();
    let bounds = [
        (eq.start_min, start(), "gte"),
        (eq.end_max, end(), "lte"),
        (eq.starts_before, start(), "lt"),
        (eq.starts_after, start(), "gt"),
        (eq.ends_before, end(), "lt"),
        (eq.ends_after, end(), "gt"),
        (upper_end, start(), "lte"),
    ];
    for (value, c, op) in bounds {
        if let Some(v) = value {
            q.and_where(match op {
                "gte" => c.gte(v),
                "lte" => c.lte(v),
                "lt" => c.lt(v),
                _ => c.gt(v),
            });
        }
    }
}

/// How deep a page must be for seeking its first day to beat walking to it.
const SEEK_FROM: u64 = 1_000;

/// One page of events, ordered by start then ID, its list's total, and which
/// writes that total counted when the store can tell (a total from the per-day
/// counts: see `domain::changes::Tally`).
pub struct Listed {
    pub events: Vec<Event>,
    pub total: Total,
    pub seen: Option<Seen>,
}

/// One page of events, ordered by start then ID, and the total.
pub async fn list(conn: &mut Conn, eq: &EventFilter) -> Result<Listed, StoreError> {
    let eq = &*with_lookups(conn, eq).await?;
    let (events, total, seen) = listed(conn, eq, select_events(), event_from_row).await?;
    Ok(Listed {
        events,
        total,
        seen,
    })
}

/// One page of a list as [`list`] finds it, each event read as its [`EventSpan`]: a
/// view that places many events and shows a few of them reads those few alone.
/// With a search, `None` when its words are common in the list's window
/// ([`search::probe_grid`]) or its matches there, read from the index at once
/// ([`search::window_matches`]), are more than the page holds, or, where the
/// index does not give them so, more than the search counts: such a view reads
/// each of its days' first matches instead ([`super::list_ids_each`]).
pub async fn list_spans(
    conn: &mut Conn,
    eq: &EventFilter,
) -> Result<Option<(Vec<EventSpan>, Total)>, StoreError> {
    let eq = &*with_lookups(conn, eq).await?;
    let Some((keys, terms_events)) = planned_keys(conn, eq).await? else {
        return Ok(Some((Vec::new(), Total::exact(0))));
    };
    let keys = search_keys(eq, keys, terms_events);
    if eq.search_words.is_empty() {
        let (spans, total, _) =
            listed_as_planned(conn, eq, keys, terms_events, span_select(), span_of).await?;
        return Ok(Some((spans, total)));
    }
    let first = match search::probe_grid(conn, eq, &keys).await? {
        GridProbe::Common => return Ok(None),
        GridProbe::Rare(first) => first,
    };
    let backend = conn.backend();
    crate::store::sqlite::scanning(backend, true, searched_spans(conn, eq, &keys, first)).await
}

/// [`list_spans`] of a search whose words are not common in the window: its
/// matches read from the index at once, or else counted up to the search's limit,
/// and the page read only when that count is its total. A page past the limit
/// (one of the 1,000 matches of a word in one event of four, at a million events:
/// 37 ms on SQLite) is not what a view places.
async fn searched_spans(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    first: Option<Probed>,
) -> Result<Option<(Vec<EventSpan>, Total)>, StoreError> {
    match search::window_matches(conn, eq, keys, first.as_ref(), eq.per_page).await? {
        WindowMatches::All(ids) => {
            let mut page = span_select();
            page.and_where(search::id_among(conn.backend(), &ids))
                .order_by((Posts::Table, Posts::StartUtc), Order::Asc)
                .order_by((Posts::Table, Posts::Id), Order::Asc);
            let spans = conn.query(&page, span_of).await?;
            let total = Total::exact(u64::try_from(spans.len()).unwrap_or(u64::MAX));
            return Ok(Some((spans, total)));
        }
        WindowMatches::More => return Ok(None),
        WindowMatches::Unserved => {}
    }
    let counted = EventFilter {
        per_page: Ord::min(eq.per_page, eq.count_limit),
        ..eq.clone()
    };
    let found = search::page(conn, &counted, keys, first).await?;
    if found.total.at_least {
        return Ok(None);
    }
    let spans = match found.ids {
        Some(ids) => read_page(conn, span_select(), ids, span_of).await?,
        None => Vec::new(),
    };
    Ok(Some((spans, found.total)))
}

/// The columns of an [`EventSpan`].
pub(super) fn span_select() -> SelectStatement {
    let mut select = Query::select();
    select.from(Posts::Table).columns([
        (Posts::Table, Posts::Id),
        (Posts::Table, Posts::StartUtc),
        (Posts::Table, Posts::EndUtc),
        (Posts::Table, Posts::Timezone),
    ]);
    select
}

pub(super) fn span_of(r: &crate::store::Row<'_>) -> Result<EventSpan, StoreError> {
    Ok(EventSpan {
        id: r.i64(0)?,
        start_utc: r.opt_i64(1)?.unwrap_or(0),
        end_utc: r.opt_i64(2)?.unwrap_or(0),
        timezone: r.string(3)?,
    })
}

/// One page of the list read with `select` (its rows of `posts`, in list order),
/// its total, and the writes the total counted when the store can tell.
async fn listed<T>(
    conn: &mut Conn,
    eq: &EventFilter,
    select: SelectStatement,
    row: impl FnMut(&crate::store::Row<'_>) -> Result<T, StoreError>,
) -> Result<(Vec<T>, Total, Option<Seen>), StoreError> {
    let Some((keys, terms_events)) = planned_keys(conn, eq).await? else {
        return Ok((Vec::new(), Total::exact(0), None));
    };
    listed_as_planned(conn, eq, keys, terms_events, select, row).await
}

/// [`listed`], with the list's keys planned.
pub(super) async fn listed_as_planned<T>(
    conn: &mut Conn,
    eq: &EventFilter,
    mut keys: Vec<KeyFilter>,
    terms_events: Option<Weighed>,
    select: SelectStatement,
    row: impl FnMut(&crate::store::Row<'_>) -> Result<T, StoreError>,
) -> Result<(Vec<T>, Total, Option<Seen>), StoreError> {
    keys = search_keys(eq, keys, terms_events);
    let backend = conn.backend();
    let may_scan = super::keys::aggregate_window(eq, &keys).is_none();
    crate::store::sqlite::scanning(
        backend,
        may_scan,
        page_and_total(conn, eq, (&keys, terms_events), (select, row)),
    )
    .await
}

/// The keys a list reads, the first driving, and the driver's weight when it is a
/// filter of several terms (`keys::weigh_terms`); `None` when no event can match.
pub(super) async fn planned_keys(
    conn: &mut Conn,
    eq: &EventFilter,
) -> Result<Option<(Vec<KeyFilter>, Option<Weighed>)>, StoreError> {
    let Some(mut keys) = key_filters(eq) else {
        return Ok(None);
    };
    let mut terms_events = super::keys::weigh_terms(conn, &mut keys).await?;
    if eq.names_its_events() {
        keys = named_keys(eq, &keys);
        terms_events = None;
    } else if common_flag_drives(&keys) {
        keys.insert(0, KeyFilter::every());
    }
    if keys.is_empty() {
        keys.push(KeyFilter::every());
    }
    Ok(Some((keys, terms_events)))
}

/// The exact total of a list without a search, planned as [`list`] plans it.
async fn planned_total(conn: &mut Conn, eq: &EventFilter) -> Result<u64, StoreError> {
    let Some((keys, terms)) = planned_keys(conn, eq).await? else {
        return Ok(0);
    };
    let lookups = terms.map_or(0, |n| n.lookups());
    let mask = super::keys::driver_mask(conn, eq, &keys, lookups).await?;
    let distinct = terms.is_some_and(|n| n.counts_distinct());
    Ok(exact_total(conn, eq, &keys, mask, distinct).await?.0)
}

/// A list with a rare flag asked unset (`featured=0`, `ticketed=0`) beside one other
/// filter at most, the rare flags aside: the same list without that flag, and
/// with it set. Its total is the first's less the second's, each planned and
/// counted as a list of its own: the flag set is a few percent of the events, its
/// term keys have their own per-day counts (migration 18), and the list without it
/// may have them too, where counting the list itself probed both flags for each of
/// a category's events (376,000 over all dates at a million events: 0.6 s on SQLite,
/// 1.5 s on PostgreSQL). Beside several other filters, each part costs what the
/// list does (thirty categories, two hundred tags and both flags unset, counted as
/// four lists: 11.7 s on PostgreSQL, against 5.6 s), and the list is counted as it
/// is.
fn without_and_with_flag(eq: &EventFilter) -> Option<(EventFilter, EventFilter)> {
    if eq.names_its_events() || !eq.search_words.is_empty() {
        return None;
    }
    let others = EventFilter {
        featured: None,
        ticketed: None,
        ..eq.clone()
    };
    if key_filters(&others).is_none_or(|keys| keys.len() > 1) {
        return None;
    }
    let (mut without, mut with) = (eq.clone(), eq.clone());
    if eq.featured == Some(false) {
        (without.featured, with.featured) = (None, Some(true));
    } else if eq.ticketed == Some(false) {
        (without.ticketed, with.ticketed) = (None, Some(true));
    } else {
        return None;
    }
    // Another filter keeps protected events out of the list without the flag as
    // the flag did (`KeyFilter::hides_protected`).
    key_filters(&without)
        .is_some_and(|keys| !keys.is_empty())
        .then_some((without, with))
}

/// How many events, per match a search counts, a filter of several terms may hold
/// to drive a search itself (see [`searched_keys`]). Its rows are sorted at each
/// probe and walk, about a microsecond each; driven by every event, the probe reads
/// the events of the window until it has seen `2 × count_limit` of the filter's,
/// some ten microseconds each. At a million events two tags of 61,000 events with
/// `jazz` took 500 ms to probe so, and categories of 637,000 events would take as
/// long to sort: the two cost alike near 150,000.
const SMALL_TERMS_PER_MATCH: u64 = 150;

/// `terms`: the weight of the driver when it is a filter of several terms, which
/// decides whether its total and deep pages are read from the events' bits, and
/// whether its total is counted as a set of events. `page` and `row`: the rows
/// read of each event, and their reading.
async fn page_and_total<T>(
    conn: &mut Conn,
    eq: &EventFilter,
    (keys, terms): (&[KeyFilter], Option<Weighed>),
    (page, row): (
        SelectStatement,
        impl FnMut(&crate::store::Row<'_>) -> Result<T, StoreError>,
    ),
) -> Result<(Vec<T>, Total, Option<Seen>), StoreError> {
    if let Some(ids) = named_on_first_page(conn.backend(), eq, keys) {
        // Every event the list can show is on its page: the page is its count.
        let rows = read_page(conn, page, ids, row).await?;
        let total = Total::exact(u64::try_from(rows.len()).unwrap_or(u64::MAX));
        return Ok((rows, total, None));
    }
    // A search counts its matches up to a limit (`search`); nothing else does.
    let (ids, total, seen) = if !eq.search_words.is_empty() {
        let found = search::page(conn, eq, keys, None).await?;
        (found.ids, found.total, None)
    } else {
        let lookups = terms.map_or(0, |n| n.lookups());
        let mask = super::keys::driver_mask(conn, eq, keys, lookups).await?;
        let distinct = terms.is_some_and(|n| n.counts_distinct());
        let (count, seen) = exact_total(conn, eq, keys, mask, distinct).await?;
        let ids = page_ids(conn, eq, keys, count, mask).await?;
        (ids, Total::exact(count), seen)
    };
    let Some(ids) = ids else {
        return Ok((Vec::new(), total, seen));
    };
    Ok((read_page(conn, page, ids, row).await?, total, seen))
}

/// The IDs of the first page of a list that names its events (`include`), when
/// the page holds as many events as it names: a view reading the events it shows
/// by ID (a month's cells, 126 at most) needs no count of them. Not with a search,
/// whose words its own walk checks (see [`super::search`]).
fn named_on_first_page(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Option<SelectStatement> {
    let named = u64::try_from(eq.include.len()).unwrap_or(u64::MAX);
    let whole = named > 0 && eq.page == 1 && eq.per_page >= named;
    (whole && eq.post_parent.is_none() && eq.search_words.is_empty())
        .then(|| super::keys::page_ids(backend, eq, keys, 0))
}

/// The rows of `page` of the posts `ids`, in list order.
async fn read_page<T>(
    conn: &mut Conn,
    mut page: SelectStatement,
    ids: SelectStatement,
    row: impl FnMut(&crate::store::Row<'_>) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    page.and_where(col(Posts::Id).in_subquery(ids))
        .order_by((Posts::Table, Posts::StartUtc), Order::Asc)
        .order_by((Posts::Table, Posts::Id), Order::Asc);
    conn.query(&page, row).await
}

/// The keys a search reads ([`searched_keys`] when its terms are many events).
pub(super) fn search_keys(
    eq: &EventFilter,
    keys: Vec<KeyFilter>,
    terms_events: Option<Weighed>,
) -> Vec<KeyFilter> {
    let many = terms_events
        .is_some_and(|n| n.events > eq.count_limit.saturating_mul(SMALL_TERMS_PER_MATCH));
    if !eq.search_words.is_empty() && many {
        return searched_keys(&keys);
    }
    keys
}

/// The keys a search reads when its first filter is of many terms' events (two of
/// the largest categories): every event's own key drives, in list order, and
/// that filter becomes a probe of each event's keys like the others. A driver of
/// several values is read in list order only by sorting its rows (see
/// `search::walk::in_order`), which a search's probe and walk do each time: cheap for a
/// few terms' events, not for a third of the calendar.
fn searched_keys(keys: &[KeyFilter]) -> Vec<KeyFilter> {
    if keys[0].kind == KeyKind::Every {
        return keys.to_vec();
    }
    std::iter::once(KeyFilter::every())
        .chain(keys.iter().cloned())
        .collect()
}

/// The keys of a list that names its events ([`EventFilter::names_its_events`]):
/// those events drive, each checked for the other filters. Walking a filter's
/// window for them, or merging with its whole range, and counting them so, grows
/// with the calendar (a parent's one child among a category's events at a million
/// events: 1.9 s). Weighed as the events named, or as few for a parent's children,
/// so that the other filters are probed (`keys::merges`).
fn named_keys(eq: &EventFilter, keys: &[KeyFilter]) -> Vec<KeyFilter> {
    let mut named = KeyFilter::every();
    named.events = Some(eq.include.len().max(1) as u64);
    std::iter::once(named).chain(keys.iter().cloned()).collect()
}

/// The number of events a list shows: from the per-day counts where they serve it,
/// from the events' bits (`mask`, [`super::keys::driver_mask`]) for several large
/// terms, as a set of events (`distinct`) for terms too many to count one by one.
async fn exact_total(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    mask: Option<TermMask>,
    distinct: bool,
) -> Result<(u64, Option<Seen>), StoreError> {
    if let Some(window) = super::keys::aggregate_window(eq, keys)
        && counted_from_days(conn.backend(), &window)
    {
        return crate::store::event_count::window_seen(conn, &window).await;
    }
    Ok((counted(conn, eq, keys, mask, distinct).await?, None))
}

/// Whether the per-day counts are the cheaper count of `window`. Those of a
/// running window (`ends_after_day`: a calendar page's day) are a compound of
/// parts which PostgreSQL plans at each request; a term's events running on a day
/// cost less to read (a category of 33,000 events at a million: 156 rows, 0.3 ms
/// against 0.2 ms planned and 0.2 run; a month's grid of it read day by day, 31.6
/// against 36.5 ms), every event's more (7,300 rows read for the 1,000 running,
/// 2.9 ms). SQLite plans a statement once and reads the parts in 0.1 ms.
fn counted_from_days(backend: Backend, window: &KeyWindow) -> bool {
    backend == Backend::Sqlite || window.ends_after_day.is_none() || window.kind == 0
}

/// [`exact_total`] of a list the per-day counts do not count whole.
async fn counted(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    mask: Option<TermMask>,
    distinct: bool,
) -> Result<u64, StoreError> {
    let backend = conn.backend();
    let sum = |parts: Vec<i64>| -> u64 {
        parts
            .into_iter()
            .map(|n| u64::try_from(n).unwrap_or(0))
            .sum()
    };
    if let Some((all, flagged)) = super::keys::unset_flag_windows(eq, keys) {
        let all = crate::store::event_count::window(conn, &all).await?;
        let flagged = crate::store::event_count::window(conn, &flagged).await?;
        return Ok(all.saturating_sub(flagged));
    }
    if let Some((without, with)) = without_and_with_flag(eq) {
        let all = Box::pin(planned_total(conn, &without)).await?;
        let flagged = Box::pin(planned_total(conn, &with)).await?;
        return Ok(all.saturating_sub(flagged));
    }
    if let Some(mask) = mask {
        let count = super::keys::masked_count(backend, eq, keys, mask);
        return Ok(sum(conn.query(&count, |r| r.i64(0)).await?));
    }
    if distinct {
        let count = super::keys::distinct_count(backend, eq, keys);
        return Ok(sum(conn.query(&count, |r| r.i64(0)).await?));
    }
    if let Some(windows) = super::keys::value_windows(eq, keys) {
        let first = crate::store::event_count::window(conn, &windows[0]).await?;
        // Values with bits are checked on the others' rows (migration 37), no lookup.
        let probes = match keys[0].mask() {
            Some(_) => Probes::AsPlanned,
            None => others_probes(conn, &windows[1..], first).await?,
        };
        let others = super::keys::other_value_counts(backend, eq, keys, probes);
        return Ok(first + sum(conn.query(&others, |r| r.i64(0)).await?));
    }
    let count = super::keys::count(backend, eq, keys);
    Ok(sum(conn.query(&count, |r| r.i64(0)).await?))
}

/// How many keys of the first value's window PostgreSQL may hash for each event of
/// the other values' windows before those events are looked up one by one instead
/// ([`Probes::EachEvent`]): a lookup costs about what ten keys hashed do (3 and
/// 0.3 µs at a million events), and a hash reads the first value's whole range,
/// longer than its window. Two categories of 555,000 keys and of 11,000 events in
/// the window: 160-175 ms hashed, 30-35 looked up.
const HASHED_KEYS_PER_PROBE: u64 = 8;

/// How many values after the first [`others_probes`] counts the windows of; past
/// them, the counts are as PostgreSQL plans them.
const PROBE_COUNTED_VALUES: usize = 4;

/// How the counts of the other values look up the earlier ones: one by one when
/// their windows, from the per-day counts, are few beside the first's (`first`
/// events). SQLite's counts look each one up whatever this says (`store::exists`).
async fn others_probes(
    conn: &mut Conn,
    others: &[KeyWindow],
    first: u64,
) -> Result<Probes, StoreError> {
    if conn.backend() == Backend::Sqlite || others.len() > PROBE_COUNTED_VALUES {
        return Ok(Probes::AsPlanned);
    }
    let events = crate::store::event_count::windows(conn, others).await?;
    Ok(if events.saturating_mul(HASHED_KEYS_PER_PROBE) <= first {
        Probes::EachEvent
    } else {
        Probes::AsPlanned
    })
}

/// The IDs of the page's events, in list order, from an index alone (skipping to
/// a deep page then reads index entries, not the wide rows of every event before
/// it): `None` past the last page. A deep page of several large terms skips along
/// the window's events with their bits (`mask`).
pub(super) async fn page_ids(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    total: u64,
    mask: Option<TermMask>,
) -> Result<Option<SelectStatement>, StoreError> {
    let mut offset = (eq.page - 1).saturating_mul(eq.per_page);
    if total == 0 || offset >= total {
        return Ok(None);
    }
    if let Some(mask) = mask
        && offset >= super::keys::MASKED_PAGE_FROM
    {
        let backend = conn.backend();
        return Ok(Some(super::keys::masked_page_ids(
            backend, eq, keys, mask, offset,
        )));
    }
    // A deep page of a window the per-day counts serve (or of a term's window less
    // its flagged events', as its total is counted) starts reading at the day its
    // first event is on, not at the window's start.
    let mut sought;
    let mut eq = eq;
    let windows = match super::keys::aggregate_window(eq, keys) {
        Some(window) => Some((window, None)),
        None => super::keys::unset_flag_windows(eq, keys).map(|(all, less)| (all, Some(less))),
    };
    if let Some((window, less)) = windows
        && offset >= SEEK_FROM
        && let Some((start, skipped)) =
            crate::store::event_count::seek(conn, &window, less.as_ref(), offset).await?
    {
        sought = eq.clone();
        sought.start_min = Some(Ord::max(start, eq.start_min.unwrap_or(start)));
        offset -= skipped;
        eq = &sought;
    }
    Ok(Some(super::keys::page_ids(
        conn.backend(),
        eq,
        keys,
        offset,
    )))
}

/// Venues with coordinates inside a bounding box: `(id, lat, lng)`, from the
/// index of coordinates (migration 22). Not those whose events are being unlinked
/// from them (`linked_unlinks`): they have none, restored or not.
pub async fn venues_in_box(
    conn: &mut Conn,
    lat: (f64, f64),
    lng: (f64, f64),
) -> Result<Vec<(i64, f64, f64)>, StoreError> {
    // From the coordinates' index (a range), not the type's (an equality).
    let venue = posts::post_type_off_its_index(conn.backend());
    conn.query(
        Query::select()
            .columns([Posts::Id, Posts::GeoLat, Posts::GeoLng])
            .from(Posts::Table)
            .and_where(venue.eq(PostType::Venue.as_str()))
            .and_where(Expr::col(Posts::GeoLat).between(lat.0, lat.1))
            .and_where(Expr::col(Posts::GeoLng).between(lng.0, lng.1))
            .and_where(linked_unlinks::not_unlinking()),
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
