//! Venue, organizer and category lists by their events, and the term counts, as each caller sees them.

use super::*;

both!(
    venue_and_organizer_lists_filter_by_their_events,
    |app| async move {
        let names = |r: Resp, key: &'static str| -> Vec<String> {
            let mut v: Vec<String> = r.body[key]
                .as_array()
                .unwrap_or_else(|| panic!("{}", r.text))
                .iter()
                .map(|p| {
                    p[key.trim_end_matches('s')]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
            v.sort();
            v
        };
        let mut venue = std::collections::HashMap::new();
        for name in ["Busy", "Drafty", "Past", "Idle"] {
            venue.insert(name, app.post("venues", json!({"venue": name})).await.id());
        }
        let org = app
            .post("organizers", json!({"organizer": "Org"}))
            .await
            .id();
        app.post("organizers", json!({"organizer": "Lonely"}))
            .await
            .assert(201);
        let past = (Utc::now() - Duration::days(30))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let busy = app
            .event(feb(
                "Busy",
                json!({"venue": venue["Busy"], "organizer": [org]}),
            ))
            .await;
        app.event(feb(
            "Draft",
            json!({"venue": venue["Drafty"], "status": "draft"}),
        ))
        .await;
        app.event(with(
            event("Old", &past, &past),
            json!({"venue": venue["Past"]}),
        ))
        .await;
        assert_eq!(
            names(app.get(&format!("venues?event={busy}")).await, "venues"),
            ["Busy"]
        );
        assert_eq!(
            names(
                app.get(&format!("organizers?event={busy}")).await,
                "organizers"
            ),
            ["Org"]
        );
        let editor = app.user(Role::Editor).await.auth();
        assert_eq!(
            names(
                app.get_as("venues?has_events=true", &editor).await,
                "venues"
            ),
            ["Busy", "Past"]
        );
        assert_eq!(
            names(
                app.get_as("venues?has_events=false", &editor).await,
                "venues"
            ),
            ["Drafty", "Idle"]
        );
        assert_eq!(
            names(
                app.get_as("venues?only_with_upcoming=true", &editor).await,
                "venues"
            ),
            ["Busy", "Drafty"]
        );
        assert_eq!(
            names(app.get("venues?only_with_upcoming=true").await, "venues"),
            ["Busy"]
        );
        assert_eq!(
            names(app.get("organizers?has_events=false").await, "organizers"),
            ["Lonely"]
        );
        app.get(&format!("venues?event={}", venue["Idle"]))
            .await
            .assert_error(400, "rest_invalid_param");
    }
);

both!(trashing_a_venue_or_organizer_unlinks_it, |app| async move {
    let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
    let org = app
        .post("organizers", json!({"organizer": "Org"}))
        .await
        .id();
    let keep = app
        .post("organizers", json!({"organizer": "Keep"}))
        .await
        .id();
    let id = app
        .event(feb(
            "Linked",
            json!({"venue": venue, "organizer": [org, keep]}),
        ))
        .await;
    app.delete(&format!("venues/{venue}")).await.assert(200);
    app.delete(&format!("organizers/{org}")).await.assert(200);
    let r = app.get(&format!("events/{id}")).await;
    assert_eq!(r.body["venue"], json!([]));
    assert_eq!(r.body["organizer"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["organizer"][0]["id"], keep);
    let by_venue = format!("events?{FROM_2027}&venue={venue}");
    assert!(titles(&app.get_as(&by_venue, &app.admin.auth()).await).is_empty());
    // To a visitor, a trashed venue is as unknown as one that never was.
    app.get(&by_venue)
        .await
        .assert_error(400, "rest_invalid_param");
    // A trashed venue cannot be linked again.
    app.post("events", feb("Again", json!({"venue": venue})))
        .await
        .assert_error(400, "rest_invalid_param");
});

both!(term_counts_follow_published_events, |app| async move {
    let cat = app.post("categories", json!({"name": "Music"})).await.id();
    let count = || {
        let app = &app;
        async move { app.get(&format!("categories/{cat}")).await.body["count"].clone() }
    };
    let hidden = || {
        let app = &app;
        async move { titles_of_terms(&app.get("categories").await) }
    };
    assert!(
        hidden().await.is_empty(),
        "an empty category is hidden by default"
    );
    let a = app.event(feb("A", json!({"categories": [cat]}))).await;
    let b = app.event(feb("B", json!({"categories": [cat]}))).await;
    let draft = app
        .event(feb(
            "Draft",
            json!({"categories": [cat], "status": "draft"}),
        ))
        .await;
    assert_eq!(count().await, 2, "drafts do not count");
    assert_eq!(hidden().await, ["Music"]);
    app.patch(&format!("events/{draft}"), json!({"status": "publish"}))
        .await
        .assert(200);
    assert_eq!(count().await, 3);
    app.patch(&format!("events/{b}"), json!({"categories": []}))
        .await
        .assert(200);
    assert_eq!(count().await, 2);
    app.delete(&format!("events/{a}")).await.assert(200);
    assert_eq!(count().await, 1, "trashing decrements");
    app.post(&format!("events/{a}"), json!({"status": "publish"}))
        .await
        .assert(200);
    assert_eq!(count().await, 2, "restoring increments");
    app.delete(&format!("events/{a}?force=true"))
        .await
        .assert(200);
    app.delete(&format!("events/{draft}?force=true"))
        .await
        .assert(200);
    assert_eq!(count().await, 0);
    assert!(hidden().await.is_empty());
    assert_eq!(
        titles_of_terms(&app.get("categories?hide_empty=false").await),
        ["Music"]
    );
});

both!(category_lists_filter_by_event, |app| async move {
    let music = app.post("categories", json!({"name": "Music"})).await.id();
    app.post("categories", json!({"name": "Sports"}))
        .await
        .assert(201);
    let id = app
        .event(feb("Gig", json!({"categories": [music, "Extra"]})))
        .await;
    let other = app
        .event(feb("Match", json!({"categories": ["Sports"]})))
        .await;
    for param in ["post", "event"] {
        let r = app.get(&format!("categories?{param}={id}")).await;
        r.assert(200);
        let mut names = titles_of_terms(&r);
        names.sort();
        assert_eq!(names, ["Extra", "Music"], "{param}");
    }
    assert_eq!(
        titles_of_terms(&app.get(&format!("categories?event={other}")).await),
        ["Sports"]
    );
    let tags = app.get(&format!("tags?post={id}")).await;
    tags.assert(200);
    assert_eq!(tags.body["tags"], json!([]));
});
