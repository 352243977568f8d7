//! Search finds every committed event, whether SQLite has indexed it yet or it is
//! still waiting in the queue of events to index (`store::SQLITE_BEFORE_COMMIT`).
//! Venues and organizers alike (migration 12): their index only narrows the rows
//! the per-field check runs on, so what a search finds is the same indexed, queued
//! or not indexed at all.

mod common;

use common::*;
use serde_json::json;

const WINDOW: &str = "start_date=2027-05-01&end_date=2027-05-31";

async fn search(app: &TestApp, q: &str) -> Vec<String> {
    let r = app.get(&format!("events?{WINDOW}&search={q}")).await;
    r.assert(200);
    let mut found = titles(&r);
    found.sort();
    found
}

/// Events waiting to be indexed, on SQLite; `None` on PostgreSQL, which has no queue.
async fn queued(app: &TestApp) -> Option<Vec<i64>> {
    if app.backend() != calendar_events::store::Backend::Sqlite {
        return None;
    }
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .column(sea_query::Alias::new("id"))
        .from(sea_query::Alias::new("search_queue"))
        .order_by(sea_query::Alias::new("id"), sea_query::Order::Asc)
        .to_owned();
    Some(conn.query(&q, |row| row.i64(0)).await.unwrap())
}

async fn create(app: &TestApp, title: &str) -> i64 {
    app.event(event(title, "2027-05-10 19:00:00", "2027-05-10 21:00:00"))
        .await
}

/// Events are found in the index and in its queue alike, through edits and
/// deletions.
async fn assert_indexed_and_queued_events_found(app: TestApp) {
    let waltz = create(&app, "Wombat Waltz").await;
    // Still queued: found by scanning the queue.
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [waltz]);
    }
    assert_eq!(search(&app, "wombat").await, ["Wombat Waltz"]);

    // A write after the queue's age limit indexes everything queued, itself included.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let polka = create(&app, "Wombat Polka").await;
    if let Some(q) = queued(&app).await {
        assert!(q.is_empty(), "indexed after a second: {q:?}");
    }
    let tango = create(&app, "Wombat Tango").await;
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [tango]);
    }
    assert_eq!(
        search(&app, "wombat").await,
        ["Wombat Polka", "Wombat Tango", "Wombat Waltz"],
        "two from the index, one from the queue"
    );
    assert_eq!(search(&app, "ltz").await, ["Wombat Waltz"]);
    assert_eq!(search(&app, "wombat%20tango").await, ["Wombat Tango"]);

    // An edited event leaves the index for the queue: old words stop matching.
    app.patch(&format!("events/{waltz}"), json!({"title": "Koala Waltz"}))
        .await
        .assert(200);
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [waltz, tango]);
    }
    assert_eq!(
        search(&app, "wombat").await,
        ["Wombat Polka", "Wombat Tango"]
    );
    assert_eq!(search(&app, "koala").await, ["Koala Waltz"]);

    // Deleted events leave the index and the queue.
    for id in [polka, tango] {
        app.delete(&format!("events/{id}?force=true"))
            .await
            .assert(200);
    }
    if let Some(q) = queued(&app).await {
        assert_eq!(q, [waltz]);
    }
    assert!(search(&app, "wombat").await.is_empty());
    assert_eq!(search(&app, "waltz").await, ["Koala Waltz"]);
}

both!(search_covers_indexed_and_queued_events_alike, |app| {
    assert_indexed_and_queued_events_found(app)
});

/// The same searches on SQLite readers that map the database file
/// (`--sqlite-mmap-mb`), through writes that the checkpoints carry from the log
/// into the mapped file. PostgreSQL has no such setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_over_a_mapped_sqlite_file_sees_every_write() {
    let app = TestApp::sqlite_with(calendar_events::config::Settings {
        sqlite_mmap_bytes: 64 << 20,
        ..settings()
    })
    .await;
    assert_indexed_and_queued_events_found(app).await;
}

