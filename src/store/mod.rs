//! Persistence: one query code path over SQLite and PostgreSQL.

mod checkpoint;
pub mod db;
pub mod event_batch;
mod event_count;
pub mod events;
mod group_commit;
mod migrate;
mod pg;
mod pg_setup;
pub mod posts;
mod precise_sleep;
pub mod schema;
mod sqlite;
pub mod terms;
pub mod users;
mod version;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

pub use db::{Backend, Conn, Pool, Row, Tx};

/// The most rows one multi-row statement carries.
const MAX_PIECE: usize = 64;

/// `items` in consecutive pieces whose lengths are powers of two, largest first,
/// none longer than [`MAX_PIECE`]. A statement built for each piece has one of
/// seven shapes whatever the number of rows, so each connection prepares and keeps
/// a handful of statements rather than one per count (on PostgreSQL, thousands
/// of prepared statements per connection, in the server's memory too).
pub(crate) fn pieces<T>(items: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (piece, tail) = rest.split_at((1 << rest.len().ilog2()).min(MAX_PIECE));
        rest = tail;
        Some(piece)
    })
}

/// `EXISTS (sub)`, written so that SQLite keeps it a semi-join.
///
/// SQLite 3.51 turns a correlated `EXISTS` into a join, and when the subquery's index
/// lookup walks an `IN` list (`term_id IN (1, 2)`) that join yields the outer row once
/// per matching list item: an event in two requested categories was listed and
/// counted twice. A `LIMIT` keeps the optimisation away; the subquery still runs on
/// the same index, stopping at its first row, and PostgreSQL plans it as before.
pub(crate) fn exists(mut sub: sea_query::SelectStatement) -> sea_query::SimpleExpr {
    sub.limit(1);
    sea_query::Expr::exists(sub)
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or is refusing writes (read-only file, disk full).
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A uniqueness rule was violated; the caller decides what that means.
    #[error("unique constraint violated: {0}")]
    Conflict(String),
    #[error("database error: {0}")]
    Internal(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        match e.sqlite_error_code() {
            Some(C::ConstraintViolation) => StoreError::Conflict(e.to_string()),
            Some(C::OperationInterrupted) => {
                StoreError::Unavailable("the query ran past the request timeout".into())
            }
            Some(
                C::ReadOnly
                | C::DiskFull
                | C::CannotOpen
                | C::DatabaseBusy
                | C::DatabaseLocked
                | C::SystemIoFailure,
            ) => StoreError::Unavailable(e.to_string()),
            _ => StoreError::Internal(e.to_string()),
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        use tokio_postgres::error::SqlState;
        match e.code() {
            Some(c) if *c == SqlState::UNIQUE_VIOLATION => StoreError::Conflict(e.to_string()),
            // Two writes that took the same rows in opposite orders (moving events
            // between days, say): PostgreSQL aborts one, and it is safe to run again.
            Some(c)
                if *c == SqlState::T_R_DEADLOCK_DETECTED
                    || *c == SqlState::T_R_SERIALIZATION_FAILURE =>
            {
                StoreError::Conflict(e.to_string())
            }
            Some(c) if *c == SqlState::QUERY_CANCELED => {
                StoreError::Unavailable("the query ran past the statement timeout".into())
            }
            Some(c)
                if *c == SqlState::READ_ONLY_SQL_TRANSACTION
                    || *c == SqlState::ADMIN_SHUTDOWN
                    || *c == SqlState::CANNOT_CONNECT_NOW
                    || *c == SqlState::TOO_MANY_CONNECTIONS
                    || *c == SqlState::DISK_FULL =>
            {
                StoreError::Unavailable(e.to_string())
            }
            None if e.is_closed() || e.to_string().contains("connect") => {
                StoreError::Unavailable(e.to_string())
            }
            // "db error" alone would hide PostgreSQL's message from the log.
            _ => StoreError::Internal(
                e.as_db_error()
                    .map_or_else(|| e.to_string(), |db| format!("db error: {db}")),
            ),
        }
    }
}

/// The database of one server, whichever backend it is.
#[derive(Clone)]
pub struct Store {
    pub pool: Pool,
}

impl Store {
    /// Opens (creating if needed) the database named by `url` and brings its schema up to date.
    /// `sqlite://path`, `sqlite:path` or a bare path selects SQLite; `postgres://…` PostgreSQL.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        Store::open_with_timeout(url, None).await
    }

    /// [`Store::open`] for a server: no statement runs longer than `timeout`, so a
    /// request answered with a timeout does not leave its query running. PostgreSQL
    /// cancels statements past it (`statement_timeout`, migrations exempt); SQLite
    /// interrupts reads of a request past its deadline (see [`db::DEADLINE`]).
    pub async fn open_with_timeout(
        url: &str,
        timeout: Option<Duration>,
    ) -> Result<Store, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            pg_setup::ensure_database(url).await?;
            Store {
                pool: open_postgres(url, timeout)?,
            }
        } else {
            let path = url
                .strip_prefix("sqlite://")
                .or_else(|| url.strip_prefix("sqlite:"))
                .unwrap_or(url);
            Store {
                pool: open_sqlite(Path::new(path))?,
            }
        };
        migrate::run(&store.pool).await?;
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.pool.backend()
    }
}

