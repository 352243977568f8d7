//! Events: create, read, update and delete by ID and by slug.

mod common;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

const EVENT_KEYS: [&str; 42] = [
    "id",
    "global_id",
    "global_id_lineage",
    "author",
    "status",
    "date",
    "date_utc",
    "modified",
    "modified_utc",
    "url",
    "rest_url",
    "title",
    "description",
    "excerpt",
    "slug",
    "image",
    "all_day",
    "start_date",
    "start_date_details",
    "end_date",
    "end_date_details",
    "utc_start_date",
    "utc_start_date_details",
    "utc_end_date",
    "utc_end_date_details",
    "timezone",
    "timezone_abbr",
    "cost",
    "cost_details",
    "website",
    "show_map",
    "show_map_link",
    "hide_from_listings",
    "sticky",
    "featured",
    "categories",
    "tags",
    "venue",
    "organizer",
    "custom_fields",
    // Our extensions come after the reference's keys.
    "tickets",
    "post_parent",
];

/// The venue, organizer and terms of the reference's `event_create` sample.
async fn sample_links(app: &TestApp) -> (i64, i64, i64, i64, i64) {
    let venue = app
        .post(
            "venues",
            json!({"venue": "Venue 1", "address": "1 Main St", "city": "Springfield",
                   "country": "United States", "state": "IL", "zip": "62701",
                   "phone": "555-0100", "website": "https://example.com/v0", "stateprovince": "IL"}),
        )
        .await
        .id();
    let organizer = app
        .post(
            "organizers",
            json!({"organizer": "Organizer 1", "phone": "555-0200",
                   "website": "https://example.com/o0", "email": "org1@example.com"}),
        )
        .await
        .id();
    let music = app
        .post(
            "categories",
            json!({"name": "Music", "description": "Music events"}),
        )
        .await
        .id();
    let free = app.post("tags", json!({"name": "free"})).await.id();
    let outdoor = app.post("tags", json!({"name": "outdoor"})).await.id();
    (venue, organizer, music, free, outdoor)
}

