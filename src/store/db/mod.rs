//! The one place that knows there are two database drivers.
//!
//! Queries are built once with sea-query; this module renders them for the
//! backend in use, binds their values, and reads rows through [`Row`], so the
//! rest of the store never branches on the backend.
//!
//! Split by concern: `statement` renders sea-query statements and binds their
//! values for either driver, `pool` hands out connections for reading and
//! transactions for writing, `conn` runs statements on a connection, `tx` is the
//! write transaction and its commit (with the data-version announce), and `row`
//! reads result columns. The per-task counters and deadline live here. Everything
//! is re-exported here, so callers name `store::db::…` whatever file an item
//! lives in.

mod conn;
mod pool;
mod row;
mod statement;
mod tx;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub use conn::{Conn, STRIPE};
pub use pool::Pool;
pub use row::Row;
pub use statement::Statement;
pub use tx::{CommitError, Tx, Unsettled};

/// How long a request waits for a connection before the database counts as unavailable.
pub const POOL_WAIT: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

tokio::task_local! {
    /// When set (tests, diagnostics), counts every SQL statement run by the task.
    pub static STATEMENT_COUNTER: Arc<AtomicU64>;
    /// When set (tests, diagnostics), adds up the SQLite virtual-machine steps of the
    /// task's statements, the triggers they fire included: a measure of the rows a
    /// request visits that does not depend on the machine, so a plan whose cost grows
    /// with the data set shows as steps that grow with it.
    pub static SQLITE_VM_STEPS: Arc<AtomicU64>;
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

/// The task's SQLite step counter, if it counts them.
pub fn vm_step_counter() -> Option<Arc<AtomicU64>> {
    SQLITE_VM_STEPS.try_with(Arc::clone).ok()
}

/// Runs `fut` with `counter` as its SQLite step counter, if there is one.
pub async fn counting_vm_steps<F: Future>(counter: Option<Arc<AtomicU64>>, fut: F) -> F::Output {
    match counter {
        Some(counter) => SQLITE_VM_STEPS.scope(counter, fut).await,
        None => fut.await,
    }
}

/// `fut`, counting its SQLite steps where the calling task counts them: a write runs in
/// a task of its own (run to completion whatever its client does), and its steps are the
/// request's. The statement counter stays with the request's own task.
pub fn carrying_vm_steps<F: Future>(fut: F) -> impl Future<Output = F::Output> {
    counting_vm_steps(vm_step_counter(), fut)
}

/// Runs a SQLite statement through `run`, adding its steps to [`SQLITE_VM_STEPS`] if the
/// task counts them. A cached statement keeps its counter between runs: it is reset first.
fn count_vm_steps<T>(
    st: &mut rusqlite::CachedStatement<'_>,
    run: impl FnOnce(&mut rusqlite::Statement<'_>) -> T,
) -> T {
    use rusqlite::StatementStatus::VmStep;
    let Some(steps) = vm_step_counter() else {
        return run(st);
    };
    st.reset_status(VmStep);
    let out = run(st);
    steps.fetch_add(st.get_status(VmStep) as u64, Ordering::Relaxed);
    out
}
