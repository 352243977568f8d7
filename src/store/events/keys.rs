//! Event lists that filter on keys — categories, tags, venues, organizers, the
//! featured, ticketed and located flags — read `event_keys` (migration 7) instead of
//! `posts`: the range of the filter expected to hold the fewest events, in list
//! order, from the index alone; any other key is one index probe per event.
//! `posts` is visited only for what keys do not hold (search words, `post_parent`,
//! a scheduled post's date) and for the page's own rows.

use sea_query::{Alias, Cond, Expr, ExprTrait, Order, Query, SelectStatement, SimpleExpr};

use super::list::{date_filters, matching_events};
use crate::domain::event::EventFilter;
use crate::domain::event_keys::{KeyFilter, KeyKind};
use crate::domain::post::{Status, Visibility};
use crate::store::Backend;
use crate::store::posts::contains;
use crate::store::schema::{EventKeys, Posts};

/// The stored code of a kind (see migration 7).
fn code(kind: KeyKind) -> i64 {
    match kind {
        KeyKind::Term => 1,
        KeyKind::Venue => 2,
        KeyKind::Organizer => 3,
        KeyKind::Featured => 4,
        KeyKind::Ticketed => 5,
        KeyKind::Located => 6,
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

/// `posts` of the key row's event has a row matching `cond` (alias `p`).
fn event_row(cond: SimpleExpr) -> SimpleExpr {
    let p = Alias::new("p");
    crate::store::exists(
        Query::select()
            .expr(Expr::cust("1"))
            .from_as(Posts::Table, p.clone())
            .and_where(Expr::col((p, Posts::Id)).equals((driver(), EventKeys::EventId)))
            .and_where(cond)
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

/// Which statuses the list shows, and what the caller may see of them. Every key
/// filter is on a field a password hides, so a protected event only matches for
/// those who may read it whole.
fn visibility(q: &mut SelectStatement, eq: &EventFilter) {
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
            q.and_where(unprotected);
        }
        Visibility::PublishedOrOwn(author) => {
            let own = || d(EventKeys::Author).eq(author);
            q.cond_where(Cond::any().add(published(eq.now_utc)).add(own()));
            q.cond_where(Cond::any().add(unprotected).add(own()));
        }
    }
}

/// The event also has one of these keys: one probe of `event_keys_event`.
fn has_key(key: &KeyFilter) -> SimpleExpr {
    let o = Alias::new("o");
    crate::store::exists(
        Query::select()
            .expr(Expr::cust("1"))
            .from_as(EventKeys::Table, o.clone())
            .and_where(
                Expr::col((o.clone(), EventKeys::EventId)).equals((driver(), EventKeys::EventId)),
            )
            .and_where(Expr::col((o.clone(), EventKeys::Kind)).eq(code(key.kind)))
            .and_where(Expr::col((o, EventKeys::Value)).is_in(key.values.iter().copied()))
            .take(),
    )
}

/// The key rows of every event the list shows (once per driver value it has):
/// `keys[0]`'s range, narrowed by every other condition of the list.
fn keyed(backend: Backend, eq: &EventFilter, keys: &[KeyFilter]) -> SelectStatement {
    let (first, others) = keys.split_first().expect("a keyed list has a key");
    let mut q = Query::select();
    q.from_as(EventKeys::Table, driver())
        .and_where(d(EventKeys::Kind).eq(code(first.kind)))
        .and_where(d(EventKeys::Value).is_in(first.values.iter().copied()))
        .and_where(d(EventKeys::Hidden).eq(false));
    visibility(&mut q, eq);
    date_filters(
        &mut q,
        eq,
        || d(EventKeys::StartUtc),
        || d(EventKeys::EndUtc),
    );
    if !eq.include.is_empty() {
        q.and_where(d(EventKeys::EventId).is_in(eq.include.iter().copied()));
    }
    for key in others {
        q.and_where(has_key(key));
    }
    for word in &eq.search_words {
        q.and_where(d(EventKeys::EventId).in_subquery(matching_events(backend, word)));
        // A protected event matches on its title alone for those who may not read it:
        // matching its hidden text would tell them what that text contains.
        if eq.visibility != Visibility::All {
            q.cond_where(
                Cond::any()
                    .add(d(EventKeys::Protected).eq(false))
                    .add(event_row(contains((Alias::new("p"), Posts::Title), word))),
            );
        }
    }
    if let Some(parent) = eq.post_parent {
        q.and_where(event_row(posts_p(Posts::PostParent).eq(parent)));
    }
    q
}

/// `COUNT` of the events a keyed list shows.
pub(super) fn count(backend: Backend, eq: &EventFilter, keys: &[KeyFilter]) -> SelectStatement {
    let mut q = keyed(backend, eq, keys);
    if keys[0].may_repeat() {
        q.expr(Expr::cust("COUNT(DISTINCT d.event_id)"));
    } else {
        q.expr(Expr::cust("COUNT(*)"));
    }
    q
}

/// The IDs of one page of a keyed list, in list order.
pub(super) fn page_ids(
    backend: Backend,
    eq: &EventFilter,
    keys: &[KeyFilter],
    offset: u64,
) -> SelectStatement {
    let mut q = keyed(backend, eq, keys);
    q.column((driver(), EventKeys::EventId));
    if keys[0].may_repeat() {
        q.group_by_col((driver(), EventKeys::StartUtc))
            .group_by_col((driver(), EventKeys::EventId));
    }
    q.order_by((driver(), EventKeys::StartUtc), Order::Asc)
        .order_by((driver(), EventKeys::EventId), Order::Asc)
        .limit(eq.per_page)
        .offset(offset);
    q
}
