//! Statements, rendered for the backend in use and bound to its driver.
//!
//! [`Statement`] turns any sea-query statement into SQL text and values for
//! either backend; the helpers here convert those values for each driver and
//! prepare PostgreSQL statements so several can travel in one flight.

use sea_query::{
    DeleteStatement, InsertStatement, PostgresQueryBuilder, SelectStatement, SqliteQueryBuilder,
    UpdateStatement, Values, WithQuery,
};
use sea_query_postgres::{PostgresValue, PostgresValues};
use sea_query_rusqlite::{RusqliteValue, RusqliteValues};

use super::{Backend, count_statement};
use crate::store::StoreError;
use crate::store::postgres::PgConn;

/// Anything sea-query can render: the four statement kinds.
pub trait Statement: Send + Sync {
    fn render(&self, backend: Backend) -> (String, Values);
}

macro_rules! impl_statement {
    ($($t:ty),*) => {$(
        impl Statement for $t {
            fn render(&self, backend: Backend) -> (String, Values) {
                match backend {
                    Backend::Sqlite => self.build(SqliteQueryBuilder),
                    Backend::Postgres => self.build(PostgresQueryBuilder),
                }
            }
        }
    )*};
}
impl_statement!(
    SelectStatement,
    InsertStatement,
    UpdateStatement,
    DeleteStatement,
    WithQuery
);

/// Renders and prepares statements for one PostgreSQL flight.
pub(super) async fn prepare_pg(
    c: &PgConn,
    stmts: &[&dyn Statement],
) -> Result<(Vec<tokio_postgres::Statement>, Vec<PostgresValues>), StoreError> {
    let mut rendered: Vec<PostgresValues> = Vec::with_capacity(stmts.len());
    let mut prepared = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        let (st, values) = prepare_one_pg(c, *stmt).await?;
        prepared.push(st);
        rendered.push(values);
    }
    Ok((prepared, rendered))
}

pub(super) async fn prepare_one_pg(
    c: &PgConn,
    stmt: &(impl Statement + ?Sized),
) -> Result<(tokio_postgres::Statement, PostgresValues), StoreError> {
    count_statement();
    let (sql, values) = stmt.render(Backend::Postgres);
    tracing::trace!(target: "calendar_events::sql", %sql);
    let values = pg_values(values);
    Ok((c.prepare(&sql).await?, values))
}

pub(super) fn pg_batch(
    prepared: Vec<tokio_postgres::Statement>,
    rendered: &[PostgresValues],
) -> Vec<(
    tokio_postgres::Statement,
    Vec<&(dyn tokio_postgres::types::ToSql + Sync)>,
)> {
    prepared
        .into_iter()
        .zip(rendered)
        .map(|(st, v)| (st, v.as_params()))
        .collect()
}

pub(super) fn sqlite_values(values: Values) -> RusqliteValues {
    RusqliteValues(values.into_iter().map(RusqliteValue).collect())
}

/// Every integer column is BIGINT, and PostgreSQL will not bind an `i32` to one:
/// widen small integers so a literal like `0` can never fail at run time.
pub(super) fn pg_values(values: Values) -> PostgresValues {
    use sea_query::Value as V;
    PostgresValues(
        values
            .into_iter()
            .map(|v| match v {
                V::TinyInt(i) => V::BigInt(i.map(i64::from)),
                V::SmallInt(i) => V::BigInt(i.map(i64::from)),
                V::Int(i) => V::BigInt(i.map(i64::from)),
                V::TinyUnsigned(i) => V::BigInt(i.map(i64::from)),
                V::SmallUnsigned(i) => V::BigInt(i.map(i64::from)),
                V::Unsigned(i) => V::BigInt(i.map(i64::from)),
                other => other,
            })
            .map(PostgresValue)
            .collect(),
    )
}
