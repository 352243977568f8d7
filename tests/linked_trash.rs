//! A venue or organizer of more events than a batch (`--step-batch`) goes to the
//! trash in steps (`store::linked_unlinks`): its status changes in the request, and
//! its events lose their link to it a batch per transaction behind the answer.
//! Meanwhile no read shows the link, even once the post is restored (the restore
//! answers at once), but for the links event writes make meanwhile, which the
//! batches pass over; deleted for good, it goes with the last batch.

mod common;
mod process;

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

both_with!(
    trashing_a_venue_and_an_organizer_of_many_events_unlinks_them_all,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        for (collection, id) in [("venues", cal.hall), ("organizers", cal.acme)] {
            let r = app.delete(&format!("{collection}/{id}")).await;
            r.assert(200);
            assert_eq!(r.body["status"], "trash");
            app.delete(&format!("{collection}/{id}")).await.assert(410);
        }
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "trashed").await;
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_eq!(linked_to(&app, cal.acme).await, 0);
        for &e in &cal.at_hall {
            assert_eq!(links_of(&app, e).await, (None, vec![]));
        }
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        assert_eq!(
            listed(&app, &format!("venue={}", cal.hall)).await,
            (vec![], 0)
        );
    }
);

both_with!(
    while_a_trashed_post_s_events_are_unlinked_no_read_shows_the_link,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        trash_queued(&app, cal.hall).await;
        trash_queued(&app, cal.acme).await;
        assert_eq!(linked_to(&app, cal.hall).await, 5, "no batch has run");
        for &e in &cal.at_hall {
            assert_eq!(links_of(&app, e).await, (None, vec![]));
        }
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        let visitor = app.get(&format!("events/{}", cal.at_hall[0])).await;
        assert!(visitor.body["venue"]["id"].is_null(), "{}", visitor.text);
        let page = app.get("events?start_date=2027-01-01").await;
        assert!(!page.text.contains("\"Hall\""), "{}", page.text);
        assert!(!page.text.contains("Acme"), "{}", page.text);
        let ical = app.get("events?ical=1&start_date=2027-01-01").await;
        assert!(ical.text.contains("Club"), "{}", ical.text);
        assert!(!ical.text.contains("LOCATION:Hall") && !ical.text.contains("Acme"));

        // Filters by them list nothing, as after the batches; beside another, its events.
        let (hall, club, acme) = (cal.hall, cal.club, cal.acme);
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        assert_eq!(
            listed(&app, &format!("venue={hall},{club}")).await,
            (vec![cal.at_club], 1)
        );
        assert_eq!(
            listed(&app, &format!("organizer={acme}")).await,
            (vec![], 0)
        );
        let near = "geoloc_lat=48.85&geoloc_lng=2.35";
        assert_eq!(listed(&app, near).await, (vec![], 0));
        // The lists of venues and organizers: no events, none upcoming, no event's.
        let trashed = "status=trash";
        for (collection, id) in [("venues", hall), ("organizers", acme)] {
            let with_events = format!("{trashed}&has_events=1");
            assert!(
                !posts_listed(&app, collection, &with_events)
                    .await
                    .contains(&id)
            );
            let without = format!("{trashed}&has_events=0");
            assert!(posts_listed(&app, collection, &without).await.contains(&id));
            let upcoming = format!("{trashed}&only_with_upcoming=1");
            assert!(
                !posts_listed(&app, collection, &upcoming)
                    .await
                    .contains(&id)
            );
            let of_event = format!("{trashed}&event={}", cal.at_hall[0]);
            assert!(
                !posts_listed(&app, collection, &of_event)
                    .await
                    .contains(&id)
            );
        }

        // A batch, then the venue is restored: it answers at once, the batches left
        // go on, and its events stay unlinked from it.
        assert!(!one_batch(&app, hall).await);
        assert_eq!(linked_to(&app, hall).await, 3);
        let restored = app
            .post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await;
        restored.assert(200);
        assert_eq!(restored.body["status"], "publish");
        assert_eq!(linked_to(&app, hall).await, 3, "the restore runs no batch");
        assert_eq!(queued(&app).await, vec![hall, acme]);
        assert_shows_no_events(&app, "venues", hall, &cal.at_hall).await;
        assert_eq!(listed(&app, near).await, (vec![], 0));
        // Named by its fields, as a new event's venue, it is not found: the event
        // gets a venue of its own.
        let inline = json!({"venue": {"venue": "Hall"}});
        let by_fields = app.event(with(at_day("Hall by name", 24), inline)).await;
        let (found, _) = links_of(&app, by_fields).await;
        assert!(found.is_some_and(|v| v != hall), "{found:?}");

        // An event linked to it by ID is written at once and keeps its link: the
        // batches pass over it, and it reads linked, on its own and in a page beside
        // the events not unlinked yet; the venue shows it only for that event.
        let again = app
            .event(with(at_day("Hall again", 25), json!({"venue": hall})))
            .await;
        assert_eq!(queued(&app).await, vec![hall, acme], "no batch ran");
        assert_eq!(linked_to(&app, hall).await, 4);
        assert_eq!(links_of(&app, again).await.0, Some(hall));
        let page = venues_on_page(&app).await;
        assert_eq!(page[&again], Some(hall), "{page:?}");
        for &e in &cal.at_hall {
            assert_eq!(links_of(&app, e).await.0, None);
            assert_ne!(page.get(&e), Some(&Some(hall)), "{page:?}");
        }
        let of_again = format!("status=publish&event={again}");
        assert_eq!(posts_listed(&app, "venues", &of_again).await, vec![hall]);
        assert_shows_no_events(&app, "venues", hall, &cal.at_hall).await;
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        while !one_batch(&app, hall).await {}
        assert_eq!(queued(&app).await, vec![acme]);
        assert_eq!(linked_to(&app, hall).await, 1);
        assert_eq!(links_of(&app, again).await.0, Some(hall));
        assert_eq!(
            listed(&app, &format!("venue={hall}")).await,
            (vec![again], 1)
        );
        let published = "status=publish";
        let upcoming = format!("{published}&only_with_upcoming=1");
        assert!(
            posts_listed(&app, "venues", &upcoming)
                .await
                .contains(&hall)
        );

        // The organizer restored, then given to an event by an update.
        app.post(&format!("organizers/{acme}"), json!({"status": "publish"}))
            .await
            .assert(200);
        assert_shows_no_events(&app, "organizers", acme, &cal.at_hall).await;
        let update = json!({"organizer": [acme, cal.other]});
        let updated = app.post(&format!("events/{again}"), update).await;
        updated.assert(200);
        let shown: Vec<i64> = updated.body["organizer"]
            .as_array()
            .map(|a| a.iter().filter_map(|o| o["id"].as_i64()).collect())
            .unwrap_or_default();
        assert_eq!(shown, vec![acme, cal.other]);
        assert_eq!(queued(&app).await, vec![acme], "no batch ran");
        while !one_batch(&app, acme).await {}
        assert!(queued(&app).await.is_empty());
        assert_eq!(linked_to(&app, acme).await, 1);
        assert_eq!(
            links_of(&app, again).await,
            (Some(hall), vec![acme, cal.other])
        );
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        assert_summaries_hold(&app, "unlinked").await;
    }
);

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

