//! Filters together: named events, several terms and organizers, subcategories.

use super::*;

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