both!(a_full_batch_is_indexed_at_once, |app| async move {
    let batch = calendar_events::store::SEARCH_INDEX_BATCH;
    // One short of a batch, written in one transaction (through HTTP it could take
    // longer than the queue's age limit on a busy machine).
    let mut tx = app.store.pool.write().await.unwrap();
    tx.batch(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {})
             INSERT INTO posts (post_type, status, slug, title, date_utc, modified_utc,
                                start_utc, end_utc)
             SELECT 'event', 'publish', 'numbat-night-' || i, 'Numbat Night ' || i,
                    0, 0, 1809975600, 1809982800 FROM n",
        batch - 1
    ))
    .await
    .unwrap();
    tx.commit().await.unwrap();
    if let Some(q) = queued(&app).await {
        assert_eq!(
            q.len() as i64,
            batch - 1,
            "below the batch size, events wait"
        );
    }
    create(&app, "Numbat Night last").await;
    if let Some(q) = queued(&app).await {
        assert!(q.is_empty(), "a full batch is indexed: {} left", q.len());
    }
    let r = app
        .get(&format!("events?{WINDOW}&search=numbat%20night&per_page=1"))
        .await;
    r.assert(200);
    assert_eq!(r.body["total"], batch);
});

both!(
    search_folds_the_case_of_every_script_indexed_or_not,
    |app| async move {
        create(&app, "Fête Ünïcødé").await;
        create(&app, "ΣΟΦΙΑ Концерт").await;
        // KELVIN SIGN: a character outside ASCII whose lower case is an ASCII `k`.
        create(&app, "\u{212A}elvin Hall").await;
        for (word, expected) in [
            ("kelvin", "\u{212A}elvin Hall"),
            ("ünïcødé", "Fête Ünïcødé"),
            ("ÜNÏCØDÉ", "Fête Ünïcødé"),
            ("fête", "Fête Ünïcødé"),
            ("σοφια", "ΣΟΦΙΑ Концерт"),
            ("концерт", "ΣΟΦΙΑ Концерт"),
        ] {
            assert_eq!(search(&app, word).await, [expected], "queued: {word}");
        }
        // Once a later write indexes them, the index folds case the same way.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        create(&app, "Other").await;
        if let Some(q) = queued(&app).await {
            assert!(q.is_empty(), "indexed after a second: {q:?}");
        }
        for (word, expected) in [
            ("ünïcødé", "Fête Ünïcødé"),
            ("σοφια", "ΣΟΦΙΑ Концерт"),
            ("КОНЦЕРТ", "ΣΟΦΙΑ Концерт"),
        ] {
            assert_eq!(search(&app, word).await, [expected], "indexed: {word}");
        }
    }
);

/// The titles of the events in [`WINDOW`] holding `q`, for an administrator.
async fn search_as_admin(app: &TestApp, q: &str) -> Vec<String> {
    let r = app
        .get_as(&format!("events?{WINDOW}&search={q}"), &app.admin.auth())
        .await;
    r.assert(200);
    titles(&r)
}

