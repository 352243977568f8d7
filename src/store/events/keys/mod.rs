//! Event lists that filter on keys — categories, tags, venues, organizers, the
//! featured, ticketed and located flags — read `event_keys` (migration 7) instead of
//! `posts`: the range of the filter expected to hold the fewest events, in list
//! order, from the index alone; any other key is one index probe per event.
//! `posts` is visited only for what keys do not hold (search words, `post_parent`,
//! a scheduled post's date) and for the page's own rows.

use sea_query::{
    Alias, Cond, Expr, ExprTrait, IntoIden, Order, Query, SelectStatement, SimpleExpr, UnionType,
};

use super::list::date_filters;
use super::words::{index_matches, indexed, matching_events, one_set, text_row, title_holds};
use crate::domain::event::EventFilter;
use crate::domain::event_keys::{KeyFilter, KeyKind, TermMask};
use crate::domain::post::{Status, Visibility};
use crate::store::Backend;
use crate::store::schema::{EventKeys, Posts};

mod bits;
mod count;
mod page;

pub(super) use bits::{MASKED_PAGE_FROM, driver_mask, masked_count, masked_page_ids};
pub(super) use count::{
    Probes, Weighed, aggregate_window, count, count_up_to, distinct_count, each_value_window,
    other_value_counts, rows_up_to, unset_flag_windows, value_windows, weigh_terms,
};
pub(super) use page::{after_row, first_merged, page_ids};

/// The stored code of a kind (see migration 7).
pub(in crate::store) fn code(kind: KeyKind) -> i64 {
    match kind {
        KeyKind::Every => 0,
        KeyKind::Term => 1,
        KeyKind::Venue => 2,
        KeyKind::Organizer => 3,
        KeyKind::Featured => 4,
        KeyKind::Ticketed => 5,
        KeyKind::Located => 6,
        KeyKind::FeaturedTerm => 7,
        KeyKind::TicketedTerm => 8,
    }
}

/// The alias of the key rows a list reads.
fn driver() -> Alias {
    Alias::new("d")
}

/// A column of the key rows a list reads.
pub(super) fn d(c: EventKeys) -> Expr {
    Expr::col((driver(), c))
}

/// `posts` of the key row's event has a row matching `cond` (alias `p`): one row,
/// looked up by its ID. The `OFFSET 0` keeps PostgreSQL from turning the `EXISTS`
/// into a hash of every event matching `cond` (which it may prefer when it expects
/// many key rows: 6.6 s to hash the 20,000 events holding `jazz` and `zz` among a
/// million, to probe 2,000 of them), as it does not for a subquery with an offset.
pub(super) fn event_row(cond: SimpleExpr) -> SimpleExpr {
    row_of(Posts::Table, Posts::Id, cond)
}

/// The row of `table` whose `id` is the key row's event, named `p`, holds `cond`:
/// looked up as [`event_row`] looks up its `posts` row.
pub(super) fn row_of(table: impl IntoIden, id: impl IntoIden, cond: SimpleExpr) -> SimpleExpr {
    let p = Alias::new("p");
    crate::store::exists(
        Query::select()
            .expr(Expr::cust("1"))
            .from_as(table, p.clone())
            .and_where(Expr::col((p, id)).equals((driver(), EventKeys::EventId)))
            .and_where(cond)
            .offset(0)
            .take(),
    )
}

fn posts_p(c: Posts) -> Expr {
    Expr::col((Alias::new("p"), c))
}

/// Published for every visitor: `publish`, or scheduled and already due (the
/// scheduler publishes those before a read; this covers the moment it could not).
fn published(now: i64) -> Cond {
    Cond::any()
        .add(d(EventKeys::Status).eq(Status::Publish.as_str()))
        .add(
            d(EventKeys::Status)
                .eq(Status::Future.as_str())
                .and(event_row(posts_p(Posts::DateUtc).lte(now))),
        )
}

