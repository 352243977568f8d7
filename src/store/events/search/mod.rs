//! A list with a search: its page and a total counted up to a limit.
//!
//! A search's matches come from the trigram index (`words::index_matches`; on
//! PostgreSQL, only those within the list's dates, see [`dated`]), in no useful
//! order, or from the events' own text, read row by row as the list walks its
//! window in list order, or (on SQLite, a window of up to a few hundred thousand
//! rows) from the window's keys checked against the index's matches as a set of
//! IDs. Which is cheaper depends on how common the words are in the window, which
//! nothing stored tells: a short walk of the window's first events measures it (the
//! probe). Counting every match of a common word costs seconds at a million events
//! whichever way, so the total stops at the filter's `count_limit` (or the end of
//! the asked page, if deeper) and says so.

use sea_query::SelectStatement;

use super::keys::listed_on_rows;
use super::list::start_range;
use super::words::{dated_index_matches, index_matches, phrases_only};
use crate::domain::event::{EventFilter, Total};
use crate::domain::event_keys::{KeyFilter, KeyKind};
use crate::domain::post::Visibility;
use crate::store::{Backend, Conn, StoreError};

mod first_days;
mod grid;
mod index;
mod set;
mod walk;
mod window;

pub(super) use grid::{GridProbe, counted_matches, day_total, probe as probe_grid};
pub(super) use index::id_among;
pub(super) use walk::Probed;
pub(super) use window::{WindowMatches, window_matches};

use index::{Index, bounded_count, index_count, index_page, kept_page};
use set::{as_set, in_set, set_route};
use walk::{SAMPLED_ROWS, matched_throughout, probe, walk_count_after, walk_page, walked_page};

/// How many matches are counted per event of the window the probe reads: it
/// reads half as many events as are counted, enough to tell a common word from a
/// rare one, and a walk that counts goes on from where it stopped. Each event read
/// is a lookup of its text (5-10 µs at a million events): the probe of two events
/// per match counted cost 10-20 ms, more than the rest of a rare word's search.
const MATCHES_PER_PROBED_ROW: u64 = 2;

/// How many events a walk of the window may be expected to read, per match counted,
/// before the index is the cheaper way (a row's text costs some microseconds to
/// read and match; the index's matches, a lookup of their keys each).
const WALK_ROWS_PER_MATCH: u64 = 20;

/// How many events a window of terms (or of a flag set) may hold, per match counted,
/// for PostgreSQL to walk it rather than count the index's matches: that index holds
/// each event's terms and set flags beside its words (migrations 29 and 54), so a
/// term's candidates of a word are few, where a walk reads each event's text from
/// its row (about 11 µs). A category of 17,000 events at a million with `jazz` (206
/// matches among its 8,500 upcoming events): 75-100 ms walked, 15 ms from the index.
const TERM_WALK_ROWS_PER_MATCH: u64 = 2;

/// How many rows in the window a driver of several values may hold, per match
/// counted, for PostgreSQL to join the index's matches with them as it chooses (see
/// [`Index::joined`](index::Index::joined)): two tags of 18,700 events with `jazz` took 805 ms probed,
/// 203 ms so. Not every event's rows: given the choice for a month of them (26,000)
/// and `jazz`, it took 9 s. Terms are not joined either: their index checks them
/// with the words (`keys::listed_on_rows`); organizers are.
const JOINED_ROWS_PER_MATCH: u64 = 150;

/// How many events a window of a rare word may hold, per match counted, for
/// PostgreSQL to walk it whatever the index's matches among the events of the
/// list's dates ([`dated`], [`dated_index_matches`], which ANDs the start index
/// with the trigram index): a walk of so few is cheap. Past that it reads those
/// matches instead when they are expected fewer than half the window's events, each
/// costing about what an event walked does. A month of the biggest category with
/// `jazz` at a million events: 11,000 events walked in 80-110 ms, the month's 551
/// matches read in 11-15 ms.
const DATED_WALK_ROWS_PER_MATCH: u64 = 2;

/// How many events the dates of a list may hold for PostgreSQL to look a rare word
/// up among them ([`dated`]): the start index's bitmap of a month at a million
/// events (30,000) is read in 2-3 ms. Every list has dates (two years from today by
/// default, 600,000 events there), whose bitmap would cost more than it saves:
/// `jazz` in them took 81 ms so, 29 ms without.
pub(super) const DATED_EVENTS: u64 = 100_000;

