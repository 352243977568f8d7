//! Events: what an update keeps, clears and recomputes, in any body format,
//! and what concurrent writes leave behind.

mod common;

use axum::http::Method;
use common::*;
use serde_json::{Value, json};

/// Everything but the fields an update is expected to change.
fn stable(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        for k in ["title", "modified", "modified_utc"] {
            o.remove(k);
        }
    }
    v
}

both!(
    omitted_fields_keep_their_values_on_update,
    |app| async move {
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let organizer = app
            .post("organizers", json!({"organizer": "Org"}))
            .await
            .id();
        let body = json!({
            "title": "Everything", "start_date": "2027-07-10 09:00:00", "end_date": "2027-07-11 18:00:00",
            "timezone": "America/New_York", "all_day": true, "description": "Desc", "excerpt": "Ex",
            "cost": "10$", "website": "https://example.com/x", "show_map": true, "show_map_link": true,
            "hide_from_listings": true, "sticky": true, "featured": true, "categories": ["Jazz"],
            "tags": ["loud"], "venue": venue, "organizer": [organizer],
            "tickets": [{"name": "GA", "url": "https://t.example.com/1", "price": "10", "currency": "USD"}],
            "image": "https://cdn.example.com/p.png"
        });
        let created = app.post("events", body).await;
        created.assert(201);
        let id = created.id();
        for method in [Method::POST, Method::PUT, Method::PATCH] {
            let r = app
                .call(
                    method,
                    &format!("events/{id}"),
                    Some(json!({"title": "Renamed"})),
                    &app.admin.auth(),
                )
                .await;
            r.assert(200);
            assert_eq!(r.body["title"], "Renamed");
            assert_eq!(stable(r.body.clone()), stable(created.body.clone()));
        }
        // Flags given as false are written; the rest stay.
        let r = app
            .patch(
                &format!("events/{id}"),
                json!({"featured": false, "all_day": false}),
            )
            .await;
        assert_eq!(r.body["featured"], false);
        assert_eq!(r.body["all_day"], false);
        assert_eq!(r.body["sticky"], true);
        assert_eq!(
            r.body["start_date"], "2027-07-10 00:00:00",
            "the widened times stay"
        );
    }
);

both!(empty_values_clear_optional_fields, |app| async move {
    let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
    let organizer = app
        .post("organizers", json!({"organizer": "Org"}))
        .await
        .id();
    let id = app
        .event(with(
            event("Full", "2027-03-01 10:00:00", "2027-03-01 12:00:00"),
            json!({"description": "D", "excerpt": "E", "cost": "5$", "website": "https://x.org/",
                   "categories": ["Jazz"], "tags": ["loud"], "venue": venue,
                   "organizer": [organizer], "image": "https://cdn.example.com/p.png",
                   "tickets": [{"name": "GA", "url": "https://t.example.com/1", "price": "1", "currency": "EUR"}]}),
        ))
        .await;
    let r = app
        .patch(
            &format!("events/{id}"),
            json!({"description": "", "excerpt": "", "cost": "", "website": "", "categories": "",
                   "tags": [], "venue": 0, "organizer": [], "image": "", "tickets": []}),
        )
        .await;
    r.assert(200);
    let e = &r.body;
    assert_eq!(e["description"], "");
    assert_eq!(e["excerpt"], "");
    assert_eq!(e["cost"], "");
    assert_eq!(e["cost_details"]["values"], json!([]));
    assert_eq!(e["website"], "");
    assert_eq!(e["categories"], json!([]));
    assert_eq!(e["tags"], json!([]));
    assert_eq!(e["venue"], json!([]));
    assert_eq!(e["organizer"], json!([]));
    assert_eq!(e["image"], false);
    assert_eq!(e["tickets"], json!([]));
    let again = app.get(&format!("events/{id}")).await;
    assert_eq!(again.body["venue"], json!([]));
});

both!(
    changing_the_timezone_keeps_wall_clock_times,
    |app| async move {
        let id = app
            .event(event("Zoned", "2027-01-10 09:00:00", "2027-01-10 11:00:00"))
            .await;
        let r = app
            .patch(
                &format!("events/{id}"),
                json!({"timezone": "America/New_York"}),
            )
            .await;
        r.assert(200);
        assert_eq!(r.body["start_date"], "2027-01-10 09:00:00");
        assert_eq!(r.body["end_date"], "2027-01-10 11:00:00");
        assert_eq!(r.body["utc_start_date"], "2027-01-10 14:00:00");
        assert_eq!(r.body["timezone"], "America/New_York");
        assert_eq!(r.body["timezone_abbr"], "EST");
        // A new start alone is read in the event's zone and keeps the end.
        let r = app
            .patch(
                &format!("events/{id}"),
                json!({"start_date": "2027-01-10 08:00:00"}),
            )
            .await;
        assert_eq!(r.body["utc_start_date"], "2027-01-10 13:00:00");
        assert_eq!(r.body["end_date"], "2027-01-10 11:00:00");
        // Turning all_day on without dates widens the stored days.
        let r = app
            .patch(&format!("events/{id}"), json!({"all_day": true}))
            .await;
        assert_eq!(r.body["start_date"], "2027-01-10 00:00:00");
        assert_eq!(r.body["end_date"], "2027-01-10 23:59:59");
        assert_eq!(r.body["utc_end_date"], "2027-01-11 04:59:59");
    }
);

