//! Moves SQLite's WAL checkpoints off the write path.
//!
//! By default the connection that commits runs the checkpoint once the WAL holds
//! 1,000 pages, copying them into the database file and syncing it while every
//! other write waits. Here the writer only signals that it committed; a thread
//! with its own connection runs passive checkpoints, which never block writers
//! or readers, at most every [`PAUSE`]. When the log has grown long, it catches up
//! with the writer (passes and syncs that block nobody) and then restarts the log,
//! which holds the writer off only for the little that is left.

use std::fs::File;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::StoreError;

/// The shortest time between two checkpoints.
const PAUSE: Duration = Duration::from_millis(200);

/// WAL frames (pages) left after a passive checkpoint that call for a restarting one.
/// Passive checkpoints never wait, so under steady reads and writes they can keep
/// the log from ever starting over, and it grows without bound; a restarting
/// checkpoint waits for the readers of the log (milliseconds) so the next write
/// starts it from the beginning.
const RESTART_FRAMES: i64 = 4096;

/// Tells the checkpointer that the WAL grew. Dropping it stops the thread and
/// waits for it, so its connection is closed when the store is.
pub struct Checkpointer {
    signal: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    pub fn start(
        conn: rusqlite::Connection,
        path: &Path,
        reopen: super::group_commit::Reopen,
    ) -> Result<Checkpointer, StoreError> {
        let (signal, commits) = mpsc::sync_channel::<()>(1);
        let name = path.display().to_string();
        // Syncing needs no write access: Linux flushes the file, whatever the descriptor.
        let file = File::open(path).map_err(|e| {
            StoreError::Internal(format!("cannot open {name} for the checkpointer: {e}"))
        })?;
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(conn, &reopen, &file, &commits, &name))
            .map_err(|e| StoreError::Internal(format!("cannot start the checkpointer: {e}")))?;
        Ok(Checkpointer {
            signal: Some(signal),
            thread: Some(thread),
        })
    }

    /// Called after each commit; never blocks.
    pub fn committed(&self) {
        if let Some(signal) = &self.signal {
            // Full means a checkpoint is already due: nothing to add.
            let _ = signal.try_send(());
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.signal = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Checkpoints after commits, at most once per [`PAUSE`], until the store closes.
fn run(
    mut conn: rusqlite::Connection,
    reopen: &super::group_commit::Reopen,
    file: &File,
    commits: &Receiver<()>,
    name: &str,
) {
    let mut due = commits.recv().is_ok();
    while due {
        // Opened while the file was read-only, the connection would stay so.
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false)
            && let Ok(writable) = reopen()
        {
            conn = writable;
        }
        if let Err(e) = checkpoint(&conn, file) {
            tracing::warn!(database = %name, error = %e, "WAL checkpoint failed");
        }
        due = false;
        let until = Instant::now() + PAUSE;
        loop {
            match commits.recv_timeout(until.saturating_duration_since(Instant::now())) {
                // Committed during the pause: checkpoint again right after it.
                Ok(()) => due = true,
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if !due {
            due = commits.recv().is_ok();
        }
    }
}

/// Frames a passive pass may still find to copy before the restart runs: the
/// restart copies and syncs about as many while it holds the writer off.
const CAUGHT_UP_FRAMES: i64 = 1024;

/// Passive passes, each followed by a sync, before the restart runs anyway.
const MAX_CATCH_UP: usize = 8;

fn checkpoint(conn: &rusqlite::Connection, file: &File) -> Result<(), String> {
    let (log, mut copied) = passive(conn)?;
    if log < RESTART_FRAMES {
        return Ok(());
    }
    // A restart holds off the writer while it copies what the log gained since the
    // last pass and syncs every page copied since the last sync. At a million
    // events the writer adds ~45,000 frames a second, and a passive pass that
    // could not copy the whole log (readers were still on parts of it) does not
    // sync at all, so a restart right after one took ~100 ms. Passes and syncs
    // that catch up with the writer first leave it a few milliseconds' work.
    for _ in 0..MAX_CATCH_UP {
        file.sync_data().map_err(|e| e.to_string())?;
        let (_, now) = passive(conn)?;
        let gained = now - copied;
        copied = now;
        if gained < CAUGHT_UP_FRAMES {
            break;
        }
    }
    file.sync_data().map_err(|e| e.to_string())?;
    conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// A passive pass: the log's length and how much of it is copied, in frames.
fn passive(conn: &rusqlite::Connection) -> Result<(i64, i64), String> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
        Ok((r.get(1)?, r.get(2)?))
    })
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &Path) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
            .unwrap();
        conn
    }

    /// The log's length in frames, as a passive checkpoint reports it.
    fn log_frames(conn: &rusqlite::Connection) -> i64 {
        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
            .unwrap()
    }

    #[test]
    fn a_long_log_starts_over_after_a_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wal.db");
        let writer = open(&path);
        writer.execute_batch("CREATE TABLE t (b BLOB)").unwrap();
        // Well over RESTART_FRAMES pages of 4 KiB.
        for _ in 0..6 {
            writer
                .execute("INSERT INTO t VALUES (zeroblob(4 * 1024 * 1024))", [])
                .unwrap();
        }
        let checkpointer = open(&path);
        assert!(log_frames(&checkpointer) >= RESTART_FRAMES);
        checkpoint(&checkpointer, &File::open(&path).unwrap()).unwrap();
        writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let frames = log_frames(&checkpointer);
        assert!(frames < 16, "the log went on from {frames} frames");
        let rows: i64 = writer
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 7);
    }
}
