//! `migrate`, `user …` and `token …`.

use base64::Engine;
use rand::RngCore;

use super::{TokenCommand, UserCommand};
use crate::config::DatabaseArgs;
use crate::domain::permissions::Role;
use crate::http::auth_secret_hash;
use crate::store::users::{self, CredentialKind};
use crate::store::{Store, StoreError};

pub async fn migrate(db: &DatabaseArgs) -> Result<(), String> {
    Store::open(&db.database_url)
        .await
        .map_err(|e| e.to_string())?;
    println!("database is up to date");
    Ok(())
}

/// 24 random bytes (192 bits), URL-safe base64: 32 characters.
fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

async fn issue(
    store: &Store,
    user_id: i64,
    kind: CredentialKind,
    name: &str,
) -> Result<String, StoreError> {
    let secret = new_secret();
    let mut tx = store.pool.write().await?;
    users::add_secret(
        &mut tx,
        user_id,
        kind,
        name,
        &auth_secret_hash(&secret),
        chrono::Utc::now().timestamp(),
    )
    .await?;
    tx.commit().await?;
    Ok(secret)
}

pub async fn user(cmd: UserCommand, db: &DatabaseArgs) -> Result<(), String> {
    match cmd {
        UserCommand::Create { login, role } => {
            let role = Role::parse(&role).ok_or("unknown role")?;
            if login.trim().is_empty() || login.contains(':') || login.len() > 60 {
                return Err("a login is 1 to 60 characters and has no ':'".into());
            }
            let store = Store::open(&db.database_url)
                .await
                .map_err(|e| e.to_string())?;
            let mut tx = store.pool.write().await.map_err(|e| e.to_string())?;
            let user = users::create(&mut tx, &login, role, chrono::Utc::now().timestamp())
                .await
                .map_err(|e| match e {
                    StoreError::Conflict(_) => format!("user {login:?} already exists"),
                    other => other.to_string(),
                })?;
            tx.commit().await.map_err(|e| e.to_string())?;
            let secret = issue(&store, user.id, CredentialKind::AppPassword, "cli")
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "created user {} (id {}, role {})",
                user.login,
                user.id,
                role.as_str()
            );
            println!("application password (shown once):");
            println!("{secret}");
            Ok(())
        }
        UserCommand::List => {
            let store = Store::open(&db.database_url)
                .await
                .map_err(|e| e.to_string())?;
            let mut conn = store.pool.read().await.map_err(|e| e.to_string())?;
            for u in users::list(&mut conn).await.map_err(|e| e.to_string())? {
                println!("{}\t{}\t{}", u.id, u.login, u.role.as_str());
            }
            Ok(())
        }
        UserCommand::Delete { login } => {
            let store = Store::open(&db.database_url)
                .await
                .map_err(|e| e.to_string())?;
            let mut tx = store.pool.write().await.map_err(|e| e.to_string())?;
            let deleted = users::delete(&mut tx, &login)
                .await
                .map_err(|e| e.to_string())?;
            tx.commit().await.map_err(|e| e.to_string())?;
            if !deleted {
                return Err(format!("no user {login:?}"));
            }
            println!("deleted user {login}");
            Ok(())
        }
    }
}

pub async fn token(cmd: TokenCommand, db: &DatabaseArgs) -> Result<(), String> {
    match cmd {
        TokenCommand::Create { login, name } => {
            let store = Store::open(&db.database_url)
                .await
                .map_err(|e| e.to_string())?;
            let user = {
                let mut conn = store.pool.read().await.map_err(|e| e.to_string())?;
                users::by_login(&mut conn, &login)
                    .await
                    .map_err(|e| e.to_string())?
            }
            .ok_or_else(|| format!("no user {login:?}"))?;
            let secret = issue(&store, user.id, CredentialKind::Token, &name)
                .await
                .map_err(|e| e.to_string())?;
            println!("bearer token for {login} (shown once):");
            println!("{secret}");
            Ok(())
        }
        TokenCommand::Revoke { token } => {
            let store = Store::open(&db.database_url)
                .await
                .map_err(|e| e.to_string())?;
            let mut tx = store.pool.write().await.map_err(|e| e.to_string())?;
            let revoked = users::revoke_secret(&mut tx, &auth_secret_hash(token.trim()))
                .await
                .map_err(|e| e.to_string())?;
            tx.commit().await.map_err(|e| e.to_string())?;
            if !revoked {
                return Err("no such token".into());
            }
            println!("revoked");
            Ok(())
        }
    }
}