/// Which statuses the list shows, and what the caller may see of them. A filter on
/// a field a password hides only matches a protected event for those who may read
/// it whole.
fn visibility(q: &mut SelectStatement, eq: &EventFilter, hides_protected: bool) {
    if eq.statuses.is_empty() {
        q.and_where(d(EventKeys::Status).ne(Status::Trash.as_str()));
    } else {
        q.and_where(d(EventKeys::Status).is_in(eq.statuses.iter().map(|s| s.as_str())));
    }
    let unprotected = d(EventKeys::Protected).eq(false);
    match eq.visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.cond_where(published(eq.now_utc));
            if hides_protected {
                q.and_where(unprotected);
            }
        }
        Visibility::PublishedOrOwn(author) => {
            let own = || d(EventKeys::Author).eq(author);
            q.cond_where(Cond::any().add(published(eq.now_utc)).add(own()));
            if hides_protected {
                q.cond_where(Cond::any().add(unprotected).add(own()));
            }
        }
    }
}

/// The event also has one of these keys. Every key of an event carries its start,
/// so the key sought is one entry of the primary key, found by all four of its
/// columns: SQLite probes it for each event (`store::exists` keeps its `EXISTS` a
/// probe), and as the driver's events come in list order, so do the probes, each
/// near the last (a category's 12,000 events probed for another category at a
/// million events: 14 ms, where by `event_keys_event`, an index in event order,
/// each probe was a page read elsewhere: 51 ms warm, 460 ms cold). PostgreSQL turns
/// a plain `EXISTS` into a semi-join (an anti-join under `NOT`), by hash or by merge
/// when both ranges are large, by probes when the first is small (probing a
/// category's 12,000 events for a tag of 233,000 by a subquery it could not join
/// took as long as its hash of the tag's range: 65 ms).
///
/// PostgreSQL may also drive the join from the probed key's range, in list order,
/// and it does not carry the driver's date bounds over an equality of starts: given
/// `window`, the probed range is bounded by its dates too (they hold for every key
/// of an event). Without them, a page of a category's events without the featured
/// flag walks the 316,000 unflagged keys before the window at a million events
/// (135 ms, against 5 with them). Counts of several values leave their anti-joins
/// unbounded: with the bounds, PostgreSQL hashes the other value's range (370,000
/// keys, 240 ms) instead of probing it.
fn has_key(backend: Backend, key: &KeyFilter, window: Option<&EventFilter>) -> SimpleExpr {
    let same_event =
        Expr::col((Alias::new("o"), EventKeys::EventId)).equals((driver(), EventKeys::EventId));
    let sub = key_sought(backend, key, window, same_event);
    match backend {
        Backend::Postgres => Expr::exists(sub),
        Backend::Sqlite => crate::store::exists(sub),
    }
}

/// [`has_key`] without the date bounds, looked up for each event of the driver
/// whatever the sizes PostgreSQL expects (its `EXISTS` with an `OFFSET` is never
/// made a join): for a driver of few events beside a key of many (see
/// [`Probes`]). By all four columns of the primary key, near the last lookup as the
/// driver comes in list order: left to choose, PostgreSQL took `event_keys_event`
/// for each (11,000 lookups, 131 ms, their pages all over the index), so the event's
/// ID is compared as a range of one, which that index, expected to read a range
/// of events from it, loses to the primary key (30 ms).
fn has_key_probed(backend: Backend, key: &KeyFilter) -> SimpleExpr {
    let Backend::Postgres = backend else {
        return has_key(backend, key, None);
    };
    let same_event = Expr::cust("o.event_id BETWEEN d.event_id AND d.event_id");
    Expr::exists(key_sought(backend, key, None, same_event).offset(0).take())
}

/// The subquery of [`has_key`]: the key sought among the event's own. Several
/// terms with bits are sought as one of their bits on the event's own key: one
/// lookup, where each value is one (thirty categories beside a hundred tags at a
/// million events: thirty lookups for each of 280,000 events, 2.4 s).
fn key_sought(
    backend: Backend,
    key: &KeyFilter,
    window: Option<&EventFilter>,
    same_event: SimpleExpr,
) -> SelectStatement {
    let o = Alias::new("o");
    let mut sub = Query::select()
        .expr(Expr::cust("1"))
        .from_as(EventKeys::Table, o.clone())
        .and_where(same_event)
        .and_where(
            Expr::col((o.clone(), EventKeys::StartUtc)).equals((driver(), EventKeys::StartUtc)),
        )
        .take();
    match sought_by_bits(key) {
        Some(mask) => {
            // Constants, as PostgreSQL's index of the own keys with their bits
            // names them (migration 32).
            sub.and_where(Expr::cust("o.kind = 0"))
                .and_where(Expr::cust("o.value = 0"))
                .and_where(bits::has_bits(o.clone(), mask));
        }
        None => {
            sub.and_where(Expr::col((o.clone(), EventKeys::Kind)).eq(code(key.kind)))
                .and_where(
                    Expr::col((o.clone(), EventKeys::Value)).is_in(key.values.iter().copied()),
                );
        }
    }
    if let (Backend::Postgres, Some(eq)) = (backend, window) {
        date_filters(
            &mut sub,
            eq,
            || Expr::col((o.clone(), EventKeys::StartUtc)),
            || Expr::col((o.clone(), EventKeys::EndUtc)),
        );
    }
    sub
}

