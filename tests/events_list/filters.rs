//! Each filter of the event list alone.

use super::*;

both!(
    search_needs_every_word_in_title_excerpt_or_description,
    |app| async move {
        for (title, extra) in [
            ("Jazz Night", json!({"description": "Live music downtown"})),
            ("Jazz Brunch", json!({"excerpt": "Pancakes and trumpets"})),
            ("Rock Night", json!({})),
            ("DJ set", json!({})),
            ("Café concert", json!({})),
        ] {
            app.event(at(
                title,
                "2027-02-01 10:00:00",
                "2027-02-01 12:00:00",
                extra,
            ))
            .await;
        }
        let search = |q: &'static str| {
            let app = &app;
            async move { titles(&app.get(&format!("events?{FROM_2027}&search={q}")).await) }
        };
        assert_eq!(search("jazz").await, ["Jazz Night", "Jazz Brunch"]);
        assert_eq!(search("JAZZ%20night").await, ["Jazz Night"]);
        assert_eq!(
            search("night%20jazz").await,
            ["Jazz Night"],
            "word order is free"
        );
        assert_eq!(search("pancakes").await, ["Jazz Brunch"]);
        assert_eq!(search("DOWNTOWN").await, ["Jazz Night"]);
        assert_eq!(search("dj").await, ["DJ set"], "two-letter words match too");
        assert_eq!(search("caf%C3%89").await, ["Café concert"]);
        assert!(search("jazz%20rock").await.is_empty());
        assert!(
            search("100%25").await.is_empty(),
            "LIKE wildcards are literal"
        );
        app.get("events?search=")
            .await
            .assert_error(400, "rest_invalid_param");
        // The index follows updates.
        let id = app
            .event(at(
                "Plain",
                "2027-02-01 10:00:00",
                "2027-02-01 12:00:00",
                json!({}),
            ))
            .await;
        app.patch(&format!("events/{id}"), json!({"title": "Polka party"}))
            .await
            .assert(200);
        assert_eq!(search("polka").await, ["Polka party"]);
        assert!(search("plain").await.is_empty());
    }
);

both!(categories_and_tags_filter_by_id_or_slug, |app| async move {
    let music = app.post("categories", json!({"name": "Music"})).await.id();
    let sports = app.post("categories", json!({"name": "Sports"})).await.id();
    let free = app.post("tags", json!({"name": "Free"})).await.id();
    app.post("tags", json!({"name": "Paid"})).await.assert(201);
    for (title, cats, tags) in [
        ("One", json!([music]), json!([free])),
        ("Two", json!([sports]), json!(["free"])),
        ("Three", json!(["music"]), json!(["paid"])),
        ("Four", json!([]), json!([])),
    ] {
        app.event(at(
            title,
            "2027-02-01 10:00:00",
            "2027-02-01 12:00:00",
            json!({"categories": cats, "tags": tags}),
        ))
        .await;
    }
    let list = |q: String| {
        let app = &app;
        async move { titles(&app.get(&format!("events?{FROM_2027}&{q}")).await) }
    };
    assert_eq!(list("categories=music".into()).await, ["One", "Three"]);
    assert_eq!(list(format!("categories={sports}")).await, ["Two"]);
    assert_eq!(
        list(format!("categories=music,{sports}")).await,
        ["One", "Two", "Three"]
    );
    assert_eq!(
        list(format!("categories[]={music}&categories[]=sports")).await,
        ["One", "Two", "Three"]
    );
    assert_eq!(
        list("categories=Sports,music".into()).await,
        ["One", "Two", "Three"],
        "a term named by its name, beside one named by its slug"
    );
    assert_eq!(list("categories=music&tags=free".into()).await, ["One"]);
    assert_eq!(list(format!("tags={free}")).await, ["One", "Two"]);
    for bad in [
        "categories=nope".to_string(),
        "tags=999999".into(),
        format!("categories={free}"),
    ] {
        let r = app.get(&format!("events?{bad}")).await;
        r.assert_error(400, "rest_invalid_param");
    }
});

