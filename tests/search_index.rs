//! Search finds every committed event, whether SQLite has indexed it yet or it is
//! still waiting in the queue of events to index (`store::SQLITE_BEFORE_COMMIT`).

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

both!(
    search_covers_indexed_and_queued_events_alike,
    |app| async move {
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
);

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
        for (word, expected) in [
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