/// The mask by which a filter of several terms, each with a bit, is sought on
/// the event's own key rather than value by value.
fn sought_by_bits(key: &KeyFilter) -> Option<TermMask> {
    key.mask()
        .filter(|_| key.kind == KeyKind::Term && key.values.len() > 1)
}

/// The mask by which a filter of terms, each with a bit, is checked on the rows of
/// a driver that carries its events' bits ([`bits::carried`]): no lookup at all.
fn checked_by_bits(key: &KeyFilter) -> Option<TermMask> {
    key.mask().filter(|_| key.kind == KeyKind::Term)
}

/// How a keyed list checks its search words.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Texts {
    /// Each word's matches from the search index, as a set of IDs.
    InSet,
    /// [`Texts::InSet`], the set read from the statement's own table of them,
    /// [`MATCHED`]: its caller builds it once (SQLite; see `search::window`).
    InMatched,
    /// Each event's own text, read from its row as the list reaches it.
    OnRow,
    /// By the caller, which reads the search index's matches and looks up each
    /// one's keys (`d.event_id` equals it): only what the index cannot tell is left
    /// here, a protected event's title and words too short for it.
    ByCaller,
    /// [`Texts::ByCaller`], for a caller that lets PostgreSQL join the matches with
    /// the driver's range as it chooses: that range stays open to it (PostgreSQL
    /// only; SQLite's caller probes).
    JoinedByCaller,
}

/// The name of the table of the search index's matches a statement read with
/// [`Texts::InMatched`] builds, of one column, `id`.
pub(super) const MATCHED: &str = "matched";

/// The key rows of every event the list shows (once per driver value it has):
/// `keys[0]`'s range, narrowed by every other condition of the list.
fn keyed(backend: Backend, eq: &EventFilter, keys: &[KeyFilter]) -> SelectStatement {
    keyed_with(backend, eq, keys, Texts::InSet)
}

/// [`keyed`], with the search words checked as `texts` says.
pub(super) fn keyed_with(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    texts: Texts,
) -> SelectStatement {
    let (first, others) = keys.split_first().expect("a keyed list has a key");
    let mut q = Query::select();
    q.from_as(EventKeys::Table, driver());
    if texts == Texts::ByCaller {
        // One event's keys, looked up by its ID (`event_keys_event`): the unary `+`
        // keeps both off the primary key, whose range of the kind they would walk
        // for every match instead (PostgreSQL too: 9 s for a month with `jazz`).
        q.and_where(Expr::cust("+d.kind").eq(code(first.kind)))
            .and_where(Expr::cust("+d.value").is_in(first.values.iter().copied()));
    } else if first.kind == KeyKind::Every && eq.names_its_events() {
        // A few events by ID or parent: from the event index, not every event's key
        // in list order, which SQLite prefers for the order it gives (a unary `+`
        // keeps a column off its indexes; PostgreSQL weighs costs and is not misled).
        q.and_where(Expr::cust("+d.kind").eq(code(first.kind)));
    } else if first.kind == KeyKind::Every
        && (backend == Backend::Postgres || others.iter().any(|k| k.kind.flag_bit().is_some()))
    {
        // The flags are checked on the own keys' index alone. PostgreSQL, not told
        // that index holds the rows, made a bitmap of every event's keys and sorted
        // what it kept, to walk them (the 200th page of 50 of the administrator's
        // drafts with `salsa`, at a million events: 1.1 s, 0.27 s so) or to check
        // them against a set of matches (`zz`: 1.6 s, 0.33 s).
        bits::own_keys(&mut q);
    } else if first.kind == KeyKind::Term {
        // A constant, as PostgreSQL's index of the term keys with their bits names
        // it (migration 37).
        q.and_where(Expr::cust("d.kind = 1"))
            .and_where(d(EventKeys::Value).is_in(first.values.iter().copied()));
    } else {
        q.and_where(d(EventKeys::Kind).eq(code(first.kind)))
            .and_where(d(EventKeys::Value).is_in(first.values.iter().copied()));
    }
    listed_by(
        &mut q,
        backend,
        eq,
        keys,
        bits::carried(first),
        others,
        texts,
    );
    q
}

