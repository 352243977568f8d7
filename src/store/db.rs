//! The one place that knows there are two database drivers.
//!
//! Queries are built once with sea-query; this module renders them for the
//! backend in use, binds their values, and reads rows through [`Row`], so the
//! rest of the store never branches on the backend.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sea_query::{
    DeleteStatement, InsertStatement, PostgresQueryBuilder, SelectStatement, SqliteQueryBuilder,
    UpdateStatement, Values,
};
use sea_query_postgres::{PostgresValue, PostgresValues};
use sea_query_rusqlite::{RusqliteValue, RusqliteValues};

use super::StoreError;
use super::group_commit::Writer;
use super::pg::{CommitOutcome, PgConn};
use super::sqlite::SqliteConn;
use super::version::VersionReads;

/// How long a request waits for a connection before the database counts as unavailable.
pub const POOL_WAIT: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Anything sea-query can render: the four statement kinds.
pub trait Statement: Send + Sync {
    fn render(&self, backend: Backend) -> (String, Values);
}

macro_rules! impl_statement {
    ($($t:ty),*) => {$(
        impl Statement for $t {
            fn render(&self, backend: Backend) -> (String, Values) {
                match backend {
                    Backend::Sqlite => self.build(SqliteQueryBuilder),
                    Backend::Postgres => self.build(PostgresQueryBuilder),
                }
            }
        }
    )*};
}
impl_statement!(
    SelectStatement,
    InsertStatement,
    UpdateStatement,
    DeleteStatement
);

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
            Pool::Postgres { pool, .. } => Ok(Conn::Postgres(PgConn::new(
                pool.get().await.map_err(unavailable)?,
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
            }),
            Pool::Postgres { pool, .. } => {
                let mut conn = PgConn::new(pool.get().await.map_err(unavailable)?);
                // Sent with the transaction's first statement.
                conn.begin_later();
                Ok(Tx {
                    conn: Some(Conn::Postgres(conn)),
                    finished: false,
                    writer: None,
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
    /// every process sharing the database. Responses cached under one version are
    /// never served under another.
    pub async fn data_version(&self) -> Result<u64, StoreError> {
        match self {
            Pool::Sqlite { writer, .. } => Ok(writer.version.load(Ordering::Acquire)),
            Pool::Postgres { versions, .. } => versions.current().await,
        }
    }

    /// Reads PostgreSQL's data version now (see [`VersionReads`] for sharing reads).
    pub(super) async fn read_pg_version(pool: &deadpool_postgres::Pool) -> Result<u64, StoreError> {
        let client = pool.get().await.map_err(unavailable)?;
        let st = client
            .prepare_cached("SELECT last_value FROM calendar_data_version")
            .await?;
        let row = client.query_one(&st, &[]).await?;
        Ok(row.try_get::<_, i64>(0)? as u64)
    }
}

tokio::task_local! {
    /// When set (tests, diagnostics), counts every SQL statement run by the task.
    pub static STATEMENT_COUNTER: Arc<AtomicU64>;
    /// When the request the task serves is answered with a timeout: SQLite reads
    /// still running then are interrupted (see `store::open_sqlite`).
    pub static DEADLINE: std::time::Instant;
}

/// Whether the current task's request has run out of time.
pub(super) fn past_deadline() -> bool {
    DEADLINE
        .try_with(|deadline| std::time::Instant::now() >= *deadline)
        .unwrap_or(false)
}

fn count_statement() {
    let _ = STATEMENT_COUNTER.try_with(|c| c.fetch_add(1, Ordering::Relaxed));
}

fn unavailable(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

pub enum Conn {
    Sqlite(SqliteConn),
    Postgres(PgConn),
}

impl Conn {
    pub fn backend(&self) -> Backend {
        match self {
            Conn::Sqlite(_) => Backend::Sqlite,
            Conn::Postgres(_) => Backend::Postgres,
        }
    }

    /// Runs SQL text without parameters (transaction control, DDL).
    pub async fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.execute_batch(sql).map_err(StoreError::from),
            Conn::Postgres(c) => c.batch(sql).await,
        }
    }

    /// Serialises concurrent transactions that would race on the same key (a slug,
    /// a venue's name, a term's name) until this transaction ends. SQLite already
    /// has a single writer, so only PostgreSQL needs it.
    pub async fn lock_key(&mut self, key: &str) -> Result<(), StoreError> {
        if let Conn::Postgres(c) = self {
            // Sent ahead of the next statement, which is the one it protects.
            c.lock_later(key);
        }
        Ok(())
    }

    /// Runs a query and maps every row.
    pub async fn query<T>(
        &mut self,
        stmt: &(impl Statement + ?Sized),
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        count_statement();
        let (sql, values) = stmt.render(self.backend());
        tracing::trace!(target: "calendar_events::sql", %sql);
        match self {
            Conn::Sqlite(c) => {
                let values = sqlite_values(values);
                let mut st = c.prepare_cached(&sql)?;
                let mut rows = st.query(&*values.as_params())?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(map(&Row::Sqlite(row))?);
                }
                Ok(out)
            }
            Conn::Postgres(c) => {
                let values = pg_values(values);
                let st = c.prepare(&sql).await?;
                let rows = c.query(&st, &values.as_params()).await?;
                rows.iter().map(|r| map(&Row::Postgres(r))).collect()
            }
        }
    }

    /// Runs two queries and maps their rows; on PostgreSQL they travel in one flight.
    pub async fn query_two<A, B>(
        &mut self,
        first: &impl Statement,
        mut map_first: impl FnMut(&Row<'_>) -> Result<A, StoreError>,
        second: &impl Statement,
        mut map_second: impl FnMut(&Row<'_>) -> Result<B, StoreError>,
    ) -> Result<(Vec<A>, Vec<B>), StoreError> {
        let Conn::Postgres(c) = self else {
            let a = self.query(first, map_first).await?;
            return Ok((a, self.query(second, map_second).await?));
        };
        let (prepared, values) = prepare_pg(c, &[first as &dyn Statement, second]).await?;
        let mut rows = c.query_all(&pg_batch(prepared, &values)).await?.into_iter();
        let (a, b) = (
            rows.next().unwrap_or_default(),
            rows.next().unwrap_or_default(),
        );
        let a = a.iter().map(|r| map_first(&Row::Postgres(r)));
        let b = b.iter().map(|r| map_second(&Row::Postgres(r)));
        Ok((a.collect::<Result<_, _>>()?, b.collect::<Result<_, _>>()?))
    }

    /// Runs queries and maps all their rows, in order; on PostgreSQL they travel in
    /// one flight.
    pub async fn query_all<T>(
        &mut self,
        queries: &[Box<dyn Statement>],
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let Conn::Postgres(c) = self else {
            let mut out = Vec::new();
            for q in queries {
                out.extend(self.query(q.as_ref(), &mut map).await?);
            }
            return Ok(out);
        };
        let queries: Vec<&dyn Statement> = queries.iter().map(|q| q.as_ref()).collect();
        let (prepared, values) = prepare_pg(c, &queries).await?;
        let rows = c.query_all(&pg_batch(prepared, &values)).await?;
        rows.iter()
            .flatten()
            .map(|r| map(&Row::Postgres(r)))
            .collect()
    }

    pub async fn query_opt<T>(
        &mut self,
        stmt: &impl Statement,
        map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.query(stmt, map).await?.into_iter().next())
    }

    /// Runs a query that must return exactly one row (aggregates, RETURNING).
    pub async fn query_one<T>(
        &mut self,
        stmt: &impl Statement,
        map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.query_opt(stmt, map)
            .await?
            .ok_or_else(|| StoreError::Internal("query returned no row".into()))
    }

    /// Runs a statement and returns the number of rows it changed.
    pub async fn execute(&mut self, stmt: &(impl Statement + ?Sized)) -> Result<u64, StoreError> {
        count_statement();
        let (sql, values) = stmt.render(self.backend());
        tracing::trace!(target: "calendar_events::sql", %sql);
        match self {
            Conn::Sqlite(c) => {
                let values = sqlite_values(values);
                let mut st = c.prepare_cached(&sql)?;
                Ok(st.execute(&*values.as_params())? as u64)
            }
            Conn::Postgres(c) => {
                let values = pg_values(values);
                let st = c.prepare(&sql).await?;
                c.execute(&st, &values.as_params()).await
            }
        }
    }

    /// Runs statements in order; on PostgreSQL they travel in one flight.
    pub async fn execute_all(&mut self, stmts: &[Box<dyn Statement>]) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(_) => {
                for stmt in stmts {
                    self.execute(stmt.as_ref()).await?;
                }
                Ok(())
            }
            Conn::Postgres(c) => {
                let stmts: Vec<&dyn Statement> = stmts.iter().map(|s| s.as_ref()).collect();
                let (prepared, rendered) = prepare_pg(c, &stmts).await?;
                c.execute_all(&pg_batch(prepared, &rendered))
                    .await
                    .map(drop)
            }
        }
    }

    /// Runs statements in order and then a query, whose rows are mapped; on PostgreSQL
    /// all of them travel in one flight.
    pub async fn execute_all_then_query<T>(
        &mut self,
        stmts: &[Box<dyn Statement>],
        query: &(impl Statement + ?Sized),
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        match self {
            Conn::Sqlite(_) => {
                self.execute_all(stmts).await?;
                self.query(query, map).await
            }
            Conn::Postgres(c) => {
                let stmts: Vec<&dyn Statement> = stmts.iter().map(|s| s.as_ref()).collect();
                let (prepared, rendered) = prepare_pg(c, &stmts).await?;
                let (last, values) = prepare_one_pg(c, query).await?;
                let rows = c
                    .execute_all_then_query(
                        &pg_batch(prepared, &rendered),
                        &last,
                        &values.as_params(),
                    )
                    .await?;
                rows.iter().map(|r| map(&Row::Postgres(r))).collect()
            }
        }
    }
}

