//! Venues and organizers: create, read, update, delete, lists, de-duplication, trash.

mod common;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

fn venue_body() -> Value {
    json!({
        "venue": "Venue 1", "address": "1 Main St", "city": "Springfield",
        "country": "United States", "state": "IL", "zip": "62701", "phone": "555-0100",
        "website": "https://example.com/v0", "stateprovince": "IL"
    })
}

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

both!(
    lists_page_and_report_totals_in_body_and_headers,
    |app| async move {
        for i in 0..12 {
            app.post("organizers", json!({"organizer": format!("Org {i}")}))
                .await
                .assert(201);
        }
        // Newest first across pages: later writes have later dates or, in the same
        // second, higher IDs.
        let mut listed = Vec::new();
        for page in 1..=3 {
            let r = app.get(&format!("organizers?per_page=5&page={page}")).await;
            r.assert(200);
            listed.extend(
                r.body["organizers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o["id"].as_i64().unwrap()),
            );
        }
        let mut newest_first = listed.clone();
        newest_first.sort_unstable_by(|a, b| b.cmp(a));
        newest_first.dedup();
        assert_eq!(listed, newest_first);
        assert_eq!(listed.len(), 12);
        let r = app.get("organizers?per_page=5&page=2").await;
        r.assert(200);
        assert_eq!(r.body["organizers"].as_array().unwrap().len(), 5);
        assert_eq!(r.body["total"], 12);
        assert_eq!(r.body["total_pages"], 3);
        assert_eq!(r.header("x-tec-total"), Some("12"));
        assert_eq!(r.header("x-tec-totalpages"), Some("3"));
        assert_eq!(r.header("x-wp-total"), Some("12"));
        let next = r.body["next_rest_url"].as_str().unwrap();
        assert!(next.ends_with("page=3"), "{next}");
        assert!(
            r.body["previous_rest_url"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{SITE}{API}/organizers/"))
        );
        assert!(r.header("link").unwrap().contains("rel=\"next\""));
        let keys: Vec<&str> = r
            .body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "organizers",
                "rest_url",
                "next_rest_url",
                "previous_rest_url",
                "total",
                "total_pages"
            ]
        );
        // Newest first.
        let first = &r.body["organizers"][0]["organizer"];
        assert_eq!(first, "Org 6");
        app.get("organizers?page=4&per_page=5")
            .await
            .assert_error(404, "organizer-archive-page-not-found");
        app.get("venues?page=2")
            .await
            .assert_error(404, "venue-archive-page-not-found");
        let empty = app.get("venues").await;
        empty.assert(200);
        assert_eq!(empty.body["venues"], json!([]));
        assert_eq!(empty.body["total_pages"], 0);
        // per_page is clamped to the maximum, not rejected.
        let clamped = app.get("organizers?per_page=500").await;
        clamped.assert(200);
        assert_eq!(clamped.body["organizers"].as_array().unwrap().len(), 12);
        assert!(
            clamped.body["rest_url"]
                .as_str()
                .unwrap()
                .contains("per_page=50")
        );
    }
);

both!(list_parameters_are_validated, |app| async move {
    for q in [
        "page=0",
        "page=-1",
        "page=foo",
        "per_page=abc",
        "per_page=0",
        "search=",
        "event=abc",
        "status=bogus",
        "has_events=maybe",
    ] {
        let r = app.get(&format!("venues?{q}")).await;
        r.assert_error(400, "rest_invalid_param");
        let name = q.split('=').next().unwrap();
        assert!(
            r.body["data"]["params"].get(name).is_some(),
            "{q}: {}",
            r.text
        );
    }
    let venue = app.post("venues", venue_body()).await.id();
    app.get(&format!("venues?event={venue}"))
        .await
        .assert_error(400, "rest_invalid_param");
    // Anonymous callers may only ask for published posts.
    app.get("venues?status=draft")
        .await
        .assert_error(400, "rest_invalid_param");
    app.get("venues?status=publish").await.assert(200);
});