/// Whether PostgreSQL checks the search index's candidates of a list read by
/// `keys` on their own rows of `event_search` ([`listed_matches`]): a list driven
/// by every event's key, by terms or by a flag among those the rows hold with the
/// terms (migrations 28, 29 and 54).
pub(super) fn listed_on_rows(keys: &[KeyFilter]) -> bool {
    keys[0].kind == KeyKind::Every || super::words::held_on_row(&keys[0]).is_some()
}

/// PostgreSQL: the index's `matches` of a list read by `keys` (see
/// [`listed_on_rows`]), each checked on its own row of `event_search`, which holds
/// what the event's key of every event holds (migration 28) and its terms
/// (migration 29) beside its text: the conditions of [`keyed`] on that row, with no
/// lookup of the key. Its terms are checked by the index with its words (the
/// index's entries of each candidate hold both), so that a term filter narrows the
/// candidates before any row is read; only a filter of another kind is probed. The
/// matches are read with those columns (`words::with_listed_columns`) in a subquery
/// kept whole (`OFFSET 0`), so that the checks are made on the rows it reads, and
/// the dates on the row (see `words::dated_index_matches`) do not become bounds of
/// the start index.
pub(super) fn listed_matches(
    eq: &EventFilter,
    keys: &[KeyFilter],
    matches: &SelectStatement,
) -> SelectStatement {
    debug_assert!(listed_on_rows(keys));
    let mut matches = super::words::with_listed_columns(matches.clone());
    let mut probed = Vec::new();
    for key in keys {
        match key.kind {
            KeyKind::Every => {}
            _ => match super::words::held_on_row(key) {
                Some(held) => {
                    matches.and_where(held);
                }
                None => probed.push(has_key_probed(Backend::Postgres, key)),
            },
        }
    }
    matches.offset(0);
    let mut q = Query::select();
    q.expr_as(d(EventKeys::EventId), Alias::new("id"))
        .from_subquery(matches, driver());
    listed_by(
        &mut q,
        Backend::Postgres,
        eq,
        keys,
        bits::Carried::Nothing,
        &[],
        Texts::ByCaller,
    );
    // Each candidate's key looked up by its ID: they come in no order of the key's
    // range, and as a join, PostgreSQL's one plan for the count (`Conn::one_plan`)
    // scanned the located key's range of the window for each candidate
    // (`geoloc=1&featured=0&search=jazz` at a million events: over 30 s).
    for probe in probed {
        q.and_where(probe);
    }
    q
}

/// The conditions of the list but its driver's range on the rows `d`;
/// `carried`: what those rows carry of their events' keys ([`bits::carried`]): other
/// filters of terms with bits, and on own keys of flags, are checked there (three
/// flags and the terms' bits looked up for each of 800,000 events, for thirty
/// categories, a hundred tags and three flags at a million: 7.2 s on PostgreSQL; a
/// walk of the window in list order: PostgreSQL made the lookup of each event's own key a semi-join, and hashed
/// every own key with one of the bits before the walk's first row, 2 s for all
/// thirty categories with a search; a tag's events in a category's range, each
/// looked up among the tag's keys or both ranges merged, read twice the rows).
fn listed_by(
    q: &mut SelectStatement,
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    carried: bits::Carried,
    others: &[KeyFilter],
    texts: Texts,
) {
    q.and_where(d(EventKeys::Hidden).eq(false));
    visibility(q, eq, keys.iter().any(KeyFilter::hides_protected));
    date_filters(q, eq, || d(EventKeys::StartUtc), || d(EventKeys::EndUtc));
    if !eq.include.is_empty() {
        q.and_where(d(EventKeys::EventId).is_in(eq.include.iter().copied()));
    }
    for key in others {
        q.and_where(on_row(carried, key).unwrap_or_else(|| has_key(backend, key, Some(eq))));
    }
    match texts {
        Texts::OnRow if !eq.search_words.is_empty() => {
            q.and_where(text_row(backend, super::words::text_on_row(backend, eq)));
        }
        Texts::OnRow => {}
        Texts::InSet | Texts::InMatched | Texts::ByCaller | Texts::JoinedByCaller => {
            search_conditions(q, backend, eq, texts);
        }
    }
    if let Some(parent) = eq.post_parent {
        q.and_where(d(EventKeys::EventId).in_subquery(children(parent)));
    }
}

