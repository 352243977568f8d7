//! Upgrading a database made by an earlier release keeps its data working.

mod common;

use calendar_events::store::Store;
use common::*;
use serde_json::json;

/// A SQLite database at schema version 1 (search indexed row by row by triggers),
/// holding one event, opened by this release: migration 2 moves search to the
/// per-commit queue. The old event stays searchable, new and edited events become
/// searchable, and a deleted one leaves the index. Migration 3 counts the old event
/// into the per-day counts that plain windows' totals come from.
#[tokio::test]
async fn a_version_1_sqlite_database_upgrades_and_keeps_search_working() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calendar.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../src/store/migrations/sqlite/0001_init.sql"))
            .unwrap();
        conn.execute_batch(
            "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_utc BIGINT NOT NULL);
             INSERT INTO schema_migrations VALUES (1, 0);
             INSERT INTO posts (post_type, status, slug, title, description, date_utc, modified_utc,
                                start_utc, end_utc, timezone, featured)
             VALUES ('event', 'publish', 'lantern-walk', 'Legacy Lantern Walk', '<p>Old.</p>',
                     0, 0, 1806600000, 1806603600, 'UTC', 1);
             INSERT INTO posts (post_type, status, slug, title, city, date_utc, modified_utc)
             VALUES ('venue', 'publish', 'globe', 'Globe Theatre', 'London', 0, 0),
                    ('organizer', 'publish', 'guild', 'Lantern Guild', '', 0, 0);
             INSERT INTO terms (taxonomy, name, slug, parent) VALUES ('tribe_events_cat', 'Walks', 'walks', 0);
             INSERT INTO terms (taxonomy, name, slug, parent)
             SELECT 'tribe_events_cat', 'Night walks', 'night-walks', id FROM terms WHERE slug = 'walks';
             INSERT INTO term_relationships (post_id, term_id)
             SELECT p.id, t.id FROM posts p, terms t WHERE p.slug = 'lantern-walk' AND t.slug = 'night-walks';",
        )
        .unwrap();
    }
    let store = Store::open(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let app = TestApp::with_store(store, Some(dir), None, settings()).await;
    let search = |q: &str| format!("events?search={q}&start_date=2027-01-01&end_date=2027-12-31");

    // Migration 12 indexed the venues and organizers it found: nothing is queued, so
    // searches read them from the index.
    let mut conn = app.store.pool.read().await.unwrap();
    let queued = conn
        .query_one(
            &sea_query::Query::select()
                .expr(sea_query::Expr::cust("count(*)"))
                .from(sea_query::Alias::new("linked_search_queue"))
                .to_owned(),
            |r| r.i64(0),
        )
        .await
        .unwrap();
    drop(conn);
    assert_eq!(queued, 0);
    // Migration 13 collected the characters and pairs of the event's text, lower-cased.
    let held = app
        .scalar(
            "(SELECT count(*) FROM search_chars WHERE ch IN ('l', 'w', '<')) + \
             (SELECT count(*) FROM search_pairs WHERE pair IN ('la', ' w', 'd.'))",
        )
        .await;
    assert_eq!(held, 6);
    // Migration 51 put its pieces of text in the index of whole words and in the
    // vocabulary.
    let pieces = app
        .scalar(
            "(SELECT count(*) FROM posts_words WHERE posts_words MATCH 'legacy AND walk') + \
             (SELECT count(*) FROM search_words \
              WHERE word IN ('legacy', 'lantern', 'walk', 'p', 'old'))",
        )
        .await;
    assert_eq!(pieces, 6);
    let venues = app.get("venues?search=ondon").await;
    assert_eq!(
        venues.body["venues"][0]["venue"], "Globe Theatre",
        "{}",
        venues.text
    );
    assert_eq!(venues.body["total"], 1);
    let organizers = app.get("organizers?search=lantern").await;
    assert_eq!(
        organizers.body["organizers"][0]["organizer"],
        "Lantern Guild"
    );
    assert_eq!(organizers.body["total"], 1);

    let old = app.get(&search("lantern")).await;
    assert_eq!(titles(&old), ["Legacy Lantern Walk"]);
    let window = "events?start_date=2027-01-01&end_date=2027-12-31";
    assert_eq!(app.get(window).await.body["total"], 1);
    // Migration 17 gave the event of a subcategory its parent's key.
    let parent = app.get(&format!("{window}&categories=walks")).await;
    assert_eq!(titles(&parent), ["Legacy Lantern Walk"]);
    assert_eq!(parent.body["total"], 1);
    // Migration 18 gave the featured event its categories' featured keys.
    for category in ["walks", "night-walks"] {
        let featured = app
            .get(&format!("{window}&featured=1&categories={category}"))
            .await;
        assert_eq!(titles(&featured), ["Legacy Lantern Walk"], "{category}");
        assert_eq!(featured.body["total"], 1, "{category}");
    }
    let ticketed = app
        .get(&format!("{window}&ticketed=1&categories=walks"))
        .await;
    assert_eq!(ticketed.body["total"], 0);

    let new = app
        .event(with(
            event(
                "Lantern Making",
                "2027-04-01 10:00:00",
                "2027-04-01 11:00:00",
            ),
            json!({"description": "<p>Paper craft.</p>"}),
        ))
        .await;
    assert_eq!(app.get(&search("lantern")).await.body["total"], 2);
    assert_eq!(
        titles(&app.get(&search("paper%20craft")).await),
        ["Lantern Making"]
    );

    let old_id = old.body["events"][0]["id"].as_i64().unwrap();
    app.patch(
        &format!("events/{old_id}"),
        json!({"title": "Legacy Torch Walk"}),
    )
    .await
    .assert(200);
    assert_eq!(
        titles(&app.get(&search("lantern")).await),
        ["Lantern Making"]
    );
    assert_eq!(
        titles(&app.get(&search("torch")).await),
        ["Legacy Torch Walk"]
    );

    app.delete(&format!("events/{new}?force=true"))
        .await
        .assert(200);
    assert_eq!(app.get(&search("lantern")).await.body["total"], 0);
    assert_eq!(app.get(&search("paper")).await.body["total"], 0);
    assert_eq!(app.get(window).await.body["total"], 1);
}