/// How many values of the driver [`window_rows`] counts the window of, one by one.
const COUNTED_VALUES: usize = 16;

/// A search's page (its IDs in list order; `None` past the last) and total.
pub(super) struct Found {
    pub ids: Option<SelectStatement>,
    pub total: Total,
}

/// A search being served: the list, the page asked, how far its total is counted,
/// and what the probe of the window's first events saw.
struct Search<'a> {
    eq: &'a EventFilter,
    keys: &'a [KeyFilter],
    probed: Probed,
    /// The events of the list before the page, and up to the page's end.
    offset: u64,
    enough: u64,
    /// The filter's count limit, and the total's: the deeper of it and the page's end.
    count_limit: u64,
    limit: u64,
    /// The events the probe read; those a walk may read before the index is cheaper.
    probe_rows: u64,
    walk_rows: u64,
}

impl Search<'_> {
    fn matched(&self) -> u64 {
        self.probed.matched()
    }

    /// The rows a walk is expected to read to find `n` matches, at the probe's rate.
    fn rows_for(&self, n: u64) -> u64 {
        n.saturating_mul(self.probe_rows) / Ord::max(self.matched(), 1)
    }

    /// Whether the probe's last events hold the words at half its rate or more:
    /// they run on past its first events (a festival's first days), rather than
    /// ending among them (an event's first performances, one title).
    fn dense_to_probe_end(&self) -> bool {
        let p = &self.probed;
        p.tail_hits > 0
            && p.tail_hits
                .saturating_mul(self.probe_rows)
                .saturating_mul(2)
                >= self.matched().saturating_mul(p.tail_rows)
    }

    /// The matches expected among `n` events, at the probe's rate.
    fn at_rate(&self, n: u64) -> u64 {
        n.saturating_mul(Ord::max(self.matched(), 1)) / self.probe_rows
    }
}

/// How a search's total is counted.
enum Way<'k> {
    /// The window walked in list order, counting on from the probe.
    Walk,
    /// Counted so already, by a walk of the events after the probe.
    Walked(Total),
    /// SQLite: the keys' rows checked against the index's matches as a set.
    Set(&'k [KeyFilter]),
    /// The index's matches, unless the window is short enough to walk; `window`:
    /// the driver's rows in it, when the per-day counts give them.
    Index {
        matches: Box<SelectStatement>,
        window: Option<u64>,
    },
}

/// A search's total, and what the page may be read from.
enum Counted {
    Walked(Total),
    Indexed {
        total: Total,
        /// Every match the list shows, when the count read them all as IDs.
        kept: Option<Vec<i64>>,
        index: Index,
    },
}

/// A search's page and total: the probe of the window's first events, then the way
/// its total is counted ([`counting_way`]), and the way its page is read
/// ([`found_page`]). `first`: the window's first events, probed already (a grid's,
/// see [`probe_grid`]).
pub(super) async fn page(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    first: Option<Probed>,
) -> Result<Found, StoreError> {
    let offset = (eq.page - 1).saturating_mul(eq.per_page);
    let count_limit = Ord::max(eq.count_limit, 1);
    let probe_rows = Ord::max(count_limit / MATCHES_PER_PROBED_ROW, 1);
    let probed = probe(conn, eq, keys, probe_rows, first).await?;
    if probed.whole_window {
        // The probe read the whole window: its count is the total.
        let matched = probed.matched();
        let ids =
            (offset < matched).then(|| walk_page(conn.backend(), eq, keys, &probed, offset, None));
        let total = Total::exact(matched);
        return Ok(Found { ids, total });
    }
    let enough = offset.saturating_add(eq.per_page);
    let search = Search {
        eq,
        keys,
        probe_rows: probed.rows,
        probed,
        offset,
        enough,
        count_limit,
        limit: Ord::max(count_limit, enough),
        walk_rows: count_limit.saturating_mul(WALK_ROWS_PER_MATCH),
    };
    let counted = match counting_way(conn, &search).await? {
        Way::Set(set_keys) => return in_set(conn, &search, set_keys).await,
        Way::Walk => walk_count(conn, &search).await?,
        Way::Walked(total) => Counted::Walked(total),
        Way::Index { matches, window } => {
            if conn.backend() == Backend::Postgres
                && let Some(found) = first_days::counted(conn, &search, window).await?
            {
                return Ok(found);
            }
            index_count_or_walk(conn, &search, matches, window).await?
        }
    };
    let total = match &counted {
        Counted::Walked(total) | Counted::Indexed { total, .. } => *total,
    };
    let ids = if offset >= total.count {
        None
    } else {
        Some(found_page(conn, &search, counted).await?)
    };
    Ok(Found { ids, total })
}

