//! Failed authentications, counted per client address and per login over a
//! window; once a key reaches the limit it stays blocked for the rest of its window
//! (what a block refuses is the HTTP layer's decision). On SQLite, where one
//! process serves the database, the counters are in memory; on PostgreSQL every
//! instance shares them in a table, so the limit holds for the deployment, not
//! for each process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Error, Service};
use crate::store::{Backend, auth_failures};

/// Entries kept before expired ones are swept, bounding memory under a spray of addresses.
const SWEEP_AT: usize = 10_000;

pub struct Failures {
    limit: u32,
    window: Duration,
    /// In memory (SQLite); `None` when the database holds them (PostgreSQL).
    local: Option<Mutex<HashMap<String, (u32, Instant)>>>,
}

impl Failures {
    pub fn new(backend: Backend, limit: u32, window: Duration) -> Failures {
        Failures {
            limit: limit.max(1),
            window,
            local: (backend == Backend::Sqlite).then(|| Mutex::new(HashMap::new())),
        }
    }

    fn local_blocked(
        &self,
        counters: &Mutex<HashMap<String, (u32, Instant)>>,
        keys: &[String],
    ) -> Option<u64> {
        let now = Instant::now();
        let counters = counters.lock().unwrap_or_else(|e| e.into_inner());
        keys.iter()
            .filter_map(|k| counters.get(k))
            .filter(|(count, reset)| *count >= self.limit && *reset > now)
            .map(|(_, reset)| (*reset - now).as_secs().max(1))
            .max()
    }

    fn local_record(&self, counters: &Mutex<HashMap<String, (u32, Instant)>>, keys: &[String]) {
        let now = Instant::now();
        let mut counters = counters.lock().unwrap_or_else(|e| e.into_inner());
        if counters.len() >= SWEEP_AT {
            counters.retain(|_, (_, reset)| *reset > now);
        }
        for key in keys {
            let entry = counters
                .entry(key.clone())
                .or_insert((0, now + self.window));
            if entry.1 <= now {
                *entry = (0, now + self.window);
            }
            entry.0 += 1;
        }
    }
}

/// The keys a request's failures count against: its client address, and the
/// login it claims (none for a bearer token).
#[derive(Debug, Default)]
pub struct FailureKeys {
    pub address: Vec<String>,
    pub login: Vec<String>,
}

impl FailureKeys {
    pub fn all(&self) -> Vec<String> {
        self.address.iter().chain(&self.login).cloned().collect()
    }
}

impl Failures {
    pub(super) fn limit(&self) -> u32 {
        self.limit
    }

    /// The keys to look up in the database with the credentials: all of them on
    /// PostgreSQL, none on SQLite (whose counters are here).
    pub(super) fn shared_keys(&self, keys: &FailureKeys) -> Vec<String> {
        match self.local {
            Some(_) => Vec::new(),
            None => keys.all(),
        }
    }

    /// Seconds until the address, and the login, may be heard again, if blocked:
    /// from the counters here, or from `shared` (the database's blocked keys and
    /// when each window ends).
    pub(super) fn blocked(
        &self,
        keys: &FailureKeys,
        shared: &[(String, i64)],
        now: i64,
    ) -> (Option<u64>, Option<u64>) {
        let of = |wanted: &[String]| match &self.local {
            Some(counters) => self.local_blocked(counters, wanted),
            None => shared
                .iter()
                .filter(|(key, _)| wanted.contains(key))
                .map(|(_, until)| (until - now).max(1) as u64)
                .max(),
        };
        (of(&keys.address), of(&keys.login))
    }
}

impl Service {
    /// Seconds until the request's address may be heard again, if it is blocked
    /// (for requests whose credentials could not even be read).
    pub async fn address_blocked(
        &self,
        keys: &FailureKeys,
        now: i64,
    ) -> Result<Option<u64>, Error> {
        let f = &self.failures;
        if let Some(counters) = &f.local {
            return Ok(f.local_blocked(counters, &keys.address));
        }
        let mut conn = self.store.pool.read().await?;
        let blocks = auth_failures::blocked(&mut conn, &keys.address, f.limit, now).await?;
        Ok(f.blocked(keys, &blocks, now).0)
    }

    /// Counts one failed authentication against each key.
    pub async fn auth_failed(&self, keys: &FailureKeys, now: i64) -> Result<(), Error> {
        let f = &self.failures;
        if let Some(counters) = &f.local {
            f.local_record(counters, &keys.all());
            return Ok(());
        }
        let mut tx = self.store.pool.write().await?;
        auth_failures::record(&mut tx, &keys.all(), f.window.as_secs() as i64, now).await?;
        // No answer a cache keeps shows failure counts.
        tx.changes(crate::domain::changes::Changes::nothing());
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_block_after_the_limit_until_the_window_ends() {
        let f = Failures::new(Backend::Sqlite, 3, Duration::from_millis(200));
        let counters = f.local.as_ref().unwrap();
        let keys = vec!["ip:1.2.3.4".to_string()];
        for _ in 0..3 {
            assert_eq!(f.local_blocked(counters, &keys), None);
            f.local_record(counters, &keys);
        }
        assert!(f.local_blocked(counters, &keys).is_some());
        assert_eq!(f.local_blocked(counters, &["ip:5.6.7.8".to_string()]), None);
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(f.local_blocked(counters, &keys), None);
    }
}
