//! Who is calling: HTTP Basic with an application password, or a bearer token.
//! A credential that does not match is an error, never a fall-back to anonymous.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};
use base64::Engine;

use super::error::ApiError;
use crate::domain::permissions::Caller;
use crate::service::Service;
use crate::service::users::Credentials;

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

/// What the `Authorization` header presents; `Ok(None)` when there is none.
fn credentials(headers: &HeaderMap) -> Result<Option<Credentials>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::IncorrectPassword)?
        .trim();
    let (scheme, credentials) = value.split_once(' ').unwrap_or((value, ""));
    let credentials = credentials.trim();
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(credentials)
            .map_err(|_| ApiError::IncorrectPassword)?;
        let decoded = String::from_utf8(decoded).map_err(|_| ApiError::IncorrectPassword)?;
        let (login, password) = decoded.split_once(':').ok_or(ApiError::IncorrectPassword)?;
        return Ok(Some(Credentials::Basic {
            login: login.to_string(),
            password: password.to_string(),
        }));
    }
    if scheme.eq_ignore_ascii_case("bearer") {
        return Ok(Some(Credentials::Bearer(credentials.to_string())));
    }
    Err(ApiError::IncorrectPassword)
}

/// The caller the request's credentials name; a credential that names nobody is a
/// 401, never a fall-back to anonymous.
pub async fn caller(service: &Service, headers: &HeaderMap) -> Result<Caller, ApiError> {
    match credentials(headers)? {
        None => Ok(Caller(None)),
        Some(c) => service
            .authenticate(&c)
            .await?
            .ok_or(ApiError::IncorrectPassword),
    }
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
}