/// How the search's total is counted: walked when a walk is expected to read few
/// events for it, from a set on SQLite when its words and window allow one, else
/// from the index.
async fn counting_way<'k>(conn: &mut Conn, s: &Search<'k>) -> Result<Way<'k>, StoreError> {
    let backend = conn.backend();
    let Some(matches) = index_matches(backend, s.eq) else {
        return Ok(Way::Walk);
    };
    if s.rows_for(s.limit + 1) <= s.walk_rows {
        // The walk is short at the probe's rate if the rest of the window holds
        // the words as often as its first events do.
        let needed = SAMPLED_ROWS
            .saturating_mul(s.limit + 1)
            .div_ceil(s.walk_rows);
        if matched_throughout(conn, s.eq, s.keys, needed).await? {
            return Ok(Way::Walk);
        }
        if let Some(total) = short_walk_count(conn, s).await? {
            return Ok(Way::Walked(total));
        }
    }
    let mut window = None;
    if backend == Backend::Sqlite && as_set(&s.eq.search_words) {
        let (set_keys, lists_window) = set_route(conn, s, &matches).await?;
        if let Some(set_keys) = set_keys {
            return Ok(Way::Set(set_keys));
        }
        window = lists_window;
    }
    // A walk reads at most its window's events: when the per-day counts say they
    // are few, it is bounded however rare the words, and the index's matches, which
    // are looked up whether in the window or not, may be many more.
    let window = match window {
        Some(rows) => Some(rows),
        None => window_rows(conn, s.eq, s.keys).await?,
    };
    // PostgreSQL, a page past the count limit: the index's matches in the window
    // are counted up to the page's end, among the matches of every event of the
    // list's dates; a walk may read fewer events than that (`salsa` among the
    // administrator's 50,000 drafts, whose matches are one in twenty of the index's).
    if backend == Backend::Postgres
        && s.limit > s.count_limit
        && walk_reads_fewer(conn, s.eq, window, s.rows_for(s.limit + 1), s.limit).await?
    {
        return Ok(Way::Walk);
    }
    Ok(Way::Index {
        matches: Box::new(matches),
        window,
    })
}

/// How many probes' events, at most, the probe's rate may need for the limit's
/// matches for a walk to be tried whatever the rest of the window holds
/// ([`short_walk_count`]): one event in four or more matching, a walk given up after
/// at most 8,000 events at a limit of 1,000 (some 30 ms on SQLite at a million).
const SHORT_WALK_PROBES: u64 = 8;

/// A walk on from the probe over at most twice the events the probe's rate needs
/// for the limit's matches, however rare the words are later in the window, when
/// that rate is high ([`SHORT_WALK_PROBES`]) and holds to the probe's end
/// ([`Search::dense_to_probe_end`]): the total when it finds them, `None` when it
/// does not or is not tried, those events' texts read for nothing. A festival's word, on
/// half the events of a month's first three days and on none after, in that month
/// at a million events: its first 1,000 matches in 2,000 events, where the set of
/// the index's matches read its 49,000 twice (82 → 15 ms on SQLite).
async fn short_walk_count(conn: &mut Conn, s: &Search<'_>) -> Result<Option<Total>, StoreError> {
    let needed = s.rows_for(s.limit + 1);
    if !s.dense_to_probe_end() || needed > s.probe_rows.saturating_mul(SHORT_WALK_PROBES) {
        return Ok(None);
    }
    let rest = s.limit.saturating_sub(s.matched());
    let rows = Ord::min(needed.saturating_mul(2), s.walk_rows);
    let rows = rows.saturating_sub(s.probe_rows);
    let q = walk_count_after(
        conn.backend(),
        s.eq,
        s.keys,
        (s.probe_rows, Some(rows)),
        rest,
    );
    let found = count(conn, q).await?;
    Ok((found > rest).then(|| up_to(s.matched().saturating_add(found), s.limit)))
}