both!(
    create_returns_201_with_the_reference_representation,
    |app| async move {
        let (venue, organizer, music, free, outdoor) = sample_links(&app).await;
        let r = app
            .post(
                "events",
                json!({"title": "Event 01", "description": "<p>Description of event 1</p>",
                       "excerpt": "Excerpt 1", "start_date": "2027-01-05 09:00:00",
                       "end_date": "2027-01-05 11:00:00", "all_day": false, "cost": "",
                       "website": "https://example.com/e1", "featured": true,
                       "venue": {"id": venue}, "organizer": [{"id": organizer}],
                       "categories": [music], "tags": [free, outdoor], "status": "publish"}),
            )
            .await;
        r.assert(201);
        let e = &r.body;
        assert_eq!(keys(e), EVENT_KEYS);
        let id = r.id();
        assert_eq!(e["global_id"], format!("calendar.test?id={id}"));
        assert_eq!(
            e["global_id_lineage"],
            json!([format!("calendar.test?id={id}")])
        );
        assert_eq!(e["author"], json!(app.admin.id.to_string()));
        assert_eq!(e["status"], "publish");
        assert_eq!(e["url"], format!("{SITE}/event/event-01/"));
        assert_eq!(e["rest_url"], format!("{SITE}{API}/events/{id}"));
        assert_eq!(e["title"], "Event 01");
        assert_eq!(e["description"], "<p>Description of event 1</p>");
        assert_eq!(e["excerpt"], "<p>Excerpt 1</p>");
        assert_eq!(e["slug"], "event-01");
        assert_eq!(e["image"], false);
        assert_eq!(e["all_day"], false);
        assert_eq!(e["start_date"], "2027-01-05 09:00:00");
        assert_eq!(
            e["start_date_details"],
            json!({"year":"2027","month":"01","day":"05","hour":"09","minutes":"00","seconds":"00"})
        );
        assert_eq!(e["utc_end_date"], "2027-01-05 11:00:00");
        assert_eq!(e["timezone"], "UTC");
        assert_eq!(e["timezone_abbr"], "UTC");
        assert_eq!(e["cost"], "");
        assert_eq!(
            e["cost_details"],
            json!({"currency_symbol":"","currency_code":"","currency_position":"","values":[]})
        );
        assert_eq!(e["website"], "https://example.com/e1");
        for flag in ["show_map", "show_map_link", "hide_from_listings", "sticky"] {
            assert_eq!(e[flag], false, "{flag}");
        }
        assert_eq!(e["featured"], true);
        let cat = &e["categories"][0];
        assert_eq!(
            keys(cat),
            [
                "name",
                "slug",
                "term_group",
                "term_taxonomy_id",
                "taxonomy",
                "description",
                "parent",
                "count",
                "filter",
                "id",
                "urls"
            ]
        );
        assert_eq!(cat["id"], music);
        assert_eq!(cat["taxonomy"], "tribe_events_cat");
        assert_eq!(cat["count"], 1);
        assert_eq!(
            cat["urls"]["self"],
            format!("{SITE}{API}/categories/{music}")
        );
        let tag_ids: Vec<&Value> = e["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| &t["id"])
            .collect();
        assert_eq!(tag_ids, [&json!(free), &json!(outdoor)]);
        assert_eq!(e["tags"][0]["taxonomy"], "post_tag");
        assert_eq!(e["venue"]["id"], venue);
        assert_eq!(
            keys(&e["venue"]),
            [
                "id",
                "author",
                "status",
                "date",
                "date_utc",
                "modified",
                "modified_utc",
                "url",
                "venue",
                "slug",
                "address",
                "city",
                "country",
                "state",
                "zip",
                "phone",
                "website",
                "stateprovince",
                "show_map",
                "show_map_link",
                "global_id",
                "global_id_lineage"
            ]
        );
        assert_eq!(e["organizer"][0]["id"], organizer);
        assert_eq!(e["organizer"][0]["email"], "org1@example.com");
        assert_eq!(e["custom_fields"], json!([]));
        assert_eq!(e["tickets"], json!([]));
        assert_eq!(e["post_parent"], 0);
        assert!(
            e.get("json_ld").is_none(),
            "json_ld is for single GETs only"
        );
    }
);

both!(create_requires_title_start_and_end, |app| async move {
    let r = app
        .post("events", json!({"description": "missing title and dates"}))
        .await;
    assert_eq!(
        r.error_body(),
        json!({"code":"rest_missing_callback_param","message":"Missing parameter(s): title, start_date, end_date","data":{"status":400,"params":["title","start_date","end_date"]}})
    );
    let r = app
        .post(
            "events",
            json!({"title": "x", "end_date": "2027-01-01 10:00:00"}),
        )
        .await;
    r.assert_error(400, "rest_missing_callback_param");
    assert_eq!(r.body["data"]["params"], json!(["start_date"]));
    // 400 wins over 401.
    app.call(Method::POST, "events", Some(json!({})), &Auth::None)
        .await
        .assert_error(400, "rest_missing_callback_param");
});

both!(
    unparsable_start_date_is_an_invalid_param,
    |app| async move {
        let r = app
            .post(
                "events",
                event("Bad dates", "not-a-date", "2030-01-01 11:00:00"),
            )
            .await;
        assert_eq!(
            r.error_body(),
            json!({"code":"rest_invalid_param","message":"Invalid parameter(s): start_date","data":{"status":400,"params":{"start_date":"Invalid parameter."},"details":[]}})
        );
        let r = app
            .post(
                "events",
                event("Bad", "2030-01-01 10:00:00", "before my birthday"),
            )
            .await;
        r.assert_error(400, "rest_invalid_param");
        assert!(
            r.body["data"]["params"].get("end_date").is_some(),
            "{}",
            r.text
        );
        let r = app
            .post(
                "events",
                event("", "2030-01-01 10:00:00", "2030-01-01 11:00:00"),
            )
            .await;
        r.assert_error(400, "rest_invalid_param");
        assert!(r.body["data"]["params"].get("title").is_some());
    }
);

both!(end_before_start_is_invalid_on_end_date, |app| async move {
    let r = app
        .post(
            "events",
            event("Backwards", "2027-01-05 11:00:00", "2027-01-05 09:00:00"),
        )
        .await;
    r.assert_error(400, "rest_invalid_param");
    let params = r.body["data"]["params"].as_object().unwrap();
    assert_eq!(params.keys().collect::<Vec<_>>(), ["end_date"]);
    let ok = app
        .post(
            "events",
            event("Instant", "2027-01-05 11:00:00", "2027-01-05 11:00:00"),
        )
        .await;
    ok.assert(201);
});

both!(
    single_get_adds_json_ld_and_by_slug_answers_alike,
    |app| async move {
        let (venue, organizer, ..) = sample_links(&app).await;
        let id = app
            .event(with(
                event("Event 01", "2027-01-05 09:00:00", "2027-01-05 11:00:00"),
                json!({"excerpt": "Excerpt 1", "venue": venue, "organizer": [organizer],
                   "timezone": "America/New_York"}),
            ))
            .await;
        let r = app.get(&format!("events/{id}")).await;
        r.assert(200);
        let ld = &r.body["json_ld"];
        assert_eq!(ld["@context"], "http://schema.org");
        assert_eq!(ld["@type"], "Event");
        assert_eq!(ld["name"], "Event 01");
        assert_eq!(ld["startDate"], "2027-01-05T09:00:00-05:00");
        assert_eq!(ld["endDate"], "2027-01-05T11:00:00-05:00");
        assert_eq!(ld["url"], format!("{SITE}/event/event-01/"));
        assert_eq!(ld["location"]["@type"], "Place");
        assert_eq!(ld["location"]["name"], "Venue 1");
        assert_eq!(ld["organizer"]["@type"], "Person");
        assert_eq!(keys(&r.body).last(), Some(&"json_ld"));
        // As the running reference shows, a single GET gives the embedded venue and
        // organizers their JSON-LD too; lists do not.
        assert_eq!(r.body["venue"]["json_ld"]["@type"], "Place");
        assert_eq!(r.body["organizer"][0]["json_ld"]["@type"], "Person");
        let listed = app.get("events?start_date=2027-01-01").await;
        assert!(listed.body["events"][0]["venue"].get("json_ld").is_none());
        let by_slug = app.get("events/by-slug/event-01").await;
        by_slug.assert(200);
        assert_eq!(by_slug.body, r.body);
    }
);

both!(
    unknown_ids_venue_ids_and_unknown_slugs_are_invalid_params,
    |app| async move {
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let expected = json!({"code":"rest_invalid_param","message":"Invalid parameter(s): id","data":{"status":400,"params":{"id":"Invalid parameter."},"details":[]}});
        assert_eq!(app.get("events/999999").await.error_body(), expected);
        assert_eq!(
            app.get(&format!("events/{venue}")).await.error_body(),
            expected
        );
        assert_eq!(
            app.get("events/by-slug/does-not-exist").await.error_body(),
            json!({"code":"rest_invalid_param","message":"Invalid parameter(s): slug","data":{"status":400,"params":{"slug":"Invalid parameter."},"details":[]}})
        );
        app.get("events/abc")
            .await
            .assert_error(404, "rest_no_route");
        app.post(&format!("events/{venue}"), json!({"title": "x"}))
            .await
            .assert_error(400, "rest_invalid_param");
        app.delete_as("events/999999", &Auth::None)
            .await
            .assert_error(400, "rest_invalid_param");
    }
);

both!(
    update_works_with_every_method_by_id_and_slug,
    |app| async move {
        let id = app
            .event(event(
                "Event 50",
                "2027-02-23 09:00:00",
                "2027-02-23 10:00:00",
            ))
            .await;
        for (n, method) in [Method::POST, Method::PUT, Method::PATCH]
            .into_iter()
            .enumerate()
        {
            let title = format!("By id {n}");
            let r = app
                .call(
                    method.clone(),
                    &format!("events/{id}"),
                    Some(json!({"title": title})),
                    &app.admin.auth(),
                )
                .await;
            r.assert(200);
            assert_eq!(r.body["title"], title);
            assert_eq!(r.body["slug"], "event-50", "renaming keeps the slug");
            let title = format!("By slug {n}");
            let r = app
                .call(
                    method,
                    "events/by-slug/event-50",
                    Some(json!({"title": title})),
                    &app.admin.auth(),
                )
                .await;
            r.assert(200);
            assert_eq!(r.body["id"], id);
            assert_eq!(r.body["title"], title);
        }
        let moved = app
            .patch("events/by-slug/event-50", json!({"slug": "renamed"}))
            .await;
        assert_eq!(moved.body["slug"], "renamed");
        app.get("events/by-slug/renamed").await.assert(200);
        app.get("events/by-slug/event-50")
            .await
            .assert_error(400, "rest_invalid_param");
        let backwards = app
            .patch(
                &format!("events/{id}"),
                json!({"end_date": "2027-02-22 10:00:00"}),
            )
            .await;
        backwards.assert_error(400, "rest_invalid_param");
        assert!(backwards.body["data"]["params"].get("end_date").is_some());
    }
);

both!(
    delete_trashes_then_410_then_force_removes,
    |app| async move {
        let editor = app.user(Role::Editor).await;
        let id = app
            .event(event(
                "Event 50",
                "2027-02-23 09:00:00",
                "2027-02-23 10:00:00",
            ))
            .await;
        let r = app.delete(&format!("events/{id}")).await;
        r.assert(200);
        // The reference's shape, and after it the status to restore (an extension).
        let all = keys(&r.body);
        let (shape, extension) = all.split_at(EVENT_KEYS.len());
        assert_eq!(
            (shape, extension),
            (&EVENT_KEYS[..], &["status_before_trash"][..])
        );
        assert_eq!(r.body["status"], "trash");
        assert_eq!(r.body["title"], "Event 50");
        let again = app.delete(&format!("events/{id}")).await;
        assert_eq!(
            again.error_body(),
            json!({"code":"event-is-in-trash","message":"The event is already trashed","data":{"status":410}})
        );
        again.assert(410);
        app.get(&format!("events/{id}"))
            .await
            .assert_error(403, "event-no-longer-available");
        let seen = app.get_as(&format!("events/{id}"), &editor.auth()).await;
        seen.assert(200);
        assert_eq!(seen.body["status"], "trash");
        // The trashed event frees its slug and leaves the list.
        assert_eq!(
            app.get("events?start_date=2027-01-01").await.body["total"],
            0
        );
        let restored = app
            .post(&format!("events/{id}"), json!({"status": "publish"}))
            .await;
        restored.assert(200);
        assert_eq!(restored.body["status"], "publish");
        assert_eq!(restored.body["slug"], "event-50");
        app.get(&format!("events/{id}")).await.assert(200);
        app.get("events/by-slug/event-50").await.assert(200);
        let gone = app.delete(&format!("events/{id}?force=true")).await;
        gone.assert(200);
        assert_eq!(gone.body["id"], id);
        app.get(&format!("events/{id}"))
            .await
            .assert_error(400, "rest_invalid_param");
        // Deleting by slug works too.
        let other = app
            .event(event(
                "By slug",
                "2027-02-23 09:00:00",
                "2027-02-23 10:00:00",
            ))
            .await;
        let r = app.delete("events/by-slug/by-slug").await;
        r.assert(200);
        assert_eq!(r.body["id"], other);
        assert_eq!(r.body["status"], "trash");
    }
);

both!(
    a_create_answers_what_a_read_of_the_event_returns,
    |app| async move {
        // Created in an order that their names do not sort in, with mixed case, so the
        // answer has to list terms as a read does (by name, in the database's collation).
        let mut categories = Vec::new();
        for name in ["Zeta", "alpha", "Beta", "_under", "Émile"] {
            categories.push(app.post("categories", json!({"name": name})).await.id());
        }
        let tag = app.post("tags", json!({"name": "Tag"})).await.id();
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let mut organizers = Vec::new();
        for name in ["First", "Second", "Third"] {
            organizers.push(
                app.post("organizers", json!({"organizer": name}))
                    .await
                    .id(),
            );
        }
        let base = || event("Same", "2027-03-01 10:00:00", "2027-03-01 12:00:00");
        let bodies = [
            // Everything by ID, organizers out of ID order, duplicates.
            with(
                base(),
                json!({"venue": venue, "organizer": [organizers[2], organizers[0], organizers[2]],
                       "categories": categories, "tags": [tag, tag]}),
            ),
            // A draft: no count moves.
            with(
                base(),
                json!({"status": "draft", "venue": venue, "categories": [categories[1]]}),
            ),
            // By slug and by name, a new term, a new venue, organizers by object.
            with(
                base(),
                json!({"venue": {"venue": "New Hall", "city": "Lyon"},
                       "organizer": [{"id": organizers[1]}], "categories": ["beta", "Brand New"],
                       "tags": "Tag,Other"}),
            ),
            // No links at all, an image.
            with(
                base(),
                json!({"image": "https://cdn.example.com/poster.png"}),
            ),
        ];
        for body in bodies {
            let created = app.post("events", body.clone()).await;
            created.assert(201);
            let mut read = app
                .get_as(&format!("events/{}", created.id()), &app.admin.auth())
                .await;
            read.assert(200);
            // A single GET adds JSON-LD to the event and to its venue and organizers.
            strip_json_ld(&mut read.body);
            assert_eq!(created.body, read.body, "{body}");
        }
        // Counts in the answer include the event just created.
        let first = app
            .post(
                "events",
                with(base(), json!({"categories": [categories[0]]})),
            )
            .await;
        let stored = app.get(&format!("categories/{}", categories[0])).await;
        assert_eq!(first.body["categories"][0]["count"], stored.body["count"]);
        assert!(stored.body["count"].as_i64().unwrap() >= 2);
    }
);

fn strip_json_ld(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("json_ld");
            o.values_mut().for_each(strip_json_ld);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_json_ld),
        _ => {}
    }
}
