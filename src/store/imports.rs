//! Where imported items came from (`calendar-events import`), so that importing
//! an export again updates what the first run created.

use sea_query::{Expr, ExprTrait, OnConflict, Query};

use super::schema::ImportSources;
use super::{Conn, StoreError};

/// The local ID an item of this kind and source was imported as.
pub async fn local_id(
    conn: &mut Conn,
    kind: &str,
    source: &str,
) -> Result<Option<i64>, StoreError> {
    conn.query_opt(
        Query::select()
            .column(ImportSources::LocalId)
            .from(ImportSources::Table)
            .and_where(Expr::col(ImportSources::Kind).eq(kind))
            .and_where(Expr::col(ImportSources::Source).eq(source)),
        |r| r.i64(0),
    )
    .await
}

/// Records (or moves) where an item came from.
pub async fn record(
    conn: &mut Conn,
    kind: &str,
    source: &str,
    local: i64,
) -> Result<(), StoreError> {
    conn.execute(
        Query::insert()
            .into_table(ImportSources::Table)
            .columns([
                ImportSources::Kind,
                ImportSources::Source,
                ImportSources::LocalId,
            ])
            .values_panic([kind.into(), source.into(), local.into()])
            .on_conflict(
                OnConflict::columns([ImportSources::Kind, ImportSources::Source])
                    .update_column(ImportSources::LocalId)
                    .to_owned(),
            ),
    )
    .await?;
    Ok(())
}