/// The posts whose parent is `parent`, from the index of parents: its own
/// condition, repeated as a constant, tells both databases the index holds them,
/// which a bound parent does not (SQLite plans once whatever is bound, and
/// scanned every post: 0.6 s at a million events).
fn children(parent: i64) -> SelectStatement {
    Query::select()
        .column(Posts::Id)
        .from(Posts::Table)
        .and_where(Expr::col(Posts::PostParent).eq(parent))
        .and_where(Expr::cust("post_parent <> 0"))
        .take()
}

/// The search words' conditions on the key rows `d`, but for their text read on
/// the row ([`Texts::OnRow`]).
fn search_conditions(q: &mut SelectStatement, backend: Backend, eq: &EventFilter, texts: Texts) {
    let words = &eq.search_words;
    let any_indexed = words.iter().any(|w| indexed(w));
    // One set of every word's matches, where a set of each word is built whole
    // (`salsa` alone holds 418,000 events at a million). SQLite's FTS5 intersects
    // the words' lists as it reads them, and may leave out a short word beside a
    // phrase, checked on the rows of the set then, as the index's other callers
    // check it. PostgreSQL's set checks the short words on the rows its index gives
    // (`words::one_set`).
    let one_set = match (texts, backend) {
        (Texts::InSet, Backend::Sqlite) => index_matches(backend, eq),
        (Texts::InSet, Backend::Postgres) => one_set(eq),
        (Texts::InMatched, _) => Some(
            Query::select()
                .column(Alias::new("id"))
                .from(Alias::new(MATCHED))
                .take(),
        ),
        _ => None,
    };
    if let Some(matches) = &one_set {
        q.and_where(d(EventKeys::EventId).in_subquery(matches.clone()));
    }
    let short_words_in_set = backend == Backend::Postgres && one_set.is_some();
    for word in words {
        if texts == Texts::InSet && one_set.is_none() {
            q.and_where(d(EventKeys::EventId).in_subquery(matching_events(backend, eq, word)));
        } else if !indexed(word) && !short_words_in_set && (texts != Texts::InSet || any_indexed) {
            q.and_where(text_row(backend, super::words::on_row(backend, word)));
        }
        // A protected event matches on its title alone for those who may not
        // read it: matching its hidden text would tell them what it contains.
        if eq.visibility != Visibility::All {
            q.cond_where(
                Cond::any()
                    .add(d(EventKeys::Protected).eq(false))
                    .add(text_row(backend, title_holds(backend, word))),
            );
        }
    }
}

/// Whether the list's first two filters are intersected by merging their ranges,
/// both in list order, rather than probing the second for each event of the first.
/// SQLite merges a compound `INTERSECT` ordered by its columns in one pass over both
/// (a category of 255,000 events and a tag of 145,000: 35 ms, where 145,000 probes
/// took 230 ms), but a probe is still cheaper when the first range is small, as a
/// venue's or an organizer's is, or a term's of a quarter of the second's events or
/// fewer (a tag of 1,500 events in a category of 300,000: 90 ms merged, 8 probed).
/// PostgreSQL plans the probes as a join itself. A first range of terms' keys with a
/// second filter of terms with bits reads neither: the first alone, each row checked
/// by the second's bits (migration 37); so does every event's own key with a flag
/// (migration 41).
fn merges(backend: Backend, keys: &[KeyFilter]) -> bool {
    backend == Backend::Sqlite
        && keys.len() >= 2
        && keys[..2]
            .iter()
            .all(|k| !matches!(k.kind, KeyKind::Venue | KeyKind::Organizer) && !k.may_repeat())
        && !probed(keys[0].events, keys[1].events)
        && on_row(bits::carried(&keys[0]), &keys[1]).is_none()
}

