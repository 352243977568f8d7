//! A venue or organizer of more events than a batch (`--step-batch`) goes to the
//! trash in steps (`store::linked_unlinks`): its status changes in the request, and
//! its events lose their link to it a batch per transaction behind the answer.
//! Meanwhile no read shows the link, even once the post is restored (the restore
//! answers at once), but for the links event writes make meanwhile, which the
//! batches pass over; deleted for good, it goes with the last batch.

#[path = "../common/mod.rs"]
mod common;
#[path = "../process/mod.rs"]
mod process;

mod deleting;
mod restoring;
mod unlinking;

use calendar_events::config::Settings;
use calendar_events::store::{linked_unlinks, posts};
use common::*;
use serde_json::{Value, json};

fn in_batches_of_two() -> Settings {
    Settings {
        step_batch: 2,
        ..settings()
    }
}

/// Hall (in Paris) and Club; Acme and Other. Five events at Hall with Acme (one a
/// draft); one at Club with Acme and Other.
struct Calendar {
    hall: i64,
    club: i64,
    acme: i64,
    other: i64,
    at_hall: Vec<i64>,
    at_club: i64,
}

async fn setup(app: &TestApp) -> Calendar {
    let venue = |name: &str| json!({"venue": name, "geo_lat": 48.85, "geo_lng": 2.35});
    let hall = app.post("venues", venue("Hall")).await.assert(201).id();
    let club = app
        .post("venues", json!({"venue": "Club"}))
        .await
        .assert(201)
        .id();
    let acme = app
        .post("organizers", json!({"organizer": "Acme"}))
        .await
        .assert(201)
        .id();
    let other = app
        .post("organizers", json!({"organizer": "Other"}))
        .await
        .assert(201)
        .id();
    let mut at_hall = Vec::new();
    for i in 0..5 {
        let status = if i == 4 { "draft" } else { "publish" };
        let links = json!({"status": status, "venue": hall, "organizer": [acme]});
        at_hall.push(
            app.event(with(at_day(&format!("Hall {i}"), i + 1), links))
                .await,
        );
    }
    let links = json!({"venue": club, "organizer": [acme, other]});
    let at_club = app.event(with(at_day("Club", 20), links)).await;
    Calendar {
        hall,
        club,
        acme,
        other,
        at_hall,
        at_club,
    }
}

fn at_day(name: &str, day: usize) -> Value {
    event(
        name,
        &format!("2027-03-{day:02} 20:00:00"),
        &format!("2027-03-{day:02} 23:00:00"),
    )
}

/// The venue and organizers an event shows the administrator.
async fn links_of(app: &TestApp, event: i64) -> (Option<i64>, Vec<i64>) {
    let r = app
        .get_as(&format!("events/{event}"), &app.admin.auth())
        .await;
    r.assert(200);
    let organizers = r.body["organizer"]
        .as_array()
        .map(|a| a.iter().filter_map(|o| o["id"].as_i64()).collect())
        .unwrap_or_default();
    (r.body["venue"]["id"].as_i64(), organizers)
}

/// What the administrator's list with these parameters holds: its IDs, sorted, and
/// its total.
async fn listed(app: &TestApp, params: &str) -> (Vec<i64>, u64) {
    let r = app
        .get_as(
            &format!("events?start_date=2027-01-01&end_date=2027-12-31&{params}"),
            &app.admin.auth(),
        )
        .await;
    r.assert(200);
    let mut ids = event_ids(&r);
    ids.sort_unstable();
    (ids, r.body["total"].as_u64().unwrap())
}

/// The venues or organizers the administrator's list with these parameters holds.
async fn posts_listed(app: &TestApp, collection: &str, params: &str) -> Vec<i64> {
    let r = app
        .get_as(&format!("{collection}?{params}"), &app.admin.auth())
        .await;
    r.assert(200);
    r.body[collection]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["id"].as_i64()).collect())
        .unwrap_or_default()
}

/// Trashes the post as the server does when it trashes it in steps: in the trash
/// and queued, in one transaction; no batch runs.
async fn trash_queued(app: &TestApp, id: i64) {
    let mut tx = app.store.pool.write().await.unwrap();
    let post = posts::get(&mut tx, id).await.unwrap().expect("the post");
    posts::trash(&mut tx, &post, 1_800_000_000).await.unwrap();
    linked_unlinks::queue(&mut tx, id).await.unwrap();
    tx.commit().await.unwrap();
}

/// Queues the venue in the trash (no batch runs), restores it, and links an event to
/// it by ID, which keeps that link: the event.
async fn restored_with_a_kept_link(app: &TestApp, venue: i64) -> i64 {
    trash_queued(app, venue).await;
    app.post(&format!("venues/{venue}"), json!({"status": "publish"}))
        .await
        .assert(200);
    let by_id = with(at_day("Kept", 25), json!({"venue": venue}));
    let event = app.event(by_id).await;
    assert_eq!(links_of(app, event).await.0, Some(venue));
    event
}

/// Runs one batch of the post's unlinking; whether it is done.
async fn one_batch(app: &TestApp, id: i64) -> bool {
    let mut tx = app.store.pool.write().await.unwrap();
    let done = linked_unlinks::unlink_batch(&mut tx, id, 2).await.unwrap();
    tx.commit().await.unwrap();
    done
}

async fn linked_to(app: &TestApp, id: i64) -> i64 {
    app.scalar(&format!(
        "(SELECT COUNT(*) FROM posts WHERE venue_id = {id}) \
         + (SELECT COUNT(*) FROM event_organizers WHERE organizer_id = {id})"
    ))
    .await
}

/// The venue each event of the administrator's list of 2027 shows, by event.
async fn venues_on_page(app: &TestApp) -> std::collections::HashMap<i64, Option<i64>> {
    let r = app
        .get_as(
            "events?start_date=2027-01-01&end_date=2027-12-31&per_page=50",
            &app.admin.auth(),
        )
        .await;
    r.assert(200);
    r.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_i64().unwrap(), e["venue"]["id"].as_i64()))
        .collect()
}

/// The posts whose events are still being unlinked, in ID order.
async fn queued(app: &TestApp) -> Vec<i64> {
    let mut conn = app.store.pool.read().await.unwrap();
    let mut ids = linked_unlinks::queued(&mut conn).await.unwrap();
    ids.sort_unstable();
    ids
}

/// The venue or organizer, published, shows none of these events: they read
/// unlinked, filters by it list none of them, the lists of venues or organizers
/// count none of them; they count an upcoming event `kept` linked to it, and only
/// such.
async fn assert_shows_no_events(
    app: &TestApp,
    collection: &str,
    id: i64,
    events: &[i64],
    kept: bool,
) {
    for &e in events {
        let (venue, organizers) = links_of(app, e).await;
        assert!(venue != Some(id) && !organizers.contains(&id), "event {e}");
    }
    let filter = &collection[..collection.len() - 1];
    let (by_it, _) = listed(app, &format!("{filter}={id}")).await;
    assert!(events.iter().all(|e| !by_it.contains(e)), "{by_it:?}");
    let published = "status=publish";
    let listed_with = |params: String| async move {
        posts_listed(app, collection, &format!("{published}&{params}"))
            .await
            .contains(&id)
    };
    assert_eq!(listed_with("has_events=1".into()).await, kept);
    assert_eq!(listed_with("has_events=0".into()).await, !kept);
    assert_eq!(listed_with("only_with_upcoming=1".into()).await, kept);
    assert!(!listed_with(format!("event={}", events[0])).await);
}
