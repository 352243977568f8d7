//! The fields a venue or organizer is written with: images, validation, forms, descriptions.

use super::*;

both!(
    images_by_url_create_media_and_are_reused,
    |app| async move {
        let r = app
            .post(
                "venues",
                json!({"venue": "Pic", "image": "https://cdn.example.com/a/hall.jpg"}),
            )
            .await;
        r.assert(201);
        let img = &r.body["image"];
        assert_eq!(img["url"], "https://cdn.example.com/a/hall.jpg");
        assert_eq!(img["extension"], "jpg");
        let media = img["id"].as_i64().unwrap();
        let again = app
            .post("organizers", json!({"organizer": "O", "image": media}))
            .await;
        assert_eq!(again.body["image"]["id"], media);
        let by_url = app
            .post(
                "organizers",
                json!({"organizer": "P", "image": "https://cdn.example.com/a/hall.jpg"}),
            )
            .await;
        assert_eq!(
            by_url.body["image"]["id"], media,
            "an existing URL reuses its media record"
        );
        for bad in [
            json!("https://example.com/doc.pdf"),
            json!("javascript:alert(1)"),
            json!(999999),
            json!({"x": 1}),
        ] {
            app.post("venues", json!({"venue": "Bad", "image": bad}))
                .await
                .assert_error(400, "rest_invalid_param");
        }
        let venue = r.id();
        app.post("venues", json!({"venue": "Not media", "image": venue}))
            .await
            .assert_error(400, "rest_invalid_param");
        let cleared = app
            .post(&format!("venues/{venue}"), json!({"image": ""}))
            .await;
        assert!(cleared.body.get("image").is_none());
    }
);

both!(write_fields_are_validated, |app| async move {
    for (field, value) in [
        ("author", json!(999999)),
        ("author", json!("foo")),
        ("date", json!("foo")),
        ("date_utc", json!("not a date")),
        ("status", json!("kinda_thinking_about_it")),
        ("website", json!("javascript:alert(1)")),
        ("venue", json!({"nested": true})),
    ] {
        let r = app
            .post("venues", json!({"venue": "V", field: value}))
            .await;
        r.assert_error(400, "rest_invalid_param");
        assert!(
            r.body["data"]["params"].get(field).is_some(),
            "{field}: {}",
            r.text
        );
    }
    app.post(
        "organizers",
        json!({"organizer": "O", "email": "not-an-email"}),
    )
    .await
    .assert_error(400, "rest_invalid_param");
    let r = app.post("venues", json!({"city": "No name"})).await;
    r.assert_error(400, "rest_missing_callback_param");
    assert_eq!(r.body["data"]["params"], json!(["venue"]));
    let dated = app
        .post(
            "venues",
            json!({"venue": "Dated", "date": "2020-05-01 10:00:00"}),
        )
        .await;
    assert_eq!(dated.body["date"], "2020-05-01 10:00:00");
    assert_eq!(dated.body["date_utc"], "2020-05-01 10:00:00");
    let long = "x".repeat(70 * 1024);
    app.post("venues", json!({"venue": long}))
        .await
        .assert_error(400, "rest_invalid_param");
});

both!(
    form_bodies_and_query_parameters_work_like_json,
    |app| async move {
        let r = app
            .call_raw(
                Method::POST,
                "venues",
                "application/x-www-form-urlencoded",
                b"venue=Form+Hall&city=Lyon".to_vec(),
                &app.admin.auth(),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["city"], "Lyon");
        let q = app
            .call(
                Method::POST,
                "organizers?organizer=From%20query",
                None,
                &app.admin.auth(),
            )
            .await;
        q.assert(201);
        assert_eq!(q.body["organizer"], "From query");
        let body_wins = app
            .post("organizers?organizer=Query", json!({"organizer": "Body"}))
            .await;
        assert_eq!(body_wins.body["organizer"], "Body");
    }
);

both!(
    descriptions_are_sanitized_and_wrapped_like_event_descriptions,
    |app| async move {
        for (path, key) in [("venues", "venue"), ("organizers", "organizer")] {
            let r = app
                .post(path, json!({key: "Hall", "description": "A hall"}))
                .await;
            r.assert(201);
            assert_eq!(r.body["description"], "<p>A hall</p>", "{path}");
            let r = app
                .post(
                    path,
                    json!({key: "Other", "description": "<script>x()</script><b>Bold</b>\n\nSecond"}),
                )
                .await;
            assert_eq!(
                r.body["description"], "<p><b>Bold</b></p>\n<p>Second</p>",
                "{path}"
            );
            let id = r.id();
            let r = app
                .patch(
                    &format!("{path}/{id}"),
                    json!({"description": "<h2>Title</h2>"}),
                )
                .await;
            assert_eq!(
                r.body["description"], "<h2>Title</h2>",
                "block markup is kept as is"
            );
        }
    }
);
