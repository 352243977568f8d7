//! Venues and organizers written, read, de-duplicated, trashed and restored.

use super::*;

both!(
    venue_create_returns_the_reference_representation,
    |app| async move {
        let r = app.post("venues", venue_body()).await;
        r.assert(201);
        let v = &r.body;
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
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
        let id = r.id();
        assert_eq!(v["author"], json!(app.admin.id.to_string()));
        assert_eq!(v["status"], "publish");
        assert_eq!(v["venue"], "Venue 1");
        assert_eq!(v["slug"], "venue-1");
        assert_eq!(v["url"], format!("{SITE}/venue/venue-1/"));
        assert_eq!(v["show_map"], true);
        assert_eq!(v["global_id"], format!("calendar.test?id={id}"));
        assert_eq!(
            v["global_id_lineage"],
            json!([format!("calendar.test?id={id}")])
        );
        let date = v["date"].as_str().unwrap();
        assert_eq!(date.len(), 19, "YYYY-MM-DD HH:MM:SS");
    }
);

both!(venue_single_get_adds_json_ld, |app| async move {
    let id = app.post("venues", venue_body()).await.id();
    let r = app.get(&format!("venues/{id}")).await;
    r.assert(200);
    assert_eq!(r.body["json_ld"]["@type"], "Place");
    assert_eq!(
        r.body["json_ld"]["address"]["addressLocality"],
        "Springfield"
    );
    let by_slug = app.get("venues/by-slug/venue-1").await;
    by_slug.assert(200);
    assert_eq!(by_slug.body, r.body);
});

both!(organizer_crud_by_id_and_slug, |app| async move {
    let r = app
        .post("organizers", json!({"organizer": "Organizer 1", "phone": "555-0200", "website": "https://example.com/o0", "email": "org1@example.com"}))
        .await;
    r.assert(201);
    let id = r.id();
    assert_eq!(r.body["organizer"], "Organizer 1");
    assert_eq!(r.body["email"], "org1@example.com");
    assert!(
        r.body.get("show_map").is_none(),
        "organizers have no map flags"
    );
    let got = app.get("organizers/by-slug/organizer-1").await;
    got.assert(200);
    assert_eq!(got.body["json_ld"]["@type"], "Person");
    let up = app
        .call(
            Method::PATCH,
            "organizers/by-slug/organizer-1",
            Some(json!({"phone": ""})),
            &app.admin.auth(),
        )
        .await;
    up.assert(200);
    assert!(
        up.body.get("phone").is_none(),
        "cleared fields are omitted: {}",
        up.text
    );
    assert_eq!(
        up.body["email"], "org1@example.com",
        "omitted fields are kept"
    );
    let del = app.delete(&format!("organizers/{id}")).await;
    del.assert(200);
    assert_eq!(del.body["status"], "trash");
    app.delete(&format!("organizers/{id}"))
        .await
        .assert_error(410, "organizer-is-in-trash");
});

both!(
    venue_update_clears_empty_fields_and_keeps_omitted_ones,
    |app| async move {
        let id = app.post("venues", venue_body()).await.id();
        for method in [Method::POST, Method::PUT, Method::PATCH] {
            let r = app
                .call(
                    method,
                    &format!("venues/{id}"),
                    Some(json!({"city": "", "zip": "99999"})),
                    &app.admin.auth(),
                )
                .await;
            r.assert(200);
            assert!(r.body.get("city").is_none(), "{}", r.text);
            assert_eq!(r.body["zip"], "99999");
            assert_eq!(r.body["address"], "1 Main St");
        }
        let r = app
            .post(&format!("venues/{id}"), json!({"venue": ""}))
            .await;
        r.assert_error(400, "rest_invalid_param");
        assert_eq!(r.body["data"]["params"]["venue"], "Invalid parameter.");
    }
);

both!(venue_dedup_returns_the_existing_venue, |app| async move {
    let first = app.post("venues", venue_body()).await.id();
    let again = app
        .post("venues", json!({"venue": "venue 1", "city": "SPRINGFIELD"}))
        .await;
    again.assert(201);
    assert_eq!(
        again.id(),
        first,
        "same name and city (any case) is the same venue"
    );
    let other_city = app
        .post("venues", json!({"venue": "Venue 1", "city": "Shelbyville"}))
        .await;
    assert_ne!(
        other_city.id(),
        first,
        "a same-named venue in another city is new"
    );
    let list = app.get_as("venues", &app.admin.auth()).await;
    assert_eq!(list.body["total"], 2);
    let org1 = app
        .post(
            "organizers",
            json!({"organizer": "Org", "email": "a@b.org"}),
        )
        .await
        .id();
    let org2 = app
        .post("organizers", json!({"organizer": "ORG"}))
        .await
        .id();
    assert_eq!(org1, org2);
});

