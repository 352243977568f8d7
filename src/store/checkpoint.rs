//! Moves SQLite's WAL checkpoints off the write path.
//!
//! By default the connection that commits runs the checkpoint once the WAL holds
//! 1,000 pages, copying them into the database file and syncing it while every
//! other write waits. Here the writer only signals that it committed; a thread
//! with its own connection runs passive checkpoints, which never block writers
//! or readers, at most every [`PAUSE`].

use std::path::Path;
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::time::Duration;

use super::StoreError;

/// The shortest time between two checkpoints.
const PAUSE: Duration = Duration::from_millis(200);

/// Tells the checkpointer that the WAL grew. Dropping it stops the thread.
pub struct Checkpointer {
    signal: SyncSender<()>,
}

impl Checkpointer {
    pub fn start(conn: rusqlite::Connection, path: &Path) -> Result<Checkpointer, StoreError> {
        let (signal, commits) = mpsc::sync_channel::<()>(1);
        let name = path.display().to_string();
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                while commits.recv().is_ok() {
                    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::warn!(database = %name, error = %e, "WAL checkpoint failed");
                    }
                    std::thread::sleep(PAUSE);
                }
            })
            .map_err(|e| StoreError::Internal(format!("cannot start the checkpointer: {e}")))?;
        Ok(Checkpointer { signal })
    }

    /// Called after each commit; never blocks.
    pub fn committed(&self) {
        match self.signal.try_send(()) {
            Ok(()) | Err(TrySendError::Full(())) | Err(TrySendError::Disconnected(())) => {}
        }
    }
}
