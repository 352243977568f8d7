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

/// The user whose login and application password (or token) match.
///
/// The work done is the same whether the login exists or not, and hashes are
/// compared in constant time, so response timing tells nothing about logins.
pub async fn authenticate_basic(
    conn: &mut Conn,
    login: &str,
    secret_hash: &str,
) -> Result<Option<User>, StoreError> {
    let rows = conn
        .query(
            Query::select()
                .columns([
                    (Users::Table, Users::Id),
                    (Users::Table, Users::Login),
                    (Users::Table, Users::Role),
                ])
                .column((Credentials::Table, Credentials::SecretHash))
                .from(Users::Table)
                .left_join(
                    Credentials::Table,
                    Expr::col((Credentials::Table, Credentials::UserId))
                        .equals((Users::Table, Users::Id)),
                )
                .and_where(Expr::col((Users::Table, Users::Login)).eq(login)),
            |r| Ok((user_from_row(r)?, r.string(3)?)),
        )
        .await?;
    let mut found = None;
    let mut matched = subtle::Choice::from(0);
    for (user, hash) in rows {
        let eq = hash.as_bytes().ct_eq(secret_hash.as_bytes());
        matched |= eq;
        if bool::from(eq) {
            found = Some(user);
        }
    }
    // Compare against a dummy when the login is unknown, so both paths cost the same.
    let _ = [0u8; 64].ct_eq(secret_hash.as_bytes());
    Ok(if bool::from(matched) { found } else { None })
}

/// The user holding this bearer token.
pub async fn authenticate_bearer(
    conn: &mut Conn,
    secret_hash: &str,
) -> Result<Option<User>, StoreError> {
    conn.query_opt(
        Query::select()
            .columns([
                (Users::Table, Users::Id),
                (Users::Table, Users::Login),
                (Users::Table, Users::Role),
            ])
            .from(Credentials::Table)
            .inner_join(
                Users::Table,
                Expr::col((Credentials::Table, Credentials::UserId))
                    .equals((Users::Table, Users::Id)),
            )
            .and_where(Expr::col((Credentials::Table, Credentials::SecretHash)).eq(secret_hash)),
        user_from_row,
    )
    .await
}