/// A PostgreSQL database at schema version 2 holding listed, hidden, draft and undated
/// events, opened by this release: migration 3 counts exactly the listed ones into the
/// per-day counts, so plain windows' totals match what they list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_postgres_database_upgrades_with_its_events_counted() {
    let name = format!("cal_test_v2_{}", std::process::id());
    if let Err(e) = pg_admin(format!("CREATE DATABASE {name}")) {
        assert!(!ci(), "PostgreSQL is required in CI: {e}");
        eprintln!("skipping: PostgreSQL unavailable ({e})");
        return;
    }
    let (client, conn) = tokio_postgres::connect(&pg_url_for(&name), tokio_postgres::NoTls)
        .await
        .unwrap();
    let connection = tokio::spawn(conn);
    client
        .batch_execute(include_str!(
            "../src/store/migrations/postgres/0001_init.sql"
        ))
        .await
        .unwrap();
    client
        .batch_execute(include_str!(
            "../src/store/migrations/postgres/0002_search_queue.sql"
        ))
        .await
        .unwrap();
    client
        .batch_execute(
            "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_utc BIGINT NOT NULL);
             INSERT INTO schema_migrations VALUES (1, 0), (2, 0);
             INSERT INTO posts (post_type, status, slug, title, date_utc, modified_utc,
                                start_utc, end_utc, hide_from_listings, featured)
             VALUES ('event', 'publish', 'a', 'Listed A', 0, 0, 1806600000, 1806603600, FALSE, TRUE),
                    ('event', 'publish', 'b', 'Listed B', 0, 0, 1806600000, 1806700000, FALSE, FALSE),
                    ('event', 'publish', 'c', 'Listed C', 0, 0, 1809600000, 1809603600, FALSE, TRUE),
                    ('event', 'publish', 'h', 'Hidden', 0, 0, 1806600000, 1806603600, TRUE, TRUE),
                    ('event', 'draft', 'd', 'Draft ☂.<p', 0, 0, 1806600000, 1806603600, FALSE, TRUE),
                    ('venue', 'publish', 'v', 'A venue ⟨vq⟩', 0, 0, NULL, NULL, FALSE, FALSE);
             INSERT INTO posts (post_type, status, slug, title, date_utc, modified_utc,
                                hide_from_listings, featured)
             SELECT 'venue', 'publish', 'o' || n, 'Other ' || n, 0, 0, FALSE, FALSE
             FROM generate_series(1, 12) AS n;
             INSERT INTO terms (taxonomy, name, slug, parent) VALUES ('tribe_events_cat', 'Music', 'music', 0);
             INSERT INTO terms (taxonomy, name, slug, parent)
             SELECT 'tribe_events_cat', 'Jazz', 'jazz', id FROM terms WHERE slug = 'music';
             INSERT INTO term_relationships (post_id, term_id)
             SELECT p.id, t.id FROM posts p, terms t WHERE p.slug IN ('c', 'h') AND t.slug = 'jazz';",
        )
        .await
        .unwrap();
    drop(client);
    let _ = connection.await;

    let store = Store::open(&pg_url_for(&name)).await.unwrap();
    let app = TestApp::with_store(store, None, Some(name.clone()), settings()).await;
    for window in [
        "events?start_date=2027-01-01&end_date=2027-12-31",
        "events?start_date=2027-04-01&end_date=2027-04-30",
        "events?start_date=2027-04-02&end_date=2027-12-31",
    ] {
        let r = app.get(window).await;
        r.assert(200);
        assert_eq!(
            r.body["total"],
            titles(&r).len(),
            "{window}: {:?}",
            titles(&r)
        );
    }
    let all = app
        .get("events?start_date=2027-01-01&end_date=2027-12-31")
        .await;
    assert_eq!(all.body["total"], 3, "{:?}", titles(&all));
    // Migration 17 gave the events of a subcategory their parent's key, and counted
    // the listed one.
    let music = app
        .get("events?start_date=2027-01-01&end_date=2027-12-31&categories=music")
        .await;
    assert_eq!(titles(&music), ["Listed C"]);
    assert_eq!(music.body["total"], 1);
    // Migration 18 gave the featured events their categories' featured keys, and
    // counted the listed one.
    let featured = app
        .get("events?start_date=2027-01-01&end_date=2027-12-31&categories=music&featured=1")
        .await;
    assert_eq!(titles(&featured), ["Listed C"]);
    assert_eq!(featured.body["total"], 1);

    // Migration 10 stamped the rows it found: a new mirror gets every event a caller
    // may read, the draft only for the administrator.
    let mirror = |body: &serde_json::Value| -> Vec<String> {
        body["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["title"].as_str().unwrap().to_string())
            .collect()
    };
    let visitor = app.get("events?cursor=0&per_page=50").await;
    visitor.assert(200);
    assert_eq!(
        mirror(&visitor.body),
        ["Listed A", "Listed B", "Listed C", "Hidden"]
    );
    let admin = app
        .get_as("events?cursor=0&per_page=50", &app.admin.auth())
        .await;
    assert_eq!(mirror(&admin.body).len(), 5, "{}", admin.text);

    // Migration 4 rebuilt the trigram index: search still finds what it held.
    let found = app.get("events?search=isted&start_date=2027-01-01").await;
    assert_eq!(titles(&found), ["Listed A", "Listed B", "Listed C"]);
    // Migration 52 put the pieces of text it found in the vocabulary and in the
    // index of whole words, which the search reads.
    let pieces = app
        .scalar(
            "(SELECT count(*) FROM search_words WHERE word IN ('listed', 'hidden', 'draft')) + \
             (SELECT count(*) FROM event_search \
              WHERE search_pieces(haystack) && ARRAY['listed'])",
        )
        .await;
    assert_eq!(pieces, 6);
    let found = app.get("events?search=listed&start_date=2027-01-01").await;
    assert_eq!(titles(&found), ["Listed A", "Listed B", "Listed C"]);
    // Migration 12 indexed the venue it found.
    let venues = app.get("venues?search=venue").await;
    assert_eq!(
        venues.body["venues"][0]["venue"], "A venue ⟨vq⟩",
        "{}",
        venues.text
    );
    assert_eq!(venues.body["total"], 1);
    // Migration 36 listed the characters past ASCII of the texts it found: a pair
    // whose only neighbours are such characters is found (one venue in thirteen
    // holds it: looked up in the index).
    let pair = app.get("venues?search=vq").await;
    assert_eq!(pair.body["total"], 1, "{}", pair.text);
    // Migration 25 moved the events' searched text, lower-cased, to a table of its
    // own with the trigram index and its large statistics sample (see the
    // migration for why): every event, whatever its status, and no venue; migration
    // 26 added each one's start.
    let (client, conn) = tokio_postgres::connect(&pg_url_for(&name), tokio_postgres::NoTls)
        .await
        .unwrap();
    let connection = tokio::spawn(conn);
    let texts = client
        .query(
            "SELECT s.haystack, s.protected_title IS NULL
                    AND s.start_utc IS NOT DISTINCT FROM p.start_utc
             FROM event_search s JOIN posts p ON p.id = s.id ORDER BY p.title",
            &[],
        )
        .await
        .unwrap();
    let texts: Vec<(String, bool)> = texts.iter().map(|r| (r.get(0), r.get(1))).collect();
    let expected = [
        "draft ☂.<p  ",
        "hidden  ",
        "listed a  ",
        "listed b  ",
        "listed c  ",
    ];
    assert_eq!(
        texts,
        expected.map(|t| (t.to_string(), true)).to_vec(),
        "one lower-cased text per event"
    );
    let row = client
        .query_one(
            "SELECT a.attstattarget::int,
                    (SELECT count(*) FROM pg_indexes WHERE indexname = 'posts_search_trgm'),
                    (SELECT count(*) FROM pg_indexes WHERE indexname = 'event_search_trgm')
             FROM pg_attribute a
             WHERE a.attrelid = 'event_search'::regclass AND a.attname = 'haystack'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 1000);
    assert_eq!(row.get::<_, i64>(1), 0, "the index on posts is gone");
    assert_eq!(row.get::<_, i64>(2), 1);
    let start_indexed = client
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE indexname = 'event_search_start'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(start_indexed.get::<_, i64>(0), 1);
    // Migration 27 wrote each venue's and organizer's type beside its text.
    let types = client
        .query(
            "SELECT l.post_type = p.post_type FROM linked_search l JOIN posts p ON p.id = l.id",
            &[],
        )
        .await
        .unwrap();
    assert!(!types.is_empty() && types.iter().all(|r| r.get::<_, bool>(0)));
    // Migration 28 wrote beside each event's text what its key of every event holds.
    let listed = client
        .query(
            "SELECT (s.start_utc, s.end_utc, s.status, s.protected, s.hidden, s.author)
                  = (k.start_utc, k.end_utc, k.status, k.protected, k.hidden, k.author)
             FROM event_search s JOIN event_keys k ON k.event_id = s.id AND k.kind = 0",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(listed.len(), texts.len());
    assert!(listed.iter().all(|r| r.get::<_, bool>(0)));
    // Migration 29 wrote beside it the event's terms, as its term keys give them
    // (a subcategory's event holds its parent too), and a search in a category
    // finds them there; migration 54 added the set flags among them, featured as -4
    // and ticketed as -5.
    let terms = client
        .query(
            "SELECT s.terms = COALESCE((SELECT array_agg(t.held ORDER BY t.held)
                                        FROM (SELECT k.value AS held FROM event_keys k
                                              WHERE k.event_id = s.id AND k.kind = 1
                                              UNION ALL
                                              SELECT -k.kind FROM event_keys k
                                              WHERE k.event_id = s.id AND k.kind IN (4, 5)
                                                AND k.value = 1) t), '{}'),
                    cardinality(s.terms), -4 = ANY (s.terms)
             FROM event_search s",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(terms.len(), texts.len());
    assert!(terms.iter().all(|r| r.get::<_, bool>(0)));
    assert!(terms.iter().any(|r| r.get::<_, i32>(1) >= 2));
    assert!(
        terms.iter().any(|r| r.get::<_, bool>(2)),
        "the featured event"
    );
    // Migrations 32, 34 and 37 wrote each event's term bits on its own key and on
    // each of its term keys alike.
    let bits = client
        .query(
            "SELECT (k.term_bits, k.term_bits_1, k.term_bits_2, k.term_bits_3)
                  = (o.term_bits, o.term_bits_1, o.term_bits_2, o.term_bits_3),
                    k.term_bits <> 0
             FROM event_keys k JOIN event_keys o
               ON o.event_id = k.event_id AND o.kind = 0 AND o.value = 0
             WHERE k.kind = 1",
            &[],
        )
        .await
        .unwrap();
    assert!(bits.iter().all(|r| r.get::<_, bool>(0)));
    assert!(
        bits.iter().any(|r| r.get::<_, bool>(1)),
        "some term has a bit"
    );
    let in_music = app
        .get("events?search=isted&start_date=2027-01-01&categories=music")
        .await;
    assert_eq!(titles(&in_music), ["Listed C"]);
    // Migration 13 collected the characters of every event's text, the draft's too.
    let held = client
        .query_one(
            "SELECT count(*) FROM search_chars WHERE ch IN ('☂', 'l', ' ')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(held.get::<_, i64>(0), 3);
    // Migrations 14 and 15 collected each event's symbols, the runs of two and three
    // characters they are in, and its letters and digits, and searches find them
    // there.
    let symbols = client
        .query(
            "SELECT p.title, s.symbols::text FROM event_symbols s
             JOIN posts p ON p.id = s.event_id ORDER BY p.title",
            &[],
        )
        .await
        .unwrap();
    let symbols: Vec<(String, String)> = symbols.iter().map(|r| (r.get(0), r.get(1))).collect();
    let expected = [
        ("Draft ☂.<p", "{.,.<,.<p,<,<p,a,d,f,p,r,t,☂,☂.,☂.<}"),
        ("Hidden", "{d,e,h,i,n}"),
        ("Listed A", "{a,d,e,i,l,s,t}"),
        ("Listed B", "{b,d,e,i,l,s,t}"),
        ("Listed C", "{c,d,e,i,l,s,t}"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(t, k)| (t.to_string(), k.to_string()))
        .collect();
    assert_eq!(symbols, expected);
    for word in ["%E2%98%82", ".%3Cp", "%E2%98%82.%3Cp", "f"] {
        let found = app
            .get_as(
                &format!("events?search={word}&start_date=2027-01-01"),
                &app.admin.auth(),
            )
            .await;
        assert_eq!(titles(&found), ["Draft ☂.<p"], "{word}");
    }
    drop(client);
    let _ = connection.await;
}

/// A database a newer release migrated (a version this build does not know) still
/// opens: during a rolling upgrade, older instances keep serving beside newer ones.
#[tokio::test]
async fn a_database_migrated_by_a_newer_release_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("calendar.db").display());
    drop(Store::open(&url).await.unwrap());
    {
        let conn = rusqlite::Connection::open(dir.path().join("calendar.db")).unwrap();
        conn.execute_batch("INSERT INTO schema_migrations VALUES (9999, 0)")
            .unwrap();
    }
    let store = Store::open(&url)
        .await
        .expect("opens beside the newer schema");
    let app = TestApp::with_store(store, Some(dir), None, settings()).await;
    app.get("events").await.assert(200);
}