both!(
    form_bodies_and_query_parameters_work_like_json,
    |app| async move {
        let a = app.post("organizers", json!({"organizer": "A"})).await.id();
        let b = app.post("organizers", json!({"organizer": "B"})).await.id();
        let form = format!(
            "title=Form+event&start_date=2027-05-01+10%3A00%3A00&end_date=2027-05-01+12%3A00%3A00\
         &all_day=1&featured=true&organizer%5B%5D={b}&organizer%5B%5D={a}\
         &venue%5Bvenue%5D=Form+Hall&venue%5Bcity%5D=Lyon&categories=Jazz%2CBlues&cost=15%E2%82%AC"
        );
        let r = app
            .call_raw(
                Method::POST,
                "events",
                "application/x-www-form-urlencoded",
                form.into_bytes(),
                &app.admin.auth(),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["all_day"], true);
        assert_eq!(r.body["featured"], true);
        assert_eq!(r.body["start_date"], "2027-05-01 00:00:00");
        assert_eq!(r.body["organizer"][0]["id"], b);
        assert_eq!(r.body["organizer"][1]["id"], a);
        assert_eq!(r.body["venue"]["city"], "Lyon");
        assert_eq!(r.body["categories"].as_array().unwrap().len(), 2);
        assert_eq!(r.body["cost"], "15€");
        let id = r.id();
        let r = app
            .call_raw(
                Method::POST,
                &format!("events/{id}"),
                "application/x-www-form-urlencoded",
                b"venue=0&organizer=".to_vec(),
                &app.admin.auth(),
            )
            .await;
        r.assert(200);
        assert_eq!(r.body["venue"], json!([]));
        assert_eq!(r.body["organizer"], json!([]));
        let q = app
            .call(
                Method::PATCH,
                &format!("events/{id}?title=From%20query&sticky=1"),
                Some(json!({"title": "From body"})),
                &app.admin.auth(),
            )
            .await;
        assert_eq!(q.body["title"], "From body", "the body wins");
        assert_eq!(q.body["sticky"], true);
    }
);

both!(trashing_by_update_frees_the_slug_too, |app| async move {
    let id = app
        .event(event("Gala", "2027-02-23 09:00:00", "2027-02-23 10:00:00"))
        .await;
    let r = app
        .patch(&format!("events/{id}"), json!({"status": "trash"}))
        .await;
    r.assert(200);
    assert_eq!(r.body["status"], "trash");
    app.get("events/by-slug/gala")
        .await
        .assert_error(400, "rest_invalid_param");
    let other = app
        .post(
            "events",
            event("Gala", "2027-02-24 09:00:00", "2027-02-24 10:00:00"),
        )
        .await;
    assert_eq!(other.body["slug"], "gala");
    app.delete(&format!("events/{id}"))
        .await
        .assert_error(410, "event-is-in-trash");
    let back = app
        .patch(&format!("events/{id}"), json!({"status": "draft"}))
        .await;
    assert_eq!(back.body["slug"], "gala-2", "the slug was taken meanwhile");
});

both!(
    events_with_the_same_slug_can_all_be_trashed,
    |app| async move {
        let mut ids = Vec::new();
        for day in 1..=3 {
            let start = format!("2027-03-0{day} 09:00:00");
            let end = format!("2027-03-0{day} 10:00:00");
            let id = app.event(event("Gala", &start, &end)).await;
            // One by DELETE, the others by an update that names the trash.
            let trashed = if day == 1 {
                app.delete(&format!("events/{id}")).await
            } else {
                app.patch(&format!("events/{id}"), json!({"status": "trash"}))
                    .await
            };
            trashed.assert(200);
            assert_eq!(trashed.body["status"], "trash");
            ids.push(id);
        }
        let renamed = app
            .patch(
                &format!("events/{}", ids[2]),
                json!({"slug": "Gala Night!"}),
            )
            .await;
        renamed.assert(200);
        assert_eq!(renamed.body["status"], "trash", "still in the trash");
        let mut slugs = Vec::new();
        for id in &ids {
            let back = app
                .patch(&format!("events/{id}"), json!({"status": "publish"}))
                .await;
            back.assert(200);
            slugs.push(back.body["slug"].as_str().unwrap().to_string());
        }
        assert_eq!(slugs, ["gala", "gala-2", "gala-night"]);
    }
);

both!(concurrent_writes_move_term_counts_once, |app| async move {
    let cat = app.post("categories", json!({"name": "Music"})).await.id();
    let body = with(
        event("Twice", "2027-01-01 10:00:00", "2027-01-01 11:00:00"),
        json!({"categories": [cat]}),
    );
    let id = app.event(body.clone()).await;
    app.event(body).await;
    let count = || async { app.get(&format!("categories/{cat}")).await.body["count"].clone() };
    let path = format!("events/{id}");
    let deletes = tokio::join!(app.delete(&path), app.delete(&path), app.delete(&path));
    let mut statuses = [deletes.0.status, deletes.1.status, deletes.2.status].map(|s| s.as_u16());
    statuses.sort();
    assert_eq!(statuses, [200, 410, 410], "one delete wins");
    assert_eq!(count().await, 1);
    let restore = json!({"status": "publish"});
    let (a, b, c) = tokio::join!(
        app.patch(&path, restore.clone()),
        app.patch(&path, restore.clone()),
        app.patch(&path, restore)
    );
    for r in [a, b, c] {
        r.assert(200);
    }
    assert_eq!(count().await, 2);
});
