//! Users and their secrets (application passwords and bearer tokens).
//! Secrets are stored as SHA-256 hashes only.

use sea_query::{Expr, ExprTrait, Order, Query};
use subtle::ConstantTimeEq;

use super::schema::{Credentials, Users};
use super::{Conn, StoreError};
use crate::domain::permissions::{Role, User};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CredentialKind {
    AppPassword,
    Token,
}

impl CredentialKind {
    fn as_str(self) -> &'static str {
        match self {
            CredentialKind::AppPassword => "app_password",
            CredentialKind::Token => "token",
        }
    }
}

fn user_from_row(r: &super::Row<'_>) -> Result<User, StoreError> {
    let role = r.string(2)?;
    Ok(User {
        id: r.i64(0)?,
        login: r.string(1)?,
        role: Role::parse(&role)
            .ok_or_else(|| StoreError::Internal(format!("unknown role {role:?} in database")))?,
    })
}

pub async fn create(
    conn: &mut Conn,
    login: &str,
    role: Role,
    now: i64,
) -> Result<User, StoreError> {
    let id = conn
        .query_one(
            Query::insert()
                .into_table(Users::Table)
                .columns([Users::Login, Users::Role, Users::CreatedUtc])
                .values_panic([login.into(), role.as_str().into(), now.into()])
                .returning_col(Users::Id),
            |r| r.i64(0),
        )
        .await?;
    Ok(User {
        id,
        login: login.to_string(),
        role,
    })
}

pub async fn list(conn: &mut Conn) -> Result<Vec<User>, StoreError> {
    conn.query(
        Query::select()
            .columns([Users::Id, Users::Login, Users::Role])
            .from(Users::Table)
            .order_by(Users::Id, Order::Asc),
        user_from_row,
    )
    .await
}

pub async fn by_login(conn: &mut Conn, login: &str) -> Result<Option<User>, StoreError> {
    conn.query_opt(
        Query::select()
            .columns([Users::Id, Users::Login, Users::Role])
            .from(Users::Table)
            .and_where(Expr::col(Users::Login).eq(login)),
        user_from_row,
    )
    .await
}

pub async fn exists(conn: &mut Conn, id: i64) -> Result<bool, StoreError> {
    Ok(conn
        .query_opt(
            Query::select()
                .column(Users::Id)
                .from(Users::Table)
                .and_where(Expr::col(Users::Id).eq(id)),
            |r| r.i64(0),
        )
        .await?
        .is_some())
}

pub async fn delete(conn: &mut Conn, login: &str) -> Result<bool, StoreError> {
    Ok(conn
        .execute(
            Query::delete()
                .from_table(Users::Table)
                .and_where(Expr::col(Users::Login).eq(login)),
        )
        .await?
        > 0)
}

pub async fn add_secret(
    conn: &mut Conn,
    user_id: i64,
    kind: CredentialKind,
    name: &str,
    secret_hash: &str,
    now: i64,
) -> Result<(), StoreError> {
    conn.execute(
        Query::insert()
            .into_table(Credentials::Table)
            .columns([
                Credentials::UserId,
                Credentials::Kind,
                Credentials::Name,
                Credentials::SecretHash,
                Credentials::CreatedUtc,
            ])
            .values_panic([
                user_id.into(),
                kind.as_str().into(),
                name.into(),
                secret_hash.into(),
                now.into(),
            ]),
    )
    .await?;
    Ok(())
}

/// Removes the credential with this hash; true when one existed.
pub async fn revoke_secret(conn: &mut Conn, secret_hash: &str) -> Result<bool, StoreError> {
    Ok(conn
        .execute(
            Query::delete()
                .from_table(Credentials::Table)
                .and_where(Expr::col(Credentials::SecretHash).eq(secret_hash)),
        )
        .await?
        > 0)
}

/// How a request's credentials are looked up: by login (an application password)
/// or by a bearer token's hash alone.
pub enum Lookup<'a> {
    Basic {
        login: &'a str,
        secret_hash: &'a str,
    },
    Bearer {
        secret_hash: &'a str,
    },
}

/// The user whose credentials match, and, read in the same flight on PostgreSQL,
/// the failure windows of `keys` that block until a moment after `now` (see
/// `auth_failures`); pass no keys to read none (SQLite keeps its counters in memory).
///
/// The work done is the same whether the login exists or not, and hashes are
/// compared in constant time, so response timing tells nothing about logins.
pub async fn authenticate(
    conn: &mut Conn,
    lookup: Lookup<'_>,
    keys: &[String],
    limit: u32,
    now: i64,
) -> Result<(Option<User>, Vec<(String, i64)>), StoreError> {
    let candidate = |r: &super::Row<'_>| Ok((user_from_row(r)?, r.opt_string(3)?));
    let (candidates, blocks) = if keys.is_empty() {
        (
            conn.by_key()
                .query(&credential_query(&lookup), candidate)
                .await?,
            Vec::new(),
        )
    } else {
        conn.by_key()
            .query_two(
                &credential_query(&lookup),
                candidate,
                &super::auth_failures::blocks(keys, limit, now),
                |r| Ok((r.string(0)?, r.i64(1)?)),
            )
            .await?
    };
    let user = match lookup {
        Lookup::Basic { secret_hash, .. } => matching(candidates, secret_hash),
        Lookup::Bearer { .. } => candidates.into_iter().next().map(|(u, _)| u),
    };
    Ok((user, blocks))
}

/// The users (with the secret hashes to compare) the credentials may name.
fn credential_query(lookup: &Lookup<'_>) -> sea_query::SelectStatement {
    let mut q = Query::select();
    q.columns([
        (Users::Table, Users::Id),
        (Users::Table, Users::Login),
        (Users::Table, Users::Role),
    ])
    .column((Credentials::Table, Credentials::SecretHash));
    match lookup {
        Lookup::Basic { login, .. } => q
            .from(Users::Table)
            .left_join(
                Credentials::Table,
                Expr::col((Credentials::Table, Credentials::UserId))
                    .equals((Users::Table, Users::Id)),
            )
            .and_where(Expr::col((Users::Table, Users::Login)).eq(*login)),
        Lookup::Bearer { secret_hash } => q
            .from(Credentials::Table)
            .inner_join(
                Users::Table,
                Expr::col((Credentials::Table, Credentials::UserId))
                    .equals((Users::Table, Users::Id)),
            )
            .and_where(Expr::col((Credentials::Table, Credentials::SecretHash)).eq(*secret_hash)),
    };
    q
}

/// The user among the candidates whose hash matches, compared in constant time
/// against every one (and against a dummy, so an unknown login costs the same).
fn matching(candidates: Vec<(User, Option<String>)>, secret_hash: &str) -> Option<User> {
    let mut found = None;
    let mut matched = subtle::Choice::from(0);
    for (user, hash) in candidates {
        let eq = hash
            .unwrap_or_default()
            .as_bytes()
            .ct_eq(secret_hash.as_bytes());
        matched |= eq;
        if bool::from(eq) {
            found = Some(user);
        }
    }
    let _ = [0u8; 64].ct_eq(secret_hash.as_bytes());
    if bool::from(matched) { found } else { None }
}
