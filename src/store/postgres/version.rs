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
//!
//! One long-lived task does the reads, over a connection of its own that it
//! drives itself ([`PgVersionSource`]): a read is then one task's work from
//! sending to answering, with no pool to check out of and no hand-off between the
//! connection's task and the reader's, which under load would be a wake-up (often
//! of the other core) per read. Before each read the task lets the requests already
//! woken on this core run, so that those arriving right now join it: PostgreSQL
//! then does about 40 % fewer reads per request (measured in `bench/HISTORY.md`).
//!
//! A read also vouches for the version for [`LEASE`] after it was sent: a request
//! that arrives within it takes that read's answer without waiting. That is still
//! never stale, because every write on PostgreSQL waits out the lease between its
//! commit and its acknowledgement ([`Tx`](super::db::Tx)): a write acknowledged
//! before a request arrived committed more than `LEASE` before, so before any read
//! whose lease the request could use was sent. Under load a read then serves every
//! request of half a millisecond or more, instead of each request waiting for
//! one and a half reads. (As when the version is bumped right after the commit, but
//! for up to `LEASE` instead of a moment: a client that saw the write's data before
//! its acknowledgement, through an uncached authenticated read, may still get a
//! cached response without it from another instance.)

use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use super::StoreError;

type Answer = Option<Result<u64, String>>;

/// How long after it was sent a version read answers for, and so how long every
/// write waits between its commit and its acknowledgement (timed precisely:
/// `precise_sleep`). Half of it served reads 7–9 % slower and writes 2–3 %
/// faster (`bench/README.md`). The same constant in
/// every instance sharing a database is what makes the lease safe. (Builds before
/// the lease acknowledged writes at once: during a rolling upgrade from one, a read
/// may miss a write acknowledged by an older instance less than `LEASE` before.)
pub const LEASE: Duration = Duration::from_millis(1);

/// Starts the reading task with the source it was given.
type Start = Box<dyn FnOnce(Weak<Shared>) + Send>;

/// Where the version comes from: one read at a time, by the reading task alone.
pub trait VersionSource: Send + 'static {
    fn read(&mut self) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

pub struct VersionReads {
    shared: Arc<Shared>,
    /// The source, until the first caller starts the reading task with it (a
    /// pool is built outside the runtime, where no task can be started).
    idle_source: Mutex<Option<Start>>,
    /// [`LEASE`], but for tests.
    lease: Duration,
}

struct Shared {
    rounds: Mutex<Rounds>,
    /// Wakes the reading task when a round is pending, or when the readers are gone.
    wake: Notify,
}

#[derive(Default)]
struct Rounds {
    /// A read is under way (the task starts the pending one when it ends).
    running: bool,
    /// The read that has not started yet, which new arrivals join.
    pending: Option<watch::Sender<Answer>>,
    /// The newest answer and when its read was sent: it holds for [`LEASE`] from then.
    lease: Option<(u64, Instant)>,
}

impl VersionReads {
    pub fn new(source: impl VersionSource) -> VersionReads {
        VersionReads::with_lease(source, LEASE)
    }

    fn with_lease(source: impl VersionSource, lease: Duration) -> VersionReads {
        let start = move |shared: Weak<Shared>| {
            tokio::spawn(run(source, shared));
        };
        VersionReads {
            shared: Arc::new(Shared {
                rounds: Mutex::default(),
                wake: Notify::new(),
            }),
            idle_source: Mutex::new(Some(Box::new(start))),
            lease,
        }
    }