both!(
    venue_search_matches_title_and_address_fields,
    |app| async move {
        app.post("venues", json!({"venue": "The Globe", "city": "London"}))
            .await
            .assert(201);
        app.post(
            "venues",
            json!({"venue": "Hall", "province": "Greater London"}),
        )
        .await
        .assert(201);
        app.post("venues", json!({"venue": "Other", "city": "Paris"}))
            .await
            .assert(201);
        let r = app.get("venues?search=london").await;
        assert_eq!(r.body["total"], 2, "{}", r.text);
        let r = app.get("venues?search=globe").await;
        assert_eq!(r.body["total"], 1);
        let none = app.get("venues?search=zzz").await;
        none.assert(200);
        assert_eq!(none.body["total"], 0, "a search without match reports 0");
        app.post(
            "organizers",
            json!({"organizer": "A", "phone": "111111111"}),
        )
        .await;
        app.post(
            "organizers",
            json!({"organizer": "B", "phone": "111112222"}),
        )
        .await;
        app.post(
            "organizers",
            json!({"organizer": "C", "email": "x@common.com"}),
        )
        .await;
        assert_eq!(app.get("organizers?search=1111").await.body["total"], 2);
        assert_eq!(
            app.get("organizers?search=%40common.com").await.body["total"],
            1
        );
        // LIKE wildcards in the search are literal.
        assert_eq!(app.get("organizers?search=%25").await.body["total"], 0);
        // Fields side by side in the search index's text (PostgreSQL's joins them with
        // spaces) are not one field: a search across two of them finds nothing.
        app.post(
            "organizers",
            json!({"organizer": "D", "phone": "555", "email": "d@example.org"}),
        )
        .await
        .assert(201);
        assert_eq!(
            app.get("organizers?search=555%20d%40").await.body["total"],
            0
        );
        assert_eq!(app.get("organizers?search=5%20d").await.body["total"], 0);
        assert_eq!(
            app.get("organizers?search=d%40example").await.body["total"],
            1
        );
        // A word of a venue and of an organizer: each list finds its own.
        app.post("organizers", json!({"organizer": "Globe Players"}))
            .await
            .assert(201);
        let r = app.get("venues?search=globe").await;
        assert_eq!(r.body["total"], 1, "{}", r.text);
        let r = app.get("organizers?search=globe").await;
        assert_eq!(r.body["total"], 1, "{}", r.text);
        assert_eq!(r.body["organizers"][0]["organizer"], "Globe Players");
    }
);

both!(
    short_words_match_one_field_folded_as_longer_ones_do,
    |app| async move {
        let venue = app
            .post(
                "venues",
                json!({"venue": "Fête Ünïcødé", "city": "ŒUVRE", "zip": "75001"}),
            )
            .await;
        venue.assert(201);
        app.post("venues", json!({"venue": "Plain"}))
            .await
            .assert(201);
        // One and two characters, which no trigram index serves, in any case, in
        // any field; never across two fields.
        for word in ["ü", "Ü", "œ", "ŒU", "é", "01", "e%20"] {
            let r = app.get(&format!("venues?search={word}")).await;
            r.assert(200);
            assert_eq!(r.body["total"], 1, "{word}: {}", r.text);
            assert_eq!(r.body["venues"][0]["id"], venue.id(), "{word}");
        }
        for word in ["é7", "%C3%A9%207", "%25", "_"] {
            let r = app.get(&format!("venues?search={word}")).await;
            assert_eq!(r.body["total"], 0, "{word}: {}", r.text);
        }
        let r = app.get("venues?search=a").await;
        assert_eq!(r.body["total"], 1, "Plain: {}", r.text);
    }
);

both!(
    drafts_are_visible_to_their_author_and_editors_only,
    |app| async move {
        let contributor = app.user(Role::Contributor).await;
        let other = app.user(Role::Contributor).await;
        let editor = app.user(Role::Editor).await;
        let r = app
            .post_as(
                "venues",
                json!({"venue": "Draft hall", "status": "publish"}),
                &contributor.auth(),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["status"], "pending", "contributors cannot publish");
        let id = r.id();
        app.get(&format!("venues/{id}"))
            .await
            .assert_error(403, "venue-not-accessible");
        app.get_as(&format!("venues/{id}"), &other.auth())
            .await
            .assert_error(403, "venue-not-accessible");
        app.get_as(&format!("venues/{id}"), &contributor.auth())
            .await
            .assert(200);
        app.get_as(&format!("venues/{id}"), &editor.auth())
            .await
            .assert(200);
        assert_eq!(app.get("venues").await.body["total"], 0);
        assert_eq!(app.get_as("venues", &other.auth()).await.body["total"], 0);
        assert_eq!(
            app.get_as("venues", &contributor.auth()).await.body["total"],
            1
        );
        assert_eq!(
            app.get_as("venues?status=pending", &editor.auth())
                .await
                .body["total"],
            1
        );
    }
);

both!(
    password_protected_venues_are_blanked_without_the_password,
    |app| async move {
        let id = app
        .post("venues", json!({"venue": "Secret", "address": "1 Hidden Rd", "state": "IL", "password": "open sesame"}))
        .await
        .id();
        let r = app.get(&format!("venues/{id}")).await;
        r.assert(200);
        assert_eq!(
            r.body["venue"],
            json!([]),
            "reference quirk: the name becomes []"
        );
        assert_eq!(r.body["address"], "");
        assert_eq!(
            r.body["state"], "IL",
            "state is not blanked in the reference"
        );
        assert_eq!(r.body["show_map"], Value::Null);
        assert!(
            r.body.get("json_ld").is_none(),
            "JSON-LD would leak the address"
        );
        let full = app
            .get(&format!("venues/{id}?password=open%20sesame"))
            .await;
        assert_eq!(full.body["address"], "1 Hidden Rd");
        let list = app.get("venues").await;
        assert_eq!(list.body["venues"][0]["address"], "");
    }
);

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