/// Renders and prepares statements for one PostgreSQL flight.
async fn prepare_pg(
    c: &PgConn,
    stmts: &[&dyn Statement],
) -> Result<(Vec<tokio_postgres::Statement>, Vec<PostgresValues>), StoreError> {
    let mut rendered: Vec<PostgresValues> = Vec::with_capacity(stmts.len());
    let mut prepared = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        let (st, values) = prepare_one_pg(c, *stmt).await?;
        prepared.push(st);
        rendered.push(values);
    }
    Ok((prepared, rendered))
}

async fn prepare_one_pg(
    c: &PgConn,
    stmt: &(impl Statement + ?Sized),
) -> Result<(tokio_postgres::Statement, PostgresValues), StoreError> {
    count_statement();
    let (sql, values) = stmt.render(Backend::Postgres);
    tracing::trace!(target: "calendar_events::sql", %sql);
    let values = pg_values(values);
    Ok((c.prepare(&sql).await?, values))
}

fn pg_batch(
    prepared: Vec<tokio_postgres::Statement>,
    rendered: &[PostgresValues],
) -> Vec<(
    tokio_postgres::Statement,
    Vec<&(dyn tokio_postgres::types::ToSql + Sync)>,
)> {
    prepared
        .into_iter()
        .zip(rendered)
        .map(|(st, v)| (st, v.as_params()))
        .collect()
}

