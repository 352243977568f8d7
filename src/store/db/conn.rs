//! A connection of either backend, and the ways statements run on it.
//!
//! Every query and write in the store goes through [`Conn`]: it renders the
//! statement for its backend, counts it, and maps the rows. Where several
//! statements run together, PostgreSQL sends them in one flight.

use super::statement::{Statement, pg_batch, pg_values, prepare_one_pg, prepare_pg, sqlite_values};
use super::{Backend, Row, count_statement, count_vm_steps};
use crate::store::StoreError;
use crate::store::postgres::PgConn;
use crate::store::sqlite::SqliteConn;

pub enum Conn {
    Sqlite(SqliteConn),
    Postgres(PgConn),
}

/// In a lock key, the stripe of the transaction that takes it: its ID modulo 8, the
/// stripe that the per-block counts' triggers write to (migration 21).
pub const STRIPE: &str = "{stripe}";

impl Conn {
    pub fn backend(&self) -> Backend {
        match self {
            Conn::Sqlite(_) => Backend::Sqlite,
            Conn::Postgres(_) => Backend::Postgres,
        }
    }

    /// Runs SQL text without parameters (transaction control, DDL).
    pub async fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.execute_batch(sql).map_err(StoreError::from),
            Conn::Postgres(c) => c.batch(sql).await,
        }
    }

    /// Serialises concurrent transactions that would race on the same key (a slug,
    /// a venue's name, a term's name) until this transaction ends. SQLite already
    /// has a single writer, so only PostgreSQL needs it. [`STRIPE`] in a key stands
    /// for this transaction's stripe.
    pub async fn lock_key(&mut self, key: &str) -> Result<(), StoreError> {
        if let Conn::Postgres(c) = self {
            // Sent ahead of the next statement, which is the one it protects.
            c.lock_later(key);
        }
        Ok(())
    }

    /// A statement as this backend runs it; counted, and logged at trace level.
    fn render(&self, stmt: &(impl Statement + ?Sized)) -> (String, sea_query::Values) {
        count_statement();
        let (sql, values) = stmt.render(self.backend());
        tracing::trace!(target: "calendar_events::sql", %sql);
        (sql, values)
    }

    /// Marks the next call's statements as looking rows up by their keys: PostgreSQL
    /// may keep their generic plans (`PgConn::by_key`). Never for a statement whose
    /// best plan depends on its values (a list's, a search's).
    pub fn by_key(&mut self) -> &mut Conn {
        if let Conn::Postgres(c) = self {
            c.by_key();
        }
        self
    }

    /// Marks the next call's statements as having one plan that serves every value
    /// they may be given, whatever their estimates: PostgreSQL plans them once per
    /// connection and keeps the plan (`force_generic_plan`). For a statement that
    /// only one index can serve, whose values PostgreSQL would otherwise estimate
    /// at every run: a search's `LIKE` is checked against the 1,000 texts of the
    /// column's statistics (1.5 ms a word at a million events).
    pub fn one_plan(&mut self) -> &mut Conn {
        if let Conn::Postgres(c) = self {
            c.one_plan();
        }
        self
    }

    /// Runs a query and maps every row.
    pub async fn query<T>(
        &mut self,
        stmt: &(impl Statement + ?Sized),
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let (sql, values) = self.render(stmt);
        match self {
            Conn::Sqlite(c) => {
                let values = sqlite_values(values);
                let mut st = c.prepare_cached(&sql)?;
                count_vm_steps(&mut st, |st| {
                    let mut rows = st.query(&*values.as_params())?;
                    let mut out = Vec::new();
                    while let Some(row) = rows.next()? {
                        out.push(map(&Row::Sqlite(row))?);
                    }
                    Ok(out)
                })
            }
            Conn::Postgres(c) => {
                let values = pg_values(values);
                let st = c.prepare(&sql).await?;
                let rows = c.query(&st, &values.as_params()).await?;
                rows.iter().map(|r| map(&Row::Postgres(r))).collect()
            }
        }
    }

    /// Runs two queries and maps their rows; on PostgreSQL they travel in one flight.
    pub async fn query_two<A, B>(
        &mut self,
        first: &impl Statement,
        mut map_first: impl FnMut(&Row<'_>) -> Result<A, StoreError>,
        second: &impl Statement,
        mut map_second: impl FnMut(&Row<'_>) -> Result<B, StoreError>,
    ) -> Result<(Vec<A>, Vec<B>), StoreError> {
        let Conn::Postgres(c) = self else {
            let a = self.query(first, map_first).await?;
            return Ok((a, self.query(second, map_second).await?));
        };
        let (prepared, values) = prepare_pg(c, &[first as &dyn Statement, second]).await?;
        let mut rows = c.query_all(&pg_batch(prepared, &values)).await?.into_iter();
        let (a, b) = (
            rows.next().unwrap_or_default(),
            rows.next().unwrap_or_default(),
        );
        let a = a.iter().map(|r| map_first(&Row::Postgres(r)));
        let b = b.iter().map(|r| map_second(&Row::Postgres(r)));
        Ok((a.collect::<Result<_, _>>()?, b.collect::<Result<_, _>>()?))
    }

    /// Runs queries and maps all their rows, in order; on PostgreSQL they travel in
    /// one flight.
    pub async fn query_all<T>(
        &mut self,
        queries: &[Box<dyn Statement>],
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let Conn::Postgres(c) = self else {
            let mut out = Vec::new();
            for q in queries {
                out.extend(self.query(q.as_ref(), &mut map).await?);
            }
            return Ok(out);
        };
        let queries: Vec<&dyn Statement> = queries.iter().map(|q| q.as_ref()).collect();
        let (prepared, values) = prepare_pg(c, &queries).await?;
        let rows = c.query_all(&pg_batch(prepared, &values)).await?;
        rows.iter()
            .flatten()
            .map(|r| map(&Row::Postgres(r)))
            .collect()
    }

    pub async fn query_opt<T>(
        &mut self,
        stmt: &impl Statement,
        map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.query(stmt, map).await?.into_iter().next())
    }

    /// Runs a query that must return exactly one row (aggregates, RETURNING).
    pub async fn query_one<T>(
        &mut self,
        stmt: &impl Statement,
        map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.query_opt(stmt, map)
            .await?
            .ok_or_else(|| StoreError::Internal("query returned no row".into()))
    }

    /// Runs a statement and returns the number of rows it changed.
    pub async fn execute(&mut self, stmt: &(impl Statement + ?Sized)) -> Result<u64, StoreError> {
        let (sql, values) = self.render(stmt);
        match self {
            Conn::Sqlite(c) => {
                let values = sqlite_values(values);
                let mut st = c.prepare_cached(&sql)?;
                let changed = count_vm_steps(&mut st, |st| st.execute(&*values.as_params()))?;
                Ok(changed as u64)
            }
            Conn::Postgres(c) => {
                let values = pg_values(values);
                let st = c.prepare(&sql).await?;
                c.execute(&st, &values.as_params()).await
            }
        }
    }

    /// Runs statements in order; on PostgreSQL they travel in one flight.
    pub async fn execute_all(&mut self, stmts: &[Box<dyn Statement>]) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(_) => {
                for stmt in stmts {
                    self.execute(stmt.as_ref()).await?;
                }
                Ok(())
            }
            Conn::Postgres(c) => {
                let stmts: Vec<&dyn Statement> = stmts.iter().map(|s| s.as_ref()).collect();
                let (prepared, rendered) = prepare_pg(c, &stmts).await?;
                c.execute_all(&pg_batch(prepared, &rendered))
                    .await
                    .map(drop)
            }
        }
    }

    /// Runs statements in order and then a query, whose rows are mapped; on PostgreSQL
    /// all of them travel in one flight.
    pub async fn execute_all_then_query<T>(
        &mut self,
        stmts: &[Box<dyn Statement>],
        query: &(impl Statement + ?Sized),
        mut map: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        match self {
            Conn::Sqlite(_) => {
                self.execute_all(stmts).await?;
                self.query(query, map).await
            }
            Conn::Postgres(c) => {
                let stmts: Vec<&dyn Statement> = stmts.iter().map(|s| s.as_ref()).collect();
                let (prepared, rendered) = prepare_pg(c, &stmts).await?;
                let (last, values) = prepare_one_pg(c, query).await?;
                let rows = c
                    .execute_all_then_query(
                        &pg_batch(prepared, &rendered),
                        &last,
                        &values.as_params(),
                    )
                    .await?;
                rows.iter().map(|r| map(&Row::Postgres(r))).collect()
            }
        }
    }
}
