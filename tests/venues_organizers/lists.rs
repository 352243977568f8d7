//! The venue and organizer lists: pages, totals, parameters, search and what each caller sees.

use super::*;

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
