//! A category or tag of more events than a batch (`--step-batch`) is deleted
//! in steps (`store::term_deletion`): set aside at once, after which no read finds it,
//! its name and slug are free and incremental sync reports it deleted; then its
//! events are unlinked a batch per transaction, in the background, and its row goes
//! last. Every step leaves the events' keys and counts exact, and a deletion an
//! instance stopped during goes on when one starts.

mod common;
mod process;

use calendar_events::config::Settings;
use calendar_events::store::term_deletion;
use common::*;
use serde_json::{Value, json};

fn in_batches_of_three() -> Settings {
    Settings {
        step_batch: 3,
        ..settings()
    }
}

/// Music > Jazz > Bebop; five events in Jazz (the first also tagged), one in Bebop,
/// one in Music.
struct Calendar {
    music: i64,
    jazz: i64,
    bebop: i64,
    tag: i64,
    in_jazz: Vec<i64>,
    in_bebop: i64,
    in_music: i64,
}

async fn setup(app: &TestApp) -> Calendar {
    let music = app.post("categories", json!({"name": "Music"})).await.id();
    let jazz = app
        .post("categories", json!({"name": "Jazz", "parent": music}))
        .await
        .id();
    let bebop = app
        .post("categories", json!({"name": "Bebop", "parent": jazz}))
        .await
        .id();
    let tag = app.post("tags", json!({"name": "free"})).await.id();
    let mut in_jazz = Vec::new();
    for i in 0..5 {
        let tags = if i == 0 { vec![tag] } else { vec![] };
        let status = if i == 4 { "draft" } else { "publish" };
        let day = i + 1;
        let body = with(
            event(
                &format!("Jazz {i}"),
                &format!("2027-03-0{day} 20:00:00"),
                &format!("2027-03-0{day} 23:00:00"),
            ),
            json!({"status": status, "categories": [jazz], "tags": tags}),
        );
        in_jazz.push(app.event(body).await);
    }
    let in_bebop = app
        .event(with(
            event("Bebop night", "2027-03-10 20:00:00", "2027-03-10 23:00:00"),
            json!({"categories": [bebop]}),
        ))
        .await;
    let in_music = app
        .event(with(
            event("Music night", "2027-03-11 20:00:00", "2027-03-11 23:00:00"),
            json!({"categories": [music]}),
        ))
        .await;
    Calendar {
        music,
        jazz,
        bebop,
        tag,
        in_jazz,
        in_bebop,
        in_music,
    }
}

