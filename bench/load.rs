//! Loading the generated rows: prepared `INSERT`s on SQLite, binary `COPY` on PostgreSQL,
//! with the triggers' work done in bulk afterwards.

use std::path::Path;

use calendar_events::domain::post::PostType;
use calendar_events::store::Backend;
use calendar_events::store::events::{SEARCH_KEY_TRIGGERS, search_grams_fill};
use indicatif::ProgressBar;
use tokio::sync::mpsc;

use crate::Result;
use crate::rows::{EventRow, LinkedRow, Shape, Term};
use crate::tables::{
    EVENTS, LINKED, ORGANIZER_LINKS, TERM_LINKS, TERMS, Table, Val, count_events_sql,
    count_terms_sql, organizer_links, term_links,
};
use crate::{BoxError, Timings, pg_connect, spinner};

pub(crate) struct Load {
    pub(crate) shape: Shape,
    pub(crate) terms: Vec<Term>,
    pub(crate) venues: Vec<LinkedRow>,
    pub(crate) organizers: Vec<LinkedRow>,
    pub(crate) batch: usize,
    pub(crate) fts_triggers: bool,
    pub(crate) analyze: bool,
    pub(crate) progress: ProgressBar,
}

// --- SQLite -----------------------------------------------------------------------------

pub(crate) fn sqlite_insert<R>(
    conn: &rusqlite::Connection,
    table: &Table<R>,
    rows: &[R],
    shape: &Shape,
) -> Result<()> {
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        table.name,
        table.columns.join(", "),
        vec!["?"; table.columns.len()].join(", ")
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    for row in rows {
        stmt.execute(rusqlite::params_from_iter((table.values)(row, shape)))?;
    }
    Ok(())
}

pub(crate) fn load_sqlite(
    path: &Path,
    load: Load,
    mut rx: mpsc::Receiver<Vec<EventRow>>,
    timings: &mut Timings,
) -> Result<()> {
    let conn = rusqlite::Connection::open(path)?;
    // Durability is worthless for a data set that is regenerated if the load fails, and a
    // WAL would hold a second copy of everything until the checkpoint.
    conn.execute_batch(
        "PRAGMA journal_mode = MEMORY;
         PRAGMA synchronous = OFF;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -524288;",
    )?;
    let shape = load.shape;
    let (fts_triggers, key_triggers) = sqlite_set_triggers_aside(&conn, load.fts_triggers)?;
    sqlite_insert(&conn, &TERMS, &load.terms, &shape)?;
    sqlite_insert(&conn, &LINKED, &load.venues, &shape)?;
    sqlite_insert(&conn, &LINKED, &load.organizers, &shape)?;
    timings.lap("venues, organizers, terms");

    let mut in_tx = 0usize;
    while let Some(events) = rx.blocking_recv() {
        sqlite_insert(&conn, &EVENTS, &events, &shape)?;
        sqlite_insert(&conn, &TERM_LINKS, &term_links(&events), &shape)?;
        sqlite_insert(&conn, &ORGANIZER_LINKS, &organizer_links(&events), &shape)?;
        in_tx += events.len();
        if in_tx >= load.batch {
            conn.execute_batch("COMMIT; BEGIN")?;
            in_tx = 0;
        }
        load.progress.inc(events.len() as u64);
    }
    load.progress.finish();
    timings.lap("events");

    if !fts_triggers.is_empty() {
        sqlite_fill_search_index(&conn, &fts_triggers)?;
        timings.lap("search index");
    }

    // The counts first: the keys' fill gives the most used terms their bits.
    let pb = spinner("term counts");
    conn.execute_batch(&count_terms_sql(shape.now))?;
    pb.finish_and_clear();
    timings.lap("term counts");

    let pb = spinner("event keys");
    conn.execute_batch(&event_keys_fill_sql(Backend::Sqlite)?)?;
    for sql in &key_triggers {
        conn.execute_batch(sql)?;
    }
    conn.execute_batch("COMMIT")?;
    pb.finish_and_clear();
    timings.lap("event keys");

    let pb = spinner("finishing");
    sqlite_finish(&conn, load.analyze, shape.events)?;
    pb.finish_and_clear();
    timings.lap("finish");
    Ok(())
}

/// Triggers by name, each with the SQL that creates it.
type NamedTriggers = Vec<(String, String)>;

