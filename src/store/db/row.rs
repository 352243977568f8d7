//! Result rows from either driver, read column by column.

use crate::store::StoreError;

/// One result row, from either driver.
pub enum Row<'a> {
    Sqlite(&'a rusqlite::Row<'a>),
    Postgres(&'a tokio_postgres::Row),
}

impl Row<'_> {
    pub fn i64(&self, idx: usize) -> Result<i64, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }

    pub fn opt_i64(&self, idx: usize) -> Result<Option<i64>, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }

    pub fn string(&self, idx: usize) -> Result<String, StoreError> {
        Ok(self.opt_string(idx)?.unwrap_or_default())
    }

    pub fn opt_string(&self, idx: usize) -> Result<Option<String>, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }

    pub fn bool(&self, idx: usize) -> Result<bool, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get::<_, Option<bool>>(idx)?.unwrap_or(false),
            Row::Postgres(r) => r.try_get::<_, Option<bool>>(idx)?.unwrap_or(false),
        })
    }

    pub fn opt_f64(&self, idx: usize) -> Result<Option<f64>, StoreError> {
        Ok(match self {
            Row::Sqlite(r) => r.get(idx)?,
            Row::Postgres(r) => r.try_get(idx)?,
        })
    }
}