/// The probe counted the matches of the window's first `probe_rows` events: the
/// walk counts on from there, up to the same limit.
async fn walk_count(conn: &mut Conn, s: &Search<'_>) -> Result<Counted, StoreError> {
    let rest = s.limit.saturating_sub(s.matched());
    let rest = walk_count_after(conn.backend(), s.eq, s.keys, (s.probe_rows, None), rest);
    let counted = s.matched() + count(conn, rest).await?;
    Ok(Counted::Walked(up_to(counted, s.limit)))
}

/// The index's matches counted, on PostgreSQL among those of the list's dates
/// ([`dated`]); a window short enough is walked instead.
async fn index_count_or_walk(
    conn: &mut Conn,
    s: &Search<'_>,
    matches: Box<SelectStatement>,
    window: Option<u64>,
) -> Result<Counted, StoreError> {
    let backend = conn.backend();
    let dated = match backend {
        Backend::Postgres => dated(conn, s.eq, s.keys, window, |n| s.at_rate(n)).await?,
        Backend::Sqlite => None,
    };
    let short_window = match backend {
        Backend::Postgres if narrows_candidates(&s.keys[0]) => {
            s.count_limit.saturating_mul(TERM_WALK_ROWS_PER_MATCH)
        }
        _ => s.walk_rows,
    };
    let unwalked = dated.as_ref().is_some_and(|d| d.unwalked);
    if window.is_some_and(|n| n <= short_window) && !unwalked {
        return walk_count(conn, s).await;
    }
    let joined = backend == Backend::Postgres
        && s.keys[0].may_repeat()
        && !listed_on_rows(s.keys)
        && window.is_some_and(|n| n <= s.count_limit.saturating_mul(JOINED_ROWS_PER_MATCH));
    let through_start_index = dated.as_ref().is_some_and(|d| d.through_start_index);
    let index = Index {
        matches: dated.map_or(matches, |d| Box::new(d.matches)),
        joined,
        one_plan: backend == Backend::Postgres
            && !joined
            && !through_start_index
            && phrases_only(backend, &s.eq.search_words),
    };
    let keys = index_keys(backend, s);
    let (counted, kept) = index_count(conn, s.eq, keys, &index, s.limit).await?;
    let total = up_to(counted, s.limit);
    let kept = kept.filter(|_| !total.at_least);
    Ok(Counted::Indexed { total, kept, index })
}

/// Whether PostgreSQL's indexes of the words hold the driver's key beside them, so
/// that the index's candidates are already the driver's: a term, a flag set, or a
/// term's flagged key (migrations 29 and 54). The biggest category's upcoming
/// featured events with `jazz` at a million events: some 14,000 walked, 241 ms.
fn narrows_candidates(driver: &KeyFilter) -> bool {
    match driver.kind {
        KeyKind::Term | KeyKind::FeaturedTerm | KeyKind::TicketedTerm => true,
        KeyKind::Featured | KeyKind::Ticketed => driver.values == [1],
        KeyKind::Every | KeyKind::Venue | KeyKind::Organizer | KeyKind::Located => false,
    }
}

/// The keys the index's matches are checked against. On SQLite, a filter of many
/// terms' events made a probe of every event's key ([`without_every_driver`]) is
/// checked on its own keys, which the index of each event's keys holds, where the
/// own key's bits of those terms are read from the table's row: two tags with
/// `jazz` at a million events, 6,700 matches looked up, 200 ms so, 15 ms on the
/// term keys.
fn index_keys<'k>(backend: Backend, s: &Search<'k>) -> &'k [KeyFilter] {
    match backend {
        Backend::Sqlite => without_every_driver(s.eq, s.keys),
        Backend::Postgres => s.keys,
    }
}