fn sqlite_values(values: Values) -> RusqliteValues {
    RusqliteValues(values.into_iter().map(RusqliteValue).collect())
}

/// Every integer column is BIGINT, and PostgreSQL will not bind an `i32` to one:
/// widen small integers so a literal like `0` can never fail at run time.
fn pg_values(values: Values) -> PostgresValues {
    use sea_query::Value as V;
    PostgresValues(
        values
            .into_iter()
            .map(|v| match v {
                V::TinyInt(i) => V::BigInt(i.map(i64::from)),
                V::SmallInt(i) => V::BigInt(i.map(i64::from)),
                V::Int(i) => V::BigInt(i.map(i64::from)),
                V::TinyUnsigned(i) => V::BigInt(i.map(i64::from)),
                V::SmallUnsigned(i) => V::BigInt(i.map(i64::from)),
                V::Unsigned(i) => V::BigInt(i.map(i64::from)),
                other => other,
            })
            .map(PostgresValue)
            .collect(),
    )
}

/// A write transaction. Dropped without [`Tx::commit`], it rolls back; a
/// PostgreSQL connection whose rollback cannot run in `Drop` is detached from
/// the pool instead, so no connection ever goes back mid-transaction.
pub struct Tx {
    conn: Option<Conn>,
    finished: bool,
    /// SQLite's writer, which commits groups of transactions.
    writer: Option<Arc<Writer>>,
}

