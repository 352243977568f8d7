//! What committed writes changed ([`Changes`]), for caches of answers computed
//! from the data: each write's changes are recorded under the data version it
//! makes, and a reader catches up with the versions it has not seen, exactly.
//!
//! SQLite: one process owns the file, so the writer keeps the latest changes in
//! memory ([`ChangeLog`]).
//!
//! PostgreSQL: after its commit, a write takes the next value of the version
//! sequence and records its changes under it (`calendar_changes`, [`ANNOUNCE`]),
//! so versions follow commits, as SQLite's do. A reader takes the rows between
//! the version it has seen and the one it reads. A version it cannot find is one
//! whose record is on its way (it waits a little) or lost (it starts over). Rows
//! are kept for ten minutes; a reader further behind starts over too.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sea_query::{Alias, Expr, ExprTrait, Order, Query};

use super::{Conn, StoreError};
use crate::domain::changes::{Changes, RecentChanges};

/// How many commits' changes SQLite's writer keeps, and in how much memory at
/// most: a reader further behind starts over. Readers catch up at every request
/// (the response cache), so they are seconds behind at most; a commit of one
/// create holds about 200 bytes, a group of creates or an import a few KiB, and
/// 4,096 of them could hold 256 MiB of words alone.
const KEPT_COMMITS: usize = 4096;
const KEPT_BYTES: usize = 1024 * 1024;

/// The changes of SQLite's latest commits, by the data version each made.
pub struct ChangeLog {
    kept: Mutex<RecentChanges>,
    version: AtomicU64,
}

impl Default for ChangeLog {
    fn default() -> ChangeLog {
        ChangeLog {
            kept: Mutex::new(RecentChanges::new(0, KEPT_COMMITS, KEPT_BYTES)),
            version: AtomicU64::new(0),
        }
    }
}

