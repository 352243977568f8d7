//! Who is calling: an application password or a bearer token, checked against
//! the stored hashes.

use sha2::{Digest, Sha256};

use super::{Error, Service};
use crate::domain::permissions::Caller;
use crate::store::users;

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

impl Service {
    /// The user the credentials name, or `None` when they match nobody. An unknown
    /// login and a wrong secret cost the same work.
    pub async fn authenticate(&self, credentials: &Credentials) -> Result<Option<Caller>, Error> {
        let mut conn = self.store.pool.read().await?;
        let user = match credentials {
            Credentials::Basic { login, password } => {
                // WordPress shows application passwords in groups of four; clients paste them with spaces.
                let password: String = password.chars().filter(|c| !c.is_whitespace()).collect();
                users::authenticate_basic(&mut conn, login, &hash_secret(&password)).await?
            }
            Credentials::Bearer(token) => {
                users::authenticate_bearer(&mut conn, &hash_secret(token)).await?
            }
        };
        Ok(user.map(|u| Caller(Some(u))))
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
