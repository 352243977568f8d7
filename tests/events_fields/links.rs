//! An event's terms, venue and organizers, by ID, slug, name or inline.

use super::*;

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
