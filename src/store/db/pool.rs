//! Connection pools: where reads get a connection and writes a transaction.
//!
//! SQLite serialises writes through one writer and reads from a pool of reader
//! connections; PostgreSQL takes both from one pool. Both answer the data
//! version that cached responses are keyed on.

use std::sync::Arc;

use super::{Backend, Conn, Tx};
use crate::domain::changes::Changes;
use crate::store::StoreError;
use crate::store::changes::{self, CaughtUp, ChangeCursor};
use crate::store::postgres::PgConn;
use crate::store::postgres::version::VersionReads;
use crate::store::sqlite::SqliteConn;
use crate::store::sqlite::group_commit::Writer;

/// Connection pools for one database.
#[derive(Clone)]
pub enum Pool {
    Sqlite {
        /// SQLite allows one writer at a time; serialising writes here avoids
        /// `SQLITE_BUSY` storms, keeps write latency predictable, and lets
        /// concurrent writes share a commit.
        writer: Arc<Writer>,
        readers: deadpool::unmanaged::Pool<rusqlite::Connection>,
    },
    Postgres {
        pool: deadpool_postgres::Pool,
        versions: Arc<VersionReads>,
        /// Whether the connections' plan mode is ours to change (see `postgres::open`).
        plan_mode_ours: bool,
    },
}

impl Pool {
    pub fn backend(&self) -> Backend {
        match self {
            Pool::Sqlite { .. } => Backend::Sqlite,
            Pool::Postgres { .. } => Backend::Postgres,
        }
    }

    /// A connection for reading.
    pub async fn read(&self) -> Result<Conn, StoreError> {
        match self {
            Pool::Sqlite { readers, .. } => Ok(Conn::Sqlite(SqliteConn::Reader(
                readers.get().await.map_err(unavailable)?,
            ))),
            Pool::Postgres {
                pool,
                plan_mode_ours,
                ..
            } => Ok(Conn::Postgres(PgConn::new(
                pool.get().await.map_err(unavailable)?,
                *plan_mode_ours,
            ))),
        }
    }

    /// A connection for writing, already inside a transaction.
    pub async fn write(&self) -> Result<Tx, StoreError> {
        match self {
            Pool::Sqlite { writer, .. } => Ok(Tx {
                conn: Some(Conn::Sqlite(SqliteConn::Writer(writer.begin().await?))),
                finished: false,
                writer: Some(writer.clone()),
                changes: None,
            }),
            Pool::Postgres {
                pool,
                plan_mode_ours,
                ..
            } => {
                let mut conn = PgConn::new(pool.get().await.map_err(unavailable)?, *plan_mode_ours);
                // Sent with the transaction's first statement.
                conn.begin_later();
                Ok(Tx {
                    conn: Some(Conn::Postgres(conn)),
                    finished: false,
                    writer: None,
                    changes: None,
                })
            }
        }
    }

    /// Write transactions waiting for SQLite's writer (always 0 on PostgreSQL).
    pub fn writers_waiting(&self) -> usize {
        match self {
            Pool::Sqlite { writer, .. } => writer.waiting(),
            Pool::Postgres { .. } => 0,
        }
    }

    /// A number that changes whenever committed data may have changed, seen alike by
    /// every process sharing the database, and never older than a write acknowledged
    /// before the call. Responses cached under one version are never served under
    /// another.
    pub async fn data_version(&self) -> Result<u64, StoreError> {
        match self {
            Pool::Sqlite { writer, .. } => Ok(writer.log.version()),
            Pool::Postgres { versions, .. } => versions.current().await,
        }
    }

    /// What changed after `cursor`, up to data version `version` at least (which the
    /// caller read before), and the cursor moved past it.
    pub async fn catch_up(
        &self,
        cursor: &mut ChangeCursor,
        version: u64,
    ) -> Result<CaughtUp, StoreError> {
        match self {
            Pool::Sqlite { writer, .. } => {
                let changes = match *cursor {
                    ChangeCursor::Version(from) if from >= version => Some(Changes::nothing()),
                    ChangeCursor::Version(from) => writer.log.between(from, version),
                    ChangeCursor::Start => None,
                };
                if !matches!(*cursor, ChangeCursor::Version(from) if from >= version) {
                    *cursor = ChangeCursor::Version(version);
                }
                Ok(CaughtUp {
                    changes,
                    counts: Vec::new(),
                })
            }
            Pool::Postgres { .. } => {
                let mut conn = self.read().await?;
                changes::catch_up(&mut conn, cursor, version).await
            }
        }
    }
}

fn unavailable(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(e.to_string())
}