fn names(terms: &Value) -> Vec<String> {
    terms
        .as_array()
        .unwrap_or_else(|| panic!("no terms in {terms}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The cursor after every change so far of a sync collection.
async fn cursor_now(app: &TestApp, collection: &str) -> String {
    changes_after(app, collection, "0").await.1
}

/// The changes of a sync collection after `cursor`, as `(id, status)`, and the
/// cursor to go on from.
async fn changes_after(
    app: &TestApp,
    collection: &str,
    cursor: &str,
) -> (Vec<(i64, String)>, String) {
    let mut path = format!("{collection}?cursor={cursor}&per_page=50");
    let mut all = Vec::new();
    loop {
        let r = app.get_as(&path, &app.admin.auth()).await;
        r.assert(200);
        for e in r.body[collection].as_array().unwrap() {
            all.push((
                e["id"].as_i64().unwrap(),
                e["status"].as_str().unwrap_or_default().to_string(),
            ));
        }
        match r.body.get("next_rest_url").and_then(Value::as_str) {
            Some(next) => path = next.trim_start_matches(SITE).to_string(),
            None => return (all, r.body["cursor"].as_str().unwrap().to_string()),
        }
    }
}

/// Sets the term aside as a deletion in steps does first, in a transaction of its own.
async fn set_aside(app: &TestApp, id: i64) {
    let mut tx = app.store.pool.write().await.unwrap();
    let term = calendar_events::store::terms::get(&mut tx, id)
        .await
        .unwrap()
        .expect("the term");
    term_deletion::set_aside(&mut tx, &term).await.unwrap();
    tx.commit().await.unwrap();
}

/// Every read answers for a term set aside as for one deleted, at each step.
async fn assert_gone_from_reads(app: &TestApp, cal: &Calendar, when: &str) {
    let unknown = app.get("categories/999999").await;
    for auth in [Auth::None, app.admin.auth()] {
        let r = app.get_as(&format!("categories/{}", cal.jazz), &auth).await;
        assert_eq!(
            (r.status, r.code()),
            (unknown.status, unknown.code()),
            "{when}"
        );
        let all = app
            .get_as("categories?hide_empty=0&per_page=50", &auth)
            .await;
        let mut listed = names(&all.body["categories"]);
        listed.sort_unstable();
        assert_eq!(listed, vec!["Bebop", "Music"], "{when}");
        assert_eq!(all.header("X-WP-Total"), Some("2"), "{when}");
        let searched = app
            .get_as("categories?hide_empty=0&search=jazz", &auth)
            .await;
        assert_eq!(searched.body["categories"], json!([]), "{when}");
        let first = app
            .get_as(&format!("events/{}", cal.in_jazz[0]), &auth)
            .await;
        assert_eq!(first.body["categories"], json!([]), "{when}");
        assert_eq!(names(&first.body["tags"]), vec!["free"], "{when}");
    }
    let filtered = app.get(&format!("events?categories={}", cal.jazz)).await;
    let never = app.get("events?categories=999999").await;
    assert_eq!(
        (filtered.status, filtered.code()),
        (never.status, never.code()),
        "{when}"
    );
    let by_slug = app.get("events?categories=jazz").await;
    let no_slug = app.get("events?categories=no-such-category").await;
    assert_eq!(
        (
            by_slug.status,
            by_slug.code(),
            &by_slug.body["data"]["params"]
        ),
        (
            no_slug.status,
            no_slug.code(),
            &no_slug.body["data"]["params"]
        ),
        "{when}"
    );
    let linking = app
        .post(
            "events",
            with(
                event("Linking", "2027-04-01 20:00:00", "2027-04-01 21:00:00"),
                json!({"categories": [cal.jazz]}),
            ),
        )
        .await;
    let linking_unknown = app
        .post(
            "events",
            with(
                event("Linking", "2027-04-01 20:00:00", "2027-04-01 21:00:00"),
                json!({"categories": [999999]}),
            ),
        )
        .await;
    assert_eq!(
        (linking.status, linking.code()),
        (linking_unknown.status, linking_unknown.code()),
        "{when}"
    );
    assert_ne!(linking.status, 201, "{when}: {}", linking.text);
    // Its children went up to its parent at once.
    let bebop = app.get(&format!("categories/{}", cal.bebop)).await;
    assert_eq!(bebop.body["parent"], cal.music, "{when}");
}

both_with!(
    a_term_set_aside_is_gone_from_every_read_while_its_events_are_unlinked,
    in_batches_of_three(),
    |app| async move {
        let cal = setup(&app).await;
        let categories_cursor = cursor_now(&app, "categories").await;
        let events_cursor = cursor_now(&app, "events").await;
        set_aside(&app, cal.jazz).await;
        assert_gone_from_reads(&app, &cal, "set aside").await;
        assert_summaries_hold(&app, "set aside").await;

        // One batch: three of its five events unlinked, the term still set aside.
        let mut tx = app.store.pool.write().await.unwrap();
        let gone = term_deletion::unlink_batch(&mut tx, cal.jazz, 3)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert!(!gone, "two events are left");
        assert_gone_from_reads(&app, &cal, "one batch unlinked").await;
        assert_summaries_hold(&app, "one batch unlinked").await;
        let mut conn = app.store.pool.read().await.unwrap();
        let left = term_deletion::set_aside_terms(&mut conn).await.unwrap();
        drop(conn);
        assert_eq!(left, vec![cal.jazz]);
        let (events, _) = changes_after(&app, "events", &events_cursor).await;
        let touched: Vec<i64> = events.iter().map(|(id, _)| *id).collect();
        assert_eq!(touched, cal.in_jazz[..3], "the unlinked events changed");

        // A name and slug set aside are free at once.
        let again = app
            .post("categories", json!({"name": "Jazz", "parent": cal.music}))
            .await;
        again.assert(201);
        assert_eq!(again.body["slug"], "jazz");

        // Any term deletion goes on with the terms set aside.
        app.delete(&format!("tags/{}?force=true", cal.tag))
            .await
            .assert(200);
        app.wait_for_work_in_steps().await;
        for id in &cal.in_jazz {
            let r = app.get_as(&format!("events/{id}"), &app.admin.auth()).await;
            assert_eq!(r.body["categories"], json!([]), "event {id}");
            assert_eq!(r.body["tags"], json!([]), "event {id}");
        }
        assert_summaries_hold(&app, "unlinked").await;
        assert_eq!(listed_in_category(&app, cal.music).await, {
            let mut v = vec![cal.in_bebop, cal.in_music];
            v.sort_unstable();
            v
        });
        // Sync reported the deletion once, under the term's taxonomy, at the first step.
        let (cats, _) = changes_after(&app, "categories", &categories_cursor).await;
        let jazz: Vec<_> = cats.iter().filter(|(id, _)| *id == cal.jazz).collect();
        assert_eq!(jazz, vec![&(cal.jazz, "deleted".to_string())], "{cats:?}");
        let (events, _) = changes_after(&app, "events", &events_cursor).await;
        for id in &cal.in_jazz {
            assert!(events.iter().any(|(e, _)| e == id), "event {id} changed");
        }
    }
);

both_with!(
    deleting_a_term_of_more_events_than_a_batch_answers_with_it_and_unlinks_them_all,
    in_batches_of_three(),
    |app| async move {
        let cal = setup(&app).await;
        let categories_cursor = cursor_now(&app, "categories").await;
        assert_eq!(listed_in_category(&app, cal.music).await.len(), 7);
        let r = app
            .delete(&format!("categories/{}?force=true", cal.jazz))
            .await;
        r.assert(200);
        assert_eq!(r.body["id"], cal.jazz);
        assert_eq!(r.body["name"], "Jazz");
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "deleted in steps").await;
        let mut in_music = vec![cal.in_bebop, cal.in_music];
        in_music.sort_unstable();
        assert_eq!(listed_in_category(&app, cal.music).await, in_music);
        assert_eq!(
            listed_in_category(&app, cal.bebop).await,
            vec![cal.in_bebop]
        );
        for id in &cal.in_jazz {
            let e = app.get_as(&format!("events/{id}"), &app.admin.auth()).await;
            assert_eq!(e.body["categories"], json!([]), "event {id}");
        }
        let first = app.get(&format!("events/{}", cal.in_jazz[0])).await;
        assert_eq!(names(&first.body["tags"]), vec!["free"]);
        let bebop = app.get(&format!("categories/{}", cal.bebop)).await;
        assert_eq!(bebop.body["parent"], cal.music);
        let (cats, _) = changes_after(&app, "categories", &categories_cursor).await;
        let jazz: Vec<_> = cats.iter().filter(|(id, _)| *id == cal.jazz).collect();
        assert_eq!(jazz, vec![&(cal.jazz, "deleted".to_string())], "{cats:?}");
        app.delete(&format!("categories/{}?force=true", cal.jazz))
            .await
            .assert_error(400, "rest_invalid_param");
    }
);

both!(
    a_deletion_an_instance_stopped_during_goes_on_at_start_up,
    |app| async move {
        let cal = setup(&app).await;
        set_aside(&app, cal.jazz).await;
        let server = process::Server::start_with_args(&app.database_url(), &["--step-batch", "2"]);
        app.wait_for_work_in_steps().await;
        drop(server);
        assert_summaries_hold(&app, "finished at start-up").await;
        for id in &cal.in_jazz {
            let e = app.get_as(&format!("events/{id}"), &app.admin.auth()).await;
            assert_eq!(e.body["categories"], json!([]), "event {id}");
        }
    }
);

both_with!(
    a_batch_that_fails_is_tried_again,
    in_batches_of_three(),
    |app| async move {
        let cal = setup(&app).await;
        set_aside(&app, cal.jazz).await;
        // Unlinking the term fails while the flag is up, as a deadlock would.
        let refuse = match app.backend() {
            calendar_events::store::Backend::Sqlite => format!(
                "CREATE TABLE refuse (up INTEGER);
                 INSERT INTO refuse VALUES (1);
                 CREATE TRIGGER refuse_unlink BEFORE DELETE ON term_relationships
                 WHEN old.term_id = {} AND EXISTS (SELECT 1 FROM refuse)
                 BEGIN SELECT RAISE(ABORT, 'refused'); END;",
                cal.jazz
            ),
            calendar_events::store::Backend::Postgres => format!(
                "CREATE TABLE refuse (up INTEGER);
                 INSERT INTO refuse VALUES (1);
                 CREATE FUNCTION refuse_unlink() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN
                     IF OLD.term_id = {} AND EXISTS (SELECT 1 FROM refuse) THEN
                         RAISE EXCEPTION 'refused';
                     END IF;
                     RETURN OLD;
                 END $$;
                 CREATE TRIGGER refuse_unlink BEFORE DELETE ON term_relationships
                 FOR EACH ROW EXECUTE FUNCTION refuse_unlink();",
                cal.jazz
            ),
        };
        app.behind_the_servers_back(&refuse).await;
        // Any term deletion sets the unlinking going.
        app.delete(&format!("tags/{}?force=true", cal.tag))
            .await
            .assert(200);
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let mut conn = app.store.pool.read().await.unwrap();
        let left = term_deletion::set_aside_terms(&mut conn).await.unwrap();
        drop(conn);
        assert_eq!(left, vec![cal.jazz], "refused so far");
        app.behind_the_servers_back("DELETE FROM refuse").await;
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "unlinked after failed batches").await;
    }
);
