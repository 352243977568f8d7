//! The shape of an event row: its own columns after the post's, the select and
//! `RETURNING` lists that yield them, the reader that makes an [`Event`] of them,
//! and [`EventRow`], the event columns an insert or update writes.

use sea_query::{Expr, SelectStatement};

use crate::domain::event::{Event, Ticket};
use crate::store::posts::{self, POST_COLUMN_COUNT, col, post_from_row, select_posts};
use crate::store::schema::Posts;
use crate::store::{Row, StoreError};

/// Event columns, read after the post columns.
const EVENT_COLUMNS: [Posts; 12] = [
    Posts::Website,
    Posts::StartUtc,
    Posts::EndUtc,
    Posts::Timezone,
    Posts::AllDay,
    Posts::Cost,
    Posts::HideFromListings,
    Posts::Sticky,
    Posts::Featured,
    Posts::PostParent,
    Posts::VenueId,
    Posts::Tickets,
];

pub(in crate::store) fn select_events() -> SelectStatement {
    let mut q = select_posts();
    for c in EVENT_COLUMNS {
        q.column((Posts::Table, c));
    }
    q
}

pub(in crate::store) fn event_from_row(r: &Row<'_>) -> Result<Event, StoreError> {
    let post = post_from_row(r)?;
    let b = POST_COLUMN_COUNT;
    let cost = r.string(b + 5)?;
    let tickets = r.string(b + 11)?;
    Ok(Event {
        post,
        website: r.opt_string(b)?,
        start_utc: r.opt_i64(b + 1)?.unwrap_or(0),
        end_utc: r.opt_i64(b + 2)?.unwrap_or(0),
        timezone: r.string(b + 3)?,
        all_day: r.bool(b + 4)?,
        cost: if cost.is_empty() {
            Vec::new()
        } else {
            serde_json::from_str(&cost).unwrap_or_else(|_| vec![cost])
        },
        hide_from_listings: r.bool(b + 6)?,
        sticky: r.bool(b + 7)?,
        featured: r.bool(b + 8)?,
        post_parent: r.i64(b + 9)?,
        venue_id: r.opt_i64(b + 10)?,
        tickets: if tickets.is_empty() {
            Vec::new()
        } else {
            serde_json::from_str(&tickets).unwrap_or_default()
        },
    })
}

/// What `select_events` yields, as a `RETURNING` list of a write to `posts`, so
/// [`event_from_row`] reads the rows as written.
pub(in crate::store) fn returning_events() -> Vec<Expr> {
    let mut returning = posts::returning_posts();
    returning.extend(EVENT_COLUMNS.iter().map(|c| col(*c)));
    returning
}

/// The event columns an insert or update writes.
pub struct EventRow<'a> {
    pub website: Option<Option<&'a str>>,
    pub start_utc: Option<i64>,
    pub end_utc: Option<i64>,
    pub timezone: Option<&'a str>,
    pub all_day: Option<bool>,
    pub cost: Option<&'a [String]>,
    pub hide_from_listings: Option<bool>,
    pub sticky: Option<bool>,
    pub featured: Option<bool>,
    pub post_parent: Option<i64>,
    pub venue_id: Option<Option<i64>>,
    pub tickets: Option<&'a [Ticket]>,
}

impl EventRow<'_> {
    pub fn values(&self) -> Vec<(Posts, sea_query::Value)> {
        let mut v: Vec<(Posts, sea_query::Value)> = Vec::new();
        if let Some(w) = self.website {
            v.push((Posts::Website, w.map(str::to_string).into()));
        }
        let ints = [
            (Posts::StartUtc, self.start_utc),
            (Posts::EndUtc, self.end_utc),
            (Posts::PostParent, self.post_parent),
        ];
        for (c, val) in ints {
            if let Some(x) = val {
                v.push((c, x.into()));
            }
        }
        let bools = [
            (Posts::AllDay, self.all_day),
            (Posts::HideFromListings, self.hide_from_listings),
            (Posts::Sticky, self.sticky),
            (Posts::Featured, self.featured),
        ];
        for (c, val) in bools {
            if let Some(x) = val {
                v.push((c, x.into()));
            }
        }
        if let Some(tz) = self.timezone {
            v.push((Posts::Timezone, tz.into()));
        }
        if let Some(cost) = self.cost {
            let text = if cost.is_empty() {
                String::new()
            } else {
                serde_json::to_string(cost).unwrap_or_default()
            };
            v.push((Posts::Cost, text.into()));
        }
        if let Some(venue) = self.venue_id {
            v.push((Posts::VenueId, venue.into()));
        }
        if let Some(t) = self.tickets {
            let text = if t.is_empty() {
                String::new()
            } else {
                serde_json::to_string(t).unwrap_or_default()
            };
            v.push((Posts::Tickets, text.into()));
        }
        v
    }
}
