//! Events: every field of the interface and the extensions, on create.

mod common;

use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

fn jan(extra: Value) -> Value {
    with(
        event("Event", "2027-01-05 09:00:00", "2027-01-05 11:00:00"),
        extra,
    )
}

both!(author_and_publication_dates_round_trip, |app| async move {
    let author = app.user(Role::Author).await;
    let r = app
        .post(
            "events",
            jan(json!({"author": author.id, "date": "2026-05-01 10:00:00"})),
        )
        .await;
    r.assert(201);
    assert_eq!(r.body["author"], json!(author.id.to_string()), "a string");
    assert_eq!(r.body["date"], "2026-05-01 10:00:00");
    assert_eq!(r.body["date_utc"], "2026-05-01 10:00:00");
    let r = app
        .post("events", jan(json!({"date_utc": "2026-05-02 08:30:00"})))
        .await;
    assert_eq!(r.body["date_utc"], "2026-05-02 08:30:00");
    assert_eq!(r.body["author"], json!(app.admin.id.to_string()));
    for (field, value) in [
        ("author", json!(999999)),
        ("author", json!("foo")),
        ("date", json!("foo")),
        ("date_utc", json!("not a date")),
    ] {
        let r = app.post("events", jan(json!({field: value}))).await;
        r.assert_error(400, "rest_invalid_param");
        assert!(r.body["data"]["params"].get(field).is_some(), "{field}");
    }
    // Only editors may write on someone else's behalf.
    app.post_as(
        "events",
        jan(json!({"author": app.admin.id})),
        &author.auth(),
    )
    .await
    .assert_error(403, "rest_forbidden");
});

both!(description_and_excerpt_are_sanitized, |app| async move {
    let r = app
        .post(
            "events",
            jan(json!({
                "title": "<b>Bold</b> title",
                "description": "<p>Hello <a href=\"javascript:alert(1)\" onclick=\"x()\">there</a></p><script>alert(1)</script>",
                "excerpt": "Just text"
            })),
        )
        .await;
    r.assert(201);
    let d = r.body["description"].as_str().unwrap();
    assert!(d.starts_with("<p>Hello "), "{d}");
    for bad in ["script", "alert", "javascript", "onclick"] {
        assert!(!d.contains(bad), "{bad} survived: {d}");
    }
    assert_eq!(r.body["excerpt"], "<p>Just text</p>");
    assert_eq!(r.body["title"], "Bold title");
});

both!(slugs_are_generated_and_made_unique, |app| async move {
    let a = app
        .post("events", jan(json!({"title": "Jazz Night"})))
        .await;
    let b = app
        .post("events", jan(json!({"title": "Jazz Night"})))
        .await;
    assert_eq!(a.body["slug"], "jazz-night");
    assert_eq!(b.body["slug"], "jazz-night-2");
    assert_eq!(b.body["url"], format!("{SITE}/event/jazz-night-2/"));
    // Slugs that merely start with the base are no obstacle; numbered ones are.
    for title in [
        "Jazz Night in the Park",
        "Jazz Night 3",
        "Jazz Night 2000 Gala",
    ] {
        app.post("events", jan(json!({ "title": title })))
            .await
            .assert(201);
    }
    let d = app
        .post("events", jan(json!({"title": "Jazz Night"})))
        .await;
    assert_eq!(d.body["slug"], "jazz-night-4");
    let park = app
        .post("events", jan(json!({"title": "Jazz Night in the Park"})))
        .await;
    assert_eq!(park.body["slug"], "jazz-night-in-the-park-2");
    let c = app
        .post(
            "events",
            jan(json!({"title": "X", "slug": "Mon Événement!"})),
        )
        .await;
    assert_eq!(c.body["slug"], "mon-evenement");
    let useless = app
        .post("events", jan(json!({"title": "Fallback", "slug": "!!!"})))
        .await;
    assert_eq!(
        useless.body["slug"], "fallback",
        "an unusable slug falls back to the title"
    );
    let draft = app
        .post(
            "events",
            jan(json!({"title": "Jazz Night", "status": "draft"})),
        )
        .await;
    assert_eq!(draft.body["slug"], "jazz-night-5", "drafts get a slug too");
    // Slugs are unique per post type: a venue may share one.
    let v = app.post("venues", json!({"venue": "Jazz Night"})).await;
    assert_eq!(v.body["slug"], "jazz-night");
});