both!(
    every_write_of_the_text_or_the_password_changes_what_search_finds,
    |app| async move {
        let app = uncached(app).await;
        let id = app
            .event(
                json!({"title": "Quokka Quartet", "description": "Numbat notes",
                          "start_date": "2027-05-12 19:00:00",
                          "end_date": "2027-05-12 21:00:00"}),
            )
            .await;
        let path = format!("events/{id}");
        assert_eq!(search(&app, "numbat").await, ["Quokka Quartet"]);

        // Protected: a visitor matches its title alone, an administrator everything.
        app.patch(&path, json!({"password": "pw"}))
            .await
            .assert(200);
        assert!(search(&app, "numbat").await.is_empty());
        assert_eq!(search(&app, "quartet").await, ["Quokka Quartet"]);
        assert_eq!(search_as_admin(&app, "numbat").await, ["Quokka Quartet"]);

        // Retitled while protected: the new title is what a visitor matches.
        app.patch(&path, json!({"title": "Quokka Trio"}))
            .await
            .assert(200);
        assert!(search(&app, "quartet").await.is_empty());
        assert_eq!(search(&app, "trio").await, ["Quokka Trio"]);

        // A write that leaves the text and the password alone leaves the matches.
        app.patch(&path, json!({"featured": true}))
            .await
            .assert(200);
        assert_eq!(search(&app, "trio").await, ["Quokka Trio"]);
        assert!(search(&app, "numbat").await.is_empty());

        // Unprotected again, then a new description: the old words stop matching.
        app.patch(&path, json!({"password": ""})).await.assert(200);
        assert_eq!(search(&app, "numbat").await, ["Quokka Trio"]);
        app.patch(&path, json!({"description": "Wallaby waltz"}))
            .await
            .assert(200);
        assert!(search(&app, "numbat").await.is_empty());
        assert_eq!(search(&app, "wallaby").await, ["Quokka Trio"]);
        assert_eq!(search_as_admin(&app, "wallaby").await, ["Quokka Trio"]);
    }
);

// --- Venues and organizers ---------------------------------------------------------

/// An app without the response cache: a search answered from the cache would not
/// ask the index again once it is built.
async fn uncached(app: TestApp) -> TestApp {
    app.another(calendar_events::config::Settings {
        response_cache_bytes: 0,
        ..settings()
    })
    .await
}

/// Venues and organizers waiting to be indexed, on SQLite; `None` on PostgreSQL.
async fn linked_queued(app: &TestApp) -> Option<i64> {
    if app.backend() != calendar_events::store::Backend::Sqlite {
        return None;
    }
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .expr(sea_query::Expr::cust("count(*)"))
        .from(sea_query::Alias::new("linked_search_queue"))
        .to_owned();
    Some(conn.query_one(&q, |row| row.i64(0)).await.unwrap())
}

/// Has SQLite's writer index what is queued, as it does at the first commit once
/// the oldest queued write has waited a second; from then on the searches below are
/// answered from the index alone.
async fn index_queued(app: &TestApp) {
    if app.backend() != calendar_events::store::Backend::Sqlite {
        return;
    }
    app.store
        .pool
        .write()
        .await
        .unwrap()
        .commit()
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    app.store
        .pool
        .write()
        .await
        .unwrap()
        .commit()
        .await
        .unwrap();
    assert_eq!(linked_queued(app).await, Some(0), "all indexed");
}

/// The names of the venues (or organizers) a search lists, sorted, as `who` sees them.
async fn found_as(app: &TestApp, kind: &str, search: &str, who: &Auth) -> Vec<String> {
    let name = if kind == "venues" {
        "venue"
    } else {
        "organizer"
    };
    let q = percent_encoding::utf8_percent_encode(search, percent_encoding::NON_ALPHANUMERIC);
    let r = app
        .get_as(&format!("{kind}?search={q}&per_page=50"), who)
        .await;
    r.assert(200);
    let mut names: Vec<String> = r.body[kind]
        .as_array()
        .unwrap_or_else(|| panic!("no {kind} in {}", r.text))
        .iter()
        .map(|v| v[name].as_str().unwrap_or("(hidden)").to_string())
        .collect();
    assert_eq!(
        r.body["total"],
        names.len(),
        "the total counts the same rows"
    );
    names.sort();
    names
}

async fn found(app: &TestApp, kind: &str, search: &str) -> Vec<String> {
    found_as(app, kind, search, &Auth::None).await
}

/// Every searched field of a venue, each holding a word no other field holds.
fn venue_fields() -> Vec<(&'static str, &'static str)> {
    vec![
        ("description", "Dingo description"),
        ("excerpt", "Echidna excerpt"),
        ("address", "1 Axolotl Road"),
        ("city", "Cassowary City"),
        ("province", "Platypus Province"),
        ("state", "Stoat State"),
        ("stateprovince", "Shrew Stateprovince"),
        ("zip", "Z9Z 4QX"),
        ("phone", "+1 555 0173"),
    ]
}