/// Indexes the events writes queued for search (see migration 0002) in batches:
/// FTS5 writes a new segment, and later merges it, at every flush, so indexing
/// a few hundred events at once costs far less than one group's worth at a time.
/// Until then, searches find queued events by scanning them (`store::events`),
/// so every committed event is searchable at once either way.
const SQLITE_AFTER_COMMIT: group_commit::AfterCommit = group_commit::AfterCommit {
    pending: "SELECT count(*) FROM search_queue",
    run: &[
        "INSERT INTO posts_fts(rowid, title, excerpt, description) \
         SELECT p.id, p.title, p.excerpt, p.description \
         FROM search_queue q JOIN posts p ON p.id = q.id",
        "DELETE FROM search_queue",
    ],
    batch: SEARCH_INDEX_BATCH,
    max_age: Duration::from_secs(1),
};

/// The most events a search scans rather than looks up in the index.
pub const SEARCH_INDEX_BATCH: i64 = 128;

/// Waits up to 5 s for a lock another connection holds, retrying every millisecond.
/// SQLite's own busy timeout backs off to 100 ms sleeps, so a writer could oversleep
/// a checkpoint's short hold of the write lock by tens of milliseconds.
fn wait_for_lock(attempt: i32) -> bool {
    std::thread::sleep(Duration::from_millis(1));
    attempt < 5_000
}

fn sqlite_connection(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    let conn = rusqlite::Connection::open(path)?;
    conn.busy_handler(Some(wait_for_lock))?;
    // Without the planner's stability guarantee, SQLite makes every statement with
    // `LIKE ?` (searches) parse and plan itself again whenever a value is bound, in
    // case a fixed prefix could use an index: our patterns start with `%`, and the
    // statement cache was losing 9 % of the CPU of a mixed load to it.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = NORMAL;
         PRAGMA foreign_keys = ON;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -8000;",
    )?;
    conn.set_prepared_statement_cache_capacity(256);
    unicode_lower(&conn)?;
    Ok(conn)
}

/// Replaces SQLite's `lower()`, which folds ASCII letters only, with Unicode case
/// folding as PostgreSQL's does: searches lower-case their words in Rust, and
/// `search=ünïcødé` must find "Fête Ünïcødé" on both backends. No index of ours is
/// built on `lower()`, so no stored value depends on the function it replaces.
fn unicode_lower(conn: &rusqlite::Connection) -> Result<(), StoreError> {
    use rusqlite::functions::FunctionFlags;
    use rusqlite::types::{Value, ValueRef};
    conn.create_scalar_function(
        "lower",
        1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Null => Value::Null,
                ValueRef::Text(bytes) => {
                    let text = String::from_utf8_lossy(bytes);
                    Value::Text(if text.is_ascii() {
                        text.to_ascii_lowercase()
                    } else {
                        text.to_lowercase()
                    })
                }
                ValueRef::Integer(i) => Value::Text(i.to_string()),
                ValueRef::Real(r) => Value::Text(r.to_string()),
                ValueRef::Blob(b) => Value::Blob(b.to_ascii_lowercase()),
            })
        },
    )?;
    Ok(())
}

fn sqlite_pool(size: usize) -> deadpool::unmanaged::Pool<rusqlite::Connection> {
    deadpool::unmanaged::Pool::from_config(&deadpool::unmanaged::PoolConfig {
        max_size: size,
        timeout: Some(db::POOL_WAIT),
        runtime: Some(deadpool::Runtime::Tokio1),
    })
}

fn writer_connection(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    let conn = sqlite_connection(path)?;
    // Checkpoints run on their own thread, not inside the commits of the writer.
    // The log file is cut back to 64 MiB when it starts over, after a burst.
    conn.execute_batch("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864;")?;
    Ok(conn)
}

fn checkpoint_connection(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    let conn = sqlite_connection(path)?;
    // Checkpoints copy pages without keeping them: a small cache keeps the RSS down.
    conn.execute_batch("PRAGMA cache_size = -512;")?;
    Ok(conn)
}