    /// A data version no older than any write acknowledged before this call began:
    /// a lease's, or that of a read sent after the call began.
    pub async fn current(&self) -> Result<u64, StoreError> {
        if let Some(start) = self.lock_source().take() {
            start(Arc::downgrade(&self.shared));
        }
        let mut answer = {
            let mut rounds = self.shared.lock_rounds();
            if let Some((version, sent)) = rounds.lease {
                let age = sent.elapsed();
                if age < self.lease {
                    // Past half its life, the next lease is read in the background,
                    // so that under steady load nobody waits for one.
                    if age >= self.lease / 2 && !rounds.running && rounds.pending.is_none() {
                        rounds.pending = Some(watch::Sender::new(None));
                        self.shared.wake.notify_one();
                    }
                    return Ok(version);
                }
            }
            let answer = match &rounds.pending {
                Some(pending) => pending.subscribe(),
                None => {
                    let (pending, answer) = watch::channel(None);
                    rounds.pending = Some(pending);
                    answer
                }
            };
            if !rounds.running {
                self.shared.wake.notify_one();
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

    fn lock_source(&self) -> std::sync::MutexGuard<'_, Option<Start>> {
        self.idle_source.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for VersionReads {
    /// The reading task ends, closing its connection (a test database can then be dropped).
    fn drop(&mut self) {
        self.shared.wake.notify_one();
    }
}

impl Shared {
    fn lock_rounds(&self) -> std::sync::MutexGuard<'_, Rounds> {
        self.rounds.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Runs pending reads one after the other, for as long as anyone can ask for one.
async fn run(mut source: impl VersionSource, shared: Weak<Shared>) {
    loop {
        let Some(round) = ({
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let notified = shared.wake.notified();
            // Requests this core has just woken (the last read's) answer first, and
            // those among them asking again join this read instead of the next.
            tokio::task::yield_now().await;
            let next = {
                let mut rounds = shared.lock_rounds();
                let next = rounds.pending.take();
                rounds.running = next.is_some();
                next
            };
            if next.is_none() {
                // Idle until someone asks (a permit left by an earlier ask returns at once).
                notified.await;
            }
            next
        }) else {
            continue;
        };
        // From here on, arrivals start a new pending round.
        let sent = Instant::now();
        let answer = source.read().await.map_err(|e| e.to_string());
        if let (Ok(version), Some(shared)) = (&answer, shared.upgrade()) {
            shared.lock_rounds().lease = Some((*version, sent));
        }
        round.send_replace(Some(answer));
    }
}

/// Reads the version over a connection of its own, opened on first use and again
/// after it fails.
pub struct PgVersionSource {
    config: tokio_postgres::Config,
    connection: Option<PgVersionConnection>,
}

struct PgVersionConnection {
    client: tokio_postgres::Client,
    /// Driven by the reading task itself, only while a read is under way: between
    /// reads there is nothing for it to do.
    io: tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>,
    statement: tokio_postgres::Statement,
}

/// How long one read may take before the connection is given up on.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

impl PgVersionSource {
    pub fn new(config: tokio_postgres::Config) -> PgVersionSource {
        PgVersionSource {
            config,
            connection: None,
        }
    }

    async fn connect(config: &tokio_postgres::Config) -> Result<PgVersionConnection, StoreError> {
        let (client, mut io) = config.connect(tokio_postgres::NoTls).await?;
        let prepare = client.prepare("SELECT last_value FROM calendar_data_version");
        let statement = drive(&mut io, prepare).await?;
        Ok(PgVersionConnection {
            client,
            io,
            statement,
        })
    }

    async fn read_once(&mut self) -> Result<u64, StoreError> {
        let connection = match &mut self.connection {
            Some(c) => c,
            None => self.connection.insert(Self::connect(&self.config).await?),
        };
        let PgVersionConnection {
            client,
            io,
            statement,
        } = connection;
        let row = drive(io, client.query_one(&*statement, &[])).await?;
        Ok(row.try_get::<_, i64>(0)? as u64)
    }
}

impl VersionSource for PgVersionSource {
    async fn read(&mut self) -> Result<u64, StoreError> {
        let had_connection = self.connection.is_some();
        match tokio::time::timeout(READ_TIMEOUT, self.read_once()).await {
            Ok(Ok(version)) => return Ok(version),
            Ok(Err(e)) => {
                self.connection = None;
                if !had_connection {
                    return Err(e);
                }
            }
            Err(_) => {
                self.connection = None;
                return Err(StoreError::Unavailable(
                    "data version read timed out".into(),
                ));
            }
        }
        // A connection that was fine at its last read may since have been closed
        // (PostgreSQL restarted, an idle timeout): one more try, on a new one.
        match tokio::time::timeout(READ_TIMEOUT, self.read_once()).await {
            Ok(Ok(version)) => Ok(version),
            Ok(Err(e)) => {
                self.connection = None;
                Err(e)
            }
            Err(_) => {
                self.connection = None;
                Err(StoreError::Unavailable(
                    "data version read timed out".into(),
                ))
            }
        }
    }
}

/// Runs `request` while driving the connection it goes over.
async fn drive<T>(
    io: &mut tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>,
    request: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, StoreError> {
    let request = std::pin::pin!(request);
    match futures_util::future::select(request, io).await {
        futures_util::future::Either::Left((answer, _)) => Ok(answer?),
        futures_util::future::Either::Right((closed, _)) => {
            Err(StoreError::Unavailable(closed.err().map_or_else(
                || "the data version connection closed".to_string(),
                |e| e.to_string(),
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A database whose version a test sets; each read sees it as of the read's start.
    struct Fake {
        committed: Arc<AtomicU64>,
        reads: Arc<AtomicU64>,
        fail_next: Arc<AtomicU64>,
        takes: Duration,
    }

    impl VersionSource for Fake {
        async fn read(&mut self) -> Result<u64, StoreError> {
            let seen = self.committed.load(Ordering::SeqCst);
            self.reads.fetch_add(1, Ordering::SeqCst);
            if self.fail_next.swap(0, Ordering::SeqCst) == 1 {
                return Err(StoreError::Unavailable("connection refused".into()));
            }
            tokio::time::sleep(self.takes).await;
            Ok(seen)
        }
    }

    type Fixture = (VersionReads, Arc<AtomicU64>, Arc<AtomicU64>, Arc<AtomicU64>);

    /// Reads that take 50 ms, with the real lease: every lease has run out by the
    /// time its read answers.
    fn fake() -> Fixture {
        fake_with(Duration::from_millis(50), LEASE)
    }

    fn fake_with(takes: Duration, lease: Duration) -> Fixture {
        let (committed, reads, fail_next) = (Arc::default(), Arc::default(), Arc::default());
        let source = Fake {
            committed: Arc::clone(&committed),
            reads: Arc::clone(&reads),
            fail_next: Arc::clone(&fail_next),
            takes,
        };
        let versions = VersionReads::with_lease(source, lease);
        (versions, committed, reads, fail_next)
    }

    #[tokio::test]
    async fn a_read_answers_for_its_lease_and_no_longer() {
        let (versions, committed, reads, _) = fake_with(Duration::ZERO, Duration::from_secs(60));
        assert_eq!(versions.current().await.unwrap(), 0);
        committed.store(4, Ordering::SeqCst);
        assert_eq!(versions.current().await.unwrap(), 0, "within the lease");
        assert_eq!(reads.load(Ordering::SeqCst), 1);

        let (versions, committed, reads, _) = fake_with(Duration::ZERO, Duration::ZERO);
        assert_eq!(versions.current().await.unwrap(), 0);
        committed.store(4, Ordering::SeqCst);
        assert_eq!(
            versions.current().await.unwrap(),
            4,
            "no lease: a read of its own"
        );
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_lease_past_half_its_life_is_renewed_in_the_background() {
        let lease = Duration::from_secs(2);
        let (versions, committed, reads, _) = fake_with(Duration::ZERO, lease);
        assert_eq!(versions.current().await.unwrap(), 0);
        tokio::time::sleep(lease * 6 / 10).await;
        committed.store(9, Ordering::SeqCst);
        // Still within the lease: answered at once, and a new read starts.
        assert_eq!(versions.current().await.unwrap(), 0);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(reads.load(Ordering::SeqCst), 2, "renewed");
        assert_eq!(versions.current().await.unwrap(), 9, "from the new lease");
        assert_eq!(reads.load(Ordering::SeqCst), 2, "without a read of its own");
    }

    #[tokio::test]
    async fn a_caller_never_gets_a_read_that_started_before_it_arrived() {
        let (versions, committed, reads, _) = fake();
        let versions = Arc::new(versions);
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
        let (versions, committed, _, fail_next) = fake();
        committed.store(3, Ordering::SeqCst);
        fail_next.store(1, Ordering::SeqCst);
        assert!(versions.current().await.is_err());
        assert_eq!(versions.current().await.unwrap(), 3);
    }

    #[tokio::test]
    async fn the_reading_task_ends_with_the_readers() {
        let (versions, _, _, _) = fake();
        versions.current().await.unwrap();
        let shared = Arc::downgrade(&versions.shared);
        drop(versions);
        // The task held only a weak reference, and was woken to notice.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(shared.upgrade().is_none());
    }
}