/// The condition by which the rows `d` of a driver carrying `carried` tell whether
/// each of its events meets `key` (see [`listed_by`]): no lookup, no merge.
fn on_row(carried: bits::Carried, key: &KeyFilter) -> Option<SimpleExpr> {
    match checked_by_bits(key) {
        Some(mask) if carried.terms() => Some(bits::has_bits(driver(), mask)),
        _ if carried.flags() => bits::flag_on_row(driver(), key),
        _ => None,
    }
}

/// Whether the events of a first filter of `first` events are few enough to probe
/// for the second's keys one by one rather than merge with its whole range (see
/// [`merges`]): a quarter of the second's, or, the second not weighed (a flag, whose
/// range may be most of the calendar), a few thousand. `None`: not weighed.
fn probed(first: Option<u64>, second: Option<u64>) -> bool {
    match (first, second) {
        (Some(first), Some(second)) => first.saturating_mul(4) < second,
        (Some(first), None) => first < PROBED_UP_TO,
        (None, _) => false,
    }
}

/// How many events of a first filter are probed for a second filter not weighed
/// rather than merged with its range: about a microsecond a probe, where a merge
/// reads both ranges.
const PROBED_UP_TO: u64 = 20_000;

/// The (start, ID) of the events meeting both of the first two filters, in list
/// order, by a merge of their ranges; every other condition is checked on the first.
fn merged(backend: Backend, eq: &EventFilter, keys: &[KeyFilter]) -> SelectStatement {
    let first: Vec<KeyFilter> = std::iter::once(keys[0].clone())
        .chain(keys[2..].iter().cloned())
        .collect();
    let mut merged = keyed(backend, eq, &first);
    merged
        .column((driver(), EventKeys::StartUtc))
        .column((driver(), EventKeys::EventId));
    let plain = EventFilter {
        search_words: Vec::new(),
        include: Vec::new(),
        post_parent: None,
        ..eq.clone()
    };
    let mut second = keyed(backend, &plain, &keys[1..2]);
    second
        .column((driver(), EventKeys::StartUtc))
        .column((driver(), EventKeys::EventId));
    merged
        .union(UnionType::Intersect, second)
        .order_by(EventKeys::StartUtc, Order::Asc)
        .order_by(EventKeys::EventId, Order::Asc);
    merged
}

/// The driver's values one at a time, for a filter that may meet an event more
/// than once (two categories of one event): one arm per value, the rest unchanged.
fn arms(keys: &[KeyFilter]) -> Vec<Vec<KeyFilter>> {
    keys[0]
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut arm = keys.to_vec();
            arm[0].values = vec![*v];
            arm[0].bits = keys[0].bits.get(i).map(|b| vec![*b]).unwrap_or_default();
            arm
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_query::SqliteQueryBuilder;

    #[test]
    fn two_terms_merge_in_list_order() {
        let keys = [
            KeyFilter {
                kind: KeyKind::Term,
                values: vec![7],
                events: None,
                bits: Vec::new(),
            },
            KeyFilter {
                kind: KeyKind::Featured,
                values: vec![1],
                events: None,
                bits: Vec::new(),
            },
        ];
        let eq = EventFilter {
            page: 1,
            per_page: 10,
            ..EventFilter::default()
        };
        let sql = count(Backend::Sqlite, &eq, &keys).to_string(SqliteQueryBuilder);
        assert!(merges(Backend::Sqlite, &keys));
        let intersect = sql.find("INTERSECT").expect(&sql);
        let order = sql.rfind("ORDER BY").expect(&sql);
        assert!(order > intersect, "the whole compound is ordered: {sql}");
        assert!(
            sql.contains("ORDER BY \"start_utc\" ASC, \"event_id\" ASC"),
            "{sql}"
        );
    }

    #[test]
    fn a_first_filter_much_lighter_than_the_second_is_probed() {
        let term = |events| KeyFilter {
            kind: KeyKind::Term,
            values: vec![7],
            events,
            bits: Vec::new(),
        };
        let merged = |first, second| merges(Backend::Sqlite, &[term(first), term(second)]);
        assert!(!merged(Some(1_500), Some(300_000)), "a few thousand events");
        assert!(
            !merged(Some(60_000), Some(300_000)),
            "a fifth of the second"
        );
        assert!(merged(Some(160_000), Some(300_000)));
        assert!(merged(None, Some(300_000)), "not weighed");
        assert!(!merges(
            Backend::Postgres,
            &[term(Some(160_000)), term(Some(300_000))]
        ));
    }
}
