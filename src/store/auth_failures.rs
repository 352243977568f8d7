//! Failed-authentication counters shared by the instances on one PostgreSQL
//! database (see migration 0006).

use sea_query::{Expr, ExprTrait, OnConflict, Query};

use super::schema::AuthFailures;
use super::{Conn, StoreError};

/// The keys that have reached `limit` failures in a window that has not ended, and
/// when each window ends.
pub(in crate::store) fn blocks(
    keys: &[String],
    limit: u32,
    now: i64,
) -> sea_query::SelectStatement {
    Query::select()
        .columns([AuthFailures::Key, AuthFailures::ResetUtc])
        .from(AuthFailures::Table)
        .and_where(Expr::col(AuthFailures::Key).is_in(keys.iter().map(String::as_str)))
        .and_where(Expr::col(AuthFailures::Failures).gte(i64::from(limit)))
        .and_where(Expr::col(AuthFailures::ResetUtc).gt(now))
        .to_owned()
}

/// The keys that are blocked, and until when.
pub async fn blocked(
    conn: &mut Conn,
    keys: &[String],
    limit: u32,
    now: i64,
) -> Result<Vec<(String, i64)>, StoreError> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    conn.query(&blocks(keys, limit, now), |r| Ok((r.string(0)?, r.i64(1)?)))
        .await
}

/// Counts one failure against each key: a key whose window has ended starts a new
/// one. Rows of ended windows are removed.
pub async fn record(
    conn: &mut Conn,
    keys: &[String],
    window_secs: i64,
    now: i64,
) -> Result<(), StoreError> {
    let ended = Expr::col((AuthFailures::Table, AuthFailures::ResetUtc)).lte(now);
    let mut stmts: Vec<Box<dyn super::db::Statement>> = vec![Box::new(
        Query::delete()
            .from_table(AuthFailures::Table)
            .and_where(Expr::col(AuthFailures::ResetUtc).lt(now - window_secs))
            .to_owned(),
    )];
    for key in keys {
        stmts.push(Box::new(
            Query::insert()
                .into_table(AuthFailures::Table)
                .columns([
                    AuthFailures::Key,
                    AuthFailures::Failures,
                    AuthFailures::ResetUtc,
                ])
                .values_panic([key.as_str().into(), 1i64.into(), (now + window_secs).into()])
                .on_conflict(
                    OnConflict::column(AuthFailures::Key)
                        .value(
                            AuthFailures::Failures,
                            Expr::case(ended.clone(), 1i64).finally(
                                Expr::col((AuthFailures::Table, AuthFailures::Failures)).add(1i64),
                            ),
                        )
                        .value(
                            AuthFailures::ResetUtc,
                            Expr::case(ended.clone(), now + window_secs)
                                .finally(Expr::col((AuthFailures::Table, AuthFailures::ResetUtc))),
                        )
                        .to_owned(),
                )
                .to_owned(),
        ));
    }
    conn.execute_all(&stmts).await
}
