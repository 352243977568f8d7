//! Persistence: one query code path over SQLite and PostgreSQL.

pub mod auth_failures;
pub mod category_moves;
pub mod changes;
pub mod db;
pub mod event_batch;
pub mod event_count;
pub mod events;
pub mod imports;
pub mod linked_unlinks;
mod migrate;
mod postgres;
pub mod posts;
pub mod schema;
mod sqlite;
pub mod sync;
pub mod term_deletion;
pub mod terms;
pub mod users;

use std::path::Path;
use std::time::Duration;

pub use db::{Backend, Conn, Pool, Row, Tx};
pub use sqlite::{SEARCH_INDEX_BATCH, readers as sqlite_readers};

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

/// How a server opens its database.
#[derive(Clone, Debug, Default)]
pub struct StoreOptions {
    /// No statement runs longer than this, so a request answered with a timeout
    /// does not leave its query running. PostgreSQL cancels statements past it
    /// (`statement_timeout`, migrations exempt); SQLite interrupts reads of a
    /// request past its deadline (see [`db::DEADLINE`]).
    pub timeout: Option<Duration>,
    /// SQLite: bytes of the database file each reader maps into memory (SQLite's
    /// `mmap_size`), whose pages it then reads in place rather than copied from
    /// the OS page cache; 0 for none.
    pub sqlite_mmap_bytes: u64,
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
        Store::open_with(url, &StoreOptions::default()).await
    }

    /// [`Store::open`] with a server's options.
    pub async fn open_with(url: &str, options: &StoreOptions) -> Result<Store, StoreError> {
        let store = Store::connect(url, options).await?;
        migrate::run(&store.pool).await?;
        Ok(store)
    }

    /// [`Store::open`] leaving the schema as it is: for a tool reading a database that
    /// another build keeps, such as the benchmarks' manifest of a copy an older server
    /// is about to be measured on (migrating it would measure the newer schema).
    pub async fn open_as_is(url: &str) -> Result<Store, StoreError> {
        Store::connect(url, &StoreOptions::default()).await
    }

    async fn connect(url: &str, options: &StoreOptions) -> Result<Store, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            postgres::setup::ensure_database(url).await?;
            Store {
                pool: postgres::open(url, options.timeout)?,
            }
        } else {
            let path = url
                .strip_prefix("sqlite://")
                .or_else(|| url.strip_prefix("sqlite:"))
                .unwrap_or(url);
            Store {
                pool: sqlite::open(Path::new(path), options.sqlite_mmap_bytes)?,
            }
        };
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.pool.backend()
    }
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
}