both!(
    a_venue_is_found_by_each_searched_field_indexed_or_queued,
    |app| async move {
        let app = uncached(app).await;
        app.post("venues", json!({"venue": "Tamarin Theatre"}))
            .await
            .assert(201);
        for (field, value) in venue_fields() {
            let mut body = json!({"venue": format!("Venue by {field}")});
            body[field] = json!(value);
            app.post("venues", body).await.assert(201);
        }
        // A pair whose only neighbours are characters past ASCII: found on
        // PostgreSQL only if they are listed as the texts' (migration 36). And a
        // pair of such characters, which PostgreSQL checks on every venue.
        app.post("venues", json!({"venue": "⟨qz⟩ Hall"}))
            .await
            .assert(201);
        app.post("venues", json!({"venue": "ǆ⟩⟨ Hall"}))
            .await
            .assert(201);
        app.post(
            "organizers",
            json!({"organizer": "Quokka Quartet", "description": "Marmot music",
                   "excerpt": "Wallaby words", "phone": "+44 20 7946 0958",
                   "email": "booking@bilby.example.org",
                   "website": "https://numbat.example.org/"}),
        )
        .await
        .assert(201);
        app.post(
            "organizers",
            json!({"organizer": "Other players", "excerpt": "Say \"hi\""}),
        )
        .await
        .assert(201);
        let venue_words = [
            ("tamarin", "Tamarin Theatre"),
            ("dingo desc", "Venue by description"),
            ("ECHIDNA", "Venue by excerpt"),
            ("axolotl road", "Venue by address"),
            ("assowary", "Venue by city"),
            ("platypus", "Venue by province"),
            ("stoat", "Venue by state"),
            ("shrew", "Venue by stateprovince"),
            ("z9z 4q", "Venue by zip"),
            ("555 0173", "Venue by phone"),
            // Two characters (SQLite: the trigrams beginning with them), at the end
            // of a venue's last field too.
            ("73", "Venue by phone"),
            ("QX", "Venue by zip"),
            ("9z", "Venue by zip"),
            ("QZ", "⟨qz⟩ Hall"),
            ("ǅ⟩", "ǆ⟩⟨ Hall"),
        ];
        let organizer_words = [
            ("quokka", "Quokka Quartet"),
            ("marmot", "Quokka Quartet"),
            ("wallaby", "Quokka Quartet"),
            ("7946", "Quokka Quartet"),
            ("booking@bilby", "Quokka Quartet"),
            ("numbat.example", "Quokka Quartet"),
            ("players", "Other players"),
            ("58", "Quokka Quartet"),
            ("g/", "Quokka Quartet"),
            ("\"h", "Other players"),
        ];
        for state in ["queued", "indexed"] {
            for (word, name) in venue_words {
                assert_eq!(found(&app, "venues", word).await, [name], "{state}: {word}");
            }
            for (word, name) in organizer_words {
                assert_eq!(
                    found(&app, "organizers", word).await,
                    [name],
                    "{state}: {word}"
                );
            }
            // What is only in a field the search does not read, or only in another
            // type's fields, is not found.
            assert!(found(&app, "organizers", "tamarin").await.is_empty());
            assert!(found(&app, "venues", "quokka").await.is_empty());
            assert!(found(&app, "venues", "zebra").await.is_empty());
            for pair in ["jj", "jx", "\"\"", "zq"] {
                assert!(found(&app, "venues", pair).await.is_empty(), "{pair}");
            }
            index_queued(&app).await;
        }
    }
);