/// The venue or organizer, published, shows none of its events: they read
/// unlinked, filters by it list nothing, the lists of venues or organizers count
/// none of its events.
async fn assert_shows_no_events(app: &TestApp, collection: &str, id: i64, events: &[i64]) {
    for &e in events {
        let (venue, organizers) = links_of(app, e).await;
        assert!(venue != Some(id) && !organizers.contains(&id), "event {e}");
    }
    let filter = &collection[..collection.len() - 1];
    assert_eq!(listed(app, &format!("{filter}={id}")).await, (vec![], 0));
    let published = "status=publish";
    let listed_with = |params: String| async move {
        posts_listed(app, collection, &format!("{published}&{params}"))
            .await
            .contains(&id)
    };
    assert!(!listed_with("has_events=1".into()).await);
    assert!(listed_with("has_events=0".into()).await);
    assert!(!listed_with("only_with_upcoming=1".into()).await);
    assert!(!listed_with(format!("event={}", events[0])).await);
}
both_with!(
    deleting_for_good_a_post_of_many_events_unlinks_them_first,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        // Not in the trash: trashed, unlinked, deleted with its last batch.
        let r = app.delete(&format!("venues/{}?force=true", cal.hall)).await;
        r.assert(200);
        assert_eq!(r.body["venue"], "Hall");
        app.wait_for_work_in_steps().await;
        app.get_as(&format!("venues/{}", cal.hall), &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        // In the trash with its events still linked.
        trash_queued(&app, cal.acme).await;
        app.delete(&format!("organizers/{}?force=true", cal.acme))
            .await
            .assert(200);
        app.wait_for_work_in_steps().await;
        app.get_as(&format!("organizers/{}", cal.acme), &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        let queued = {
            let mut conn = app.store.pool.read().await.unwrap();
            linked_unlinks::queued(&mut conn).await.unwrap()
        };
        assert!(queued.is_empty(), "{queued:?}");
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_eq!(linked_to(&app, cal.acme).await, 0);
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        assert_summaries_hold(&app, "deleted").await;
    }
);

both_with!(
    a_post_deleted_for_good_in_steps_goes_with_its_last_batch,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let hall = cal.hall;
        // Marked as its deletion for good marks it; no batch runs until the test
        // runs one.
        let again = restored_with_a_kept_link(&app, hall).await;
        let path = format!("venues/{hall}");
        {
            let mut tx = app.store.pool.write().await.unwrap();
            let post = posts::get(&mut tx, hall).await.unwrap().expect("the venue");
            let marked = linked_unlinks::delete_when_unlinked(&mut tx, &post, 1_800_000_000);
            assert!(marked.await.unwrap());
            tx.commit().await.unwrap();
        }
        assert_eq!(links_of(&app, again).await.0, None);
        // Until its last batch it reads as in the trash, and no write changes it.
        let shown = app.get_as(&path, &app.admin.auth()).await;
        shown.assert(200);
        assert_eq!(shown.body["status"], "trash");
        app.post(&path, json!({"status": "publish"}))
            .await
            .assert_error(400, "rest_invalid_param");
        app.post(&path, json!({"venue": "Renamed"}))
            .await
            .assert_error(400, "rest_invalid_param");
        let shown = app.get_as(&path, &app.admin.auth()).await;
        assert_eq!(
            (&shown.body["status"], &shown.body["venue"]),
            (&json!("trash"), &json!("Hall"))
        );
        assert!(!one_batch(&app, hall).await);
        app.get_as(&path, &app.admin.auth()).await.assert(200);
        // Deleted for good again, it answers as the first time, and the batches
        // left run behind the answer.
        let again_deleted = app.delete(&format!("{path}?force=true")).await;
        again_deleted.assert(200);
        assert_eq!(again_deleted.body["venue"], "Hall");
        app.wait_for_work_in_steps().await;
        // Gone, with every link to it, that of the event linked meanwhile too.
        app.get_as(&path, &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        assert!(queued(&app).await.is_empty());
        assert_eq!(linked_to(&app, hall).await, 0);
        assert_eq!(links_of(&app, again).await.0, None);
        // Sync hears of it as of any post deleted for good.
        let synced = app
            .get_as(
                "venues?modified_after=2000-01-01&per_page=50",
                &app.admin.auth(),
            )
            .await;
        synced.assert(200);
        let tombstone = synced.body["venues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == hall);
        assert_eq!(
            tombstone.map(|v| &v["status"]),
            Some(&json!("deleted")),
            "{}",
            synced.text
        );
        assert_summaries_hold(&app, "deleted in steps").await;
    }
);

both_with!(
    events_written_while_their_venue_is_unlinked_come_out_exact,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let mut more = Vec::new();
        for i in 0..24 {
            let links = json!({"venue": cal.hall, "organizer": [cal.acme, cal.other]});
            more.push(
                app.event(with(at_day(&format!("More {i}"), i + 1), links))
                    .await,
            );
        }
        let app = std::sync::Arc::new(app);
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let (app, more) = (app.clone(), more.clone());
                let (club, other) = (cal.club, cal.other);
                tokio::spawn(async move {
                    for (i, e) in more.iter().enumerate().filter(|(i, _)| i % 2 == w) {
                        let body = match i % 3 {
                            0 => json!({"title": format!("Renamed {i}")}),
                            1 => json!({"organizer": [other]}),
                            _ => json!({"venue": club}),
                        };
                        app.post(&format!("events/{e}"), body).await.assert(200);
                    }
                })
            })
            .collect();
        app.delete(&format!("venues/{}", cal.hall))
            .await
            .assert(200);
        app.delete(&format!("organizers/{}", cal.acme))
            .await
            .assert(200);
        for w in writers {
            w.await.unwrap();
        }
        app.wait_for_work_in_steps().await;
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_eq!(linked_to(&app, cal.acme).await, 0);
        for (i, &e) in more.iter().enumerate() {
            let venue = (i % 3 == 2).then_some(cal.club);
            assert_eq!(
                links_of(&app, e).await,
                (venue, vec![cal.other]),
                "event {i}"
            );
        }
        assert_summaries_hold(&app, "written meanwhile").await;
    }
);