impl ChangeLog {
    /// The data version: the number of commits that changed something.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Records a commit's changes and makes the next data version, after the commit.
    pub fn publish(&self, changes: Changes) {
        if changes.is_nothing() {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let version = self.version.load(Ordering::Acquire) + 1;
        kept.push(version, changes);
        // Under the lock: a reader that sees the version finds its changes.
        self.version.store(version, Ordering::Release);
    }

    /// Everything committed after version `from` up to `to`; `None` when some of it
    /// is no longer kept.
    pub fn between(&self, from: u64, to: u64) -> Option<Changes> {
        if from >= to {
            return Some(Changes::nothing());
        }
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = Changes::nothing();
        for (_, changes) in kept.after(from)?.take_while(|(v, _)| *v <= to) {
            all.merge(changes.clone());
        }
        Some(all)
    }
}

/// Where a reader of changes stands.
#[derive(Clone, Copy, Debug, Default)]
pub enum ChangeCursor {
    /// It has seen nothing yet.
    #[default]
    Start,
    /// Every change up to this data version.
    Version(u64),
}

/// What a reader catching up learned.
pub struct CaughtUp {
    /// The changes since the cursor; `None` when they cannot be known (anything changed).
    pub changes: Option<Changes>,
    /// The counts of the terms the changes recounted, as of then or later (filled
    /// by the caller that needs them).
    pub counts: Vec<(i64, i64)>,
}

impl CaughtUp {
    pub fn unknown() -> CaughtUp {
        CaughtUp {
            changes: None,
            counts: Vec::new(),
        }
    }
}

/// PostgreSQL: takes the next data version and records a write's changes under it,
/// with the write's transaction ID ([`STAMP`]): a count that knows its snapshot then
/// knows whether it saw the write (`domain::changes::Seen`).
pub const ANNOUNCE: &str = "INSERT INTO calendar_changes (version, change, xid) \
     VALUES (nextval('calendar_data_version'), $1, \
             NULLIF(current_setting('calendar.write_xid', true), '')::xid8)";

/// PostgreSQL: the last statement of a write's transaction, leaving its ID in the
/// session for its announce, which runs after the `COMMIT`.
pub const STAMP: &str =
    "SELECT set_config('calendar.write_xid', pg_current_xact_id()::text, false)";

/// PostgreSQL: ends an announce, clearing the stamp it used.
pub const UNSTAMP: &str = "SELECT set_config('calendar.write_xid', '', false); COMMIT";

/// The changes as [`ANNOUNCE`] records them.
pub fn to_json(changes: &Changes) -> String {
    serde_json::to_string(changes).unwrap_or_else(|_| r#"{"anything":true}"#.into())
}

fn table() -> Alias {
    Alias::new("calendar_changes")
}

/// PostgreSQL: whether this write's announce also forgets changes older than
/// ten minutes ([`PRUNE`]): one write in [`PRUNE_EVERY`] of this process.
pub fn prune_now() -> bool {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    WRITES
        .fetch_add(1, Ordering::Relaxed)
        .is_multiple_of(PRUNE_EVERY)
}

const PRUNE_EVERY: u64 = 1024;

/// PostgreSQL: forgets the changes older than ten minutes.
pub const PRUNE: &str = "DELETE FROM calendar_changes WHERE at < now() - interval '600 seconds'";

/// How often, and how long apart, a reader looks again for a version whose record
/// is not there yet: its write announces it in the same flight, so it is there
/// within a round trip, unless it is lost.
const LOOKS: u32 = 5;
const LOOK_AGAIN: Duration = Duration::from_millis(1);

/// PostgreSQL: the changes after the cursor up to `version`.
pub async fn catch_up(
    conn: &mut Conn,
    cursor: &mut ChangeCursor,
    version: u64,
) -> Result<CaughtUp, StoreError> {
    let ChangeCursor::Version(from) = *cursor else {
        *cursor = ChangeCursor::Version(version);
        return Ok(CaughtUp::unknown());
    };
    *cursor = ChangeCursor::Version(Ord::max(version, from));
    if version <= from {
        return Ok(CaughtUp {
            changes: Some(Changes::nothing()),
            counts: Vec::new(),
        });
    }
    let wanted = version - from;
    if wanted > MAX_BEHIND {
        return Ok(CaughtUp::unknown());
    }
    let mut found = 0;
    for look in 0..LOOKS {
        if look > 0 {
            tokio::time::sleep(LOOK_AGAIN).await;
        }
        let rows = conn
            .query(
                Query::select()
                    .column(Alias::new("change"))
                    .expr(Expr::cust("xid::text"))
                    .from(table())
                    .and_where(Expr::col(Alias::new("version")).gt(from as i64))
                    .and_where(Expr::col(Alias::new("version")).lte(version as i64))
                    .order_by(Alias::new("version"), Order::Asc),
                |r| Ok((r.string(0)?, r.opt_string(1)?)),
            )
            .await?;
        found = rows.len();
        if rows.len() as u64 == wanted {
            let mut all = Changes::nothing();
            for (text, xid) in rows {
                // A record this build cannot read is a change it cannot judge.
                let mut changes: Changes =
                    serde_json::from_str(&text).unwrap_or_else(|_| Changes::anything());
                if let Some(xid) = xid.and_then(|x| x.parse().ok()) {
                    changes.stamp(xid);
                }
                all.merge(changes);
            }
            return Ok(CaughtUp {
                changes: Some(all),
                counts: Vec::new(),
            });
        }
    }
    tracing::debug!(
        from,
        version,
        found,
        "a version's changes are missing; the cache starts over"
    );
    Ok(CaughtUp::unknown())
}

/// Past this many versions behind, reading every record costs more than starting over.
const MAX_BEHIND: u64 = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_gives_the_changes_between_two_versions_or_says_it_cannot() {
        let log = ChangeLog::default();
        log.publish(Changes::events([1], [], []));
        log.publish(Changes::nothing());
        log.publish(Changes::events([2], [], []));
        assert_eq!(
            log.version(),
            2,
            "a write that changed nothing makes no version"
        );
        assert_eq!(log.between(0, 2), Some(Changes::events([1, 2], [], [])));
        assert_eq!(log.between(1, 2), Some(Changes::events([2], [], [])));
        assert_eq!(log.between(0, 1), Some(Changes::events([1], [], [])));
        assert_eq!(log.between(2, 2), Some(Changes::nothing()));
        for n in 0..KEPT_COMMITS as i64 {
            log.publish(Changes::events([n], [], []));
        }
        assert_eq!(
            log.between(0, log.version()),
            None,
            "the oldest are forgotten"
        );
        let recent = log.version() - 1;
        assert_eq!(
            log.between(recent, log.version()),
            Some(Changes::events([KEPT_COMMITS as i64 - 1], [], []))
        );
    }
}