impl Tx {
    pub fn conn(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("transaction connection is present until drop")
    }

    /// Commits, then announces the change through the data version. The bump comes
    /// after the commit, so no reader sees a new version before the new data.
    pub async fn commit(mut self) -> Result<(), StoreError> {
        if let Some(writer) = self.writer.clone() {
            self.finished = true;
            let guard = match self.conn.take() {
                Some(Conn::Sqlite(c)) => c.into_writer(),
                _ => None,
            };
            return match guard {
                Some(guard) => writer.commit(guard).await,
                None => Err(StoreError::Internal(
                    "SQLite transaction without the writer".into(),
                )),
            };
        }
        let Some(Conn::Postgres(c)) = self.conn.as_mut() else {
            return Err(StoreError::Internal(
                "transaction without a connection".into(),
            ));
        };
        let announced = c.commit_then(ANNOUNCE).await?;
        self.finished = true;
        if let Err(e) = announced {
            // Cached responses then live until their one-second expiry at most.
            tracing::warn!(error = %e, "could not announce a committed write");
        }
        Ok(())
    }
    /// Runs `stmts`, then `queries` (their rows mapped), then commits: in one flight
    /// on PostgreSQL. Holds the rows the statements lock only as long as PostgreSQL
    /// takes to run them, not for a round trip more.
    pub async fn commit_after<T>(
        mut self,
        stmts: &[Box<dyn Statement>],
        queries: &[Box<dyn Statement>],
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, CommitError> {
        let postgres = match self.conn() {
            Conn::Postgres(c) => c,
            conn => {
                let written = async {
                    conn.execute_all(stmts).await?;
                    conn.query_all(queries, map).await
                };
                let rows = written.await.map_err(CommitError::NotCommitted)?;
                self.commit().await.map_err(CommitError::Unknown)?;
                return Ok(rows);
            }
        };
        let stmts: Vec<&dyn Statement> = stmts.iter().map(|s| s.as_ref()).collect();
        let queries: Vec<&dyn Statement> = queries.iter().map(|q| q.as_ref()).collect();
        let prepared = async {
            let stmts = prepare_pg(postgres, &stmts).await?;
            Ok((stmts, prepare_pg(postgres, &queries).await?))
        };
        let ((stmts, stmt_values), (queries, query_values)) =
            prepared.await.map_err(CommitError::NotCommitted)?;
        let outcome = postgres
            .execute_all_then_commit(
                &pg_batch(stmts, &stmt_values),
                &pg_batch(queries, &query_values),
                ANNOUNCE,
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

/// Bumps the data version after a commit (see [`Pool::data_version`]).
const ANNOUNCE: &str = "SELECT nextval('calendar_data_version')";

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

/// One result row, from either driver.
pub enum Row<'a> {
    Sqlite(&'a rusqlite::Row<'a>),
    Postgres(&'a tokio_postgres::Row),
}

impl Row<'_> {
    pub fn i64(&self, idx: usize) -> Result<i64, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }

    pub fn opt_i64(&self, idx: usize) -> Result<Option<i64>, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }

    pub fn string(&self, idx: usize) -> Result<String, StoreError> {
        Ok(self.opt_string(idx)?.unwrap_or_default())
    }

    pub fn opt_string(&self, idx: usize) -> Result<Option<String>, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }

    pub fn bool(&self, idx: usize) -> Result<bool, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get::<_, Option<bool>>(idx)?.unwrap_or(false),
            Row::Postgres(r) => r.try_get::<_, Option<bool>>(idx)?.unwrap_or(false),
        })
    }

    pub fn opt_f64(&self, idx: usize) -> Result<Option<f64>, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }
}