both!(
    status_is_kept_for_publishers_and_validated,
    |app| async move {
        for status in ["draft", "pending", "private", "publish"] {
            let r = app.post("events", jan(json!({"status": status}))).await;
            r.assert(201);
            assert_eq!(r.body["status"], status);
        }
        // Scheduled for later it waits; scheduled for a moment already past (the
        // publication date defaults to now) it is published, as WordPress does.
        let later = json!({"status": "future", "date": "2030-01-01 00:00:00"});
        assert_eq!(
            app.post("events", jan(later)).await.body["status"],
            "future"
        );
        let due = json!({"status": "future"});
        assert_eq!(app.post("events", jan(due)).await.body["status"], "publish");
        assert_eq!(
            app.post("events", jan(json!({}))).await.body["status"],
            "publish"
        );
        let r = app
            .post("events", jan(json!({"status": "kinda_thinking_about_it"})))
            .await;
        r.assert_error(400, "rest_invalid_param");
        assert!(r.body["data"]["params"].get("status").is_some());
    }
);

both!(contributor_asking_publish_gets_pending, |app| async move {
    let c = app.user(Role::Contributor).await;
    for (asked, got) in [
        (json!("publish"), "pending"),
        (json!("future"), "pending"),
        (json!("draft"), "draft"),
        (Value::Null, "draft"),
    ] {
        let r = app
            .post_as("events", jan(json!({"status": asked})), &c.auth())
            .await;
        r.assert(201);
        assert_eq!(r.body["status"], got, "asked {asked}");
    }
});

/// Start and end of an event as shown and in UTC, and its zone and abbreviation.
fn when(e: &Value) -> [&str; 6] {
    [
        "start_date",
        "end_date",
        "utc_start_date",
        "utc_end_date",
        "timezone",
        "timezone_abbr",
    ]
    .map(|k| e[k].as_str().unwrap_or_default())
}

both!(
    new_york_summer_event_is_edt_four_hours_behind,
    |app| async move {
        let r = app
            .post(
                "events",
                with(
                    event("July", "2027-07-10 09:00:00", "2027-07-10 11:30:00"),
                    json!({"timezone": "America/New_York"}),
                ),
            )
            .await;
        r.assert(201);
        assert_eq!(
            when(&r.body),
            [
                "2027-07-10 09:00:00",
                "2027-07-10 11:30:00",
                "2027-07-10 13:00:00",
                "2027-07-10 15:30:00",
                "America/New_York",
                "EDT"
            ]
        );
        assert_eq!(r.body["utc_start_date_details"]["hour"], "13");
        assert_eq!(r.body["start_date_details"]["hour"], "09");
    }
);

both!(
    new_york_winter_event_is_est_five_hours_behind,
    |app| async move {
        let r = app
            .post(
                "events",
                with(
                    event("January", "2027-01-10 21:00:00", "2027-01-10 23:00:00"),
                    json!({"timezone": "America/New_York"}),
                ),
            )
            .await;
        assert_eq!(
            when(&r.body),
            [
                "2027-01-10 21:00:00",
                "2027-01-10 23:00:00",
                "2027-01-11 02:00:00",
                "2027-01-11 04:00:00",
                "America/New_York",
                "EST"
            ]
        );
        assert_eq!(r.body["utc_end_date_details"]["day"], "11");
    }
);

both!(tokyo_event_is_nine_hours_ahead, |app| async move {
    let r = app
        .post(
            "events",
            with(
                event("Tokyo", "2027-01-05 08:00:00", "2027-01-05 10:00:00"),
                json!({"timezone": "Asia/Tokyo"}),
            ),
        )
        .await;
    assert_eq!(
        when(&r.body),
        [
            "2027-01-05 08:00:00",
            "2027-01-05 10:00:00",
            "2027-01-04 23:00:00",
            "2027-01-05 01:00:00",
            "Asia/Tokyo",
            "JST"
        ]
    );
});

