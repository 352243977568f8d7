//! Who is calling: HTTP Basic with an application password, or a bearer token.
//! A credential that does not match is an error, never a fall-back to anonymous.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};
use base64::Engine;
use sha2::{Digest, Sha256};

use super::error::ApiError;
use crate::domain::permissions::Caller;
use crate::store::{Store, users};

/// Hex SHA-256 of a secret: the only form in which secrets are stored.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Counts failed authentications per client address and per login; once a key
/// reaches the limit it stays blocked for the rest of its window (what a block
/// refuses is decided in `dispatch::authenticate`).
///
/// Counters live in this process: with several instances behind a load balancer,
/// the effective limit is the per-instance limit times the number of instances.
pub struct FailureGuard {
    limit: u32,
    window: Duration,
    counters: Mutex<HashMap<String, (u32, Instant)>>,
}

/// Entries kept before expired ones are swept, bounding memory under a spray of addresses.
const SWEEP_AT: usize = 10_000;

impl FailureGuard {
    pub fn new(limit: u32, window: Duration) -> FailureGuard {
        FailureGuard {
            limit: limit.max(1),
            window,
            counters: Mutex::new(HashMap::new()),
        }
    }

    /// Seconds until the first blocked key may try again, if any key is blocked.
    pub fn blocked(&self, keys: &[String]) -> Option<u64> {
        let now = Instant::now();
        let counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        keys.iter()
            .filter_map(|k| counters.get(k))
            .filter(|(count, reset)| *count >= self.limit && *reset > now)
            .map(|(_, reset)| (*reset - now).as_secs().max(1))
            .max()
    }

    pub fn record_failure(&self, keys: &[String]) {
        let now = Instant::now();
        let mut counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
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
pub struct FailureKeys {
    pub address: Vec<String>,
    pub login: Vec<String>,
}

impl FailureKeys {
    pub fn all(&self) -> Vec<String> {
        self.address.iter().chain(&self.login).cloned().collect()
    }
}

pub fn failure_keys(headers: &HeaderMap, client: Option<std::net::IpAddr>) -> FailureKeys {
    let address = vec![format!(
        "ip:{}",
        client.map_or_else(|| "unknown".to_string(), |ip| ip.to_string())
    )];
    let login = basic_login(headers)
        .map(|login| format!("login:{}", login.to_lowercase()))
        .into_iter()
        .collect();
    FailureKeys { address, login }
}

fn basic_login(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, credentials) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(credentials.trim())
        .ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    decoded.split_once(':').map(|(login, _)| login.to_string())
}

pub async fn caller(store: &Store, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(Caller(None));
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::IncorrectPassword)?
        .trim();
    let (scheme, credentials) = value.split_once(' ').unwrap_or((value, ""));
    let credentials = credentials.trim();
    let mut conn = store.pool.read().await?;
    let user = if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(credentials)
            .map_err(|_| ApiError::IncorrectPassword)?;
        let decoded = String::from_utf8(decoded).map_err(|_| ApiError::IncorrectPassword)?;
        let (login, password) = decoded.split_once(':').ok_or(ApiError::IncorrectPassword)?;
        // WordPress shows application passwords in groups of four; clients paste them with spaces.
        let password: String = password.chars().filter(|c| !c.is_whitespace()).collect();
        users::authenticate_basic(&mut conn, login, &hash_secret(&password)).await?
    } else if scheme.eq_ignore_ascii_case("bearer") {
        users::authenticate_bearer(&mut conn, &hash_secret(credentials)).await?
    } else {
        return Err(ApiError::IncorrectPassword);
    };
    user.map(|u| Caller(Some(u)))
        .ok_or(ApiError::IncorrectPassword)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_block_after_the_limit_until_the_window_ends() {
        let guard = FailureGuard::new(3, Duration::from_millis(200));
        let keys = vec!["ip:1.2.3.4".to_string()];
        for _ in 0..3 {
            assert_eq!(guard.blocked(&keys), None);
            guard.record_failure(&keys);
        }
        assert!(guard.blocked(&keys).is_some());
        assert_eq!(guard.blocked(&["ip:5.6.7.8".to_string()]), None);
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(guard.blocked(&keys), None);
    }

    #[test]
    fn secrets_hash_to_hex_sha256() {
        assert_eq!(
            super::hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