/// The page's IDs, the page holding matches. A walk stops at the page's last
/// match: it is short if the probe saw matches often enough, and the page's last
/// match exists. Every match known, the walk is kept only when the probe's matches
/// hold the page or a walk of one value's rows reads fewer events than they are: a
/// driver of several values merges its values' events to walk, and may sort its
/// window (see [`walked_page`]).
async fn found_page(
    conn: &mut Conn,
    s: &Search<'_>,
    counted: Counted,
) -> Result<SelectStatement, StoreError> {
    let backend = conn.backend();
    let walk_to_page = s.rows_for(s.enough);
    let (total, kept, index) = match counted {
        Counted::Walked(_) => {
            return walked_page(conn, s.eq, s.keys, &s.probed, s.offset, walk_to_page).await;
        }
        Counted::Indexed { total, kept, index } => (total, kept, index),
    };
    let matched = s.matched();
    let short_walk =
        matched > 0 && walk_to_page <= s.walk_rows && (total.at_least || total.count >= s.enough);
    let walk_beats_kept = |kept: &[i64]| {
        matched >= s.enough
            || (!s.keys[0].may_repeat()
                && walk_to_page <= u64::try_from(kept.len()).unwrap_or(u64::MAX))
    };
    if short_walk && kept.as_deref().is_none_or(walk_beats_kept) {
        return walked_page(conn, s.eq, s.keys, &s.probed, s.offset, walk_to_page).await;
    }
    if let Some(kept) = &kept {
        return Ok(kept_page(backend, s.eq, kept, s.offset));
    }
    if !total.at_least {
        return Ok(index_page(
            backend,
            s.eq,
            index_keys(backend, s),
            &index,
            s.offset,
        ));
    }
    // More matches than counted. A set of the words' matches costs a lookup and a
    // check of each one's text again (`salsa lantern` at a million events: 189,000
    // matches, 2.7 s as PostgreSQL's set): the walk to the page is taken when it
    // reads no more events than the set is expected to hold.
    if backend == Backend::Postgres
        && matched > 0
        && all_in_dates(conn, s.eq)
            .await?
            .is_some_and(|n| walk_to_page <= s.at_rate(n))
    {
        return walked_page(conn, s.eq, s.keys, &s.probed, s.offset, walk_to_page).await;
    }
    if backend == Backend::Postgres
        && let Some(page) = first_days::page(conn, s).await?
    {
        return Ok(index::listed_page(backend, &page));
    }
    // Too rare in the window for a short walk: the list's usual page, its words'
    // matches as a set of IDs.
    Ok(super::keys::page_ids(backend, s.eq, s.keys, s.offset))
}

/// A count of matches, reported up to `limit`: past it, a floor.
fn up_to(counted: u64, limit: u64) -> Total {
    if counted > limit {
        Total::at_least(limit)
    } else {
        Total::exact(counted)
    }
}

/// The keys without every event's, when a filter of many terms' events was made a
/// probe of it (`list::searched_keys`): checked against a set of matches, that
/// filter's rows are read in their own order, sorted by nothing, and are fewer. A
/// list that names its events keeps them as its driver (`list::named_keys`).
fn without_every_driver<'k>(eq: &EventFilter, keys: &'k [KeyFilter]) -> &'k [KeyFilter] {
    match keys {
        [every, rest @ ..]
            if every.kind == KeyKind::Every && !rest.is_empty() && !eq.names_its_events() =>
        {
            rest
        }
        _ => keys,
    }
}

/// The list without its search: the window the search narrows.
fn unsearched(eq: &EventFilter) -> EventFilter {
    EventFilter {
        search_words: Vec::new(),
        ..eq.clone()
    }
}

/// The list without its search, nor the bounds the per-day counts do not serve, a
/// start's from above and an end's from below (`starts_before`, `ends_after`): a
/// window that holds the list's, whose rows a search's way is weighed by. A view
/// of the days a search runs on (a month's grid at a million events: 30,000
/// events) otherwise weighed none, and walked them.
fn counted_window(eq: &EventFilter) -> EventFilter {
    EventFilter {
        starts_before: None,
        ends_after: None,
        ..unsearched(eq)
    }
}

