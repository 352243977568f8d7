//! Group commit for SQLite's single writer connection.
//!
//! Every write transaction runs inside one shared SQLite transaction: the first
//! of a group directly, each later one in a `SAVEPOINT` of its own. A request
//! that finishes while others are queued for the writer releases its savepoint
//! and hands the connection on, leaving the shared transaction open; the last request of the group commits it, and every member
//! learns the outcome of that one `COMMIT` before it answers its client. A
//! group's writes are therefore acknowledged only once they are durable (to the
//! configured `synchronous` level), while the commit's fixed costs — writing
//! pages to the WAL, checkpoints — are paid once per group instead of once per
//! request. Deferred work (indexing events for search) runs after a group's
//! commit, in batches and in a transaction of its own, so that its failure never
//! fails the writes of the group.
//!
//! A request that fails rolls back to its own savepoint only; the others in the
//! group are unaffected. The first has nobody before it, so it rolls back the
//! whole transaction, and needs no savepoint (which would copy every page it
//! changes). If SQLite rolls back the whole transaction (a full
//! disk, an I/O error), every member is told the group failed.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, OwnedMutexGuard, watch};

use super::StoreError;
use super::checkpoint::Checkpointer;
use super::db::POOL_WAIT;
use crate::domain::changes::Changes;
use crate::store::changes::ChangeLog;

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
    /// What each commit changed, and the data version it made; one process owns a
    /// SQLite file, so memory suffices.
    pub(in crate::store) log: Arc<ChangeLog>,
    /// Work done after a group commits, in a transaction of its own.
    after_commit: AfterCommit,
    checkpointer: Checkpointer,
    reopen: Reopen,
}

/// Deferred work the writer does after a group's `COMMIT`, in a transaction of
/// its own, once enough of it has piled up or the oldest of it has waited long
/// enough.
#[derive(Clone, Copy)]
pub struct AfterCommit {
    /// A query counting the pending work.
    pub pending: &'static str,
    /// The statements that do it.
    pub run: &'static [&'static str],
    /// Done at once when this much is pending…
    pub batch: i64,
    /// …or when some has been pending this long.
    pub max_age: Duration,
}

/// How long deferred work that failed waits before it is tried again, at most.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(30);

/// Where the deferred work stands, as far as this process knows.
#[derive(Default)]
struct Pending {
    /// Since when some has been pending.
    since: Option<Instant>,
    /// After a failure, not before this; and how long the last wait was.
    retry_at: Option<(Instant, Duration)>,
}

impl AfterCommit {
    /// Does the pending work if it is due. It runs in a transaction of its own, not
    /// in the group's: when it fails (a full disk fails the FTS5 index's write, and
    /// SQLite then rolls back the whole transaction), the group's writes are
    /// committed already, and the work stays queued. Work that failed waits a
    /// while before the next try, so that writes do not pay for it again and again.
    /// `true` when it wrote something.
    fn apply(&self, conn: &rusqlite::Connection, state: &mut Pending) -> bool {
        if state.retry_at.is_some_and(|(at, _)| Instant::now() < at) {
            return false;
        }
        let pending = conn
            .prepare_cached(self.pending)
            .and_then(|mut st| st.query_row([], |row| row.get::<_, i64>(0)));
        match pending {
            Ok(0) => {
                *state = Pending::default();
                return false;
            }
            Ok(n) => {
                let since = *state.since.get_or_insert_with(Instant::now);
                if n < self.batch && since.elapsed() < self.max_age {
                    return false;
                }
            }
            Err(e) => {
                self.failed(state, &e);
                return false;
            }
        }
        let done = super::blocking(|| {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            self.run
                .iter()
                .try_for_each(|sql| conn.prepare_cached(sql)?.execute([]).map(drop))?;
            conn.execute_batch("COMMIT")
        });
        match done {
            Ok(()) => {
                *state = Pending::default();
                true
            }
            Err(e) => {
                if !conn.is_autocommit() {
                    let _ = conn.execute_batch("ROLLBACK");
                }
                self.failed(state, &e);
                false
            }
        }
    }

    fn failed(&self, state: &mut Pending, e: &rusqlite::Error) {
        let wait = state.retry_at.map_or(Duration::from_secs(1), |(_, last)| {
            (last * 2).min(MAX_RETRY_WAIT)
        });
        tracing::warn!(error = %e, retry_in = ?wait, "deferred work failed; it stays queued");
        state.retry_at = Some((Instant::now() + wait, wait));
    }
}

pub struct WriterState {
    conn: rusqlite::Connection,
    group: Option<Group>,
    next_group: u64,
    /// The [`AfterCommit`] work.
    pending: Pending,
    /// When the connection, found read-only, was last opened again.
    reopened_at: Option<Instant>,
}

/// Opens a new writer connection, as the store opened the first one.
pub type Reopen = Box<dyn Fn() -> Result<rusqlite::Connection, StoreError> + Send + Sync>;

/// The shortest time between two attempts to reopen a read-only writer.
const REOPEN_PAUSE: Duration = Duration::from_secs(1);

