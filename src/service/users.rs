//! Users and their secrets: who is calling (an application password or a bearer
//! token, checked against the stored hashes), and the accounts the command line
//! manages.

use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

use super::failures::FailureKeys;
use super::{Error, Service};
use crate::domain::permissions::{Caller, Role, User};
use crate::store::StoreError;
use crate::store::users::{self, CredentialKind};

/// What a request presents to say who it is.
#[derive(Clone, Debug)]
pub enum Credentials {
    /// HTTP Basic: a login and an application password.
    Basic { login: String, password: String },
    /// A bearer token.
    Bearer(String),
}

/// Hex SHA-256 of a secret: the only form in which secrets are stored.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Who a request's credentials name, and which of its failure keys are blocked.
pub struct Authenticated {
    /// `None` when the credentials match nobody.
    pub caller: Option<Caller>,
    /// Seconds until the request's address may try again, if it is blocked.
    pub address_blocked: Option<u64>,
    /// Seconds until wrong secrets for the login are heard again, if it is blocked.
    pub login_blocked: Option<u64>,
}

impl Service {
    /// Looks the credentials up and, in the same flight on PostgreSQL, whether the
    /// request's address or login has too many recent failures (see
    /// `service::failures`). An unknown login and a wrong secret cost the same work.
    pub async fn authenticate(
        &self,
        credentials: &Credentials,
        keys: &FailureKeys,
        now: i64,
    ) -> Result<Authenticated, Error> {
        let hash = match credentials {
            // WordPress shows application passwords in groups of four; clients paste them with spaces.
            Credentials::Basic { password, .. } => hash_secret(
                &password
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>(),
            ),
            Credentials::Bearer(token) => hash_secret(token),
        };
        let lookup = match credentials {
            Credentials::Basic { login, .. } => users::Lookup::Basic {
                login,
                secret_hash: &hash,
            },
            Credentials::Bearer(_) => users::Lookup::Bearer { secret_hash: &hash },
        };
        let shared = self.failures.shared_keys(keys);
        let mut conn = self.store.pool.read().await?;
        let (user, blocks) =
            users::authenticate(&mut conn, lookup, &shared, self.failures.limit(), now).await?;
        drop(conn);
        let (address_blocked, login_blocked) = self.failures.blocked(keys, &blocks, now);
        Ok(Authenticated {
            caller: user.map(|u| Caller(Some(u))),
            address_blocked,
            login_blocked,
        })
    }
}

/// 24 random bytes (192 bits), URL-safe base64: 32 characters.
fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Why an account command did not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("a login is 1 to 60 characters and has no ':'")]
    BadLogin,
    #[error("user {0:?} already exists")]
    Exists(String),
    #[error("no user {0:?}")]
    NoSuchUser(String),
    #[error("no such token")]
    NoSuchToken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Service {
    /// Creates a user and an application password for them, shown only here.
    pub async fn create_user(
        &self,
        login: &str,
        role: Role,
    ) -> Result<(User, String), AccountError> {
        if login.trim().is_empty() || login.contains(':') || login.len() > 60 {
            return Err(AccountError::BadLogin);
        }
        let mut tx = self.store.pool.write().await?;
        let user = users::create(&mut tx, login, role, chrono::Utc::now().timestamp())
            .await
            .map_err(|e| match e {
                StoreError::Conflict(_) => AccountError::Exists(login.to_string()),
                other => other.into(),
            })?;
        tx.commit().await?;
        let secret = self
            .issue(user.id, CredentialKind::AppPassword, "cli")
            .await?;
        Ok((user, secret))
    }

    pub async fn users(&self) -> Result<Vec<User>, AccountError> {
        let mut conn = self.store.pool.read().await?;
        Ok(users::list(&mut conn).await?)
    }

    /// Deletes a user and their credentials.
    pub async fn delete_user(&self, login: &str) -> Result<(), AccountError> {
        let mut tx = self.store.pool.write().await?;
        let deleted = users::delete(&mut tx, login).await?;
        tx.commit().await?;
        match deleted {
            true => Ok(()),
            false => Err(AccountError::NoSuchUser(login.to_string())),
        }
    }

    /// A new bearer token for a user, shown only here.
    pub async fn create_token(&self, login: &str, name: &str) -> Result<String, AccountError> {
        let user = {
            let mut conn = self.store.pool.read().await?;
            users::by_login(&mut conn, login).await?
        };
        let user = user.ok_or_else(|| AccountError::NoSuchUser(login.to_string()))?;
        self.issue(user.id, CredentialKind::Token, name).await
    }

    /// Revokes a token or application password.
    pub async fn revoke(&self, secret: &str) -> Result<(), AccountError> {
        let mut tx = self.store.pool.write().await?;
        let revoked = users::revoke_secret(&mut tx, &hash_secret(secret.trim())).await?;
        tx.commit().await?;
        match revoked {
            true => Ok(()),
            false => Err(AccountError::NoSuchToken),
        }
    }

    async fn issue(
        &self,
        user_id: i64,
        kind: CredentialKind,
        name: &str,
    ) -> Result<String, AccountError> {
        let secret = new_secret();
        let mut tx = self.store.pool.write().await?;
        let now = chrono::Utc::now().timestamp();
        users::add_secret(&mut tx, user_id, kind, name, &hash_secret(&secret), now).await?;
        tx.commit().await?;
        Ok(secret)
    }
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