/// How many key rows of the driver the window holds, whatever the other filters
/// and the words: from the per-day counts, when they serve each of the driver's
/// values alone (an event of two values counted twice), one statement per value,
/// for a driver of at most [`COUNTED_VALUES`]; the rows of [`counted_window`],
/// which holds the list's window.
async fn window_rows(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
) -> Result<Option<u64>, StoreError> {
    if keys[0].values.len() > COUNTED_VALUES {
        return Ok(None);
    }
    let Some(windows) = super::keys::each_value_window(&counted_window(eq), &keys[0]) else {
        return Ok(None);
    };
    Ok(Some(
        crate::store::event_count::windows(conn, &windows).await?,
    ))
}

/// PostgreSQL: whether a walk that counts a window's matches up to `limit` reads
/// fewer events (`walked`) than the index would give matches to count them: the
/// index gives those of every event of the list's dates, of which the window's
/// `window` events are a share. `false` when the per-day counts tell neither.
async fn walk_reads_fewer(
    conn: &mut Conn,
    eq: &EventFilter,
    window: Option<u64>,
    walked: u64,
    limit: u64,
) -> Result<bool, StoreError> {
    let Some(window) = window.filter(|n| *n > 0) else {
        return Ok(false);
    };
    let Some(all) = all_in_dates(conn, eq).await? else {
        return Ok(false);
    };
    Ok(u128::from(walked) * u128::from(window) <= u128::from(limit) * u128::from(all))
}

/// How many events, of every status, the list's dates hold, as the per-day counts
/// give them: those whose text the index's matches are read from. `None` when
/// they do not serve the list's dates.
async fn all_in_dates(conn: &mut Conn, eq: &EventFilter) -> Result<Option<u64>, StoreError> {
    window_rows(conn, &every_status(eq), &[KeyFilter::every()]).await
}

/// The list's dates alone, every event of every status in them.
fn every_status(eq: &EventFilter) -> EventFilter {
    EventFilter {
        statuses: Vec::new(),
        visibility: Visibility::All,
        ..unsearched(eq)
    }
}

/// PostgreSQL: the index's matches among the events of the list's dates.
struct Dated {
    matches: SelectStatement,
    /// Expected fewer than half the window's events (see
    /// [`DATED_WALK_ROWS_PER_MATCH`]): the window is not walked.
    unwalked: bool,
    /// PostgreSQL may AND the start index with the trigram index, as their
    /// estimates say.
    through_start_index: bool,
}

/// PostgreSQL: the index's matches among the events of the list's dates
/// ([`dated_index_matches`]), `None` when the index serves no word. Through the
/// start index when the dates bound the list both ways and hold at most
/// [`DATED_EVENTS`] events, as the per-day counts of every event give them;
/// otherwise the dates are checked on each candidate's row. `window`: the rows of
/// `keys`' driver in them, if counted. `at_rate`: the matches expected among that
/// many events, at the probe's rate.
async fn dated(
    conn: &mut Conn,
    eq: &EventFilter,
    keys: &[KeyFilter],
    window: Option<u64>,
    at_rate: impl Fn(u64) -> u64,
) -> Result<Option<Dated>, StoreError> {
    let range = start_range(eq);
    let on_rows = |matches| Dated {
        matches,
        unwalked: false,
        through_start_index: false,
    };
    if range.0.is_none() || range.1.is_none() {
        return Ok(dated_index_matches(eq, range, false).map(on_rows));
    }
    let dates = match keys {
        // The window is the dates' events: counted already.
        [only] if only.kind == KeyKind::Every => window,
        _ => window_rows(conn, eq, &[KeyFilter::every()]).await?,
    };
    let Some(dates) = dates.filter(|n| *n <= DATED_EVENTS) else {
        return Ok(dated_index_matches(eq, range, false).map(on_rows));
    };
    let walked_up_to = Ord::max(eq.count_limit, 1).saturating_mul(DATED_WALK_ROWS_PER_MATCH);
    let unwalked =
        window.is_some_and(|n| n > walked_up_to && at_rate(dates).saturating_mul(2) <= n);
    Ok(dated_index_matches(eq, range, true).map(|matches| Dated {
        matches,
        unwalked,
        through_start_index: true,
    }))
}

async fn count(conn: &mut Conn, q: SelectStatement) -> Result<u64, StoreError> {
    let n = conn.query_one(&q, |r| r.i64(0)).await?;
    Ok(u64::try_from(n).unwrap_or(0))
}
