//! Waits shorter than tokio's timer can time.
//!
//! tokio rounds every deadline up to its next millisecond tick, which turned the
//! millisecond a PostgreSQL write waits before its answer (see
//! [`version::LEASE`](super::version::LEASE)) into 1–2 ms. Here one thread of
//! its own sleeps until the earliest deadline on the kernel's high-resolution
//! timers (tens of microseconds late, not a millisecond) and wakes whoever's
//! deadline has passed.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use tokio::sync::oneshot;

/// Returns at `at` or later, never earlier.
pub async fn sleep_until(at: Instant) {
    if at <= Instant::now() {
        return;
    }
    let Some(sleeper) = sleeper() else {
        return tokio::time::sleep_until(at.into()).await;
    };
    let (wake, woken) = oneshot::channel();
    sleeper.add(at, wake);
    if woken.await.is_err() {
        // The thread never drops a waiter before its time; should it, stay correct.
        tokio::time::sleep_until(at.into()).await;
    }
}

struct Sleeper {
    waiting: Mutex<Waiting>,
    changed: Condvar,
}

#[derive(Default)]
struct Waiting {
    /// By deadline, then by arrival (two may share an instant).
    wakes: BTreeMap<(Instant, u64), oneshot::Sender<()>>,
    next: u64,
}

/// The sleeping thread, started on first use; `None` if it could not be started.
fn sleeper() -> Option<&'static Sleeper> {
    static SLEEPER: OnceLock<Option<&'static Sleeper>> = OnceLock::new();
    *SLEEPER.get_or_init(|| {
        let sleeper: &'static Sleeper = Box::leak(Box::new(Sleeper {
            waiting: Mutex::default(),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("precise-sleep".into())
            .spawn(move || sleeper.run())
            .ok()
            .map(|_| sleeper)
    })
}

impl Sleeper {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, at: Instant, wake: oneshot::Sender<()>) {
        let mut waiting = self.lock();
        let earliest = waiting
            .wakes
            .first_key_value()
            .is_none_or(|((first, _), _)| at < *first);
        let n = waiting.next;
        waiting.next += 1;
        waiting.wakes.insert((at, n), wake);
        drop(waiting);
        if earliest {
            self.changed.notify_one();
        }
    }

    fn run(&self) {
        let mut waiting = self.lock();
        loop {
            let now = Instant::now();
            while let Some(entry) = waiting.wakes.first_entry()
                && entry.key().0 <= now
            {
                let _ = entry.remove().send(());
            }
            let next = waiting.wakes.first_key_value().map(|((at, _), _)| *at);
            waiting = match next {
                Some(at) => {
                    self.changed
                        .wait_timeout(waiting, at - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self
                    .changed
                    .wait(waiting)
                    .unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn nobody_wakes_before_their_deadline() {
        let start = Instant::now();
        // Deadlines in scrambled order, some shared, some already past.
        let waits: Vec<_> = (0..200u64)
            .map(|i| start + Duration::from_micros((i * 7_919) % 3_000))
            .map(|at| {
                tokio::spawn(async move {
                    sleep_until(at).await;
                    (at, Instant::now())
                })
            })
            .collect();
        for wait in waits {
            let (at, woke) = wait.await.unwrap();
            assert!(woke >= at, "woke {:?} early", at - woke);
        }
    }

    #[tokio::test]
    async fn a_sleep_outlasts_its_duration_on_a_single_thread_runtime_too() {
        let start = Instant::now();
        sleep_until(start + Duration::from_micros(400)).await;
        assert!(start.elapsed() >= Duration::from_micros(400));
    }
}
