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
//! Every statement is prepared once per connection and kept (callers keep the
//! number of distinct statement texts small: see `store::pieces`).

use std::future::Future;
use std::task::{Context, Poll, Waker};

use futures_util::future::join_all;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Row, Statement};

use super::StoreError;
use crate::store::db::STRIPE;

/// What [`PgConn::execute_all_then_commit`] did.
pub enum CommitOutcome {
    /// Everything ran and was committed: the queries' rows, and how `after` went.
    Committed {
        rows: Vec<Row>,
        after: Result<(), StoreError>,
    },
    /// A part failed and the transaction was rolled back; the connection is idle.
    RolledBack(StoreError),
    /// A part could not be sent, nor was the `COMMIT`: the transaction is still open.
    NotSent(StoreError),
    /// The `COMMIT` failed, or an answer was lost after it went through.
    Unknown(StoreError),
}

/// Statements held back until the next one is sent: a `BEGIN`, the plan mode of the
/// next flight, then advisory locks.
#[derive(Default)]
struct Deferred {
    begin: bool,
    plans: PlanMode,
    locks: Vec<String>,
}

/// How the next flight's statements are planned.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum PlanMode {
    /// As the connection plans them: for their values, at every run.
    #[default]
    Connection,
    /// PostgreSQL's own choice (`auto`): generic plans kept where they cost no more.
    Auto,
    /// One generic plan, made at the first run and kept.
    Generic,
}

impl PlanMode {
    fn setting(self) -> Option<&'static str> {
        match self {
            PlanMode::Connection => None,
            PlanMode::Auto => Some("SET plan_cache_mode = auto"),
            PlanMode::Generic => Some("SET plan_cache_mode = force_generic_plan"),
        }
    }
}

/// Takes the advisory lock of each key, in order; a key naming [`STRIPE`] takes
/// the one of the transaction's stripe (as `event_key_blocks`' triggers compute it).
static LOCK_KEYS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT pg_advisory_xact_lock(hashtextextended(\
             CASE WHEN strpos(k, '{STRIPE}') > 0 \
                  THEN replace(k, '{STRIPE}', (txid_current() % 8)::text) ELSE k END, 0)) \
         FROM unnest($1::text[]) AS k"
    )
});

/// What a write transaction begins with when the plan mode is ours: its statements
/// and its triggers' look rows up by their keys (see `postgres::open`).
const BEGIN_WITH_GENERIC_PLANS: &str = "BEGIN; SET LOCAL plan_cache_mode = auto";

pub struct PgConn {
    client: deadpool_postgres::Object,
    deferred: Deferred,
    /// Whether the connection's plan mode is ours to change (the database URL's
    /// options did not set one).
    plan_mode_ours: bool,
    in_transaction: bool,
}

type Params<'a> = Vec<&'a (dyn ToSql + Sync)>;

impl PgConn {
    pub fn new(client: deadpool_postgres::Object, plan_mode_ours: bool) -> PgConn {
        PgConn {
            client,
            deferred: Deferred::default(),
            plan_mode_ours,
            in_transaction: false,
        }
    }

    pub fn into_inner(self) -> deadpool_postgres::Object {
        self.client
    }

    /// Begins a write transaction with the next flight.
    pub fn begin_later(&mut self) {
        self.deferred.begin = true;
        self.in_transaction = true;
    }

    /// The next flight's statements look rows up by their keys (IDs, slugs, a page's
    /// links, credentials), so PostgreSQL may keep their generic plans rather than
    /// plan each run for its values (the connection's mode, which lists and searches
    /// need): the flight is sent between `SET plan_cache_mode = auto` and its `RESET`.
    /// Planning was most of the cost of such statements (0.1-0.35 ms each). A write
    /// transaction keeps generic plans already.
    pub fn by_key(&mut self) {
        self.plan_next(PlanMode::Auto);
    }

    /// The next flight's statements have one plan that serves every value they are
    /// given, which PostgreSQL makes at their first run and keeps (see
    /// `store::Conn::one_plan`).
    pub fn one_plan(&mut self) {
        self.plan_next(PlanMode::Generic);
    }

    fn plan_next(&mut self, mode: PlanMode) {
        if self.plan_mode_ours && !self.in_transaction {
            self.deferred.plans = mode;
        }
    }

    /// Held back with the others, and taken in the order asked, in one statement.
    pub fn lock_later(&mut self, key: &str) {
        self.deferred.locks.push(key.to_string());
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
        let Deferred {
            begin,
            plans,
            locks,
        } = std::mem::take(&mut self.deferred);
        if !begin && plans == PlanMode::Connection && locks.is_empty() {
            return then(&self.client).await;
        }
        // unnest yields the keys in order, and each row takes its lock as it is produced.
        let lock = if locks.is_empty() {
            None
        } else {
            Some(self.client.prepare_cached(&LOCK_KEYS).await?)
        };
        let client = &self.client;
        // A fixed statement of the flight, if it has one.
        let send = async |sql: Option<&str>| match sql {
            Some(sql) => client.batch_execute(sql).await,
            None => Ok(()),
        };
        let begin = begin.then_some(if self.plan_mode_ours {
            BEGIN_WITH_GENERIC_PLANS
        } else {
            "BEGIN"
        });
        // Each is sent when first polled, and `join5` polls them in this order. The
        // plan mode is set before the flight and reset after it whatever becomes of
        // it, so that nothing else this connection runs is planned generically.
        let begin = send(begin);
        let setting = plans.setting();
        let set_mode = send(setting);
        let custom_again = send(setting.map(|_| "RESET plan_cache_mode"));
        let lock = async {
            match &lock {
                Some(lock) => client.execute(lock, &[&locks]).await.map(drop),
                None => Ok(()),
            }
        };
        let (begun, mode_set, locked, result, custom_again) =
            futures_util::future::join5(begin, set_mode, lock, then(client), custom_again).await;
        begun?;
        mode_set?;
        locked?;
        custom_again?;
        result
    }

