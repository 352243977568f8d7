//! Group commit for SQLite's single writer connection.
//!
//! Every write transaction runs inside one shared SQLite transaction: the first
//! of a group directly, each later one in a `SAVEPOINT` of its own. A request
//! that finishes while others are queued for the writer releases its savepoint
//! and hands the connection on, leaving the shared transaction open; the last request of the group commits it, and every member
//! learns the outcome of that one `COMMIT` before it answers its client. A
//! group's writes are therefore acknowledged only once they are durable (to the
//! configured `synchronous` level), while the commit's fixed costs — writing
//! pages to the WAL, flushing the search index, checkpoints — are paid once
//! per group instead of once per request.
//!
//! A request that fails rolls back to its own savepoint only; the others in the
//! group are unaffected. The first has nobody before it, so it rolls back the
//! whole transaction, and needs no savepoint (which would copy every page it
//! changes). If SQLite rolls back the whole transaction (a full
//! disk, an I/O error), every member is told the group failed.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, OwnedMutexGuard, watch};

use super::StoreError;
use super::checkpoint::Checkpointer;
use super::db::POOL_WAIT;

/// The most requests one commit covers; bounds the latency a group adds.
const MAX_GROUP: usize = 64;

/// How long a member waits for its group's commit before making sure of it
/// itself; far longer than a full group takes.
const FOLLOWER_PATIENCE: Duration = Duration::from_millis(100);

/// The outcome of a group's commit: `None` while it is open.
type Outcome = Option<Result<(), String>>;

/// The one connection that writes to a SQLite database.
pub struct Writer {
    state: Arc<Mutex<WriterState>>,
    /// Requests waiting for the connection. While there are any, a finished
    /// request leaves the group open for them rather than committing.
    queued: AtomicUsize,
    /// Bumped after every commit; one process owns a SQLite file, so memory suffices.
    pub(super) version: Arc<AtomicU64>,
    /// Work done at the end of every group, inside its transaction.
    before_commit: BeforeCommit,
    checkpointer: Checkpointer,
}

/// Deferred work the writer does right before a `COMMIT`, in its transaction,
/// once enough of it has piled up or the oldest of it has waited long enough.
#[derive(Clone, Copy)]
pub struct BeforeCommit {
    /// A query counting the pending work.
    pub pending: &'static str,
    /// The statements that do it.
    pub run: &'static [&'static str],
    /// Done at once when this much is pending…
    pub batch: i64,
    /// …or when some has been pending this long.
    pub max_age: Duration,
}

impl BeforeCommit {
    fn apply(
        &self,
        conn: &rusqlite::Connection,
        pending_since: &mut Option<Instant>,
    ) -> rusqlite::Result<()> {
        let pending: i64 = conn
            .prepare_cached(self.pending)?
            .query_row([], |row| row.get(0))?;
        if pending == 0 {
            *pending_since = None;
            return Ok(());
        }
        let since = *pending_since.get_or_insert_with(Instant::now);
        if pending < self.batch && since.elapsed() < self.max_age {
            return Ok(());
        }
        for sql in self.run {
            conn.prepare_cached(sql)?.execute([])?;
        }
        // Should the COMMIT fail, the work is back in the queue and the clock restarts.
        *pending_since = None;
        Ok(())
    }
}

pub struct WriterState {
    conn: rusqlite::Connection,
    group: Option<Group>,
    next_group: u64,
    /// Since when [`BeforeCommit`] work has been pending, as far as this process knows.
    pending_since: Option<Instant>,
}

/// The shared transaction and the requests that have finished inside it.
struct Group {
    id: u64,
    members: usize,
    outcome: watch::Sender<Outcome>,
}

/// The writer connection, held by one request inside its savepoint. Dropped
/// without [`Writer::commit`], it rolls the request back.
pub struct WriterGuard {
    writer: Arc<Writer>,
    state: Option<OwnedMutexGuard<WriterState>>,
    /// Whether the holder's changes are in a savepoint. The group's first member
    /// needs none: undoing it is rolling the group back, and a savepoint costs a
    /// copy of every page it changes.
    savepoint: bool,
}

impl WriterGuard {
    fn state(&mut self) -> &mut WriterState {
        self.state
            .as_mut()
            .expect("the guard holds the writer until commit")
    }
}

impl Deref for WriterGuard {
    type Target = rusqlite::Connection;
    fn deref(&self) -> &rusqlite::Connection {
        &self
            .state
            .as_ref()
            .expect("the guard holds the writer until commit")
            .conn
    }
}

impl DerefMut for WriterGuard {
    fn deref_mut(&mut self) -> &mut rusqlite::Connection {
        &mut self.state().conn
    }
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        if self.state.is_some() {
            self.abandon();
        }
    }
}

impl Writer {
    pub fn new(
        conn: rusqlite::Connection,
        before_commit: BeforeCommit,
        checkpointer: Checkpointer,
    ) -> Writer {
        Writer {
            state: Arc::new(Mutex::new(WriterState {
                conn,
                group: None,
                next_group: 0,
                pending_since: None,
            })),
            queued: AtomicUsize::new(0),
            version: Arc::default(),
            before_commit,
            checkpointer,
        }
    }

