//! A PostgreSQL connection that pipelines what it can.
//!
//! Every statement is a network round trip, and on a busy server the round trips —
//! two context switches and a wake-up on each side — cost more than most of the
//! statements themselves. Statements whose results nothing waits for (`BEGIN`,
//! advisory locks) are held back and sent in the same flight as the next real
//! statement; independent statements are sent together ([`PgConn::execute_all`]);
//! `COMMIT` travels with the data-version bump that follows it. PostgreSQL runs
//! the statements of one connection in the order they arrive, so the meaning is
//! that of running them one by one.
//!
//! Statements are prepared once per connection and kept, except where a caller
//! says its statements are one-off ([`PgConn::one_off`]): multi-row writes whose
//! text changes with their number of rows would otherwise pile up, thousands of
//! them, in every connection and in the server's memory. A one-off statement is
//! sent whole, with its parameters' types, in a single round trip.

use futures_util::future::join_all;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Row, Statement};

use super::StoreError;

/// What [`PgConn::execute_all_then_commit`] did.
pub struct CommitOutcome {
    /// The statements' outcome, and the query's rows.
    pub written: Result<Vec<Row>, StoreError>,
    pub commit: Result<(), StoreError>,
    pub after: Result<(), StoreError>,
}

/// A statement ready to run.
pub enum Prepared {
    /// Prepared by this connection, which keeps it.
    Kept(Statement),
    /// Sent whole each time it runs.
    OneOff { sql: String, types: Vec<Type> },
}

async fn query(c: &Client, st: &Prepared, params: &Params<'_>) -> Result<Vec<Row>, StoreError> {
    Ok(match st {
        Prepared::Kept(st) => c.query(st, params).await?,
        Prepared::OneOff { sql, types } => c.query_typed(sql, &typed(params, types)).await?,
    })
}

async fn execute(c: &Client, st: &Prepared, params: &Params<'_>) -> Result<u64, StoreError> {
    Ok(match st {
        Prepared::Kept(st) => c.execute(st, params).await?,
        Prepared::OneOff { sql, types } => c.execute_typed(sql, &typed(params, types)).await?,
    })
}

fn typed<'a>(params: &Params<'a>, types: &[Type]) -> Vec<(&'a (dyn ToSql + Sync), Type)> {
    params.iter().copied().zip(types.iter().cloned()).collect()
}

/// Statements held back until the next one is sent: a `BEGIN`, then advisory locks.
#[derive(Default)]
struct Deferred {
    begin: bool,
    locks: Vec<String>,
}

pub struct PgConn {
    client: deadpool_postgres::Object,
    deferred: Deferred,
    one_off: bool,
}

type Params<'a> = Vec<&'a (dyn ToSql + Sync)>;

impl PgConn {
    pub fn new(client: deadpool_postgres::Object) -> PgConn {
        PgConn {
            client,
            deferred: Deferred::default(),
            one_off: false,
        }
    }

    pub fn into_inner(self) -> deadpool_postgres::Object {
        self.client
    }

    pub fn begin_later(&mut self) {
        self.deferred.begin = true;
    }

    /// Held back with the others, and taken in the order asked, in one statement.
    pub fn lock_later(&mut self, key: &str) {
        self.deferred.locks.push(key.to_string());
    }

    /// Statements from now on are one-off (see the module's notes), until the
    /// connection goes back to the pool.
    pub fn one_off(&mut self) {
        self.one_off = true;
    }

    /// Readies `sql`, whose parameters have these types, to run.
    pub async fn prepare(
        &self,
        sql: &str,
        types: impl FnOnce() -> Vec<Type>,
    ) -> Result<Prepared, StoreError> {
        Ok(if self.one_off {
            Prepared::OneOff {
                sql: sql.to_string(),
                types: types(),
            }
        } else {
            Prepared::Kept(self.client.prepare_cached(sql).await?)
        })
    }