both!(
    venue_and_organizer_writes_reach_the_search_at_once,
    |app| async move {
        let app = uncached(app).await;
        let venue = app
            .post("venues", json!({"venue": "Wombat Lodge", "city": "Perth"}))
            .await
            .id();
        let organizer = app
            .post("organizers", json!({"organizer": "Wombat Society"}))
            .await
            .id();
        for state in ["queued", "indexed"] {
            assert_eq!(
                found(&app, "venues", "wombat").await,
                ["Wombat Lodge"],
                "{state}"
            );
            assert_eq!(
                found(&app, "organizers", "wombat").await,
                ["Wombat Society"],
                "{state}"
            );
            index_queued(&app).await;
        }

        // Renamed, and moved to a city that matches the old name: the index still
        // holds the old name until the writer reindexes the venue.
        app.patch(
            &format!("venues/{venue}"),
            json!({"venue": "Koala Lodge", "city": "Wombatville"}),
        )
        .await
        .assert(200);
        app.patch(
            &format!("organizers/{organizer}"),
            json!({"organizer": "Koala Society"}),
        )
        .await
        .assert(200);
        for state in ["queued", "indexed"] {
            assert_eq!(
                found(&app, "venues", "wombat").await,
                ["Koala Lodge"],
                "{state}: by its new city"
            );
            assert!(found(&app, "venues", "lodge p").await.is_empty(), "{state}");
            assert_eq!(found(&app, "venues", "koala").await, ["Koala Lodge"]);
            assert!(
                found(&app, "organizers", "wombat").await.is_empty(),
                "{state}"
            );
            assert_eq!(
                found(&app, "organizers", "koala").await,
                ["Koala Society"],
                "{state}"
            );
            index_queued(&app).await;
        }

        // Moved away: no longer matches.
        app.patch(&format!("venues/{venue}"), json!({"city": "Perth"}))
            .await
            .assert(200);
        for state in ["queued", "indexed"] {
            assert!(found(&app, "venues", "wombat").await.is_empty(), "{state}");
            assert_eq!(
                found(&app, "venues", "perth").await,
                ["Koala Lodge"],
                "{state}"
            );
            index_queued(&app).await;
        }

        // Trashed, then deleted: gone from the search, queued or indexed.
        app.delete(&format!("venues/{venue}")).await.assert(200);
        assert!(found(&app, "venues", "koala").await.is_empty());
        app.delete(&format!("venues/{venue}?force=true"))
            .await
            .assert(200);
        app.delete(&format!("organizers/{organizer}?force=true"))
            .await
            .assert(200);
        let editor = app
            .user(calendar_events::domain::permissions::Role::Editor)
            .await;
        for state in ["queued", "indexed"] {
            for kind in ["venues", "organizers"] {
                assert!(
                    found_as(&app, kind, "koala", &editor.auth())
                        .await
                        .is_empty(),
                    "{state}: {kind}"
                );
            }
            index_queued(&app).await;
        }
    }
);

both!(
    a_protected_venue_is_found_only_by_those_who_may_edit_it,
    |app| async move {
        let app = uncached(app).await;
        app.post(
            "venues",
            json!({"venue": "Hidden Heron Hall", "city": "Nowhere", "password": "open sesame"}),
        )
        .await
        .assert(201);
        app.post("venues", json!({"venue": "Open Heron Hall"}))
            .await
            .assert(201);
        let editor = app
            .user(calendar_events::domain::permissions::Role::Editor)
            .await;
        for state in ["queued", "indexed"] {
            assert_eq!(
                found(&app, "venues", "heron").await,
                ["Open Heron Hall"],
                "{state}"
            );
            assert!(found(&app, "venues", "nowhere").await.is_empty(), "{state}");
            assert_eq!(
                found_as(&app, "venues", "heron", &editor.auth()).await,
                ["Hidden Heron Hall", "Open Heron Hall"],
                "{state}"
            );
            index_queued(&app).await;
        }
    }
);

