//! Who is calling: HTTP Basic with an application password, or a bearer token.
//! A credential that does not match is an error, never a fall-back to anonymous.

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
    #[test]
    fn secrets_hash_to_hex_sha256() {
        assert_eq!(
            super::hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
