//! The rows an event's write shares with other writers, and the locks that order
//! those writers on PostgreSQL.
//!
//! An event's keys (`event_keys`) are counted by their triggers in rows that many
//! events share: the per-day counts of the event's day pair, the 32-day blocks of
//! those days in the transaction's stripe (migrations 20 and 21), and the summaries
//! of its venue and organizers (`linked_event_stats`). One write takes those rows in
//! the order its statements and triggers reach them, which another write may reach
//! in the opposite order: a batch in its pieces, an update at its old venue then its
//! new one. PostgreSQL would then abort one of the two after its one-second deadlock
//! timeout. So every write of an event first takes, in one sorted flight, an advisory
//! lock for each such row it may write ([`lock_shared_rows`]). Two writes that
//! share none of these locks write no shared row in common; two that share one wait
//! for each other at that first statement, holding nothing else the other needs.
//!
//! The order of a write's locks: the event's own row (an update's or a trash's
//! `lock_state`), those of the venues, organizers and terms it creates or finds by
//! name, these, then the event's slug and last the term counts (`lock_counts`).

use sea_query::{Expr, ExprTrait, LockType, Order, Query, Value};

use crate::store::db::STRIPE;
use crate::store::schema::Posts;
use crate::store::{Conn, StoreError};

/// Where an event's keys are counted: its dates, its venue, its organizers.
#[derive(Clone, Copy, Debug)]
pub struct Footprint<'a> {
    /// Its start and end instants (Unix seconds), if it has them.
    pub span: (Option<i64>, Option<i64>),
    pub venue: Option<i64>,
    pub organizers: &'a [i64],
}

impl<'a> Footprint<'a> {
    /// The footprint of an event as stored.
    pub fn stored(span: (i64, i64), venue: Option<i64>, organizers: &'a [i64]) -> Self {
        Footprint {
            span: (Some(span.0), Some(span.1)),
            venue,
            organizers,
        }
    }

    /// The footprint of an event about to be inserted with these columns
    /// (`EventRow::values`).
    pub fn of_columns(columns: &[(Posts, Value)], organizers: &'a [i64]) -> Self {
        let bigint = |column: Posts| {
            columns.iter().find_map(|(c, v)| match v {
                Value::BigInt(Some(n)) if *c == column => Some(*n),
                _ => None,
            })
        };
        Footprint {
            span: (bigint(Posts::StartUtc), bigint(Posts::EndUtc)),
            venue: bigint(Posts::VenueId),
            organizers,
        }
    }

    /// Its (end day, start day): the key of its per-day counts. A key without a
    /// date counts on day 0, as the triggers write it.
    pub fn days(&self) -> (i64, i64) {
        let day = |t: Option<i64>| t.map_or(0, |t| t.div_euclid(86_400));
        (day(self.span.1), day(self.span.0))
    }
}

/// The lock of each shared row these footprints' triggers write, sorted and once
/// each (see the module's documentation).
fn shared_row_keys<'a>(footprints: impl IntoIterator<Item = Footprint<'a>>) -> Vec<String> {
    let block = |day: i64| day.div_euclid(32);
    let mut keys: Vec<String> = footprints
        .into_iter()
        .flat_map(|f| {
            let (end, start) = f.days();
            [
                format!("event-days:{end}:{start}"),
                format!("event-blocks:{}:{}:{}", block(end), block(start), STRIPE),
            ]
            .into_iter()
            .chain(f.venue.map(|v| format!("venue-events:{v}")))
            .chain(f.organizers.iter().map(|o| format!("organizer-events:{o}")))
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Takes the locks of [`shared_row_keys`], before the write's first statement that
/// writes an event's keys. A write that changes an event passes its footprint as
/// stored and as it will be. No-op on SQLite, whose one writer is exclusive.
pub async fn lock_shared_rows<'a>(
    conn: &mut Conn,
    footprints: impl IntoIterator<Item = Footprint<'a>>,
) -> Result<(), StoreError> {
    for key in shared_row_keys(footprints) {
        conn.lock_key(&key).await?;
    }
    Ok(())
}

/// For a batch of background work on these events (`category_moves`,
/// `linked_unlinks`): locks their rows in ID order, as a write of one of them does
/// first, then the shared rows their keys are counted in, with the venue and
/// organizers the batch changes. SQLite's one writer is exclusive already.
pub async fn lock_events_of_batch(
    conn: &mut Conn,
    events: &[i64],
    venue: Option<i64>,
    organizers: &[i64],
) -> Result<(), StoreError> {
    if conn.backend() == crate::store::Backend::Sqlite {
        return Ok(());
    }
    let spans = conn
        .query(
            Query::select()
                .columns([Posts::StartUtc, Posts::EndUtc])
                .from(Posts::Table)
                .and_where(Expr::col(Posts::Id).is_in(events.iter().copied()))
                .order_by(Posts::Id, Order::Asc)
                .lock(LockType::Update),
            |r| Ok((r.opt_i64(0)?, r.opt_i64(1)?)),
        )
        .await?;
    lock_shared_rows(
        conn,
        spans.into_iter().map(|span| Footprint {
            span,
            venue,
            organizers,
        }),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_once_each_for_every_shared_row() {
        let day = 86_400;
        let early = [7, 3];
        let moved = [
            Footprint::stored((40 * day, 41 * day + 5), Some(12), &early),
            Footprint::stored((40 * day, 41 * day), Some(9), &[3]),
        ];
        assert_eq!(
            shared_row_keys(moved),
            [
                format!("event-blocks:1:1:{STRIPE}"),
                "event-days:41:40".to_string(),
                "organizer-events:3".to_string(),
                "organizer-events:7".to_string(),
                "venue-events:12".to_string(),
                "venue-events:9".to_string(),
            ]
        );
    }

    #[test]
    fn an_event_without_dates_counts_on_day_zero() {
        let columns = [(Posts::VenueId, Value::BigInt(None))];
        let undated = Footprint::of_columns(&columns, &[]);
        assert_eq!(undated.days(), (0, 0));
        assert_eq!(undated.venue, None);
        let before_epoch = Footprint::stored((-1, -1), None, &[]);
        assert_eq!(before_epoch.days(), (-1, -1));
    }
}
