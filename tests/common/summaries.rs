//! What the triggers keep, checked against its definition: the events' keys from
//! the posts, their links and the terms' ancestors; the per-day counts from the keys;
//! the blocks from the per-day counts; the venues' and organizers' summaries from the
//! keys; each event's bits from its terms' and its flags. Written as plain SQL both backends run, apart from the triggers.

use sea_query::{Expr, Query};

use super::TestApp;

/// Every key an event has by definition (migrations 7, 17 and 18).
const KEYS_DEFINED: &str = "\
    SELECT k.kind, k.value, COALESCE(e.start_utc, 0) AS start_utc, e.id AS event_id, \
           COALESCE(e.end_utc, 0) AS end_utc, e.status, e.password <> '' AS protected, \
           e.hide_from_listings AS hidden, e.author \
    FROM posts e JOIN ( \
        SELECT id AS event_id, 0 AS kind, 0 AS value FROM posts \
        UNION ALL SELECT id, 2, venue_id FROM posts WHERE venue_id IS NOT NULL \
        UNION ALL SELECT id, 4, CASE WHEN featured THEN 1 ELSE 0 END FROM posts \
        UNION ALL SELECT id, 5, CASE WHEN tickets <> '' THEN 1 ELSE 0 END FROM posts \
        UNION ALL SELECT p.id, 6, CASE WHEN EXISTS ( \
            SELECT 1 FROM posts v WHERE v.id = p.venue_id AND v.post_type = 'venue' \
              AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END \
            FROM posts p \
        UNION ALL SELECT event_id, 3, organizer_id FROM event_organizers \
        UNION ALL SELECT DISTINCT r.post_id, 1, c.ancestor_id FROM term_relationships r \
            JOIN term_ancestors c ON c.term_id = r.term_id \
        UNION ALL SELECT DISTINCT r.post_id, 7, c.ancestor_id FROM term_relationships r \
            JOIN term_ancestors c ON c.term_id = r.term_id \
            JOIN posts f ON f.id = r.post_id AND f.featured \
        UNION ALL SELECT DISTINCT r.post_id, 8, c.ancestor_id FROM term_relationships r \
            JOIN term_ancestors c ON c.term_id = r.term_id \
            JOIN posts t ON t.id = r.post_id AND t.tickets <> '' \
    ) k ON k.event_id = e.id \
    WHERE e.post_type = 'event' \
      AND NOT (k.kind IN (1, 7, 8) AND k.value IN (SELECT id FROM terms WHERE taxonomy = 'deleted'))";

/// The keys kept, but those of a term being deleted in steps (migrations 43 and 44):
/// its former subcategories' events keep its keys until a batch removes them, and
/// nothing can name it meanwhile. Once its row goes, any key of it left is unexpected.
const KEYS: &str = "SELECT kind, value, start_utc, event_id, end_utc, status, protected, \
                    hidden, author FROM event_keys \
                    WHERE NOT (kind IN (1, 7, 8) \
                               AND value IN (SELECT id FROM terms WHERE taxonomy = 'deleted'))";

/// The per-day counts the keys give (migration 7), and those kept.
const DAYS_DEFINED: &str = "\
    SELECT kind, value, status, protected, \
           (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400 AS end_day, \
           (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400 AS start_day, \
           COUNT(*) AS events \
    FROM event_keys WHERE NOT hidden AND kind NOT IN (2, 3) \
    GROUP BY 1, 2, 3, 4, 5, 6";
const DAYS: &str = "SELECT kind, value, status, protected, end_day, start_day, events \
                    FROM event_key_days WHERE events <> 0";

/// The blocks the per-day counts give (migration 20), and those kept (summed over
/// PostgreSQL's stripes, migration 21).
const BLOCKS_DEFINED: &str = "\
    SELECT kind, value, status, protected, \
           (end_day - ((end_day % 32) + 32) % 32) / 32 AS end_block, \
           (start_day - ((start_day % 32) + 32) % 32) / 32 AS start_block, \
           SUM(events) AS events \
    FROM event_key_days GROUP BY 1, 2, 3, 4, 5, 6 HAVING SUM(events) <> 0";
const BLOCKS: &str = "SELECT kind, value, status, protected, end_block, start_block, \
                      SUM(events) AS events FROM event_key_blocks \
                      GROUP BY 1, 2, 3, 4, 5, 6 HAVING SUM(events) <> 0";

/// Each venue's and organizer's summary the keys give (migration 7), and those kept;
/// one with no events left says nothing, whether or not its row stays.
const LINKED_DEFINED: &str = "\
    SELECT kind, value, \
           SUM(CASE WHEN status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END) AS counted, \
           MAX(CASE WHEN status = 'publish' AND NOT hidden THEN start_utc END) AS public_last, \
           MAX(CASE WHEN status <> 'trash' AND NOT hidden THEN start_utc END) AS listed_last \
    FROM event_keys WHERE kind IN (2, 3) GROUP BY 1, 2";