both!(venue_and_organizer_filters_take_ids, |app| async move {
    let v1 = app.post("venues", json!({"venue": "V1"})).await.id();
    let v2 = app.post("venues", json!({"venue": "V2"})).await.id();
    let unused = app.post("venues", json!({"venue": "V3"})).await.id();
    let o1 = app
        .post("organizers", json!({"organizer": "O1"}))
        .await
        .id();
    let o2 = app
        .post("organizers", json!({"organizer": "O2"}))
        .await
        .id();
    for (title, venue, orgs) in [
        ("One", json!(v1), json!([o1])),
        ("Two", json!(v2), json!([o1, o2])),
        ("Three", json!(v1), json!([o2])),
        ("Four", json!(0), json!([])),
    ] {
        app.event(at(
            title,
            "2027-02-01 10:00:00",
            "2027-02-01 12:00:00",
            json!({"venue": venue, "organizer": orgs}),
        ))
        .await;
    }
    let list = |q: String| {
        let app = &app;
        async move { titles(&app.get(&format!("events?{FROM_2027}&{q}")).await) }
    };
    assert_eq!(list(format!("venue={v1}")).await, ["One", "Three"]);
    assert_eq!(
        list(format!("venue={v1},{v2}")).await,
        ["One", "Two", "Three"]
    );
    assert_eq!(list(format!("organizer={o2}")).await, ["Two", "Three"]);
    assert_eq!(list(format!("venue={v1}&organizer={o2}")).await, ["Three"]);
    assert!(list(format!("venue={unused}")).await.is_empty());
    for bad in [
        format!("venue={o1}"),
        format!("organizer={v1}"),
        "venue=abc".into(),
        "organizer=999999".into(),
    ] {
        let r = app.get(&format!("events?{bad}")).await;
        r.assert_error(400, "rest_invalid_param");
    }
});

both!(featured_status_and_type_checks, |app| async move {
    let editor = app.user(Role::Editor).await;
    for (title, extra) in [
        ("Featured", json!({"featured": true})),
        ("Plain", json!({})),
        ("Draft", json!({"status": "draft"})),
        ("Trashed", json!({})),
    ] {
        let id = app
            .event(at(
                title,
                "2027-02-01 10:00:00",
                "2027-02-01 12:00:00",
                extra,
            ))
            .await;
        if title == "Trashed" {
            app.delete(&format!("events/{id}")).await.assert(200);
        }
    }
    let anon = |q: &'static str| {
        let app = &app;
        async move { titles(&app.get(&format!("events?{FROM_2027}&{q}")).await) }
    };
    assert_eq!(anon("featured=true").await, ["Featured"]);
    assert_eq!(anon("featured=false").await, ["Plain"]);
    assert_eq!(anon("status=publish").await, ["Featured", "Plain"]);
    for bad in [
        "status=draft",
        "status=publish,draft",
        "status=bogus",
        "featured=maybe",
        "page=0",
        "page=foo",
        "per_page=abc",
        "per_page=-1",
    ] {
        let r = app.get(&format!("events?{bad}")).await;
        r.assert_error(400, "rest_invalid_param");
        let name = bad.split('=').next().unwrap();
        assert!(
            r.body["data"]["params"].get(name).is_some(),
            "{bad}: {}",
            r.text
        );
    }
    let as_editor = |q: &'static str| {
        let (app, auth) = (&app, editor.auth());
        async move { titles(&app.get_as(&format!("events?{FROM_2027}&{q}"), &auth).await) }
    };
    assert_eq!(as_editor("status=draft").await, ["Draft"]);
    assert_eq!(as_editor("status=trash").await, ["Trashed"]);
    assert_eq!(
        as_editor("status=draft,publish").await,
        ["Featured", "Plain", "Draft"]
    );
    assert_eq!(
        as_editor("page=1").await,
        ["Featured", "Plain", "Draft"],
        "editors see every status but trash"
    );
});

