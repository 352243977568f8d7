//! `GET /events`: the list semantics of docs/departures.md and the README.

mod common;

use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

/// An explicit window that keeps fixed 2027 dates listed whatever today is.
const FROM_2027: &str = "start_date=2027-01-01";

fn at(title: &str, start: &str, end: &str, extra: Value) -> Value {
    with(event(title, start, end), extra)
}

/// The reference's own worked example of its date window.
async fn reference_events(app: &TestApp) {
    for (title, start, end) in [
        ("A", "2017-12-31 17:00:00", "2017-12-31 18:00:00"),
        ("B", "2018-01-01 16:00:00", "2018-01-01 16:30:00"),
        ("C", "2018-01-01 20:00:00", "2018-01-01 20:30:00"),
        ("D", "2018-01-02 10:00:00", "2018-01-02 11:00:00"),
    ] {
        app.event(event(title, start, end)).await;
    }
}

both!(start_and_end_dates_contain_whole_days, |app| async move {
    reference_events(&app).await;
    let r = app
        .get("events?start_date=2018-01-01%2015:00&end_date=2018-01-01%2018:00")
        .await;
    r.assert(200);
    assert_eq!(titles(&r), ["B", "C"]);
    assert!(
        r.body["rest_url"]
            .as_str()
            .unwrap()
            .contains("start_date=2018-01-01+00%3A00%3A00&end_date=2018-01-01+23%3A59%3A59"),
        "{}",
        r.body["rest_url"]
    );
    // Containment, not overlap: an event must end by the end bound.
    let r = app
        .get("events?start_date=2017-12-31&end_date=2018-01-01")
        .await;
    assert_eq!(titles(&r), ["A", "B", "C"]);
});

both!(strict_dates_use_the_exact_times, |app| async move {
    reference_events(&app).await;
    let r = app
        .get("events?start_date=2018-01-01%2015:00&end_date=2018-01-01%2018:00&strict_dates=true")
        .await;
    assert_eq!(titles(&r), ["B"]);
    let r = app
        .get(
            "events?start_date=2018-01-01%2016:00:00&end_date=2018-01-01%2016:30:00&strict_dates=1",
        )
        .await;
    assert_eq!(titles(&r), ["B"], "bounds are inclusive");
});

both!(
    relative_bounds_are_strict_and_drop_the_default_window,
    |app| async move {
        reference_events(&app).await;
        let r = app
            .get("events?ends_after=2017-12-31&starts_before=2018-01-02")
            .await;
        assert_eq!(
            titles(&r),
            ["B", "C", "D"],
            "past events: no default window"
        );
        let r = app
            .get("events?starts_after=2018-01-01%2016:00:00&strict_dates=true")
            .await;
        assert_eq!(titles(&r), ["C", "D"]);
        let r = app
            .get("events?ends_before=2018-01-01%2020:30:00&strict_dates=true")
            .await;
        assert_eq!(titles(&r), ["A", "B"]);
        let r = app
            .get("events?starts_before=2018-01-01%2016:00:00&strict_dates=true")
            .await;
        assert_eq!(titles(&r), ["A"]);
        // An explicit start_date still applies next to a relative bound.
        let r = app
            .get("events?starts_before=2018-01-02&start_date=2018-01-01")
            .await;
        assert_eq!(titles(&r), ["B", "C", "D"]);
        for bad in [
            "starts_before=foo",
            "ends_after=before%20my%20birthday",
            "start_date=nope",
        ] {
            app.get(&format!("events?{bad}"))
                .await
                .assert_error(400, "rest_invalid_param");
        }
    }
);

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