const LINKED: &str = "SELECT kind, value, counted, public_last, listed_last \
                      FROM linked_event_stats \
                      WHERE counted <> 0 OR public_last IS NOT NULL OR listed_last IS NOT NULL";

/// The bits of each event's own key and of each of its term keys: the words of the
/// bits of its term keys' terms (migrations 32, 34 and 37: bit b is bit b % 63 of
/// word b / 63), and those kept; no other key has any.
const BITS_DEFINED: &str = "\
    SELECT e.kind, e.value, e.start_utc, e.event_id, w.w0, w.w1, w.w2, w.w3 \
    FROM event_keys e JOIN ( \
        SELECT ev.event_id, \
           CAST(COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 0 THEN \
               CAST(1 AS BIGINT) << CAST(t.bit % 63 AS INTEGER) END), 0) AS BIGINT) AS w0, \
           CAST(COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 1 THEN \
               CAST(1 AS BIGINT) << CAST(t.bit % 63 AS INTEGER) END), 0) AS BIGINT) AS w1, \
           CAST(COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 2 THEN \
               CAST(1 AS BIGINT) << CAST(t.bit % 63 AS INTEGER) END), 0) AS BIGINT) AS w2, \
           CAST(COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 3 THEN \
               CAST(1 AS BIGINT) << CAST(t.bit % 63 AS INTEGER) END), 0) AS BIGINT) AS w3 \
        FROM event_keys ev \
        LEFT JOIN event_keys o ON o.event_id = ev.event_id AND o.kind = 1 \
        LEFT JOIN term_bits t ON t.term_id = o.value \
        WHERE ev.kind = 0 GROUP BY ev.event_id \
    ) w ON w.event_id = e.event_id \
    WHERE e.kind IN (0, 1)";
const BITS: &str = "\
    SELECT kind, value, start_utc, event_id, term_bits, term_bits_1, term_bits_2, term_bits_3 \
    FROM event_keys WHERE kind IN (0, 1) \
    UNION ALL \
    SELECT kind, value, start_utc, event_id, term_bits, term_bits_1, term_bits_2, term_bits_3 \
    FROM event_keys WHERE kind NOT IN (0, 1) \
      AND (term_bits <> 0 OR term_bits_1 <> 0 OR term_bits_2 <> 0 OR term_bits_3 <> 0)";

/// The flags' bits of each event's own key (migration 41): featured 1, has tickets
/// 2, its venue has coordinates 4, from the event's row; and those kept (no other key
/// has any).
const FLAGS_DEFINED: &str = "\
    SELECT k.event_id, \
           CASE WHEN e.featured THEN 1 ELSE 0 END \
           + CASE WHEN e.tickets <> '' THEN 2 ELSE 0 END \
           + CASE WHEN EXISTS ( \
               SELECT 1 FROM posts v WHERE v.id = e.venue_id AND v.post_type = 'venue' \
                 AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 4 ELSE 0 END \
             AS flag_bits \
    FROM event_keys k JOIN posts e ON e.id = k.event_id \
    WHERE k.kind = 0";
const FLAGS: &str = "\
    SELECT event_id, flag_bits FROM event_keys WHERE kind = 0 \
    UNION ALL \
    SELECT event_id, flag_bits FROM event_keys WHERE kind <> 0 AND flag_bits <> 0";

/// Asserts that every summary the triggers keep is what its definition gives.
pub async fn assert_summaries_hold(app: &TestApp, when: &str) {
    let mut conn = app.store.pool.read().await.unwrap();
    let pairs = [
        ("event_keys", KEYS_DEFINED, KEYS),
        ("event_key_days", DAYS_DEFINED, DAYS),
        ("event_key_blocks", BLOCKS_DEFINED, BLOCKS),
        ("linked_event_stats", LINKED_DEFINED, LINKED),
        ("event_keys.term_bits", BITS_DEFINED, BITS),
        ("event_keys.flag_bits", FLAGS_DEFINED, FLAGS),
    ];
    for (table, defined, kept) in pairs {
        for (these, those, what) in [(defined, kept, "missing"), (kept, defined, "unexpected")] {
            let rows = conn
                .query_one(
                    &Query::select()
                        .expr(Expr::cust(format!(
                            "(SELECT COUNT(*) FROM ({these} EXCEPT {those}) d)"
                        )))
                        .to_owned(),
                    |r| r.i64(0),
                )
                .await
                .unwrap();
            assert_eq!(rows, 0, "{when}: {rows} rows {what} in {table}");
        }
    }
}
