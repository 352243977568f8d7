//! Write transactions and their commit.
//!
//! A [`Tx`] rolls back unless committed. Committing goes through SQLite's group
//! writer, or on PostgreSQL commits and then announces the change through the
//! data version; [`CommitError`] tells a failure before the commit from one whose
//! outcome is unknown. A PostgreSQL commit returns only once the version leases
//! that may predate it have run out ([`version::LEASE`]), so that no instance
//! serves a response that misses a write acknowledged before its request.

use std::sync::Arc;
use std::time::Instant;

use super::statement::{Statement, pg_batch, prepare_pg};
use super::{Conn, Row};
use crate::domain::changes::Changes;
use crate::store::StoreError;
use crate::store::changes;
use crate::store::postgres::{Announce, CommitOutcome};
use crate::store::postgres::{precise_sleep, version};
use crate::store::sqlite::group_commit::Writer;

/// A write transaction. Dropped without [`Tx::commit`], it rolls back; a
/// PostgreSQL connection whose rollback cannot run in `Drop` is detached from
/// the pool instead, so no connection ever goes back mid-transaction.
pub struct Tx {
    pub(super) conn: Option<Conn>,
    pub(super) finished: bool,
    /// SQLite's writer, which commits groups of transactions.
    pub(super) writer: Option<Arc<Writer>>,
    /// What the transaction changed, as far as cached answers go; `None`: anything.
    pub(super) changes: Option<Changes>,
}

impl Tx {
    pub fn conn(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("transaction connection is present until drop")
    }

    /// Says what the transaction changes, for the caches of answers computed from
    /// the data (see `domain::changes`). A transaction that does not say has changed
    /// anything.
    pub fn changes(&mut self, changes: Changes) {
        match &mut self.changes {
            Some(all) => all.merge(changes),
            None => self.changes = Some(changes),
        }
    }

    fn take_changes(&mut self) -> Changes {
        self.changes.take().unwrap_or_else(Changes::anything)
    }

    /// Commits, then announces the change through the data version. The bump comes
    /// after the commit, so no reader sees a new version before the new data.
    pub async fn commit(mut self) -> Result<(), StoreError> {
        if self.writer.is_some() {
            return self.commit_sqlite().await;
        }
        let changes = self.take_changes();
        if changes.is_nothing() {
            // Nothing a cached answer is computed from: no new data version either.
            self.conn().batch("COMMIT").await?;
            self.finished = true;
            return Ok(());
        }
        self.changes = Some(changes);
        // The announce, with the record of the changes, travels with the COMMIT.
        self.commit_after_now::<()>(&[], &[], |_| Ok(()))
            .await
            .map_err(StoreError::from)?;
        Unsettled::committed_now().settle().await;
        Ok(())
    }

    /// Commits through SQLite's group writer, which makes the data version.
    async fn commit_sqlite(mut self) -> Result<(), StoreError> {
        let changes = self.take_changes();
        self.finished = true;
        let guard = match self.conn.take() {
            Some(Conn::Sqlite(c)) => c.into_writer(),
            _ => None,
        };
        match (self.writer.clone(), guard) {
            (Some(writer), Some(guard)) => writer.commit(guard, changes).await,
            _ => Err(StoreError::Internal(
                "SQLite transaction without the writer".into(),
            )),
        }
    }