both!(
    geolocation_filters_use_venue_coordinates,
    |app| async move {
        let paris = app
            .post(
                "venues",
                json!({"venue": "Paris", "geo_lat": 48.8566, "geo_lng": 2.3522}),
            )
            .await;
        paris.assert(201);
        assert_eq!(paris.body["geo_lat"], 48.8566);
        let london = app
            .post(
                "venues",
                json!({"venue": "London", "geo_lat": "51.5074", "geo_lng": "-0.1278"}),
            )
            .await
            .id();
        let nowhere = app.post("venues", json!({"venue": "Nowhere"})).await.id();
        let fiji = app
            .post(
                "venues",
                json!({"venue": "Fiji", "geo_lat": -17.0, "geo_lng": 179.95}),
            )
            .await
            .id();
        for (title, venue) in [
            ("In Paris", json!(paris.id())),
            ("In London", json!(london)),
            ("Nowhere", json!(nowhere)),
            ("No venue", json!(0)),
            ("In Fiji", json!(fiji)),
        ] {
            app.event(at(
                title,
                "2027-02-01 10:00:00",
                "2027-02-01 12:00:00",
                json!({"venue": venue}),
            ))
            .await;
        }
        let list = |q: &'static str| {
            let app = &app;
            async move { titles(&app.get(&format!("events?{FROM_2027}&{q}")).await) }
        };
        assert_eq!(
            list("geoloc=true").await,
            ["In Paris", "In London", "In Fiji"]
        );
        assert_eq!(list("geoloc=false").await, ["Nowhere", "No venue"]);
        assert_eq!(list("geoloc_lat=48.85&geoloc_lng=2.35").await, ["In Paris"]);
        assert_eq!(
            list("geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=400").await,
            ["In Paris", "In London"]
        );
        assert!(list("geoloc_lat=0&geoloc_lng=0").await.is_empty());
        // About 10 km away, across the antimeridian.
        assert_eq!(list("geoloc_lat=-17&geoloc_lng=-179.95").await, ["In Fiji"]);
        for bad in [
            "geoloc_lat=48.85",
            "geoloc_lng=2.35",
            "geoloc_lat=abc&geoloc_lng=1",
            "geoloc=maybe",
            "geoloc_lat=91&geoloc_lng=0",
        ] {
            app.get(&format!("events?{bad}"))
                .await
                .assert_error(400, "rest_invalid_param");
        }
    }
);

both!(post_parent_and_ticketed_filters, |app| async move {
    let parent = series(&app).await;
    let tickets = tickets();
    for (title, extra) in [
        ("Child 1", json!({"post_parent": parent})),
        (
            "Child 2",
            json!({"post_parent": parent, "tickets": tickets}),
        ),
        ("Loose", json!({})),
    ] {
        app.event(at(
            title,
            "2027-01-02 10:00:00",
            "2027-01-02 11:00:00",
            extra,
        ))
        .await;
    }
    let list = |q: String| {
        let app = &app;
        async move { titles(&app.get(&format!("events?{FROM_2027}&{q}")).await) }
    };
    assert_eq!(
        list(format!("post_parent={parent}")).await,
        ["Child 1", "Child 2"]
    );
    assert_eq!(list("ticketed=true".into()).await, ["Child 2"]);
    assert_eq!(
        list("ticketed=false".into()).await,
        ["Series", "Child 1", "Loose"]
    );
    let venue = app.post("venues", json!({"venue": "V"})).await.id();
    for bad in [
        format!("post_parent={venue}"),
        "post_parent=foo".into(),
        "post_parent=999999".into(),
        "ticketed=maybe".into(),
    ] {
        app.get(&format!("events?{bad}"))
            .await
            .assert_error(400, "rest_invalid_param");
    }
});