/// The triggers the load sets aside, in a transaction it begins, to do their work in
/// bulk after it: the search index's insert trigger (unless `--fts-triggers` keeps
/// it) and the event keys' triggers, each with the SQL that creates it again.
fn sqlite_set_triggers_aside(
    conn: &rusqlite::Connection,
    keep_fts: bool,
) -> Result<(NamedTriggers, Vec<String>)> {
    let fts_triggers: NamedTriggers = if keep_fts {
        Vec::new()
    } else {
        let mut stmt = conn.prepare(
            "SELECT name, sql FROM sqlite_master
             WHERE type = 'trigger' AND tbl_name = 'posts' AND name = 'posts_fts_insert'",
        )?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };

    let key_triggers: Vec<String> = EVENT_KEYS_TRIGGERS
        .iter()
        .chain(&SQLITE_KEYS_TRIGGERS)
        .map(|(_, name)| {
            conn.query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?1",
                [name],
                |r| r.get(0),
            )
        })
        .collect::<rusqlite::Result<_>>()?;
    conn.execute_batch("BEGIN")?;
    for (name, _) in &fts_triggers {
        conn.execute_batch(&format!("DROP TRIGGER {name}"))?;
    }
    for (_, name) in EVENT_KEYS_TRIGGERS.iter().chain(&SQLITE_KEYS_TRIGGERS) {
        conn.execute_batch(&format!("DROP TRIGGER {name}"))?;
    }
    Ok((fts_triggers, key_triggers))
}

/// What the search index's insert trigger would have done row by row, in one pass,
/// and the trigger back.
fn sqlite_fill_search_index(
    conn: &rusqlite::Connection,
    fts_triggers: &[(String, String)],
) -> Result<()> {
    let pb = spinner("search index");
    // Not `'rebuild'`: that would index venues and organizers too, which the triggers
    // never do. A 256 MiB term buffer (default 1 MiB) means far fewer segments to
    // write and merge; the setting is removed again so the server runs with defaults.
    // `'optimize'` then merges the big segments into one: left unmerged, FTS5's
    // incremental merging would make every later write pay for them (seconds per
    // commit at 1M events). It places that one above the levels of those it
    // merges, but leaves a single segment where it is, on the lowest level, where
    // the writes' merges soon take it in whole (1.4 s in one commit at 30,000
    // events): the two halves of the events, each flushed at the end of its
    // statement, make two segments at least.
    let event = PostType::Event.as_str();
    let half = format!(
        "SELECT id, title, excerpt, description FROM posts WHERE post_type = '{event}' AND id"
    );
    let middle = format!("(SELECT (min(id) + max(id)) / 2 FROM posts WHERE post_type = '{event}')");
    conn.execute_batch(&format!(
        "INSERT INTO posts_fts(posts_fts, rank) VALUES ('hashsize', 268435456);
         INSERT INTO posts_fts(rowid, title, excerpt, description)
         {half} <= {middle} ORDER BY id;
         INSERT INTO posts_fts(rowid, title, excerpt, description)
         {half} > {middle} ORDER BY id;
         DELETE FROM posts_fts_config WHERE k = 'hashsize';
         INSERT INTO posts_fts(posts_fts) VALUES ('optimize');"
    ))?;
    for (_, sql) in fts_triggers {
        conn.execute_batch(sql)?;
    }
    pb.finish_and_clear();
    Ok(())
}

/// Statistics if asked for, the journal back to WAL, and the events counted.
fn sqlite_finish(conn: &rusqlite::Connection, analyze: bool, expected: u64) -> Result<()> {
    if analyze {
        conn.execute_batch("ANALYZE")?;
    }
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if mode != "wal" {
        return Err(format!("could not switch the database back to WAL (got {mode})").into());
    }
    let events: i64 = conn.query_row(&count_events_sql(), [], |r| r.get(0))?;
    if events as u64 != expected {
        return Err(format!("expected {expected} events, found {events}").into());
    }
    Ok(())
}

// --- PostgreSQL -------------------------------------------------------------------------

pub(crate) async fn pg_copy<R>(
    client: &tokio_postgres::Client,
    table: &Table<R>,
    rows: &[R],
    shape: &Shape,
) -> Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let types: Vec<_> = (table.values)(first, shape)
        .iter()
        .map(Val::pg_type)
        .collect();
    let sink = client
        .copy_in(&format!(
            "COPY {} ({}) FROM STDIN (FORMAT binary)",
            table.name,
            table.columns.join(", ")
        ))
        .await?;
    let writer = tokio_postgres::binary_copy::BinaryCopyInWriter::new(sink, &types);
    let mut writer = std::pin::pin!(writer);
    for row in rows {
        let values = (table.values)(row, shape);
        let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = values
            .iter()
            .map(|v| v as &(dyn tokio_postgres::types::ToSql + Sync))
            .collect();
        writer.as_mut().write(&refs).await?;
    }
    writer.finish().await?;
    Ok(())
}