both!(manual_offsets_and_the_site_zone, |app| async move {
    let r = app.post("events", jan(json!({"timezone": "UTC+2"}))).await;
    assert_eq!(
        when(&r.body),
        [
            "2027-01-05 09:00:00",
            "2027-01-05 11:00:00",
            "2027-01-05 07:00:00",
            "2027-01-05 09:00:00",
            "UTC+2",
            "UTC+2"
        ]
    );
    let site = app.post("events", jan(json!({}))).await;
    assert_eq!(when(&site.body)[4..], ["UTC", "UTC"]);
    let offset = app
        .post(
            "events",
            event(
                "Offset",
                "2027-01-05T09:00:00+02:00",
                "2027-01-05T10:00:00+02:00",
            ),
        )
        .await;
    assert_eq!(offset.body["utc_start_date"], "2027-01-05 07:00:00");
    let r = app
        .post("events", jan(json!({"timezone": "Mars/Olympus"})))
        .await;
    r.assert_error(400, "rest_invalid_param");
    assert!(r.body["data"]["params"].get("timezone").is_some());
});

both!(
    all_day_widens_to_whole_days_in_the_event_zone,
    |app| async move {
        let r = app
            .post(
                "events",
                with(
                    event("Festival", "2027-03-01 10:00:00", "2027-03-03 12:00:00"),
                    json!({"all_day": true, "timezone": "Europe/Paris"}),
                ),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["all_day"], true);
        assert_eq!(
            when(&r.body),
            [
                "2027-03-01 00:00:00",
                "2027-03-03 23:59:59",
                "2027-02-28 23:00:00",
                "2027-03-03 22:59:59",
                "Europe/Paris",
                "CET"
            ]
        );
        let multi = app
            .post(
                "events",
                event("Conference", "2027-03-01 10:00:00", "2027-03-04 18:00:00"),
            )
            .await;
        assert_eq!(multi.body["all_day"], false);
        assert_eq!(multi.body["end_date"], "2027-03-04 18:00:00");
        assert_eq!(multi.body["end_date_details"]["day"], "04");
    }
);

both!(image_by_media_id_or_url, |app| async move {
    let r = app
        .post(
            "events",
            jan(json!({"image": "https://cdn.example.com/poster.png"})),
        )
        .await;
    r.assert(201);
    let img = &r.body["image"];
    assert_eq!(img["url"], "https://cdn.example.com/poster.png");
    assert_eq!(img["extension"], "png");
    let media = img["id"].as_i64().unwrap();
    let by_id = app.post("events", jan(json!({"image": media}))).await;
    assert_eq!(by_id.body["image"]["id"], media);
    let by_text = app
        .post("events", jan(json!({"image": media.to_string()})))
        .await;
    assert_eq!(
        by_text.body["image"]["url"],
        "https://cdn.example.com/poster.png"
    );
    let event_id = r.id();
    for bad in [
        json!("https://example.com/doc.pdf"),
        json!(999999),
        json!(event_id),
    ] {
        let r = app.post("events", jan(json!({"image": bad}))).await;
        r.assert_error(400, "rest_invalid_param");
        assert!(r.body["data"]["params"].get("image").is_some());
    }
});

both!(cost_string_and_list_derive_cost_details, |app| async move {
    let r = app.post("events", jan(json!({"cost": "20$"}))).await;
    assert_eq!(r.body["cost"], "20$");
    assert_eq!(
        r.body["cost_details"],
        json!({"currency_symbol":"$","currency_code":"","currency_position":"postfix","values":["20"]})
    );
    let r = app
        .post("events", jan(json!({"cost": ["0$", "20$", "30$"]})))
        .await;
    assert_eq!(r.body["cost"], "Free – 30$");
    assert_eq!(r.body["cost_details"]["values"], json!(["0", "20", "30"]));
    assert_eq!(r.body["cost_details"]["currency_position"], "postfix");
    let r = app.post("events", jan(json!({"cost": "$23"}))).await;
    assert_eq!(r.body["cost"], "$23");
    assert_eq!(r.body["cost_details"]["currency_position"], "prefix");
    let none = app.post("events", jan(json!({}))).await;
    assert_eq!(none.body["cost"], "");
    assert_eq!(none.body["cost_details"]["values"], json!([]));
});

