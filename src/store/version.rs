//! Reads of PostgreSQL's data version, shared by the requests that need one at
//! the same time.
//!
//! Every anonymous read asks for the data version before it may use the response
//! cache, and on PostgreSQL that is a round trip. Requests that arrive while a
//! read is under way cannot use its answer — it may predate a write they must
//! see — but they can all use the next one: a read that starts after a request
//! arrived sees every write committed before that request arrived. So at most
//! one read runs and one is pending; everyone who arrives meanwhile joins the
//! pending one. Under load that turns thousands of round trips per second into
//! a few hundred, each request waiting at most two of them.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::StoreError;

type Answer = Option<Result<u64, String>>;
type Fetch =
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<u64, StoreError>> + Send>> + Send + Sync;

pub struct VersionReads {
    fetch: Arc<Fetch>,
    rounds: Arc<Mutex<Rounds>>,
}

#[derive(Default)]
struct Rounds {
    /// A read is under way (its task also starts the pending one when it ends).
    running: bool,
    /// The read that has not started yet, which new arrivals join.
    pending: Option<watch::Sender<Answer>>,
}

impl VersionReads {
    pub fn new(
        fetch: impl Fn() -> Pin<Box<dyn Future<Output = Result<u64, StoreError>> + Send>>
        + Send
        + Sync
        + 'static,
    ) -> VersionReads {
        VersionReads {
            fetch: Arc::new(fetch),
            rounds: Arc::default(),
        }
    }

    /// The data version as of a moment after this call began.
    pub async fn current(&self) -> Result<u64, StoreError> {
        let mut answer = {
            let mut rounds = self.rounds.lock().unwrap_or_else(|e| e.into_inner());
            let answer = match &rounds.pending {
                Some(pending) => pending.subscribe(),
                None => {
                    let (pending, answer) = watch::channel(None);
                    rounds.pending = Some(pending);
                    answer
                }
            };
            if !rounds.running {
                rounds.running = true;
                tokio::spawn(run(self.fetch.clone(), self.rounds.clone()));
            }
            answer
        };
        let answer = answer
            .wait_for(Option::is_some)
            .await
            .map_err(|_| StoreError::Unavailable("data version read abandoned".into()))?;
        match answer.as_ref() {
            Some(Ok(version)) => Ok(*version),
            Some(Err(e)) => Err(StoreError::Unavailable(e.clone())),
            None => Err(StoreError::Internal("data version not read".into())),
        }
    }
}

/// Runs pending reads one after the other until none is left.
async fn run(fetch: Arc<Fetch>, rounds: Arc<Mutex<Rounds>>) {
    /// Should this task be dropped half-way (the runtime shutting down), the
    /// next caller starts another instead of waiting for this one forever.
    struct Stopped(Arc<Mutex<Rounds>>);
    impl Drop for Stopped {
        fn drop(&mut self) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).running = false;
        }
    }
    let _stopped = Stopped(rounds.clone());
    loop {
        let Some(round) = ({
            let mut r = rounds.lock().unwrap_or_else(|e| e.into_inner());
            let next = r.pending.take();
            r.running = next.is_some();
            next
        }) else {
            return;
        };
        // From here on, arrivals start a new pending round.
        let answer = fetch().await.map_err(|e| e.to_string());
        round.send_replace(Some(answer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// A database whose version a test sets; each read sees it as of the read's start.
    fn fake(committed: Arc<AtomicU64>, reads: Arc<AtomicU64>) -> VersionReads {
        VersionReads::new(move || {
            let seen = committed.load(Ordering::SeqCst);
            reads.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok(seen)
            })
        })
    }

    #[tokio::test]
    async fn a_caller_never_gets_a_read_that_started_before_it_arrived() {
        let committed = Arc::new(AtomicU64::new(0));
        let reads = Arc::new(AtomicU64::new(0));
        let versions = Arc::new(fake(committed.clone(), reads.clone()));
        let first = tokio::spawn({
            let v = versions.clone();
            async move { v.current().await.unwrap() }
        });
        // The first read is under way when the write commits and the others arrive.
        tokio::time::sleep(Duration::from_millis(10)).await;
        committed.store(7, Ordering::SeqCst);
        let later: Vec<_> = (0..20)
            .map(|_| {
                let v = versions.clone();
                tokio::spawn(async move { v.current().await.unwrap() })
            })
            .collect();
        assert_eq!(first.await.unwrap(), 0);
        for answer in later {
            assert_eq!(answer.await.unwrap(), 7, "sees the write before it arrived");
        }
        assert_eq!(
            reads.load(Ordering::SeqCst),
            2,
            "the twenty shared one read"
        );
        // Idle again: the next caller starts a read of its own.
        committed.store(8, Ordering::SeqCst);
        assert_eq!(versions.current().await.unwrap(), 8);
        assert_eq!(reads.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_failed_read_fails_its_callers_only() {
        let fail = Arc::new(AtomicU64::new(1));
        let versions = VersionReads::new({
            let fail = fail.clone();
            move || {
                let failing = fail.swap(0, Ordering::SeqCst) == 1;
                Box::pin(async move {
                    if failing {
                        Err(StoreError::Unavailable("connection refused".into()))
                    } else {
                        Ok(3)
                    }
                })
            }
        });
        assert!(versions.current().await.is_err());
        assert_eq!(versions.current().await.unwrap(), 3);
    }
}
