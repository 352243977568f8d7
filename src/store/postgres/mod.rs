//! PostgreSQL: the pipelining connection, the shared data version and its leases,
//! the precise waits those need, and creating a database that does not exist yet.

mod conn;
pub(super) mod precise_sleep;
pub(super) mod setup;
pub(super) mod version;

use std::str::FromStr;
use std::time::Duration;

pub use conn::{Announce, CommitOutcome, PgConn};

use super::{Pool, StoreError};

pub(super) fn open(url: &str, statement_timeout: Option<Duration>) -> Result<Pool, StoreError> {
    let mut pg = tokio_postgres::Config::from_str(url)
        .map_err(|e| StoreError::Internal(format!("invalid database URL: {e}")))?;
    let mut options = pg.get_options().unwrap_or_default().to_string();
    // A setting in the URL's own options wins.
    if let Some(timeout) = statement_timeout
        && !options.contains("statement_timeout")
    {
        let ms = timeout.as_millis().max(1);
        options.push_str(&format!(" -c statement_timeout={ms}"));
    }
    // Compiling a query costs 10 to 20 ms, paid by every search whose estimated
    // cost passes `jit_above_cost` (the index's candidates of a word are estimated
    // in tens of thousands), for queries that run in milliseconds.
    if !options.contains("jit") {
        options.push_str(" -c jit=off");
    }
    // Statements are prepared once per connection, and after five runs PostgreSQL
    // may keep a generic plan, made without the values: the same list is cheap one
    // way for a rare search word or a small category and the other way for a common
    // one (a symbol's lookup became a scan of every event's symbols, 0.8 s instead
    // of 35 ms). Every run is planned for its own values instead, at a millisecond
    // or two.
    //
    // Writes are the exception: their statements, and above all the triggers' (a
    // create runs some forty, keeping keys, per-day counts and search rows), look rows
    // up by their keys, the same way whatever the values. Planned at every run they
    // spent as long being planned as being run (45 % of a create's time at a million
    // events), so a write transaction lets PostgreSQL keep their generic plans
    // (`auto`: after five custom plans, when the generic one costs no more), and so
    // do reads by key (`PgConn::by_key`).
    let plan_mode_ours = !options.contains("plan_cache_mode");
    if plan_mode_ours {
        options.push_str(" -c plan_cache_mode=force_custom_plan");
    }
    // A parallel worker takes 5-10 ms to start, for queries that run in milliseconds,
    // and its core is one another request was running on: a search of `7` at a
    // million events took 11 ms with one, 6 without.
    if !options.contains("max_parallel_workers_per_gather") {
        options.push_str(" -c max_parallel_workers_per_gather=0");
    }
    pg.options(options.trim());
    pg.connect_timeout(Duration::from_secs(3));
    pg.application_name("calendar-events");
    let versions = version::VersionReads::new(version::PgVersionSource::new(pg.clone()));
    let manager = deadpool_postgres::Manager::from_config(
        pg,
        tokio_postgres::NoTls,
        deadpool_postgres::ManagerConfig {
            recycling_method: deadpool_postgres::RecyclingMethod::Fast,
        },
    );
    let size = std::thread::available_parallelism().map_or(2, |n| n.get()) * 4;
    deadpool_postgres::Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .wait_timeout(Some(Duration::from_secs(5)))
        .create_timeout(Some(Duration::from_secs(3)))
        .recycle_timeout(Some(Duration::from_secs(3)))
        .build()
        .map(|pool| Pool::Postgres {
            pool,
            versions: std::sync::Arc::new(versions),
            plan_mode_ours,
        })
        .map_err(|e| StoreError::Internal(e.to_string()))
}