both!(website_defaults_to_the_permalink, |app| async move {
    let r = app.post("events", jan(json!({"title": "Site"}))).await;
    assert_eq!(r.body["website"], format!("{SITE}/event/site/"));
    assert_eq!(r.body["website"], r.body["url"]);
    let r = app
        .post("events", jan(json!({"website": "https://example.com/e1"})))
        .await;
    assert_eq!(r.body["website"], "https://example.com/e1");
    let r = app
        .post("events", jan(json!({"website": "javascript:alert(1)"})))
        .await;
    r.assert_error(400, "rest_invalid_param");
    assert!(r.body["data"]["params"].get("website").is_some());
});

const FLAGS: [&str; 5] = [
    "show_map",
    "show_map_link",
    "hide_from_listings",
    "sticky",
    "featured",
];

both!(
    presentation_flags_round_trip_and_default_to_false,
    |app| async move {
        let off = app.post("events", jan(json!({}))).await;
        for f in FLAGS {
            assert_eq!(off.body[f], false, "{f}");
        }
        let on = app
            .post(
                "events",
                jan(
                    json!({"show_map": true, "show_map_link": "true", "hide_from_listings": 1,
                       "sticky": "yes", "featured": true}),
                ),
            )
            .await;
        for f in FLAGS {
            assert_eq!(on.body[f], true, "{f}");
        }
        let got = app.get(&format!("events/{}", on.id())).await;
        for f in FLAGS {
            assert_eq!(got.body[f], true, "{f}");
        }
        let r = app.post("events", jan(json!({"featured": "maybe"}))).await;
        r.assert_error(400, "rest_invalid_param");
    }
);

both!(
    terms_by_id_slug_or_name_and_new_names_are_created,
    |app| async move {
        let music = app
            .post("categories", json!({"name": "Live Music"}))
            .await
            .id();
        let free = app.post("tags", json!({"name": "free"})).await.id();
        for key in [
            json!(music),
            json!(music.to_string()),
            json!("live-music"),
            json!("Live Music"),
        ] {
            let r = app.post("events", jan(json!({"categories": [key]}))).await;
            r.assert(201);
            assert_eq!(r.body["categories"][0]["id"], music, "{key}");
        }
        let r = app
            .post("events", jan(json!({"tags": format!("{free},Brand New")})))
            .await;
        r.assert(201);
        let tags = r.body["tags"].as_array().unwrap();
        assert_eq!(tags.len(), 2, "{}", r.text);
        let created = tags.iter().find(|t| t["name"] == "Brand New").unwrap();
        assert_eq!(created["slug"], "brand-new");
        assert_eq!(created["count"], 1);
        assert!(tags.iter().any(|t| t["id"] == free));
        // The new tag is a real term, found by its name next time.
        let again = app
            .post("events", jan(json!({"tags": ["Brand New"]})))
            .await;
        assert_eq!(again.body["tags"][0]["id"], created["id"]);
        for field in ["categories", "tags"] {
            let r = app.post("events", jan(json!({field: [999999]}))).await;
            r.assert_error(400, "rest_invalid_param");
            assert!(r.body["data"]["params"].get(field).is_some());
        }
        // A tag's ID does not name a category.
        let r = app.post("events", jan(json!({"categories": [free]}))).await;
        r.assert_error(400, "rest_invalid_param");
    }
);

