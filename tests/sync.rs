//! Incremental sync (`modified_after`, `cursor`) on every list: creates, updates,
//! trashes, restores and deletes come back in the order they were made, deleted
//! or no longer readable items as tombstones, paged by a cursor that neither
//! skips nor repeats while others write; a mirror kept from it ends identical to
//! the calendar. On both backends.

mod common;

use std::collections::BTreeMap;

use calendar_events::config::Settings;
use common::*;
use serde_json::{Value, json};

/// One page of changes: the body.
async fn changes(app: &TestApp, path: &str, auth: &Auth) -> Value {
    let r = app.get_as(path, auth).await;
    r.assert(200);
    assert_eq!(
        r.header("x-calendar-events-cursor"),
        r.body["cursor"].as_str(),
        "the header and the body give the same cursor"
    );
    assert_eq!(
        r.header("link").is_some(),
        r.body.get("next_rest_url").is_some(),
        "{}",
        r.text
    );
    r.body
}

/// Every change after `cursor`, following `next_rest_url`; the entries and the
/// cursor to go on from.
async fn drain(app: &TestApp, collection: &str, start: &str, auth: &Auth) -> (Vec<Value>, String) {
    let mut path = format!("{collection}?{start}&per_page=3");
    let mut all = Vec::new();
    loop {
        let body = changes(app, &path, auth).await;
        all.extend(body[collection].as_array().unwrap().iter().cloned());
        match body.get("next_rest_url").and_then(Value::as_str) {
            Some(next) => path = next.trim_start_matches(SITE).to_string(),
            None => return (all, body["cursor"].as_str().unwrap().to_string()),
        }
    }
}

