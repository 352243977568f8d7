//! Schema migrations, one ordered set per backend, applied at start-up.

use sea_query::{Expr, Query};

use super::schema::SchemaMigrations;
use super::{Backend, Pool, StoreError};

struct Migration {
    version: i64,
    sqlite: &'static str,
    postgres: &'static str,
}

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        sqlite: include_str!("migrations/sqlite/0001_init.sql"),
        postgres: include_str!("migrations/postgres/0001_init.sql"),
    },
    Migration {
        version: 2,
        sqlite: include_str!("migrations/sqlite/0002_search_queue.sql"),
        postgres: include_str!("migrations/postgres/0002_search_queue.sql"),
    },
    Migration {
        version: 3,
        sqlite: include_str!("migrations/sqlite/0003_listed_event_days.sql"),
        postgres: include_str!("migrations/postgres/0003_listed_event_days.sql"),
    },
    Migration {
        version: 4,
        sqlite: include_str!("migrations/sqlite/0004_search_index_and.sql"),
        postgres: include_str!("migrations/postgres/0004_search_index_and.sql"),
    },
    Migration {
        version: 5,
        sqlite: include_str!("migrations/sqlite/0005_trashed_status.sql"),
        postgres: include_str!("migrations/postgres/0005_trashed_status.sql"),
    },
    Migration {
        version: 6,
        sqlite: include_str!("migrations/sqlite/0006_auth_failures.sql"),
        postgres: include_str!("migrations/postgres/0006_auth_failures.sql"),
    },
    Migration {
        version: 7,
        sqlite: include_str!("migrations/sqlite/0007_event_keys.sql"),
        postgres: include_str!("migrations/postgres/0007_event_keys.sql"),
    },
    Migration {
        version: 8,
        sqlite: include_str!("migrations/sqlite/0008_change_log.sql"),
        postgres: include_str!("migrations/postgres/0008_change_log.sql"),
    },
    Migration {
        version: 9,
        sqlite: include_str!("migrations/sqlite/0009_post_revision.sql"),
        postgres: include_str!("migrations/postgres/0009_post_revision.sql"),
    },
    Migration {
        version: 10,
        sqlite: include_str!("migrations/sqlite/0010_change_positions.sql"),
        postgres: include_str!("migrations/postgres/0010_change_positions.sql"),
    },
    Migration {
        version: 11,
        sqlite: include_str!("migrations/sqlite/0011_import_sources.sql"),
        postgres: include_str!("migrations/postgres/0011_import_sources.sql"),
    },
    Migration {
        version: 12,
        sqlite: include_str!("migrations/sqlite/0012_linked_search.sql"),
        postgres: include_str!("migrations/postgres/0012_linked_search.sql"),
    },
    Migration {
        version: 13,
        sqlite: include_str!("migrations/sqlite/0013_search_chars.sql"),
        postgres: include_str!("migrations/postgres/0013_search_chars.sql"),
    },
    Migration {
        version: 14,
        sqlite: include_str!("migrations/sqlite/0014_event_symbols.sql"),
        postgres: include_str!("migrations/postgres/0014_event_symbols.sql"),
    },
    Migration {
        version: 15,
        sqlite: include_str!("migrations/sqlite/0015_symbol_trigrams.sql"),
        postgres: include_str!("migrations/postgres/0015_symbol_trigrams.sql"),
    },
    Migration {
        version: 16,
        sqlite: include_str!("migrations/sqlite/0016_event_keys_covering.sql"),
        postgres: include_str!("migrations/postgres/0016_event_keys_covering.sql"),
    },
    Migration {
        version: 17,
        sqlite: include_str!("migrations/sqlite/0017_term_ancestors.sql"),
        postgres: include_str!("migrations/postgres/0017_term_ancestors.sql"),
    },
    Migration {
        version: 18,
        sqlite: include_str!("migrations/sqlite/0018_flagged_term_keys.sql"),
        postgres: include_str!("migrations/postgres/0018_flagged_term_keys.sql"),
    },
    Migration {
        version: 19,
        sqlite: include_str!("migrations/sqlite/0019_linked_by_date.sql"),
        postgres: include_str!("migrations/postgres/0019_linked_by_date.sql"),
    },
    Migration {
        version: 20,
        sqlite: include_str!("migrations/sqlite/0020_event_key_blocks.sql"),
        postgres: include_str!("migrations/postgres/0020_event_key_blocks.sql"),
    },
    Migration {
        version: 21,
        sqlite: include_str!("migrations/sqlite/0021_striped_blocks.sql"),
        postgres: include_str!("migrations/postgres/0021_striped_blocks.sql"),
    },
    Migration {
        version: 22,
        sqlite: include_str!("migrations/sqlite/0022_venue_coordinates.sql"),
        postgres: include_str!("migrations/postgres/0022_venue_coordinates.sql"),
    },
    Migration {
        version: 23,
        sqlite: include_str!("migrations/sqlite/0023_trigger_plans.sql"),
        postgres: include_str!("migrations/postgres/0023_trigger_plans.sql"),
    },
    Migration {
        version: 24,
        sqlite: include_str!("migrations/sqlite/0024_symbol_neighbourhoods.sql"),
        postgres: include_str!("migrations/postgres/0024_symbol_neighbourhoods.sql"),
    },
    Migration {
        version: 25,
        sqlite: include_str!("migrations/sqlite/0025_event_search.sql"),
        postgres: include_str!("migrations/postgres/0025_event_search.sql"),
    },
    Migration {
        version: 26,
        sqlite: include_str!("migrations/sqlite/0026_dated_event_search.sql"),
        postgres: include_str!("migrations/postgres/0026_dated_event_search.sql"),
    },
    Migration {
        version: 27,
        sqlite: include_str!("migrations/sqlite/0027_linked_search_types.sql"),
        postgres: include_str!("migrations/postgres/0027_linked_search_types.sql"),
    },
    Migration {
        version: 28,
        sqlite: include_str!("migrations/sqlite/0028_listed_event_search.sql"),
        postgres: include_str!("migrations/postgres/0028_listed_event_search.sql"),
    },
    Migration {
        version: 29,
        sqlite: include_str!("migrations/sqlite/0029_event_search_terms.sql"),
        postgres: include_str!("migrations/postgres/0029_event_search_terms.sql"),
    },
    Migration {
        version: 30,
        sqlite: include_str!("migrations/sqlite/0030_event_search_at_commit.sql"),
        postgres: include_str!("migrations/postgres/0030_event_search_at_commit.sql"),
    },
    Migration {
        version: 31,
        sqlite: include_str!("migrations/sqlite/0031_statement_insert_triggers.sql"),
        postgres: include_str!("migrations/postgres/0031_statement_insert_triggers.sql"),
    },
    Migration {
        version: 32,
        sqlite: include_str!("migrations/sqlite/0032_term_bits.sql"),
        postgres: include_str!("migrations/postgres/0032_term_bits.sql"),
    },
    Migration {
        version: 33,
        sqlite: include_str!("migrations/sqlite/0033_write_stamps.sql"),
        postgres: include_str!("migrations/postgres/0033_write_stamps.sql"),
    },
    Migration {
        version: 34,
        sqlite: include_str!("migrations/sqlite/0034_wider_term_bits.sql"),
        postgres: include_str!("migrations/postgres/0034_wider_term_bits.sql"),
    },
    Migration {
        version: 35,
        sqlite: include_str!("migrations/sqlite/0035_linked_search_pairs.sql"),
        postgres: include_str!("migrations/postgres/0035_linked_search_pairs.sql"),
    },
    Migration {
        version: 36,
        sqlite: include_str!("migrations/sqlite/0036_linked_search_chars.sql"),
        postgres: include_str!("migrations/postgres/0036_linked_search_chars.sql"),
    },
    Migration {
        version: 37,
        sqlite: include_str!("migrations/sqlite/0037_term_key_bits.sql"),
        postgres: include_str!("migrations/postgres/0037_term_key_bits.sql"),
    },
    Migration {
        version: 38,
        sqlite: include_str!("migrations/sqlite/0038_term_keys_written_with_bits.sql"),
        postgres: include_str!("migrations/postgres/0038_term_keys_written_with_bits.sql"),
    },
    Migration {
        version: 39,
        sqlite: include_str!("migrations/sqlite/0039_edits_keep_the_own_key.sql"),
        postgres: include_str!("migrations/postgres/0039_edits_keep_the_own_key.sql"),
    },
    Migration {
        version: 40,
        sqlite: include_str!("migrations/sqlite/0040_trigger_functions_keep_plans.sql"),
        postgres: include_str!("migrations/postgres/0040_trigger_functions_keep_plans.sql"),
    },
    Migration {
        version: 41,
        sqlite: include_str!("migrations/sqlite/0041_flag_bits.sql"),
        postgres: include_str!("migrations/postgres/0041_flag_bits.sql"),
    },
    Migration {
        version: 42,
        sqlite: include_str!("migrations/sqlite/0042_keys_by_event.sql"),
        postgres: include_str!("migrations/postgres/0042_keys_by_event.sql"),
    },
    Migration {
        version: 43,
        sqlite: include_str!("migrations/sqlite/0043_terms_deleted_in_batches.sql"),
        postgres: include_str!("migrations/postgres/0043_terms_deleted_in_batches.sql"),
    },
    Migration {
        version: 44,
        sqlite: include_str!("migrations/sqlite/0044_moves_rekey_what_changes.sql"),
        postgres: include_str!("migrations/postgres/0044_moves_rekey_what_changes.sql"),
    },
    Migration {
        version: 45,
        sqlite: include_str!("migrations/sqlite/0045_category_moves_in_batches.sql"),
        postgres: include_str!("migrations/postgres/0045_category_moves_in_batches.sql"),
    },
    Migration {
        version: 46,
        sqlite: include_str!("migrations/sqlite/0046_linked_unlinks_in_batches.sql"),
        postgres: include_str!("migrations/postgres/0046_linked_unlinks_in_batches.sql"),
    },
    Migration {
        version: 47,
        sqlite: include_str!("migrations/sqlite/0047_links_kept_while_unlinking.sql"),
        postgres: include_str!("migrations/postgres/0047_links_kept_while_unlinking.sql"),
    },
    Migration {
        version: 48,
        sqlite: include_str!("migrations/sqlite/0048_linked_deleted_in_steps.sql"),
        postgres: include_str!("migrations/postgres/0048_linked_deleted_in_steps.sql"),
    },
    Migration {
        version: 49,
        sqlite: include_str!("migrations/sqlite/0049_midnight_ends.sql"),
        postgres: include_str!("migrations/postgres/0049_midnight_ends.sql"),
    },
    Migration {
        version: 50,
        sqlite: include_str!("migrations/sqlite/0050_longest_events.sql"),
        postgres: include_str!("migrations/postgres/0050_longest_events.sql"),
    },
    Migration {
        version: 51,
        sqlite: include_str!("migrations/sqlite/0051_search_words.sql"),
        postgres: include_str!("migrations/postgres/0051_search_words.sql"),
    },
    Migration {
        version: 52,
        sqlite: include_str!("migrations/sqlite/0052_search_pieces.sql"),
        postgres: include_str!("migrations/postgres/0052_search_pieces.sql"),
    },
    Migration {
        version: 53,
        sqlite: include_str!("migrations/sqlite/0053_search_pairs_by_char.sql"),
        postgres: include_str!("migrations/postgres/0053_search_pairs_by_char.sql"),
    },
    Migration {
        version: 54,
        sqlite: include_str!("migrations/sqlite/0054_flags_among_search_terms.sql"),
        postgres: include_str!("migrations/postgres/0054_flags_among_search_terms.sql"),
    },
];