both!(venue_by_id_object_or_inline_fields, |app| async move {
    let hall = app
        .post("venues", json!({"venue": "Hall", "city": "Paris"}))
        .await
        .id();
    let org = app
        .post("organizers", json!({"organizer": "Org"}))
        .await
        .id();
    for v in [
        json!(hall),
        json!(hall.to_string()),
        json!({"id": hall}),
        json!([hall]),
    ] {
        let r = app.post("events", jan(json!({"venue": v}))).await;
        r.assert(201);
        assert_eq!(r.body["venue"]["id"], hall, "{v}");
        assert_eq!(r.body["venue"]["city"], "Paris");
    }
    let inline = app
        .post(
            "events",
            jan(json!({"venue": {"venue": "New Hall", "city": "Lyon", "zip": "69001"}})),
        )
        .await;
    inline.assert(201);
    let new_hall = inline.body["venue"]["id"].as_i64().unwrap();
    assert_eq!(inline.body["venue"]["venue"], "New Hall");
    assert_eq!(inline.body["venue"]["zip"], "69001");
    app.get(&format!("venues/{new_hall}")).await.assert(200);
    let dedup = app
        .post(
            "events",
            jan(json!({"venue": {"venue": "new hall", "city": "LYON"}})),
        )
        .await;
    assert_eq!(
        dedup.body["venue"]["id"], new_hall,
        "the same venue is reused"
    );
    let other_city = app
        .post(
            "events",
            jan(json!({"venue": {"venue": "New Hall", "city": "Nice"}})),
        )
        .await;
    assert_ne!(other_city.body["venue"]["id"], new_hall);
    for bad in [
        json!({"city": "No name"}),
        json!({"venue": "X", "website": "javascript:alert(1)"}),
        json!([hall, new_hall]),
        json!(org),
        json!(999999),
        json!({"id": org}),
    ] {
        let r = app.post("events", jan(json!({"venue": bad}))).await;
        r.assert_error(400, "rest_invalid_param");
        assert!(
            r.body["data"]["params"].get("venue").is_some(),
            "{bad}: {}",
            r.text
        );
    }
    for none in [json!(0), json!([]), json!("")] {
        let r = app.post("events", jan(json!({"venue": none}))).await;
        assert_eq!(r.body["venue"], json!([]), "{none}");
    }
});

both!(
    organizers_by_ids_csv_or_inline_keep_their_order,
    |app| async move {
        let mut ids = Vec::new();
        for name in ["A", "B", "C"] {
            ids.push(
                app.post("organizers", json!({"organizer": name}))
                    .await
                    .id(),
            );
        }
        let names = |r: &Resp| -> Vec<String> {
            r.body["organizer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["organizer"].as_str().unwrap().to_string())
                .collect()
        };
        let r = app
            .post("events", jan(json!({"organizer": [ids[2], ids[0]]})))
            .await;
        assert_eq!(names(&r), ["C", "A"]);
        let r = app
            .post(
                "events",
                jan(json!({"organizer": format!("{},{}", ids[1], ids[2])})),
            )
            .await;
        assert_eq!(names(&r), ["B", "C"]);
        let r = app.post("events", jan(json!({"organizer": ids[1]}))).await;
        assert_eq!(names(&r), ["B"]);
        let r = app
        .post(
            "events",
            jan(json!({"organizer": [{"organizer": "New Org", "email": "n@x.org"}, {"id": ids[0]}]})),
        )
        .await;
        r.assert(201);
        assert_eq!(names(&r), ["New Org", "A"]);
        assert_eq!(r.body["organizer"][0]["email"], "n@x.org");
        let r = app.post("events", jan(json!({"organizer": []}))).await;
        assert_eq!(r.body["organizer"], json!([]));
        for bad in [json!([{"email": "x@y.org"}]), json!([999999]), json!("abc")] {
            app.post("events", jan(json!({"organizer": bad})))
                .await
                .assert_error(400, "rest_invalid_param");
        }
    }
);

both!(tickets_and_post_parent_round_trip, |app| async move {
    let tickets = json!([
        {"name": "General", "url": "https://tickets.example.com/g", "price": "20", "currency": "EUR"},
        {"name": "VIP", "url": "https://tickets.example.com/v", "price": "80", "currency": "EUR"}
    ]);
    let parent = app.post("events", jan(json!({"tickets": tickets}))).await;
    parent.assert(201);
    assert_eq!(parent.body["tickets"], tickets);
    let parent_id = parent.id();
    let child = app
        .post("events", jan(json!({"post_parent": parent_id})))
        .await;
    child.assert(201);
    assert_eq!(child.body["post_parent"], parent_id);
    let ld = app.get(&format!("events/{parent_id}")).await.body["json_ld"].clone();
    assert_eq!(ld["offers"][1]["price"], "80");
    let venue = app.post("venues", json!({"venue": "V"})).await.id();
    for bad in [json!(venue), json!(999999)] {
        app.post("events", jan(json!({"post_parent": bad})))
            .await
            .assert_error(400, "rest_invalid_param");
    }
    app.post(
        "events",
        jan(json!({"tickets": [{"name": "x", "url": "javascript:alert(1)"}]})),
    )
    .await
    .assert_error(400, "rest_invalid_param");
    app.post("events", jan(json!({"tickets": "nope"})))
        .await
        .assert_error(400, "rest_invalid_param");
});