/// Migration 7's fill of `event_keys` and of its summaries, then migration 17's of
/// the terms' ancestors and the keys they give, then migration 18's of the terms'
/// flagged keys, then migration 20's of the per-day counts' blocks, then migration
/// 34's of the terms' bits on the events' own keys and 37's on their term keys, then
/// 41's of the flags' bits on the own keys, for
/// a load made without their triggers: taken from the migrations, so the two cannot
/// drift apart.
pub(crate) fn event_keys_fill_sql(backend: Backend) -> Result<String> {
    let (keys, ancestors, flagged, blocks, bits, key_bits, flag_bits) = match backend {
        Backend::Sqlite => (
            include_str!("../src/store/migrations/sqlite/0007_event_keys.sql"),
            include_str!("../src/store/migrations/sqlite/0017_term_ancestors.sql"),
            include_str!("../src/store/migrations/sqlite/0018_flagged_term_keys.sql"),
            include_str!("../src/store/migrations/sqlite/0020_event_key_blocks.sql"),
            include_str!("../src/store/migrations/sqlite/0034_wider_term_bits.sql"),
            include_str!("../src/store/migrations/sqlite/0037_term_key_bits.sql"),
            include_str!("../src/store/migrations/sqlite/0041_flag_bits.sql"),
        ),
        Backend::Postgres => (
            include_str!("../src/store/migrations/postgres/0007_event_keys.sql"),
            include_str!("../src/store/migrations/postgres/0017_term_ancestors.sql"),
            include_str!("../src/store/migrations/postgres/0018_flagged_term_keys.sql"),
            include_str!("../src/store/migrations/postgres/0020_event_key_blocks.sql"),
            include_str!("../src/store/migrations/postgres/0034_wider_term_bits.sql"),
            include_str!("../src/store/migrations/postgres/0037_term_key_bits.sql"),
            include_str!("../src/store/migrations/postgres/0041_flag_bits.sql"),
        ),
    };
    Ok(format!(
        "DELETE FROM event_keys; DELETE FROM event_key_days; DELETE FROM linked_event_stats;\n{}\n{}\n{}\n{}\n{}\n{}\n{}",
        section(keys, "event_keys", 7)?,
        section(ancestors, "term_ancestors", 17)?,
        section(flagged, "flagged_term_keys", 18)?,
        section(blocks, "event_key_blocks", 20)?,
        section(bits, "term_bits", 34)?,
        section(key_bits, "term_key_bits", 37)?,
        section(flag_bits, "flag_bits", 41)?,
    ))
}

/// Migration 29's rebuild of PostgreSQL's `event_search` with each event's terms, for
/// a load whose keys were filled without the triggers that keep those terms.
pub(crate) fn event_search_terms_fill_sql() -> Result<&'static str> {
    section(
        include_str!("../src/store/migrations/postgres/0029_event_search_terms.sql"),
        "event_search_terms",
        29,
    )
}

/// Migration 54's flags among the terms of `event_search`, for a load whose rebuild of
/// that table (migration 29's) wrote the term keys' values alone.
pub(crate) fn flags_among_search_terms_fill_sql() -> Result<&'static str> {
    section(
        include_str!("../src/store/migrations/postgres/0054_flags_among_search_terms.sql"),
        "flags_among_search_terms",
        54,
    )
}

/// Migration 52's index of whole words on PostgreSQL's `event_search`, its
/// vocabulary and the triggers that keep it, for a load that rebuilt the table
/// (migration 29's rebuild leaves them with the old one).
pub(crate) fn search_pieces_fill_sql() -> Result<&'static str> {
    section(
        include_str!("../src/store/migrations/postgres/0052_search_pieces.sql"),
        "search_pieces",
        52,
    )
}

/// The part of a migration between its `-- {name}: fill` and `-- {name}: filled`.
pub(crate) fn section<'a>(migration: &'a str, name: &str, version: u32) -> Result<&'a str> {
    let start = migration
        .find(&format!("-- {name}: fill\n"))
        .ok_or(format!("migration {version} lost its fill marker"))?;
    let end = migration
        .find(&format!("-- {name}: filled"))
        .ok_or(format!("migration {version} lost its filled marker"))?;
    Ok(&migration[start..end])
}

