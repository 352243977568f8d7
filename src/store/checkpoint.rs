//! Moves SQLite's WAL checkpoints off the write path.
//!
//! By default the connection that commits runs the checkpoint once the WAL holds
//! 1,000 pages, copying them into the database file and syncing it while every
//! other write waits. Here the writer only signals that it committed; a thread
//! with its own connection runs passive checkpoints, which never block writers
//! or readers, at most every [`PAUSE`].

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
    pub fn start(conn: rusqlite::Connection, path: &Path) -> Result<Checkpointer, StoreError> {
        let (signal, commits) = mpsc::sync_channel::<()>(1);
        let name = path.display().to_string();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(&conn, &commits, &name))
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
fn run(conn: &rusqlite::Connection, commits: &Receiver<()>, name: &str) {
    let mut due = commits.recv().is_ok();
    while due {
        if let Err(e) = checkpoint(conn) {
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

fn checkpoint(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let frames: i64 = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))?;
    if frames >= RESTART_FRAMES {
        conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))?;
    }
    Ok(())
}