both!(
    a_trash_an_instance_stopped_during_goes_on_at_start_up,
    |app| async move {
        let cal = setup(&app).await;
        trash_queued(&app, cal.hall).await;
        let server = process::Server::start_with_args(&app.database_url(), &["--step-batch", "2"]);
        app.wait_for_work_in_steps().await;
        drop(server);
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_summaries_hold(&app, "finished at start-up").await;
    }
);

both!(
    a_trash_that_leaves_no_work_makes_one_data_version,
    |app| async move {
        // The work in steps it sets going finds nothing queued: it writes nothing,
        // and every cached answer the trash cannot change stays cached.
        let cal = setup(&app).await;
        let before = app.store.pool.data_version().await.unwrap();
        app.delete(&format!("venues/{}", cal.hall))
            .await
            .assert(200);
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let after = app.store.pool.data_version().await.unwrap();
        assert_eq!(after, before + 1);
        assert_eq!(linked_to(&app, cal.hall).await, 0);
    }
);

both_with!(
    a_restore_while_the_batches_run_behind_the_trash_leaves_them_running,
    Settings {
        step_batch: 1,
        ..settings()
    },
    |app| async move {
        // Enough events that the runner the trash set going is still at work when
        // the restore comes (on PostgreSQL some hundreds are left; SQLite's batches
        // may all be done): the restore answers, the runner goes on to the last.
        let cal = setup(&app).await;
        let batch: Vec<Value> = (0..800)
            .map(|i| {
                with(
                    at_day(&format!("Busy {i}"), 1 + i % 28),
                    json!({"venue": cal.hall}),
                )
            })
            .collect();
        for body in batch {
            app.post("events", body).await.assert(201);
        }
        let hall = cal.hall;
        app.delete(&format!("venues/{hall}")).await.assert(200);
        let restored = app
            .post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await;
        restored.assert(200);
        assert_eq!(restored.body["status"], "publish");
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        assert_eq!(links_of(&app, cal.at_hall[0]).await.0, None);
        // Events linked to it meanwhile keep their links, whichever batch they meet.
        let mut kept = Vec::new();
        for i in 0..3 {
            let links = json!({"venue": hall});
            kept.push(
                app.event(with(at_day(&format!("Kept {i}"), 2 + i), links))
                    .await,
            );
        }
        for &e in &kept {
            assert_eq!(links_of(&app, e).await.0, Some(hall));
        }
        app.wait_for_work_in_steps().await;
        assert_eq!(linked_to(&app, hall).await, 3);
        kept.sort_unstable();
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (kept, 3));
        assert_summaries_hold(&app, "restored while unlinking").await;
    }
);

both_with!(
    a_trash_again_unlinks_the_links_kept_while_it_was_restored,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let hall = cal.hall;
        let again = restored_with_a_kept_link(&app, hall).await;
        // Trashed again before its last batch, it loses every event, that one too.
        app.delete(&format!("venues/{hall}")).await.assert(200);
        app.wait_for_work_in_steps().await;
        assert!(queued(&app).await.is_empty());
        assert_eq!(linked_to(&app, hall).await, 0);
        app.post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await
            .assert(200);
        assert_eq!(links_of(&app, again).await.0, None);
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        assert_summaries_hold(&app, "trashed again").await;
    }
);