/// `event_keys`' triggers, and the insert triggers of its summaries, off during a
/// load they would slow down tenfold (ten keys per event, inserted out of key order;
/// each one updating one of a few million counts). Kept row by row, PostgreSQL's
/// counts would also be left many times their size by the updates of one transaction.
/// The blocks' update and delete triggers too: the fill's sections replace day
/// counts (migrations 17 and 18 delete and add the terms' rows), and the blocks'
/// section then sums the blocks from the days afresh; left on, they updated a block
/// for each of 646,000 day rows at a million events, to no end but a blocks table
/// twelve times its size (142 MB for 71,000 rows on PostgreSQL). The bits' triggers
/// too: the fill's last sections give each event its bits once.
pub(crate) const EVENT_KEYS_TRIGGERS: [(&str, &str); 18] = [
    ("event_keys", "event_key_days_insert"),
    ("event_keys", "event_keys_term_bits_insert"),
    ("event_keys", "event_keys_term_bits_delete"),
    ("event_keys", "event_keys_flag_bits_insert"),
    ("event_keys", "event_keys_flag_bits_delete"),
    ("event_keys", "event_keys_flag_bits_update"),
    ("event_key_days", "event_key_blocks_insert"),
    ("event_key_days", "event_key_blocks_update"),
    ("event_key_days", "event_key_blocks_delete"),
    ("event_keys", "event_keys_term_flags_insert"),
    ("event_keys", "event_keys_flag_terms_insert"),
    ("event_keys", "linked_event_stats_insert"),
    ("posts", "event_keys_insert"),
    ("posts", "event_keys_update"),
    ("term_relationships", "event_keys_term_insert"),
    ("term_relationships", "event_keys_term_delete"),
    ("event_organizers", "event_keys_organizer_insert"),
    ("event_organizers", "event_keys_organizer_delete"),
];

/// SQLite's trigger giving an own key written after its flag keys their bits
/// (PostgreSQL's statement trigger covers both kinds of key).
pub(crate) const SQLITE_KEYS_TRIGGERS: [(&str, &str); 1] =
    [("event_keys", "event_keys_flag_bits_own")];

/// PostgreSQL's triggers writing each event's terms and flags into `event_search`
/// (SQLite has none): off during the load too, migration 29's rebuild of that table fills them
/// once the keys are in.
pub(crate) const POSTGRES_KEYS_TRIGGERS: [(&str, &str); 3] = [
    ("event_keys", "event_search_terms_insert"),
    ("event_keys", "event_search_terms_delete"),
    ("event_keys", "event_search_terms_update"),
];