    pub fn waiting(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// Waits for the connection (first come, first served) and opens a savepoint
    /// for the caller, joining the open group or starting one.
    pub async fn begin(self: &Arc<Self>) -> Result<WriterGuard, StoreError> {
        self.queued.fetch_add(1, Ordering::AcqRel);
        let locked = tokio::time::timeout(POOL_WAIT, self.state.clone().lock_owned()).await;
        self.queued.fetch_sub(1, Ordering::AcqRel);
        let mut state = locked
            .map_err(|_| StoreError::Unavailable("timed out waiting for the writer".into()))?;
        let opens_group = state.group.is_none();
        if opens_group {
            // IMMEDIATE takes the write lock up front, so a transaction never
            // fails half-way on a lock upgrade.
            state.conn.execute_batch("BEGIN IMMEDIATE")?;
            let id = state.next_group;
            state.next_group += 1;
            state.group = Some(Group {
                id,
                members: 0,
                outcome: watch::channel(None).0,
            });
        }
        let guard = WriterGuard {
            writer: self.clone(),
            state: Some(state),
            savepoint: !opens_group,
        };
        if guard.savepoint {
            // On failure the guard's drop abandons the savepoint.
            guard.prepare_cached("SAVEPOINT request")?.execute([])?;
        }
        Ok(guard)
    }

    /// Keeps the caller's changes and returns once the group holding them is
    /// committed (or has failed).
    pub async fn commit(&self, mut guard: WriterGuard) -> Result<(), StoreError> {
        if guard.savepoint {
            guard.prepare_cached("RELEASE request")?.execute([])?;
        }
        let mut state = guard
            .state
            .take()
            .expect("the guard holds the writer until commit");
        let Some(group) = state.group.as_mut() else {
            return Err(StoreError::Internal(
                "write transaction without a group".into(),
            ));
        };
        group.members += 1;
        if self.queued.load(Ordering::Acquire) == 0 || group.members >= MAX_GROUP {
            return self.finish(state);
        }
        let id = group.id;
        let mut outcome = group.outcome.subscribe();
        drop(state);
        // The request we left the group open for commits it, or leaves it open for the
        // next. Should that request give up waiting for the writer, nobody would: after
        // a while, members also queue for the writer and commit the group themselves.
        let patient = tokio::time::timeout(FOLLOWER_PATIENCE, outcome.wait_for(Option::is_some));
        if let Ok(done) = patient.await {
            return match done {
                Ok(result) => to_result(&result),
                Err(_) => Err(StoreError::Internal("write group vanished".into())),
            };
        }
        let relocked = tokio::select! {
            biased;
            done = outcome.wait_for(Option::is_some) => return match done {
                Ok(result) => to_result(&result),
                Err(_) => Err(StoreError::Internal("write group vanished".into())),
            },
            state = self.state.clone().lock_owned() => state,
        };
        if relocked.group.as_ref().is_some_and(|g| g.id == id) {
            self.finish(relocked)
        } else {
            drop(relocked);
            to_result(&outcome.borrow())
        }
    }

    /// Commits the open group and tells its members.
    fn finish(&self, mut state: OwnedMutexGuard<WriterState>) -> Result<(), StoreError> {
        let WriterState {
            conn,
            pending_since,
            ..
        } = &mut *state;
        let result = self
            .before_commit
            .apply(conn, pending_since)
            .and_then(|()| conn.execute_batch("COMMIT"));
        if result.is_err() && !state.conn.is_autocommit() {
            let _ = state.conn.execute_batch("ROLLBACK");
        }
        let group = state.group.take();
        if result.is_ok() {
            self.version.fetch_add(1, Ordering::AcqRel);
            self.checkpointer.committed();
        }
        let outcome = result.as_ref().map(|_| ()).map_err(|e| e.to_string());
        if let Some(g) = group {
            tracing::trace!(
                members = g.members,
                ok = outcome.is_ok(),
                "write group committed"
            );
            g.outcome.send_replace(Some(outcome));
        }
        result.map_err(StoreError::from)
    }
}

impl WriterGuard {
    /// Undoes the holder's changes, leaving the group's earlier members intact; if
    /// nobody else is queued to commit the group, commits it for them.
    fn abandon(&mut self) {
        let Some(mut state) = self.state.take() else {
            return;
        };
        let Some(group) = state.group.as_ref() else {
            return;
        };
        let whole_lost = !self.savepoint
            || state.conn.is_autocommit()
            || state
                .conn
                .execute_batch("ROLLBACK TO request; RELEASE request")
                .is_err();
        if !whole_lost && group.members > 0 {
            if self.writer.queued.load(Ordering::Acquire) == 0 {
                let _ = self.writer.finish(state);
            }
            return;
        }
        if !state.conn.is_autocommit() {
            let _ = state.conn.execute_batch("ROLLBACK");
        }
        if let Some(g) = state.group.take()
            && g.members > 0
        {
            g.outcome.send_replace(Some(Err(
                "the database rolled back the write group".to_string()
            )));
        }
    }
}

fn to_result(outcome: &Outcome) -> Result<(), StoreError> {
    match outcome {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(StoreError::Unavailable(e.clone())),
        None => Err(StoreError::Internal("write group still open".into())),
    }
}