both!(slugs_are_unique_per_type, |app| async move {
    let a = app
        .post("venues", json!({"venue": "Hall", "city": "A"}))
        .await;
    let b = app
        .post("venues", json!({"venue": "Hall", "city": "B"}))
        .await;
    assert_eq!(a.body["slug"], "hall");
    assert_eq!(b.body["slug"], "hall-2");
    let o = app.post("organizers", json!({"organizer": "Hall"})).await;
    assert_eq!(
        o.body["slug"], "hall",
        "slugs are unique per post type only"
    );
    let custom = app
        .post("venues", json!({"venue": "X", "slug": "Mon Lieu!"}))
        .await;
    assert_eq!(custom.body["slug"], "mon-lieu");
});

both!(
    delete_trashes_then_410_then_restore_and_force,
    |app| async move {
        let id = app.post("venues", venue_body()).await.id();
        let trashed = app.delete(&format!("venues/{id}")).await;
        trashed.assert(200);
        assert_eq!(trashed.body["status"], "trash");
        app.delete(&format!("venues/{id}"))
            .await
            .assert_error(410, "venue-is-in-trash");
        // The trashed venue is gone from public lists and its slug is free again.
        assert_eq!(app.get("venues").await.body["total"], 0);
        app.get("venues/by-slug/venue-1")
            .await
            .assert_error(400, "rest_invalid_param");
        let restored = app
            .post(&format!("venues/{id}"), json!({"status": "publish"}))
            .await;
        restored.assert(200);
        assert_eq!(restored.body["status"], "publish");
        assert_eq!(restored.body["slug"], "venue-1");
        let forced = app.delete(&format!("venues/{id}?force=true")).await;
        forced.assert(200);
        app.get(&format!("venues/{id}"))
            .await
            .assert_error(400, "rest_invalid_param");
    }
);

both!(
    posts_with_the_same_slug_can_all_be_trashed_and_restored,
    |app| async move {
        for (collection, name_field) in [("venues", "venue"), ("organizers", "organizer")] {
            let mut ids = Vec::new();
            for n in 1..=3 {
                // Each is created after the last went to the trash, so each gets "acme".
                let body = json!({ name_field: "Acme", "phone": format!("555-010{n}") });
                let created = app.post(collection, body).await;
                created.assert(201);
                assert_eq!(created.body["slug"], "acme");
                let id = created.id();
                let trashed = app.delete(&format!("{collection}/{id}")).await;
                trashed.assert(200);
                assert_eq!(trashed.body["status"], "trash");
                assert!(
                    trashed.body["url"]
                        .as_str()
                        .unwrap()
                        .contains("?post_type="),
                    "a trashed post has the plain permalink: {}",
                    trashed.body["url"]
                );
                ids.push(id);
            }
            let mut slugs = Vec::new();
            for id in &ids {
                let restored = app
                    .post(&format!("{collection}/{id}"), json!({"status": "publish"}))
                    .await;
                restored.assert(200);
                slugs.push(restored.body["slug"].as_str().unwrap().to_string());
            }
            assert_eq!(slugs, ["acme", "acme-2", "acme-3"], "{collection}");
        }
    }
);

both!(
    unknown_and_cross_type_ids_are_invalid_params,
    |app| async move {
        let venue = app.post("venues", venue_body()).await.id();
        let r = app.get("venues/999999").await;
        r.assert_error(400, "rest_invalid_param");
        assert_eq!(
            r.error_body(),
            json!({"code":"rest_invalid_param","message":"Invalid parameter(s): id","data":{"status":400,"params":{"id":"Invalid parameter."},"details":[]}})
        );
        app.get(&format!("organizers/{venue}"))
            .await
            .assert_error(400, "rest_invalid_param");
        // 400 wins over 401: an anonymous delete of nothing is a bad parameter first.
        app.delete_as("venues/999999", &Auth::None)
            .await
            .assert_error(400, "rest_invalid_param");
        app.get("venues/by-slug/nope")
            .await
            .assert_error(400, "rest_invalid_param");
        app.get("venues/abc")
            .await
            .assert_error(404, "rest_no_route");
    }
);
