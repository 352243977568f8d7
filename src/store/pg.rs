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

use futures_util::future::join_all;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::StoreError;

/// A statement held back until the next one is sent.
enum Deferred {
    Begin,
    Lock(String),
}

pub struct PgConn {
    client: deadpool_postgres::Object,
    deferred: Vec<Deferred>,
}

type Params<'a> = Vec<&'a (dyn ToSql + Sync)>;

impl PgConn {
    pub fn new(client: deadpool_postgres::Object) -> PgConn {
        PgConn {
            client,
            deferred: Vec::new(),
        }
    }

    pub fn into_inner(self) -> deadpool_postgres::Object {
        self.client
    }

    pub fn begin_later(&mut self) {
        self.deferred.push(Deferred::Begin);
    }

    pub fn lock_later(&mut self, key: &str) {
        self.deferred.push(Deferred::Lock(key.to_string()));
    }

    pub async fn prepare(&self, sql: &str) -> Result<Statement, StoreError> {
        Ok(self.client.prepare_cached(sql).await?)
    }

    /// Sends what was held back, in order, together with the statements `then` sends,
    /// and returns `then`'s result. Statements are prepared before anything is sent,
    /// so that nothing overtakes a preparation round trip.
    async fn with_deferred<T, F>(&mut self, then: F) -> Result<T, StoreError>
    where
        F: AsyncFnOnce(&deadpool_postgres::Object) -> Result<T, StoreError>,
    {
        if self.deferred.is_empty() {
            return then(&self.client).await;
        }
        let lock = self
            .prepare("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .await?;
        let deferred = std::mem::take(&mut self.deferred);
        let client = &self.client;
        let sent = join_all(deferred.iter().map(|d| {
            let lock = &lock;
            async move {
                match d {
                    Deferred::Begin => client.batch_execute("BEGIN").await.map(drop),
                    Deferred::Lock(key) => client.execute(lock, &[key]).await.map(drop),
                }
            }
        }));
        let (sent, result) = futures_util::future::join(sent, then(client)).await;
        for r in sent {
            r?;
        }
        result
    }

    pub async fn query(
        &mut self,
        st: &Statement,
        params: &Params<'_>,
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        self.with_deferred(async |c| Ok(c.query(st, params).await?))
            .await
    }

    pub async fn execute(
        &mut self,
        st: &Statement,
        params: &Params<'_>,
    ) -> Result<u64, StoreError> {
        self.with_deferred(async |c| Ok(c.execute(st, params).await?))
            .await
    }

    /// Runs prepared statements in order, in one flight; the rows each changed.
    pub async fn execute_all(
        &mut self,
        batch: &[(Statement, Params<'_>)],
    ) -> Result<Vec<u64>, StoreError> {
        self.with_deferred(async |c| {
            let results = join_all(batch.iter().map(|(st, p)| c.execute(st, p))).await;
            results
                .into_iter()
                .map(|r| r.map_err(StoreError::from))
                .collect()
        })
        .await
    }

    /// Runs prepared statements and then a query, in order, in one flight; the query's rows.
    pub async fn execute_all_then_query(
        &mut self,
        batch: &[(Statement, Params<'_>)],
        query: &Statement,
        params: &Params<'_>,
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        self.with_deferred(async |c| {
            let executes = join_all(batch.iter().map(|(st, p)| c.execute(st, p)));
            let (executed, rows) =
                futures_util::future::join(executes, c.query(query, params)).await;
            for r in executed {
                r?;
            }
            Ok(rows?)
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
