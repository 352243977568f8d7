//! Who is calling: HTTP Basic with an application password, or a bearer token.
//! A credential that does not match is an error, never a fall-back to anonymous.

use axum::http::{HeaderMap, header};
use base64::Engine;

use super::error::ApiError;
use crate::service::Service;
use crate::service::failures::FailureKeys;
use crate::service::users::{Authenticated, Credentials};

/// The keys a request's failures count against: its client address and the login it claims.
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

/// Who the request's credentials name: `Ok(None)` without credentials, the
/// lookup's outcome (with the failure blocks) otherwise.
pub async fn authenticate(
    service: &Service,
    headers: &HeaderMap,
    keys: &FailureKeys,
    now: i64,
) -> Result<Option<Authenticated>, ApiError> {
    match credentials(headers)? {
        None => Ok(None),
        Some(c) => Ok(Some(service.authenticate(&c, keys, now).await?)),
    }
}