    /// [`Tx::commit_after`], returning as soon as the commit is in: the caller must
    /// [`Unsettled::settle`] before it acknowledges the write.
    pub async fn commit_after_unsettled<T>(
        self,
        stmts: &[Box<dyn Statement>],
        queries: &[Box<dyn Statement>],
        map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<(Vec<T>, Unsettled), CommitError> {
        let postgres = matches!(self.conn, Some(Conn::Postgres(_)));
        let rows = self.commit_after_now(stmts, queries, map).await?;
        let settled = if postgres {
            Unsettled::committed_now()
        } else {
            Unsettled(None)
        };
        Ok((rows, settled))
    }
    /// Runs `stmts`, then `queries` (their rows mapped), then commits: in one flight
    /// on PostgreSQL. Holds the rows the statements lock only as long as PostgreSQL
    /// takes to run them, not for a round trip more.
    pub async fn commit_after<T>(
        self,
        stmts: &[Box<dyn Statement>],
        queries: &[Box<dyn Statement>],
        map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, CommitError> {
        let (rows, settled) = self.commit_after_unsettled(stmts, queries, map).await?;
        settled.settle().await;
        Ok(rows)
    }

    async fn commit_after_now<T>(
        mut self,
        stmts: &[Box<dyn Statement>],
        queries: &[Box<dyn Statement>],
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, CommitError> {
        let changes = self.take_changes();
        let postgres = match self.conn() {
            Conn::Postgres(c) => c,
            conn => {
                let written = async {
                    conn.execute_all(stmts).await?;
                    conn.query_all(queries, map).await
                };
                let rows = written.await.map_err(CommitError::NotCommitted)?;
                self.changes = Some(changes);
                self.commit_sqlite().await.map_err(CommitError::Unknown)?;
                return Ok(rows);
            }
        };
        let stmts: Vec<&dyn Statement> = stmts.iter().map(|s| s.as_ref()).collect();
        let queries: Vec<&dyn Statement> = queries.iter().map(|q| q.as_ref()).collect();
        let prepared = async {
            let stmts = prepare_pg(postgres, &stmts).await?;
            let queries = prepare_pg(postgres, &queries).await?;
            let announce = Announce {
                stamp: postgres.prepare(changes::STAMP).await?,
                statement: postgres.prepare(changes::ANNOUNCE).await?,
                changes: changes::to_json(&changes),
                prune: changes::prune_now(),
            };
            Ok((stmts, queries, announce))
        };
        let ((stmts, stmt_values), (queries, query_values), announce) =
            prepared.await.map_err(CommitError::NotCommitted)?;
        let outcome = postgres
            .execute_all_then_commit(
                &pg_batch(stmts, &stmt_values),
                &pg_batch(queries, &query_values),
                &announce,
            )
            .await
            .map_err(CommitError::Unknown)?;
        let rows = match outcome {
            CommitOutcome::Committed { rows, after } => {
                self.finished = true;
                if let Err(e) = after {
                    tracing::warn!(error = %e, "could not announce a committed write");
                }
                rows
            }
            CommitOutcome::RolledBack(e) => {
                // The transaction is over, on a connection that still works.
                self.finished = true;
                return Err(CommitError::NotCommitted(e));
            }
            // Dropping the transaction closes the connection, which rolls it back.
            CommitOutcome::NotSent(e) => return Err(CommitError::NotCommitted(e)),
            CommitOutcome::Unknown(e) => return Err(CommitError::Unknown(e)),
        };
        rows.iter()
            .map(|r| map(&Row::Postgres(r)))
            .collect::<Result<_, _>>()
            .map_err(CommitError::Unknown)
    }
}

/// A committed write that is not to be acknowledged yet: on PostgreSQL, until
/// [`version::LEASE`] after its commit (and its announcement) came back.
#[must_use = "a write is acknowledged only once it has settled"]
#[derive(Clone, Copy, Debug)]
pub struct Unsettled(Option<Instant>);

impl Unsettled {
    fn committed_now() -> Unsettled {
        // The margin covers clocks of different hosts that run at slightly
        // different rates (NTP slews them by at most 0.05 %).
        Unsettled(Some(Instant::now() + version::LEASE + version::LEASE / 64))
    }

    /// Waits until the write may be acknowledged.
    pub async fn settle(self) {
        if let Some(at) = self.0 {
            precise_sleep::sleep_until(at).await;
        }
    }
}

/// Why [`Tx::commit_after`] failed.
#[derive(Debug)]
pub enum CommitError {
    /// A statement failed: nothing was committed.
    NotCommitted(StoreError),
    /// The commit itself failed, or its answer was lost: it may have happened.
    Unknown(StoreError),
}

impl From<CommitError> for StoreError {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::NotCommitted(e) | CommitError::Unknown(e) => e,
        }
    }
}

impl std::ops::Deref for Tx {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn
            .as_ref()
            .expect("transaction connection is present until drop")
    }
}

impl std::ops::DerefMut for Tx {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn()
    }
}

impl Drop for Tx {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        match self.conn.take() {
            // The writer guard rolls back to the request's savepoint when dropped.
            Some(Conn::Sqlite(_)) | None => {}
            Some(Conn::Postgres(c)) => {
                // Closing the connection makes the server roll back.
                let _ = deadpool_postgres::Object::take(c.into_inner());
            }
        }
    }
}