    /// Sends what was held back, in order, together with the statements `then` sends,
    /// and returns `then`'s result. Statements are prepared before anything is sent,
    /// so that nothing overtakes a preparation round trip.
    async fn with_deferred<T, F>(&mut self, then: F) -> Result<T, StoreError>
    where
        F: AsyncFnOnce(&deadpool_postgres::Object) -> Result<T, StoreError>,
    {
        let Deferred { begin, locks } = std::mem::take(&mut self.deferred);
        if !begin && locks.is_empty() {
            return then(&self.client).await;
        }
        // unnest yields the keys in order, and each row takes its lock as it is produced.
        let lock = if locks.is_empty() {
            None
        } else {
            Some(
                self.client
                    .prepare_cached(
                        "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) \
                         FROM unnest($1::text[]) AS k",
                    )
                    .await?,
            )
        };
        let client = &self.client;
        // Each is sent when first polled, and `join3` polls them in this order.
        let begin = async {
            match begin {
                true => client.batch_execute("BEGIN").await,
                false => Ok(()),
            }
        };
        let lock = async {
            match &lock {
                Some(lock) => client.execute(lock, &[&locks]).await.map(drop),
                None => Ok(()),
            }
        };
        let (begun, locked, result) = futures_util::future::join3(begin, lock, then(client)).await;
        begun?;
        locked?;
        result
    }

    pub async fn query(
        &mut self,
        st: &Prepared,
        params: &Params<'_>,
    ) -> Result<Vec<Row>, StoreError> {
        self.with_deferred(async |c| query(c, st, params).await)
            .await
    }

    /// Runs two queries, in order, in one flight; the rows of each.
    pub async fn query_two(
        &mut self,
        first: (&Prepared, &Params<'_>),
        second: (&Prepared, &Params<'_>),
    ) -> Result<(Vec<Row>, Vec<Row>), StoreError> {
        self.with_deferred(async |c| {
            let (a, b) = futures_util::future::join(
                query(c, first.0, first.1),
                query(c, second.0, second.1),
            )
            .await;
            Ok((a?, b?))
        })
        .await
    }

    pub async fn execute(&mut self, st: &Prepared, params: &Params<'_>) -> Result<u64, StoreError> {
        self.with_deferred(async |c| execute(c, st, params).await)
            .await
    }

    /// Runs statements in order, in one flight; the rows each changed.
    pub async fn execute_all(
        &mut self,
        batch: &[(Prepared, Params<'_>)],
    ) -> Result<Vec<u64>, StoreError> {
        self.with_deferred(async |c| {
            join_all(batch.iter().map(|(st, p)| execute(c, st, p)))
                .await
                .into_iter()
                .collect()
        })
        .await
    }

    /// Runs statements and then a query, in order, in one flight; the query's rows.
    pub async fn execute_all_then_query(
        &mut self,
        batch: &[(Prepared, Params<'_>)],
        last: &Prepared,
        params: &Params<'_>,
    ) -> Result<Vec<Row>, StoreError> {
        self.with_deferred(async |c| {
            let executes = join_all(batch.iter().map(|(st, p)| execute(c, st, p)));
            let (executed, rows) =
                futures_util::future::join(executes, query(c, last, params)).await;
            for r in executed {
                r?;
            }
            rows
        })
        .await
    }

    /// Runs statements, then a query, then `COMMIT` and `after`, in one flight.
    /// Should a statement fail, PostgreSQL turns the `COMMIT` into a rollback.
    /// The outcome of each part, in that order.
    pub async fn execute_all_then_commit(
        &mut self,
        batch: &[(Prepared, Params<'_>)],
        last: Option<(&Prepared, &Params<'_>)>,
        after: &str,
    ) -> Result<CommitOutcome, StoreError> {
        self.with_deferred(async |c| {
            let executes = join_all(batch.iter().map(|(st, p)| execute(c, st, p)));
            let rows = async {
                match last {
                    Some((st, p)) => query(c, st, p).await,
                    None => Ok(Vec::new()),
                }
            };
            let (executed, rows, commit, after) = futures_util::future::join4(
                executes,
                rows,
                c.batch_execute("COMMIT"),
                c.batch_execute(after),
            )
            .await;
            let written = executed
                .into_iter()
                .find(Result::is_err)
                .unwrap_or(Ok(0))
                .and(rows);
            Ok(CommitOutcome {
                written,
                commit: commit.map_err(StoreError::from),
                after: after.map_err(StoreError::from),
            })
        })
        .await
    }

    /// SQL text without parameters (transaction control, DDL).
    pub async fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.with_deferred(async |c| Ok(c.batch_execute(sql).await?))
            .await
    }

    /// Commits and then runs `after` (its failure is returned separately, as the
    /// commit has happened by then), in one flight.
    pub async fn commit_then(&mut self, after: &str) -> Result<Result<(), StoreError>, StoreError> {
        self.with_deferred(async |c| {
            let (commit, after) =
                futures_util::future::join(c.batch_execute("COMMIT"), c.batch_execute(after)).await;
            commit?;
            Ok(after.map_err(StoreError::from))
        })
        .await
    }
}