/// The functions PostgreSQL's triggers call per event are in PL/pgSQL, or in SQL simple
/// enough to be inlined (no `FROM`): a SQL function with a `FROM` is parsed and
/// planned again at every call, which cost a create 8 % of its database time
/// (migration 40, bench/HISTORY.md). A migration that brings one back fails here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_functions_keep_their_plans_across_calls() {
    let Some(app) = TestApp::postgres().await else {
        assert!(!ci(), "PostgreSQL is required in CI");
        return;
    };
    let name = app.pg_database.clone().expect("a PostgreSQL database");
    let (client, conn) = tokio_postgres::connect(&pg_url_for(&name), tokio_postgres::NoTls)
        .await
        .unwrap();
    let connection = tokio::spawn(conn);
    let planned_per_call: Vec<String> = client
        .query(
            "SELECT p.proname::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang \
             WHERE p.pronamespace = 'public'::regnamespace AND l.lanname = 'sql' \
               AND p.prosrc ~* '\\mfrom\\M' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(planned_per_call, Vec::<String>::new());
    let inlined: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang \
             WHERE p.pronamespace = 'public'::regnamespace AND l.lanname = 'sql'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    // The check above looks at something: the two inlined helpers are there.
    assert_eq!(inlined, 2);
    drop(client);
    let _ = connection.await;
}