both!(include_ignores_dates_but_not_visibility, |app| async move {
    let old = app
        .event(event("Old", "2018-01-01 10:00:00", "2018-01-01 11:00:00"))
        .await;
    let new = app
        .event(event("New", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
        .await;
    let draft = app
        .event(at(
            "Draft",
            "2027-01-01 10:00:00",
            "2027-01-01 11:00:00",
            json!({"status": "draft"}),
        ))
        .await;
    app.event(event("Other", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
        .await;
    let r = app.get(&format!("events?include={old}")).await;
    assert_eq!(titles(&r), ["Old"], "a past event is returned");
    let r = app
        .get(&format!(
            "events?include={old}&starts_after=2030-01-01&ends_before=2000-01-01"
        ))
        .await;
    assert_eq!(titles(&r), ["Old"], "relative date filters are ignored too");
    let r = app
        .get(&format!(
            "events?include={new},{old},{draft}&start_date=2026-01-01"
        ))
        .await;
    assert_eq!(titles(&r), ["Old", "New"]);
    assert!(
        r.body["rest_url"]
            .as_str()
            .unwrap()
            .contains(&format!("include={new}%2C{old}%2C{draft}"))
    );
    for bad in ["include=foo", "include=1,foo", "include=-3"] {
        app.get(&format!("events?{bad}"))
            .await
            .assert_error(400, "rest_invalid_param");
    }
});

/// An event whose children a test lists.
async fn series(app: &TestApp) -> i64 {
    app.event(event(
        "Series",
        "2027-01-01 10:00:00",
        "2027-01-01 11:00:00",
    ))
    .await
}

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

// A list that names its events, by parent or by ID, reads them first and checks
// every other filter on them: each combination is answered and counted as the
// filters say, whichever of them the store reads first.
both!(named_events_meet_every_other_filter, |app| async move {
    let editor = app.user(Role::Editor).await;
    let red = app.category("Red", None).await;
    let x = app.post("tags", json!({"name": "X"})).await.id();
    let parent = series(&app).await;
    let tickets = tickets();
    let mut ids = std::collections::HashMap::new();
    for (title, day, extra) in [
        (
            "Salsa child",
            "2027-01-02",
            json!({"post_parent": parent, "categories": [red], "featured": true}),
        ),
        (
            "Jazz child",
            "2027-01-03",
            json!({"post_parent": parent, "categories": [red], "tags": [x], "tickets": tickets}),
        ),
        (
            "Draft child",
            "2027-01-04",
            json!({"post_parent": parent, "categories": [red], "status": "draft"}),
        ),
        (
            "Old salsa child",
            "2019-01-05",
            json!({"post_parent": parent, "categories": [red]}),
        ),
        (
            "Salsa stranger",
            "2027-01-06",
            json!({"categories": [red], "tags": [x]}),
        ),
    ] {
        let start = format!("{day} 10:00:00");
        let end = format!("{day} 11:00:00");
        ids.insert(title, app.event(at(title, &start, &end, extra)).await);
    }
    let list = |q: String, auth: Auth| {
        let app = &app;
        async move {
            let r = app.get_as(&format!("events?{FROM_2027}&{q}"), &auth).await;
            r.assert(200);
            assert_eq!(
                r.header("x-wp-total"),
                Some(r.body["total"].to_string().as_str())
            );
            (titles(&r), r.body["total"].as_u64().unwrap())
        }
    };
    let anon = || Auth::None;
    let children = format!("post_parent={parent}");
    for (q, expected) in [
        (
            format!("{children}&categories={red}"),
            vec!["Salsa child", "Jazz child"],
        ),
        (
            format!("{children}&categories={red}&featured=0"),
            vec!["Jazz child"],
        ),
        (
            format!("{children}&categories={red}&ticketed=1"),
            vec!["Jazz child"],
        ),
        (
            format!("{children}&categories={red}&search=salsa"),
            vec!["Salsa child"],
        ),
        (
            format!("{children}&tags={x}&categories={red}"),
            vec!["Jazz child"],
        ),
        (format!("{children}&tags={x}&search=salsa"), vec![]),
        (
            format!(
                "include={},{}&categories={red}&featured=0",
                ids["Jazz child"], ids["Salsa stranger"]
            ),
            vec!["Jazz child", "Salsa stranger"],
        ),
        (
            format!(
                "include={},{},{}&search=salsa",
                ids["Old salsa child"], ids["Salsa child"], ids["Jazz child"]
            ),
            vec!["Old salsa child", "Salsa child"],
        ),
        (
            format!(
                "include={},{}&tags={x}&search=salsa",
                ids["Salsa child"], ids["Salsa stranger"]
            ),
            vec!["Salsa stranger"],
        ),
    ] {
        let (titles, total) = list(q.clone(), anon()).await;
        assert_eq!(titles, expected, "{q}");
        assert_eq!(total, expected.len() as u64, "{q}");
    }
    let (page, total) = list(
        format!("{children}&categories={red}&per_page=1&page=2"),
        anon(),
    )
    .await;
    assert_eq!((page, total), (vec!["Jazz child".to_string()], 2));
    let (titles, total) = list(format!("{children}&categories={red}"), editor.auth()).await;
    assert_eq!(
        titles,
        ["Salsa child", "Jazz child", "Draft child"],
        "editors see the draft child"
    );
    assert_eq!(total, 3);
});

both!(
    an_event_in_several_requested_terms_and_organizers_is_listed_once,
    |app| async move {
        let red = app.post("categories", json!({"name": "Red"})).await.id();
        let blue = app.post("categories", json!({"name": "Blue"})).await.id();
        let x = app.post("tags", json!({"name": "X"})).await.id();
        let y = app.post("tags", json!({"name": "Y"})).await.id();
        let a = app.post("organizers", json!({"organizer": "A"})).await.id();
        let b = app.post("organizers", json!({"organizer": "B"})).await.id();
        app.event(at(
            "Dup",
            "2027-06-10 10:00:00",
            "2027-06-10 12:00:00",
            json!({"categories": [red, blue], "tags": [x, y], "organizer": [a, b]}),
        ))
        .await;
        app.event(at(
            "Other",
            "2027-06-11 10:00:00",
            "2027-06-11 12:00:00",
            json!({"categories": [red], "tags": [x], "organizer": [a]}),
        ))
        .await;
        for q in [
            format!("categories={red},{blue}"),
            "categories=red&categories=blue".into(),
            format!("tags={x},{y}"),
            format!("categories={red},{blue}&tags={x},{y}"),
            format!("organizer={a},{b}"),
            format!("categories={red},{blue}&tags={x},{y}&organizer={a},{b}"),
            format!("categories={red},{blue}&search=dup"),
        ] {
            let r = app
                .get(&format!(
                    "events?start_date=2027-06-01&end_date=2027-06-30&{q}"
                ))
                .await;
            r.assert(200);
            let expected: &[&str] = if q.contains("search") {
                &["Dup"]
            } else {
                &["Dup", "Other"]
            };
            assert_eq!(titles(&r), expected, "{q}");
            assert_eq!(r.body["total"], expected.len(), "{q}");
            assert_eq!(
                r.header("x-wp-total"),
                Some(&*expected.len().to_string()),
                "{q}"
            );
        }
    }
);

both!(
    a_category_matches_the_events_of_its_subcategories,
    |app| async move {
        let music = app.category("Music", None).await;
        let jazz = app.category("Jazz", Some(music)).await;
        let bebop = app.category("Bebop", Some(jazz)).await;
        let other = app.category("Talks", None).await;
        let in_cat = |title: &str, day: &str, cat: i64| {
            with(
                event(
                    title,
                    &format!("2027-03-{day} 20:00:00"),
                    &format!("2027-03-{day} 22:00:00"),
                ),
                json!({"categories": [cat]}),
            )
        };
        app.event(in_cat("Deep", "01", bebop)).await;
        app.event(in_cat("Top", "02", music)).await;
        app.event(in_cat("Elsewhere", "03", other)).await;
        app.event(with(
            event("Both", "2027-03-04 20:00:00", "2027-03-04 22:00:00"),
            json!({"categories": [music, jazz]}),
        ))
        .await;
        let window = "start_date=2027-03-01&end_date=2027-03-31";
        let r = app
            .get(&format!("events?{window}&categories={music}"))
            .await;
        r.assert(200);
        assert_eq!(titles(&r), ["Deep", "Top", "Both"]);
        assert_eq!(r.body["total"], 3, "an event in two of them counts once");
        assert_eq!(r.header("x-wp-total"), Some("3"));
        // Visitors count the same way, from the per-day counts.
        let paged = app
            .get_as(
                &format!("events?{window}&categories={music}&per_page=2"),
                &Auth::None,
            )
            .await;
        assert_eq!(paged.body["total"], 3);
        assert_eq!(paged.body["total_pages"], 2);
        let r = app.get(&format!("events?{window}&categories=jazz")).await;
        assert_eq!(titles(&r), ["Deep", "Both"], "by slug too");
        let r = app
            .get(&format!("events?{window}&categories={bebop},{other}"))
            .await;
        assert_eq!(titles(&r), ["Deep", "Elsewhere"]);
        // A term's own count stays its own events, as in WordPress.
        assert_eq!(
            app.get(&format!("categories/{music}")).await.body["count"],
            2
        );
    }
);
