//! SQLite: the connections (one writer behind group commit, pooled readers, a
//! checkpoint thread), how each is set up, and the work deferred after commits.

pub(super) mod checkpoint;
mod conn;
mod functions;
pub(super) mod group_commit;

use std::path::Path;
use std::time::Duration;

pub use conn::SqliteConn;

use super::{Pool, StoreError, db};

/// Runs SQLite work that may take long (a scan, a search-index batch, a wait for
/// a lock) off the async runtime's core: the worker hands its other tasks to
/// another thread while this one works, so it stalls none of the requests behind
/// it (`/health` included). Handing the core over costs about as much as a point
/// read, so short statements run as they are: moving every statement cost creates
/// 30–40 % of their throughput and uncached reads by ID half of theirs
/// (bench/HISTORY.md). Outside a multi-threaded runtime it simply runs.
pub(in crate::store) fn blocking<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// [`blocking`] for a whole query that `may_scan`: one hand-over for all of its
/// statements. The hand-over costs an uncached list about a quarter of its
/// throughput, so lists that read only what their indexes lead to (the default
/// window, a plain page of venues) run as they are. PostgreSQL's work happens in
/// its own process: its queries run as they are.
pub(in crate::store) async fn scanning<F: Future>(
    backend: super::Backend,
    may_scan: bool,
    query: F,
) -> F::Output {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h)
            if may_scan
                && backend == super::Backend::Sqlite
                && h.runtime_flavor() == RuntimeFlavor::MultiThread =>
        {
            tokio::task::block_in_place(|| h.block_on(query))
        }
        _ => query.await,
    }
}

/// Indexes the events writes queued for search (see migration 0002) in batches:
/// FTS5 writes a new segment, and later merges it, at every flush, so indexing
/// a few hundred events at once costs far less than one group's worth at a time.
/// Until then, searches find queued events by scanning them (`store::events`),
/// so every committed event is searchable at once either way. Venues and
/// organizers are queued and indexed alike (migration 12, `store::posts::list`).
const SQLITE_AFTER_COMMIT: group_commit::AfterCommit = group_commit::AfterCommit {
    pending: "SELECT (SELECT count(*) FROM search_queue) + \
              (SELECT count(*) FROM linked_search_queue)",
    run: &[
        "INSERT INTO posts_fts(rowid, title, excerpt, description) \
         SELECT p.id, p.title, p.excerpt, p.description \
         FROM search_queue q JOIN posts p ON p.id = q.id",
        SEARCH_GRAMS_OF_QUEUED[0],
        SEARCH_GRAMS_OF_QUEUED[1],
        SEARCH_WORDS_OF_QUEUED[0],
        SEARCH_WORDS_OF_QUEUED[1],
        "DELETE FROM search_queue",
        super::posts::INDEX_QUEUED_LINKED[0],
        super::posts::INDEX_QUEUED_LINKED[1],
        super::posts::INDEX_QUEUED_LINKED[2],
    ],
    batch: SEARCH_INDEX_BATCH,
    max_age: Duration::from_secs(1),
};

/// The characters and pairs of characters of the queued events' text, for searches
/// of words shorter than a trigram (migration 13).
const SEARCH_GRAMS_OF_QUEUED: [&str; 2] = [
    "INSERT OR IGNORE INTO search_chars (ch) SELECT value FROM json_each((\
     SELECT search_grams_of(1, p.title, p.excerpt, p.description) \
     FROM search_queue q JOIN posts p ON p.id = q.id))",
    "INSERT OR IGNORE INTO search_pairs (pair) SELECT value FROM json_each((\
     SELECT search_grams_of(2, p.title, p.excerpt, p.description) \
     FROM search_queue q JOIN posts p ON p.id = q.id))",
];

