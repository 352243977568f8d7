//! What a single event shows each caller: drafts, passwords, hidden events, embedded posts.

use super::*;

both!(
    drafts_are_readable_by_their_author_and_editors_only,
    |app| async move {
        let author = app.user(Role::Contributor).await;
        let other = app.user(Role::Contributor).await;
        let editor = app.user(Role::Editor).await;
        let r = app
            .post_as("events", feb("Secret plan", json!({})), &author.auth())
            .await;
        r.assert(201);
        assert_eq!(r.body["status"], "draft");
        let path = format!("events/{}", r.id());
        app.get(&path)
            .await
            .assert_error(403, "event-not-accessible");
        app.get_as(&path, &other.auth())
            .await
            .assert_error(403, "event-not-accessible");
        app.get_as(&path, &author.auth()).await.assert(200);
        app.get_as(&path, &editor.auth()).await.assert(200);
        // Lists: never for anonymous callers or other contributors.
        let list = format!("events?{FROM_2027}");
        assert!(titles(&app.get(&list).await).is_empty());
        assert!(titles(&app.get_as(&list, &other.auth()).await).is_empty());
        assert_eq!(
            titles(&app.get_as(&list, &author.auth()).await),
            ["Secret plan"]
        );
        assert_eq!(
            titles(&app.get_as(&list, &editor.auth()).await),
            ["Secret plan"]
        );
    }
);

both!(
    password_protected_events_need_the_password,
    |app| async move {
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let organizer = app
            .post("organizers", json!({"organizer": "Org"}))
            .await
            .id();
        let id = app
            .event(feb(
                "Members only",
                json!({"password": "s3cret", "description": "Inside info", "excerpt": "Ex",
                   "cost": "10$", "all_day": true, "venue": venue, "organizer": [organizer],
                   "categories": ["Private"], "tags": ["vip"], "featured": true,
                   "website": "https://example.com/m", "image": "https://cdn.example.com/m.png"}),
            ))
            .await;
        let path = format!("events/{id}");
        for q in ["", "?password=wrong"] {
            let r = app.get(&format!("{path}{q}")).await;
            assert_eq!(
                r.error_body(),
                json!({"code":"event-password-protected","message":"The requested event is not accessible without a password","data":{"status":403}})
            );
        }
        let r = app.get(&format!("{path}?password=s3cret")).await;
        r.assert(200);
        assert_eq!(r.body["description"], "<p>Inside info</p>");
        // In lists the event is there, blanked.
        let list = app.get(&format!("events?{FROM_2027}")).await;
        let e = &list.body["events"][0];
        assert_eq!(e["title"], "Members only", "the title is kept");
        for (field, blank) in [
            ("description", json!("")),
            ("excerpt", json!("")),
            ("image", json!(false)),
            ("all_day", Value::Null),
            ("cost", json!("")),
            ("website", json!("")),
            ("show_map", Value::Null),
            ("show_map_link", Value::Null),
            ("hide_from_listings", Value::Null),
            ("sticky", Value::Null),
            ("featured", Value::Null),
            ("categories", json!([])),
            ("tags", json!([])),
            ("venue", json!([])),
            ("organizer", json!([])),
            ("custom_fields", json!([])),
        ] {
            assert_eq!(e[field], blank, "{field}");
        }
        assert_eq!(
            e["cost_details"],
            json!({"currency_symbol":"","currency_code":"","currency_position":"","values":[]})
        );
        assert_eq!(e["start_date"], "2027-02-01 00:00:00", "dates are kept");
        let full = app
            .get(&format!("events?{FROM_2027}&password=s3cret"))
            .await;
        let e = &full.body["events"][0];
        assert_eq!(e["cost"], "10$");
        assert_eq!(e["venue"]["id"], venue);
        assert_eq!(e["all_day"], true);
        // An empty password removes the protection.
        app.patch(&path, json!({"password": ""})).await.assert(200);
        app.get(&path).await.assert(200);
    }
);

both!(hidden_events_are_left_out_of_lists_only, |app| async move {
    let editor = app.user(Role::Editor).await;
    let hidden = app
        .event(feb("Hidden", json!({"hide_from_listings": true})))
        .await;
    app.event(feb("Shown", json!({}))).await;
    let list = format!("events?{FROM_2027}");
    assert_eq!(titles(&app.get(&list).await), ["Shown"]);
    assert_eq!(titles(&app.get_as(&list, &editor.auth()).await), ["Shown"]);
    assert!(titles(&app.get(&format!("events?include={hidden}")).await).is_empty());
    let shown_only = app.get(&format!("events?include={hidden}")).await;
    assert_eq!(shown_only.body["total"], 0, "{}", shown_only.body);
    let r = app.get(&format!("events/{hidden}")).await;
    r.assert(200);
    assert_eq!(r.body["hide_from_listings"], true);
});

both!(
    embedded_linked_posts_follow_their_own_visibility,
    |app| async move {
        let draft_venue = app
            .post("venues", json!({"venue": "Unannounced", "status": "draft"}))
            .await
            .id();
        let draft_org = app
            .post(
                "organizers",
                json!({"organizer": "Ghost", "status": "draft"}),
            )
            .await
            .id();
        let public_org = app
            .post("organizers", json!({"organizer": "Public"}))
            .await
            .id();
        let id = app
            .event(feb(
                "Teaser",
                json!({"venue": draft_venue, "organizer": [draft_org, public_org]}),
            ))
            .await;
        let r = app.get(&format!("events/{id}")).await;
        r.assert(200);
        assert_eq!(r.body["venue"], json!([]));
        assert_eq!(r.body["organizer"].as_array().unwrap().len(), 1);
        assert_eq!(r.body["organizer"][0]["id"], public_org);
        assert!(r.body["json_ld"].get("location").is_none());
        let listed = app.get(&format!("events?{FROM_2027}")).await;
        assert_eq!(listed.body["events"][0]["venue"], json!([]));
        let editor = app.user(Role::Editor).await;
        let r = app.get_as(&format!("events/{id}"), &editor.auth()).await;
        assert_eq!(r.body["venue"]["id"], draft_venue);
        assert_eq!(r.body["organizer"].as_array().unwrap().len(), 2);
    }
);

both!(
    searching_cannot_probe_the_hidden_text_of_protected_events,
    |app| async move {
        app.post(
        "events",
        json!({"title": "Members night", "description": "the secret code is zebra",
               "start_date": "2027-08-01 20:00:00", "end_date": "2027-08-01 22:00:00", "password": "pw"}),
    )
    .await
    .assert(201);
        let window = "start_date=2027-08-01&end_date=2027-08-02";
        let probe = app.get(&format!("events?{window}&search=zebra")).await;
        assert_eq!(
            probe.body["total"], 0,
            "the hidden description must not be searchable"
        );
        let by_title = app.get(&format!("events?{window}&search=members")).await;
        assert_eq!(by_title.body["total"], 1, "the title is public");
        assert_eq!(by_title.body["events"][0]["description"], "");
        let editor = app
            .get_as(&format!("events?{window}&search=zebra"), &app.admin.auth())
            .await;
        assert_eq!(editor.body["total"], 1, "editors search everything");
    }
);
