//! Where imported items came from (`calendar-events import`), so that importing
//! an export again updates what the first run created.

use sea_query::{Expr, ExprTrait, OnConflict, Query};

use super::schema::{ImportSources, Posts, Terms};
use super::{Backend, Conn, StoreError};

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

/// Whether the calendar holds no post and no term yet: an import into it may keep
/// its source's IDs.
pub async fn calendar_is_empty(conn: &mut Conn) -> Result<bool, StoreError> {
    let any_post = Query::select()
        .column(Posts::Id)
        .from(Posts::Table)
        .limit(1)
        .to_owned();
    let any_term = Query::select()
        .column(Terms::Id)
        .from(Terms::Table)
        .limit(1)
        .to_owned();
    let post = conn.query_opt(&any_post, |r| r.i64(0)).await?;
    let term = conn.query_opt(&any_term, |r| r.i64(0)).await?;
    Ok(post.is_none() && term.is_none())
}

/// Makes the next automatic post ID follow `posts` and the next term ID follow
/// `terms` (or the largest stored, when larger). Before an import that keeps its
/// source's IDs, so that what it creates without one (an image's attachment) takes
/// none of them; after it, because PostgreSQL's sequences do not see IDs written
/// explicitly. The numbers are integers: formatting them into the SQL is safe.
pub async fn number_after(conn: &mut Conn, posts: i64, terms: i64) -> Result<(), StoreError> {
    let mut sql = String::new();
    for (table, floor) in [("posts", posts), ("terms", terms)] {
        let statement = match conn.backend() {
            Backend::Sqlite => format!(
                "UPDATE sqlite_sequence SET seq = max(seq, {floor}, \
                   (SELECT coalesce(max(id), 0) FROM {table})) WHERE name = '{table}';
                 INSERT INTO sqlite_sequence (name, seq) \
                   SELECT '{table}', max({floor}, (SELECT coalesce(max(id), 0) FROM {table})) \
                   WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = '{table}');"
            ),
            Backend::Postgres => format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), GREATEST({floor}, 1, \
                   (SELECT max(id) FROM {table}), \
                   pg_sequence_last_value(pg_get_serial_sequence('{table}', 'id')::regclass)));"
            ),
        };
        sql.push_str(&statement);
    }
    conn.batch(&sql).await
}