/// Applies every migration the database has not seen, each in its own transaction.
/// On PostgreSQL an advisory lock makes concurrent instances wait for each other.
pub async fn run(pool: &Pool) -> Result<(), StoreError> {
    let mut tx = pool.write().await?;
    tx.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_utc BIGINT NOT NULL)",
    )
    .await?;
    if tx.backend() == Backend::Postgres {
        // Building an index over a large table takes minutes: far past a server's
        // statement timeout, which is for requests.
        tx.batch("SET LOCAL statement_timeout = 0").await?;
        tx.batch("SELECT pg_advisory_xact_lock(7226351)").await?;
    }
    let applied = tx
        .query(
            Query::select()
                .column(SchemaMigrations::Version)
                .from(SchemaMigrations::Table),
            |r| r.i64(0),
        )
        .await?;
    let unknown = unknown_versions(&applied);
    if !unknown.is_empty() {
        // A rolling upgrade runs older instances beside newer ones for a while:
        // stopping them would turn it into an outage. But the operator should know
        // (after a rollback above all) that the schema is ahead of this build.
        // bench/ab.sh looks for this message to refuse comparing such a build.
        tracing::warn!(
            versions = ?unknown,
            "the database has migrations this build does not know: a newer release migrated it"
        );
    }
    for m in MIGRATIONS.iter().filter(|m| !applied.contains(&m.version)) {
        tracing::info!(version = m.version, "applying migration");
        let sql = match tx.backend() {
            Backend::Sqlite => m.sqlite,
            Backend::Postgres => m.postgres,
        };
        tx.batch(sql).await?;
        tx.execute(
            Query::insert()
                .into_table(SchemaMigrations::Table)
                .columns([SchemaMigrations::Version, SchemaMigrations::AppliedUtc])
                .values_panic([
                    Expr::val(m.version),
                    Expr::val(chrono::Utc::now().timestamp()),
                ]),
        )
        .await?;
    }
    tx.commit().await
}

/// Applied migrations newer than every migration of this build, in order.
fn unknown_versions(applied: &[i64]) -> Vec<i64> {
    let known = MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0);
    let mut unknown: Vec<i64> = applied.iter().copied().filter(|v| *v > known).collect();
    unknown.sort_unstable();
    unknown
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_of_a_newer_release_are_told_apart() {
        let known = super::MIGRATIONS.last().map_or(0, |m| m.version);
        assert!(super::unknown_versions(&[1, 2, known]).is_empty());
        assert_eq!(
            super::unknown_versions(&[known + 2, 1, known + 1]),
            vec![known + 1, known + 2]
        );
    }

    #[test]
    fn versions_are_increasing() {
        let v: Vec<i64> = super::MIGRATIONS.iter().map(|m| m.version).collect();
        assert!(v.windows(2).all(|w| w[0] < w[1]));
    }
}