/// The queued events' pieces of text, for the index of whole words and its
/// vocabulary (migration 51).
const SEARCH_WORDS_OF_QUEUED: [&str; 2] = [
    "INSERT INTO posts_words(rowid, words) \
     SELECT p.id, search_words_in(p.title, p.excerpt, p.description) \
     FROM search_queue q JOIN posts p ON p.id = q.id",
    "INSERT OR IGNORE INTO search_words (word) SELECT value FROM json_each((\
     SELECT search_words_of(p.title, p.excerpt, p.description) \
     FROM search_queue q JOIN posts p ON p.id = q.id))",
];

/// The most events, venues and organizers a search scans rather than looks up in
/// the index.
pub const SEARCH_INDEX_BATCH: i64 = 128;

/// Waits up to 5 s for a lock another connection holds, retrying every millisecond.
/// SQLite's own busy timeout backs off to 100 ms sleeps, so a writer could oversleep
/// a checkpoint's short hold of the write lock by tens of milliseconds.
fn wait_for_lock(attempt: i32) -> bool {
    blocking(|| std::thread::sleep(Duration::from_millis(1)));
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
    functions::register(&conn)?;
    Ok(conn)
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
    // A small page cache: a create touches pages all over the indexes, which the OS
    // page cache holds as well; at a million events under the 90/10 mix, 8 MiB here
    // cost 18 MiB of RSS and bought no throughput (bench/HISTORY.md).
    conn.execute_batch(
        "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864;
         PRAGMA cache_size = -1000;",
    )?;
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

pub(super) fn open(path: &Path, mmap_bytes: u64) -> Result<Pool, StoreError> {
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
    let n = readers();
    let readers = sqlite_pool(n);
    for _ in 0..n {
        let conn = sqlite_connection(path)?;
        // 3 MiB each keeps the process under 64 MB at a million events, with every
        // scenario of the benchmark run on one server; the pages they drop stay in
        // the OS page cache.
        conn.execute_batch("PRAGMA query_only = ON; PRAGMA cache_size = -3000;")?;
        // Unmapped, a read of many rows (a search's) spends a quarter of its time
        // copying pages from the OS page cache; mapped, the RSS counts those pages
        // (`--sqlite-mmap-mb`).
        if mmap_bytes > 0 {
            // SQLite takes a signed size, and maps no more than its build allows.
            let size = i64::try_from(mmap_bytes).unwrap_or(i64::MAX);
            conn.pragma_update(None, "mmap_size", size)?;
        }
        // A read runs inside one poll of its request's task, so the task's deadline is
        // in reach here. Writers are never interrupted: that would roll back their group.
        conn.progress_handler(PROGRESS_STEPS, Some(db::past_deadline))?;
        readers
            .try_add(conn)
            .map_err(|(_, e)| StoreError::Internal(e.to_string()))?;
    }
    Ok(Pool::Sqlite { writer, readers })
}

/// Pooled reader connections: two per core.
pub fn readers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}

/// SQLite virtual-machine steps between two looks at the clock: well under a
/// millisecond of work, and too rare to cost anything measurable.
const PROGRESS_STEPS: std::ffi::c_int = 20_000;

#[cfg(test)]
mod tests {
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

    /// The readers map as much of the file as `--sqlite-mmap-mb` says, up to what
    /// SQLite's build allows.
    #[tokio::test]
    async fn readers_map_the_file_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        // Past 2 GiB, SQLite's default build would map 2 GiB; past 1 TiB, ours maps
        // 1 TiB (`.cargo/config.toml`).
        for (asked, mapped) in [
            (0, 0),
            (64 << 20, 64 << 20),
            (4 << 30, 4 << 30),
            (u64::MAX, 1 << 40),
        ] {
            let path = dir.path().join(format!("mapped-{mapped}.db"));
            let super::super::Pool::Sqlite { readers, .. } = super::open(&path, asked).unwrap()
            else {
                unreachable!("a SQLite pool");
            };
            let mut held = Vec::new();
            for _ in 0..super::readers() {
                let conn = readers.get().await.unwrap();
                let size: u64 = conn
                    .pragma_query_value(None, "mmap_size", |r| r.get(0))
                    .unwrap();
                assert_eq!(size, mapped, "{asked}");
                held.push(conn);
            }
        }
    }

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
