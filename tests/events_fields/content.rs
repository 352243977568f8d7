//! An event's own fields: author, dates of publication, text, slug, status, image, cost, website, flags, tickets.

use super::*;

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