/// A connection opened again once the database file is writable. SQLite creates
/// the `-wal` and `-shm` files with the database's permissions: made while it was
/// read-only, they are read-only too, and are given its permissions back first.
fn reopened(
    path: &Path,
    open: fn(&Path) -> Result<rusqlite::Connection, StoreError>,
) -> Result<rusqlite::Connection, StoreError> {
    let unavailable = |e: std::io::Error| StoreError::Unavailable(e.to_string());
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(unavailable)?;
    let mode = std::fs::metadata(path).map_err(unavailable)?.permissions();
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        if std::fs::metadata(&side).is_ok_and(|m| m.permissions().readonly()) {
            let _ = std::fs::set_permissions(&side, mode.clone());
        }
    }
    open(path)
}

fn open_sqlite(path: &Path) -> Result<Pool, StoreError> {
    let writer_conn = writer_connection(path)?;
    let checkpoint_conn = checkpoint_connection(path)?;
    let owned = path.to_path_buf();
    let checkpointer = checkpoint::Checkpointer::start(
        checkpoint_conn,
        path,
        Box::new(move || reopened(&owned, checkpoint_connection)),
    )?;
    let owned = path.to_path_buf();
    let writer = std::sync::Arc::new(group_commit::Writer::new(
        writer_conn,
        SQLITE_AFTER_COMMIT,
        checkpointer,
        Box::new(move || reopened(&owned, writer_connection)),
    ));
    let n = std::thread::available_parallelism().map_or(2, |n| n.get()) * 2;
    let readers = sqlite_pool(n);
    for _ in 0..n {
        let conn = sqlite_connection(path)?;
        // 3 MiB each keeps the process under 64 MB at a million events, with every
        // scenario of the benchmark run on one server; the pages they drop stay in
        // the OS page cache.
        conn.execute_batch("PRAGMA query_only = ON; PRAGMA cache_size = -3000;")?;
        // A read runs inside one poll of its request's task, so the task's deadline is
        // in reach here. Writers are never interrupted: that would roll back their group.
        conn.progress_handler(PROGRESS_STEPS, Some(db::past_deadline))?;
        readers
            .try_add(conn)
            .map_err(|(_, e)| StoreError::Internal(e.to_string()))?;
    }
    Ok(Pool::Sqlite { writer, readers })
}

/// SQLite virtual-machine steps between two looks at the clock: well under a
/// millisecond of work, and too rare to cost anything measurable.
const PROGRESS_STEPS: std::ffi::c_int = 20_000;

fn open_postgres(url: &str, statement_timeout: Option<Duration>) -> Result<Pool, StoreError> {
    let mut pg = tokio_postgres::Config::from_str(url)
        .map_err(|e| StoreError::Internal(format!("invalid database URL: {e}")))?;
    let options = pg.get_options().unwrap_or_default().to_string();
    // A timeout set in the URL's own options wins.
    if let Some(timeout) = statement_timeout
        && !options.contains("statement_timeout")
    {
        let ms = timeout.as_millis().max(1);
        pg.options(format!("{options} -c statement_timeout={ms}").trim());
    }
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
        })
        .map_err(|e| StoreError::Internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn pieces_are_powers_of_two_up_to_the_limit() {
        let lengths = |n: usize| -> Vec<usize> {
            let items: Vec<usize> = (0..n).collect();
            let pieces: Vec<&[usize]> = super::pieces(&items).collect();
            assert_eq!(pieces.concat(), items, "every item once, in order");
            pieces.iter().map(|p| p.len()).collect()
        };
        assert_eq!(lengths(0), Vec::<usize>::new());
        assert_eq!(lengths(1), [1]);
        assert_eq!(lengths(13), [8, 4, 1]);
        assert_eq!(lengths(64), [64]);
        assert_eq!(lengths(200), [64, 64, 64, 8]);
    }

    /// `.cargo/config.toml` compiles SQLite without its global page-cache and
    /// allocation-statistics locks; a build that lost the setting fails here.
    #[test]
    fn sqlite_is_compiled_without_global_locks_on_pages_and_allocations() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let mut st = conn.prepare("PRAGMA compile_options").unwrap();
        let options: Vec<String> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
    }

    use rusqlite::StatementStatus;

    #[test]
    fn a_search_statement_is_planned_once_whatever_it_is_bound_to() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::sqlite_connection(&dir.path().join("plan.db")).unwrap();
        conn.execute_batch("CREATE TABLE t (name TEXT); CREATE INDEX t_name ON t (name);")
            .unwrap();
        for pattern in ["%jazz%", "%folk%", "jazz%"] {
            let mut st = conn
                .prepare_cached("SELECT count(*) FROM t WHERE name LIKE ?")
                .unwrap();
            let _: i64 = st.query_row([pattern], |r| r.get(0)).unwrap();
            assert_eq!(st.get_status(StatementStatus::RePrepare), 0, "{pattern}");
        }
    }
}
