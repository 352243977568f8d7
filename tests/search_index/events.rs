//! Events found by the search index as by the queue, after every write.

use super::*;

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