/// The shared transaction and the requests that have finished inside it.
struct Group {
    id: u64,
    members: usize,
    /// What its members' writes changed.
    changes: Changes,
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

/// The group's stamp: the next of `calendar_version`, written by the group itself,
/// so that a statement reading it knows which groups its snapshot holds
/// (`domain::changes::Seen`). `None` before the migration that makes the table.
fn stamp(conn: &rusqlite::Connection) -> Option<u64> {
    conn.prepare_cached("UPDATE calendar_version SET version = version + 1 RETURNING version")
        .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)))
        .ok()
        .and_then(|v| u64::try_from(v).ok())
}

impl Writer {
    pub fn new(
        conn: rusqlite::Connection,
        after_commit: AfterCommit,
        checkpointer: Checkpointer,
        reopen: Reopen,
    ) -> Writer {
        Writer {
            state: Arc::new(Mutex::new(WriterState {
                conn,
                group: None,
                next_group: 0,
                pending: Pending::default(),
                reopened_at: None,
            })),
            queued: AtomicUsize::new(0),
            log: Arc::default(),
            after_commit,
            checkpointer,
            reopen,
        }
    }

    /// SQLite opens a file it may not write read-only, and the connection stays so
    /// after the file's permissions are fixed. A read-only writer is opened again
    /// (at most once per [`REOPEN_PAUSE`]), so writes resume without a restart.
    fn writable(&self, state: &mut WriterState) {
        let read_only = state.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false);
        if !read_only
            || state
                .reopened_at
                .is_some_and(|at| at.elapsed() < REOPEN_PAUSE)
        {
            return;
        }
        state.reopened_at = Some(Instant::now());
        match (self.reopen)() {
            Ok(conn) if !conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) => {
                tracing::info!("the database is writable again");
                state.conn = conn;
            }
            Ok(_) => {}
            Err(e) => tracing::debug!(error = %e, "reopening the writer failed"),
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
            self.writable(&mut state);
            // IMMEDIATE takes the write lock up front, so a transaction never
            // fails half-way on a lock upgrade.
            state.conn.execute_batch("BEGIN IMMEDIATE")?;
            let id = state.next_group;
            state.next_group += 1;
            state.group = Some(Group {
                id,
                members: 0,
                changes: Changes::nothing(),
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

    /// Keeps the caller's writes and returns once the group holding them is
    /// committed (or has failed); `changes` says what they changed.
    pub async fn commit(&self, mut guard: WriterGuard, changes: Changes) -> Result<(), StoreError> {
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
        group.changes.merge(changes);
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
        let stamp = match &state.group {
            Some(g) if !g.changes.is_nothing() => stamp(&state.conn),
            _ => None,
        };
        let result = state.conn.execute_batch("COMMIT");
        if result.is_err() && !state.conn.is_autocommit() {
            let _ = state.conn.execute_batch("ROLLBACK");
        }
        let mut group = state.group.take();
        if result.is_ok() {
            if let Some(g) = &mut group {
                let mut changes = std::mem::take(&mut g.changes);
                if let Some(stamp) = stamp {
                    changes.stamp(stamp);
                }
                self.log.publish(changes);
            }
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
        if result.is_ok() {
            let WriterState { conn, pending, .. } = &mut *state;
            if self.after_commit.apply(conn, pending) {
                self.checkpointer.committed();
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Deferred work that fails (here a CHECK constraint, as a full disk would fail
    /// it) must not take the group's own writes down with it.
    #[tokio::test]
    async fn failing_deferred_work_stays_queued_and_never_blocks_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let open = |path: &std::path::Path| {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
            conn
        };
        let conn = open(&path);
        conn.execute_batch(
            "CREATE TABLE rows (v INTEGER);
             CREATE TABLE queue (v INTEGER);
             CREATE TABLE done (v INTEGER CHECK (v < 100));",
        )
        .unwrap();
        let work = AfterCommit {
            pending: "SELECT count(*) FROM queue",
            run: &["INSERT INTO done SELECT v FROM queue", "DELETE FROM queue"],
            batch: 1,
            max_age: Duration::ZERO,
        };
        let checkpointer = Checkpointer::start(
            open(&path),
            &path,
            Box::new(|| Err(StoreError::Internal("not needed".into()))),
        )
        .unwrap();
        let reopen: Reopen = Box::new(|| Err(StoreError::Internal("not needed".into())));
        let writer = Arc::new(Writer::new(conn, work, checkpointer, reopen));
        let write = |sql: String| {
            let writer = writer.clone();
            async move {
                let guard = writer.begin().await?;
                guard.execute_batch(&sql)?;
                writer.commit(guard, Changes::anything()).await
            }
        };
        let count = |table: &str| -> i64 {
            open(&path)
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        };
        // Queued work that cannot be done: every write still commits.
        write("INSERT INTO rows VALUES (1); INSERT INTO queue VALUES (500);".into())
            .await
            .unwrap();
        for i in 0..5 {
            write(format!("INSERT INTO rows VALUES ({i})"))
                .await
                .unwrap();
        }
        assert_eq!(count("rows"), 6);
        assert_eq!(count("queue"), 1, "the failed work is still queued");
        assert_eq!(count("done"), 0);
        // Once it can be done, a later commit does it (after its wait).
        open(&path).execute_batch("UPDATE queue SET v = 5").unwrap();
        tokio::time::sleep(Duration::from_millis(1100)).await;
        write("INSERT INTO rows VALUES (9)".into()).await.unwrap();
        assert_eq!((count("queue"), count("done")), (0, 1));
    }
}