fn ids_and_status(entries: &[Value]) -> Vec<(i64, String)> {
    entries
        .iter()
        .map(|e| {
            (
                e["id"].as_i64().unwrap(),
                e["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

both!(changes_come_in_the_order_they_were_made, |app| async move {
    let admin = app.admin.auth();
    let (start, _) = drain(&app, "events", "cursor=0", &admin).await;
    assert!(start.is_empty());
    let (_, cursor) = drain(&app, "events", "cursor=0", &admin).await;
    let a = app
        .event(event("A", "2027-03-01 10:00:00", "2027-03-01 11:00:00"))
        .await;
    let b = app
        .event(event("B", "2027-03-02 10:00:00", "2027-03-02 11:00:00"))
        .await;
    let c = app
        .event(event("C", "2027-03-03 10:00:00", "2027-03-03 11:00:00"))
        .await;
    app.post(&format!("events/{a}"), json!({"title": "A again"}))
        .await
        .assert(200);
    app.delete(&format!("events/{b}")).await.assert(200);
    app.delete(&format!("events/{c}?force=true"))
        .await
        .assert(200);
    let (seen, next) = drain(&app, "events", &format!("cursor={cursor}"), &admin).await;
    assert_eq!(
        ids_and_status(&seen),
        vec![
            (a, "publish".into()),
            (b, "trash".into()),
            (c, "deleted".into()),
        ],
        "each item once, at its last change: {seen:?}"
    );
    assert_eq!(seen[0]["title"], "A again");
    assert!(seen[2]["modified_utc"].as_str().unwrap().len() == 19);
    assert_eq!(keys(&seen[2]), vec!["id", "status", "modified_utc"]);
    // Nothing new: nothing, and the same place to go on from.
    let (none, again) = drain(&app, "events", &format!("cursor={next}"), &admin).await;
    assert!(none.is_empty(), "{none:?}");
    // Restoring is a change too.
    app.post(&format!("events/{b}"), json!({"status": "publish"}))
        .await
        .assert(200);
    let (restored, _) = drain(&app, "events", &format!("cursor={again}"), &admin).await;
    assert_eq!(ids_and_status(&restored), vec![(b, "publish".into())]);
});

both!(modified_after_starts_at_an_instant, |app| async move {
    let admin = app.admin.auth();
    let old = app
        .event(event("Old", "2027-03-01 10:00:00", "2027-03-01 11:00:00"))
        .await;
    let far_future = "2090-01-01T00:00:00Z";
    let (none, _) = drain(
        &app,
        "events",
        &format!("modified_after={far_future}"),
        &admin,
    )
    .await;
    assert!(none.is_empty());
    let (all, _) = drain(&app, "events", "modified_after=2000-01-01", &admin).await;
    assert_eq!(ids_and_status(&all), vec![(old, "publish".into())]);
    // An instant an hour ago finds what changed since; every list takes it.
    let hour_ago = (chrono::Utc::now() - chrono::Duration::hours(1))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    for collection in ["events", "venues", "organizers", "categories", "tags"] {
        let r = app
            .get_as(&format!("{collection}?modified_after={hour_ago}"), &admin)
            .await;
        r.assert(200);
        assert!(r.body[collection].is_array(), "{collection}: {}", r.text);
        assert!(r.body["cursor"].is_string(), "{collection}");
    }
});

both!(
    visitors_see_tombstones_only_of_what_they_could_read,
    |app| async move {
        let (_, cursor) = drain(&app, "events", "cursor=0", &Auth::None).await;
        let public = app
            .event(event(
                "Public",
                "2027-04-01 10:00:00",
                "2027-04-01 11:00:00",
            ))
            .await;
        let draft = app
            .event(with(
                event("Secret draft", "2027-04-02 10:00:00", "2027-04-02 11:00:00"),
                json!({"status": "draft"}),
            ))
            .await;
        let (seen, cursor) = drain(&app, "events", &format!("cursor={cursor}"), &Auth::None).await;
        assert_eq!(ids_and_status(&seen), vec![(public, "publish".into())]);
        assert!(!serde_json::to_string(&seen).unwrap().contains("Secret"));
        // The public event goes back to draft: visitors are told it is gone; the
        // draft that never was public is deleted: they hear nothing of it.
        app.post(&format!("events/{public}"), json!({"status": "draft"}))
            .await
            .assert(200);
        app.delete(&format!("events/{draft}?force=true"))
            .await
            .assert(200);
        let (seen, _) = drain(&app, "events", &format!("cursor={cursor}"), &Auth::None).await;
        assert_eq!(ids_and_status(&seen), vec![(public, "deleted".into())]);
        let text = serde_json::to_string(&seen).unwrap();
        assert!(!text.contains(&format!("\"id\":{draft}")), "{text}");
        // The administrator sees both.
        let (admin_seen, _) = drain(&app, "events", "cursor=0", &app.admin.auth()).await;
        assert_eq!(
            ids_and_status(&admin_seen),
            vec![(public, "draft".into()), (draft, "deleted".into())]
        );
    }
);

both!(terms_venues_and_organizers_sync_too, |app| async move {
    let admin = app.admin.auth();
    let mut cursors = BTreeMap::new();
    for collection in ["venues", "organizers", "categories", "tags"] {
        cursors.insert(
            collection,
            drain(&app, collection, "cursor=0", &admin).await.1,
        );
    }
    let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
    let organizer = app
        .post("organizers", json!({"organizer": "Org"}))
        .await
        .id();
    let cat = app.post("categories", json!({"name": "Jazz"})).await.id();
    let tag = app.post("tags", json!({"name": "free"})).await.id();
    let ev = app
        .event(with(
            event("Linked", "2027-05-01 10:00:00", "2027-05-01 11:00:00"),
            json!({"venue": venue, "organizer": [organizer], "categories": [cat], "tags": [tag]}),
        ))
        .await;
    let (events_cursor_seen, events_cursor) = drain(&app, "events", "cursor=0", &admin).await;
    assert_eq!(
        ids_and_status(&events_cursor_seen),
        vec![(ev, "publish".into())]
    );
    // The category now counts the event: it changed.
    let (cats, _) = drain(
        &app,
        "categories",
        &format!("cursor={}", cursors["categories"]),
        &admin,
    )
    .await;
    assert_eq!(cats.len(), 1, "{cats:?}");
    assert_eq!(cats[0]["id"], cat);
    assert_eq!(cats[0]["count"], 1);
    // Deleting the organizer and the tag changes the event that carried them.
    app.delete(&format!("organizers/{organizer}?force=true"))
        .await
        .assert(200);
    app.delete(&format!("tags/{tag}")).await.assert(200);
    let (orgs, _) = drain(
        &app,
        "organizers",
        &format!("cursor={}", cursors["organizers"]),
        &admin,
    )
    .await;
    assert_eq!(ids_and_status(&orgs), vec![(organizer, "deleted".into())]);
    let (tags, _) = drain(&app, "tags", &format!("cursor={}", cursors["tags"]), &admin).await;
    assert_eq!(ids_and_status(&tags), vec![(tag, "deleted".into())]);
    let (evs, _) = drain(&app, "events", &format!("cursor={events_cursor}"), &admin).await;
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["organizer"], json!([]));
    assert_eq!(evs[0]["tags"], json!([]));
    let (venues, _) = drain(
        &app,
        "venues",
        &format!("cursor={}", cursors["venues"]),
        &admin,
    )
    .await;
    assert_eq!(ids_and_status(&venues), vec![(venue, "publish".into())]);
});

both!(sync_requests_are_checked, |app| async move {
    for (path, param) in [
        ("events?modified_after=2020-01-01&search=jazz", "search"),
        ("events?cursor=0&categories=1", "categories"),
        ("events?cursor=0&page=2", "page"),
        ("venues?cursor=0&only_with_upcoming=1", "only_with_upcoming"),
        ("categories?cursor=0&hide_empty=0", "hide_empty"),
        ("events?cursor=12.", "cursor"),
        ("events?cursor=-1.2", "cursor"),
        ("tags?cursor=a.b", "cursor"),
        ("events?modified_after=not-a-date", "modified_after"),
    ] {
        let r = app.get(path).await;
        r.assert_error(400, "rest_invalid_param");
        assert!(
            r.body["data"]["params"].get(param).is_some(),
            "{path}: {}",
            r.text
        );
    }
});

/// A settings copy whose tombstones are forgotten at the next delete.
fn forgetful() -> Settings {
    Settings {
        tombstone_retention_secs: 0,
        ..settings()
    }
}

async fn forgotten_tombstones_expire_cursors(app: TestApp) {
    let admin = app.admin.auth();
    let a = app
        .event(event("A", "2027-03-01 10:00:00", "2027-03-01 11:00:00"))
        .await;
    let (_, before) = drain(&app, "events", "cursor=0", &admin).await;
    app.delete(&format!("events/{a}?force=true"))
        .await
        .assert(200);
    let (_, after_first) = drain(&app, "events", &format!("cursor={before}"), &admin).await;
    // A second later, another delete forgets the first one's tombstone.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let b = app
        .event(event("B", "2027-03-02 10:00:00", "2027-03-02 11:00:00"))
        .await;
    app.delete(&format!("events/{b}?force=true"))
        .await
        .assert(200);
    app.get_as(&format!("events?cursor={before}"), &admin)
        .await
        .assert_error(410, "rest_sync_expired");
    app.get_as("events?modified_after=2000-01-01", &admin)
        .await
        .assert_error(410, "rest_sync_expired");
    // A mirror that saw the first delete goes on; a new one starts from 0.
    let (seen, _) = drain(&app, "events", &format!("cursor={after_first}"), &admin).await;
    assert_eq!(ids_and_status(&seen), vec![(b, "deleted".into())]);
    app.get_as("events?cursor=0", &admin).await.assert(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgotten_tombstones_expire_cursors_sqlite() {
    forgotten_tombstones_expire_cursors(TestApp::sqlite_with(forgetful()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgotten_tombstones_expire_cursors_postgres() {
    if let Some(app) = TestApp::postgres_with(forgetful()).await {
        forgotten_tombstones_expire_cursors(app).await;
    }
}

/// One writer's share of the churn: creates (some as drafts), edits, trashes,
/// restores, publishes, unpublishes and deletes, `rounds` times.
async fn churn(app: std::sync::Arc<TestApp>, writer: usize, rounds: usize) {
    let mut mine: Vec<i64> = Vec::new();
    for round in 0..rounds {
        let day = 1 + (writer * 7 + round) % 28;
        let status = if round % 3 == 0 { "draft" } else { "publish" };
        let id = app
            .event(with(
                event(
                    &format!("W{writer} R{round}"),
                    &format!("2027-06-{day:02} 10:00:00"),
                    &format!("2027-06-{day:02} 12:00:00"),
                ),
                json!({"status": status}),
            ))
            .await;
        mine.push(id);
        let pick = |k: usize| mine[(round * 7 + k) % mine.len()];
        let change = match round % 6 {
            0 => json!({"title": format!("W{writer} edited {round}")}),
            1 => json!({"status": "draft"}),
            2 => json!({"status": "publish"}),
            _ => json!({"cost": format!("{round} EUR")}),
        };
        app.post(&format!("events/{}", pick(1)), change).await;
        match round % 5 {
            // Trash, restore, delete: answers may be refusals when another change
            // got there first; the mirror must agree with whatever happened.
            0 => drop(app.delete(&format!("events/{}", pick(2))).await),
            1 => drop(
                app.post(&format!("events/{}", pick(3)), json!({"status": "publish"}))
                    .await,
            ),
            2 => drop(app.delete(&format!("events/{}?force=true", pick(4))).await),
            _ => {}
        }
    }
}

/// Applies a page of changes to a mirror.
fn apply(mirror: &mut BTreeMap<i64, Value>, entries: &[Value]) {
    for e in entries {
        let id = e["id"].as_i64().unwrap();
        if e["status"] == "deleted" {
            mirror.remove(&id);
        } else {
            mirror.insert(id, e.clone());
        }
    }
}

/// The published events as the plain list shows them to a visitor, every page.
async fn listed(app: &TestApp) -> BTreeMap<i64, Value> {
    let mut out = BTreeMap::new();
    for page in 1.. {
        let r = app
            .get(&format!(
                "events?start_date=2000-01-01&end_date=2100-01-01&per_page=50&page={page}"
            ))
            .await;
        if r.status.as_u16() == 404 {
            break;
        }
        r.assert(200);
        let events = r.body["events"].as_array().unwrap().clone();
        let done = events.len() < 50;
        for e in events {
            out.insert(e["id"].as_i64().unwrap(), e);
        }
        if done {
            break;
        }
    }
    out
}

both!(
    a_visitor_mirrors_the_calendar_while_others_write,
    |app| async move {
        let app = std::sync::Arc::new(app);
        let writers: Vec<_> = (0..3)
            .map(|w| tokio::spawn(churn(app.clone(), w, 24)))
            .collect();
        let mut mirror = BTreeMap::new();
        let mut cursor = "0".to_string();
        let mut seen_positions: Vec<String> = Vec::new();
        let mut sync_once = async |mirror: &mut BTreeMap<i64, Value>, cursor: &mut String| {
            loop {
                let body = changes(
                    &app,
                    &format!("events?cursor={cursor}&per_page=4"),
                    &Auth::None,
                )
                .await;
                apply(mirror, body["events"].as_array().unwrap());
                *cursor = body["cursor"].as_str().unwrap().to_string();
                seen_positions.push(cursor.clone());
                if body.get("next_rest_url").is_none() {
                    break;
                }
            }
        };
        while !writers.iter().all(|w| w.is_finished()) {
            sync_once(&mut mirror, &mut cursor).await;
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        for w in writers {
            w.await.unwrap();
        }
        sync_once(&mut mirror, &mut cursor).await;
        let truth = listed(&app).await;
        assert!(
            truth.len() > 10,
            "the churn left too little to compare: {}",
            truth.len()
        );
        assert_eq!(
            mirror.keys().collect::<Vec<_>>(),
            truth.keys().collect::<Vec<_>>(),
            "the mirror holds exactly the published events"
        );
        for (id, e) in &truth {
            assert_eq!(&mirror[id], e, "event {id} differs");
        }
        // Cursors only move forward.
        let parsed: Vec<(i64, i64)> = seen_positions
            .iter()
            .filter(|c| c.as_str() != "0")
            .map(|c| match c.split_once('.') {
                Some((p, i)) => (p.parse().unwrap(), i.parse().unwrap()),
                None => (c.parse().unwrap(), i64::MAX),
            })
            .collect();
        assert!(parsed.windows(2).all(|w| w[0] <= w[1]), "{parsed:?}");
    }
);

/// PostgreSQL, two instances: writers on both, a visitor mirroring through one.
/// Transactions of either instance commit out of order; the mirror must still end
/// identical to what each instance lists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mirror_through_one_instance_sees_the_writes_of_another() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let b = std::sync::Arc::new(a.second_app().await.expect("a second instance"));
    let a = std::sync::Arc::new(a);
    let writers = [
        tokio::spawn(churn(b.clone(), 0, 16)),
        tokio::spawn(churn(b.clone(), 1, 16)),
        tokio::spawn(churn(a.clone(), 2, 16)),
    ];
    let mut mirror = BTreeMap::new();
    let mut cursor = "0".to_string();
    let sync_once = async |mirror: &mut BTreeMap<i64, Value>, cursor: &mut String| loop {
        let body = changes(
            &a,
            &format!("events?cursor={cursor}&per_page=5"),
            &Auth::None,
        )
        .await;
        apply(mirror, body["events"].as_array().unwrap());
        *cursor = body["cursor"].as_str().unwrap().to_string();
        if body.get("next_rest_url").is_none() {
            break;
        }
    };
    while !writers.iter().all(|w| w.is_finished()) {
        sync_once(&mut mirror, &mut cursor).await;
    }
    for w in writers {
        w.await.unwrap();
    }
    sync_once(&mut mirror, &mut cursor).await;
    for instance in [&a, &b] {
        let truth = listed(instance).await;
        assert!(truth.len() > 5, "too little to compare: {}", truth.len());
        assert_eq!(
            mirror.keys().collect::<Vec<_>>(),
            truth.keys().collect::<Vec<_>>()
        );
        for (id, e) in &truth {
            assert_eq!(&mirror[id], e, "event {id} differs");
        }
    }
}

/// A transaction in this calendar's database that outlives a sync read's wait
/// holds back what was committed after it began: the answer says more may follow
/// (`next_rest_url`) rather than ending short, so a reader that wants everything
/// (an export) gets it once that transaction ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_transaction_in_the_calendars_database_delays_the_sync_but_loses_nothing() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let (client, driver) = open_transaction(&app.database_url()).await;
    let id = app
        .event(event("Late", "2027-05-01 10:00:00", "2027-05-01 11:00:00"))
        .await;
    let first = app.get("events?cursor=0&per_page=50").await;
    first.assert(200);
    assert!(
        first.body["events"].as_array().unwrap().is_empty(),
        "{}",
        first.text
    );
    assert!(
        first.body["next_rest_url"].is_string(),
        "more may follow: {}",
        first.text
    );
    // The export waits for it, and holds the event once it ends.
    let ender = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        client.batch_execute("COMMIT").await.unwrap();
        drop(client);
    });
    let service = calendar_events::service::Service::configured(app.store.clone(), &settings());
    let mut out = Vec::new();
    calendar_events::http::transfer::export(&service, &settings(), &mut out)
        .await
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(&format!("\"id\":{id},")), "{text}");
    ender.await.unwrap();
    let _ = driver.await;
}

/// A transaction in another database of the PostgreSQL cluster cannot write this
/// calendar's rows: however long it runs (another application's migration next
/// door), sync reads answer every change committed here, and say nothing more
/// follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_transaction_in_another_database_of_the_cluster_leaves_the_sync_alone() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let (client, driver) = open_transaction(&pg_url_for("postgres")).await;
    let id = app
        .event(event(
            "Next door",
            "2027-05-01 10:00:00",
            "2027-05-01 11:00:00",
        ))
        .await;
    let first = app.get("events?cursor=0&per_page=50").await;
    first.assert(200);
    assert_eq!(event_ids(&first), [id], "{}", first.text);
    assert!(
        first.body["next_rest_url"].is_null(),
        "nothing more follows: {}",
        first.text
    );
    client.batch_execute("COMMIT").await.unwrap();
    drop(client);
    let _ = driver.await;
}

/// A connection to `url` holding an open transaction with an ID, older than
/// anything written after it.
async fn open_transaction(
    url: &str,
) -> (
    tokio_postgres::Client,
    tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>,
) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let driver = tokio::spawn(conn);
    client
        .batch_execute("BEGIN; SELECT pg_current_xact_id();")
        .await
        .unwrap();
    (client, driver)
}