both!(
    short_words_and_like_wildcards_search_as_before,
    |app| async move {
        let app = uncached(app).await;
        for name in [
            "100% Hall",
            "1000 Hall",
            "Under_score Hall",
            "Ross Hall",
            "Back\\slash Hall",
            "Kasbah Hall",
            "The \"Quoted\" Hall",
            "ΟΔΟΣ Hall",
            "Fête Ünïcødé",
            "Qi",
        ] {
            app.post("venues", json!({"venue": name})).await.assert(201);
        }
        for state in ["queued", "indexed"] {
            for (word, expected) in [
                ("q", vec!["Qi", "The \"Quoted\" Hall"]),
                ("QI", vec!["Qi"]),
                ("zz", vec![]),
                ("zzz", vec![]),
                ("0%", vec!["100% Hall"]),
                ("00%", vec!["100% Hall"]),
                ("100%", vec!["100% Hall"]),
                ("%", vec!["100% Hall"]),
                ("_", vec!["Under_score Hall"]),
                ("r_s", vec!["Under_score Hall"]),
                ("\\", vec!["Back\\slash Hall"]),
                ("k\\s", vec!["Back\\slash Hall"]),
                ("\"quoted\"", vec!["The \"Quoted\" Hall"]),
                ("\"", vec!["The \"Quoted\" Hall"]),
                ("οδο", vec!["ΟΔΟΣ Hall"]),
                ("ünïcødé", vec!["Fête Ünïcødé"]),
                ("ÜNÏCØDÉ", vec!["Fête Ünïcødé"]),
                ("ll", {
                    let mut all = vec![
                        "100% Hall",
                        "1000 Hall",
                        "Under_score Hall",
                        "Ross Hall",
                        "Back\\slash Hall",
                        "Kasbah Hall",
                        "The \"Quoted\" Hall",
                        "ΟΔΟΣ Hall",
                    ];
                    all.sort();
                    all
                }),
                ("s h", vec!["Ross Hall"]),
            ] {
                assert_eq!(
                    found(&app, "venues", word).await,
                    expected,
                    "{state}: {word:?}"
                );
            }
            // SQLite lowers text with Rust's Unicode rules, final sigma included, in
            // the index as in the check; PostgreSQL folds letter by letter (σ).
            if app.backend() == calendar_events::store::Backend::Sqlite {
                assert_eq!(found(&app, "venues", "οδος").await, ["ΟΔΟΣ Hall"]);
            }
            index_queued(&app).await;
        }
    }
);

/// PostgreSQL writes a new event's row of `event_search` once, at commit, with its
/// terms (migration 30): written as the post was inserted and again as its terms
/// arrived, each create put every trigram of its text into the GIN index twice.
/// Every row's version is its first, so the page's line pointers run 1..=n with no
/// dead version between them; and each row holds its event's terms, a parent
/// category included, which a search in the category finds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_events_search_row_is_written_once_with_its_terms() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let music = app.category("Music", None).await;
    let jazz = app.category("Jazz", Some(music)).await;
    let creates = (0..8).map(|n| {
        let app = &app;
        let body = with(
            event(
                &format!("Okapi {n}"),
                "2027-05-10 19:00:00",
                "2027-05-10 21:00:00",
            ),
            json!({"categories": [jazz], "tags": [format!("wild{}", n % 2)]}),
        );
        async move { app.event(body).await }
    });
    let ids = futures_util::future::join_all(creates).await;
    let (client, conn) = tokio_postgres::connect(&app.database_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    let driver = tokio::spawn(conn);
    let rows = client
        .query(
            "SELECT ctid::text, cardinality(terms), $1 = ANY(terms) AND $2 = ANY(terms)
             FROM event_search ORDER BY ctid",
            &[&music, &jazz],
        )
        .await
        .unwrap();
    let versions: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    let first: Vec<String> = (1..=ids.len()).map(|n| format!("(0,{n})")).collect();
    assert_eq!(versions, first);
    assert!(
        rows.iter()
            .all(|r| r.get::<_, i32>(1) == 3 && r.get::<_, bool>(2))
    );
    drop(client);
    let _ = driver.await;
    let found = app
        .get(&format!("events?{WINDOW}&search=okapi&categories={music}"))
        .await;
    assert_eq!(event_ids(&found).len(), ids.len());
}