    pub async fn query(
        &mut self,
        st: &Statement,
        params: &Params<'_>,
    ) -> Result<Vec<Row>, StoreError> {
        self.with_deferred(async |c| Ok(c.query(st, params).await?))
            .await
    }

    /// Runs queries in order, in one flight; the rows of each.
    pub async fn query_all(
        &mut self,
        queries: &[(Statement, Params<'_>)],
    ) -> Result<Vec<Vec<Row>>, StoreError> {
        self.with_deferred(async |c| {
            join_all(queries.iter().map(|(st, p)| c.query(st, p)))
                .await
                .into_iter()
                .map(|rows| rows.map_err(StoreError::from))
                .collect()
        })
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
    ) -> Result<Vec<Row>, StoreError> {
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

    /// Runs statements, then queries, then `COMMIT` and the announce of the write,
    /// in one flight. Should a statement or query fail, PostgreSQL turns the
    /// `COMMIT` into a rollback.
    pub async fn execute_all_then_commit(
        &mut self,
        batch: &[(Statement, Params<'_>)],
        queries: &[(Statement, Params<'_>)],
        after: &Announce,
    ) -> Result<CommitOutcome, StoreError> {
        self.with_deferred(async |c| {
            let no_params: Params<'_> = Vec::new();
            let stamp = (after.stamp.clone(), no_params);
            let mut parts: Vec<_> = batch
                .iter()
                .chain(queries)
                .chain(std::iter::once(&stamp))
                .map(|(st, p)| Box::pin(c.query(st, p)))
                .collect();
            // Each part sends its request when first polled, and fails right then,
            // before anything reaches the server, if it cannot be encoded. A COMMIT
            // after such a part would commit the others without it: it is not sent.
            let mut done: Vec<Option<Result<Vec<Row>, tokio_postgres::Error>>> = {
                let mut cx = Context::from_waker(Waker::noop());
                parts
                    .iter_mut()
                    .map(|part| match part.as_mut().poll(&mut cx) {
                        Poll::Ready(result) => Some(result),
                        Poll::Pending => None,
                    })
                    .collect()
            };
            if let Some(Err(e)) = done.iter().flatten().find(|r| r.is_err()) {
                return Ok(CommitOutcome::NotSent(StoreError::Internal(e.to_string())));
            }
            let rest = async {
                for (part, result) in parts.iter_mut().zip(done.iter_mut()) {
                    if result.is_none() {
                        *result = Some(part.await);
                    }
                }
            };
            let ((), commit, after) =
                futures_util::future::join3(rest, c.batch_execute("COMMIT"), announce(c, after))
                    .await;
            let mut rows = Vec::new();
            let mut failed = None;
            let queried = batch.len()..batch.len() + queries.len();
            for (i, result) in done.into_iter().flatten().enumerate() {
                match result {
                    Ok(r) if queried.contains(&i) => rows.extend(r),
                    Ok(_) => {}
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                }
            }
            Ok(match (commit, failed) {
                (Err(e), _) => CommitOutcome::Unknown(e.into()),
                (Ok(()), None) => CommitOutcome::Committed {
                    rows,
                    after: after.map_err(StoreError::from),
                },
                // The server refused a part: the transaction was aborted, and its
                // COMMIT answered as a rollback.
                (Ok(()), Some(e)) if e.as_db_error().is_some() => {
                    CommitOutcome::RolledBack(e.into())
                }
                // A part's answer was lost, not refused: the COMMIT went through.
                (Ok(()), Some(e)) => CommitOutcome::Unknown(e.into()),
            })
        })
        .await
    }

    /// SQL text without parameters (transaction control, DDL).
    pub async fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.with_deferred(async |c| Ok(c.batch_execute(sql).await?))
            .await
    }
}

/// What a write announces after its commit, in a transaction of its own: the next
/// data version, and its changes recorded under it for every instance (see
/// `store::changes`), with the write's transaction ID, which the transaction
/// itself leaves in the session before its `COMMIT` (`stamp`).
pub struct Announce {
    /// `store::changes::STAMP`, prepared.
    pub stamp: Statement,
    /// `store::changes::ANNOUNCE`, prepared.
    pub statement: Statement,
    /// The changes, as JSON.
    pub changes: String,
    /// Also forget old changes (`store::changes::PRUNE`).
    pub prune: bool,
}

/// Sends the announce's statements at once (and, now and then, the pruning of old
/// records, which then costs no write of a client's). The record need not wait for
/// the disk: should the server crash before it is written, its version is missing,
/// and a reader that misses a version starts over (`store::changes::catch_up`).
async fn announce(
    c: &deadpool_postgres::Object,
    a: &Announce,
) -> Result<(), tokio_postgres::Error> {
    let prune = async {
        match a.prune {
            true => c.batch_execute(crate::store::changes::PRUNE).await,
            false => Ok(()),
        }
    };
    let (begun, recorded, pruned, committed) = futures_util::future::join4(
        c.batch_execute("BEGIN; SET LOCAL synchronous_commit = off"),
        c.execute(&a.statement, &[&a.changes]),
        prune,
        // The stamp is the next write's to leave: an announce of a write rolled
        // back before it (its `COMMIT` answered as a rollback) records none.
        c.batch_execute(crate::store::changes::UNSTAMP),
    )
    .await;
    begun?;
    recorded?;
    pruned?;
    committed
}