pub(crate) async fn load_postgres(
    url: &str,
    load: Load,
    mut rx: mpsc::Receiver<Vec<EventRow>>,
    timings: &mut Timings,
) -> Result<()> {
    let client = pg_connect(url).await?;
    let shape = load.shape;
    // The trigram GIN index would otherwise be updated row by row; a large pending list
    // lets PostgreSQL merge it in bulk, as its own bulk loads do.
    client
        .batch_execute(
            "SET synchronous_commit = off;
             SET work_mem = '256MB';
             SET maintenance_work_mem = '512MB';
             SET gin_pending_list_limit = '256MB';",
        )
        .await?;
    client.batch_execute("BEGIN").await?;
    pg_key_triggers(&client, "DISABLE").await?;
    pg_search_key_triggers(&client, "DISABLE").await?;
    // Written again whole once the events are in (`search_pieces_fill_sql`), where
    // the load would keep them row by row.
    client
        .batch_execute(
            "DROP INDEX event_search_pieces;
             DROP TRIGGER search_words_insert ON event_search;
             DROP TRIGGER search_words_update ON event_search;",
        )
        .await?;
    pg_copy(&client, &TERMS, &load.terms, &shape).await?;
    pg_copy(&client, &LINKED, &load.venues, &shape).await?;
    pg_copy(&client, &LINKED, &load.organizers, &shape).await?;
    timings.lap("venues, organizers, terms");

    let mut in_tx = 0usize;
    let mut pending: Vec<EventRow> = Vec::new();
    // One COPY per table and batch: each COPY has a fixed cost, so batches stay large.
    let flush = |events: Vec<EventRow>| {
        let client = &client;
        async move {
            pg_copy(client, &EVENTS, &events, &shape).await?;
            pg_copy(client, &TERM_LINKS, &term_links(&events), &shape).await?;
            pg_copy(client, &ORGANIZER_LINKS, &organizer_links(&events), &shape).await?;
            Ok::<_, BoxError>(events.len())
        }
    };
    while let Some(events) = rx.recv().await {
        pending.extend(events);
        if pending.len() >= 10_000 {
            let n = flush(std::mem::take(&mut pending)).await?;
            in_tx += n;
            load.progress.inc(n as u64);
            if in_tx >= load.batch {
                client.batch_execute("COMMIT; BEGIN").await?;
                in_tx = 0;
            }
        }
    }
    let n = flush(pending).await?;
    load.progress.inc(n as u64);
    load.progress.finish();
    timings.lap("events");

    let pb = spinner("term counts");
    pg_fill_derived(&client, shape.now).await?;
    pb.finish_and_clear();
    timings.lap("term counts");

    // The fills above write every key and then rewrite it with its term bits, as the
    // migrations that introduced them did: that leaves the keys' indexes twice their rebuilt
    // size (5.3 GB against 2.6 at 1M), a bloat that only a database upgraded across those
    // migrations has, and that docs/operations.md tells its operator to rebuild away
    // (bench/HISTORY.md, "2026-12-04").
    let pb = spinner("reindex event_keys");
    client.batch_execute("REINDEX TABLE event_keys").await?;
    pb.finish_and_clear();
    timings.lap("reindex");

    // Autovacuum would get there within minutes of the load; doing it now makes the first
    // benchmark run see the same plans and visibility map as later ones.
    let pb = spinner("vacuum analyze");
    client.batch_execute("VACUUM ANALYZE").await?;
    let events: i64 = client.query_one(&count_events_sql(), &[]).await?.get(0);
    if events as u64 != shape.events {
        return Err(format!("expected {} events, found {events}", shape.events).into());
    }
    pb.finish_and_clear();
    timings.lap("finish");
    Ok(())
}

/// The term counts, the events' keys and search terms, the trigram index's grams
/// and the identity sequences, filled in bulk after the load, with the triggers that
/// keep them from then on enabled again.
async fn pg_fill_derived(client: &tokio_postgres::Client, now: i64) -> Result<()> {
    // The events of this transaction have their search rows written now rather than at
    // its commit (migration 30's deferred trigger): PostgreSQL refuses to alter a table
    // with trigger events pending, as enabling the triggers below does.
    client
        .batch_execute("SET CONSTRAINTS ALL IMMEDIATE")
        .await?;
    client.batch_execute(&count_terms_sql(now)).await?;
    client
        .batch_execute(&event_keys_fill_sql(Backend::Postgres)?)
        .await?;
    client.batch_execute(event_search_terms_fill_sql()?).await?;
    client
        .batch_execute(flags_among_search_terms_fill_sql()?)
        .await?;
    client.batch_execute(search_pieces_fill_sql()?).await?;
    pg_key_triggers(client, "ENABLE").await?;
    for sql in search_grams_fill(Backend::Postgres) {
        client.batch_execute(sql).await?;
    }
    pg_search_key_triggers(client, "ENABLE").await?;
    // The explicit IDs above bypassed the identity sequences.
    client
        .batch_execute(
            "SELECT setval(pg_get_serial_sequence('posts', 'id'), (SELECT MAX(id) FROM posts));
             SELECT setval(pg_get_serial_sequence('terms', 'id'), (SELECT MAX(id) FROM terms));
             COMMIT;",
        )
        .await?;
    Ok(())
}

/// Enables or disables (`action`) the triggers that keep the events' keys.
async fn pg_key_triggers(client: &tokio_postgres::Client, action: &str) -> Result<()> {
    for (table, trigger) in EVENT_KEYS_TRIGGERS.iter().chain(&POSTGRES_KEYS_TRIGGERS) {
        client
            .batch_execute(&format!("ALTER TABLE {table} {action} TRIGGER {trigger}"))
            .await?;
    }
    Ok(())
}

/// Enables or disables (`action`) the triggers that keep `search_chars` and
/// `event_symbols`.
async fn pg_search_key_triggers(client: &tokio_postgres::Client, action: &str) -> Result<()> {
    for trigger in SEARCH_KEY_TRIGGERS {
        client
            .batch_execute(&format!("ALTER TABLE posts {action} TRIGGER {trigger}"))
            .await?;
    }
    Ok(())
}
