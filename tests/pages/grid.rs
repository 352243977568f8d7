//! The month grid and the day view.

use super::*;

both!(
    the_month_grid_shows_events_on_every_day_they_cover,
    |app| async move {
        long_festival(&app).await;
        slug_of(
            &app,
            with(
                event("Craft Fair", "2027-03-20 00:00:00", "2027-03-21 23:59:59"),
                json!({"all_day": true}),
            ),
        )
        .await;
        let html = ok(&app, "/events/month/2027-03/").await;
        assert!(
            html.contains("<table") && html.contains(r#"<th scope="col">Monday</th>"#),
            "{html}"
        );
        assert_eq!(
            html.matches(r#"href="/event/long-festival/""#).count(),
            3,
            "{html}"
        );
        assert_eq!(
            html.matches(r#"href="/event/craft-fair/""#).count(),
            2,
            "{html}"
        );
        assert!(
            html.contains(r#"href="/events/month/2027-02/""#)
                && html.contains(r#"href="/events/month/2027-04/""#)
        );
        let feed = app
            .get("/events/month/2027-03/?ical=1&category=music")
            .await;
        assert_eq!(
            feed.header("location"),
            Some("/events/month/?tribe-bar-date=2027-03&categories=music&ical=1"),
            "a month's own URL with ?ical=1 is that month's feed"
        );
        let day_feed = app.get("/fr/events/2027-03-10/?ical=1").await;
        assert_eq!(
            day_feed.header("location"),
            Some("/fr/events/2027-03-10/ical/")
        );
        let same = ok(&app, "/events/month/?tribe-bar-date=2027-03").await;
        assert_eq!(same.matches(r#"href="/event/long-festival/""#).count(), 3);
    }
);

both!(the_month_grid_marks_today, |app| async move {
    let today = chrono::Utc::now().date_naive();
    let html = ok(&app, "/events/month/").await;
    let cell = html
        .split(r#"aria-current="date">"#)
        .nth(1)
        .expect("a cell marked today");
    assert!(
        cell.contains(&format!(r#"<time datetime="{today}">"#)),
        "{html}"
    );
});

both!(
    a_crowded_day_links_its_overflow_to_the_day_view,
    |app| async move {
        five_workshops_on_the_15th(&app).await;
        let html = ok(&app, "/events/month/2027-03/").await;
        assert!(
            html.contains(r#"<a class="more" href="/events/2027-03-15/">+2 more</a>"#),
            "{html}"
        );
        let day = ok(&app, "/events/2027-03-15/").await;
        assert_eq!(day.matches("Workshop ").count(), 5, "{day}");
    }
);

both!(the_day_view_shows_what_runs_that_day, |app| async move {
    long_festival(&app).await;
    slug_of(
        &app,
        event("Later Talk", "2027-03-15 10:00:00", "2027-03-15 11:00:00"),
    )
    .await;
    let html = ok(&app, "/events/2027-03-11/").await;
    assert!(
        html.contains("Long Festival") && !html.contains("Later Talk"),
        "{html}"
    );
    assert!(html.contains("Thursday, March 11, 2027"), "{html}");
    assert!(
        html.contains(r#"href="/events/2027-03-10/""#)
            && html.contains(r#"href="/events/2027-03-12/""#)
    );
    let festival = ok(&app, "/event/long-festival/").await;
    assert!(
        festival.contains(r#"<a rel="next" href="/event/later-talk/">Later Talk »</a>"#),
        "{festival}"
    );
    let talk = ok(&app, "/event/later-talk/").await;
    assert!(
        talk.contains(r#"<a rel="prev" href="/event/long-festival/">« Long Festival</a>"#),
        "{talk}"
    );
    let other = ok(&app, "/events/day/?tribe-bar-date=2027-03-15").await;
    assert!(other.contains("Later Talk") && !other.contains("Long Festival"));
    ok(&app, "/events/today/").await;
    page(&app, "/events/2027-13-45/").await.assert(404);
});

both!(
    a_crowded_month_shows_each_days_first_three_and_its_count,
    |app| async move {
        // 102 events in the grid: each day shows its first three and its own count.
        five_workshops_on_the_15th(&app).await;
        slug_of(
            &app,
            event("Late Fair", "2027-03-28 10:00:00", "2027-03-29 12:00:00"),
        )
        .await;
        for n in 0..96 {
            let start = format!("2027-03-02 {:02}:{:02}:00", 8 + n / 12, n % 12 * 5);
            let end = format!("2027-03-02 {:02}:{:02}:00", 8 + n / 12, n % 12 * 5 + 1);
            slug_of(&app, event(&format!("Stall {n}"), &start, &end)).await;
        }
        let html = ok(&app, "/events/month/2027-03/").await;
        assert!(
            html.contains(r#"<a class="more" href="/events/2027-03-02/">+93 more</a>"#),
            "{html}"
        );
        assert!(
            html.contains(r#"<a class="more" href="/events/2027-03-15/">+2 more</a>"#),
            "{html}"
        );
        assert_eq!(html.matches("Workshop ").count(), 3, "{html}");
        assert!(
            ["Workshop 1<", "Workshop 2<", "Workshop 3<"]
                .iter()
                .all(|s| html.contains(s)),
            "the day's first three, in list order: {html}"
        );
        assert_eq!(html.matches("Stall ").count(), 3, "{html}");
        assert_eq!(
            html.matches(r#"href="/event/late-fair/""#).count(),
            2,
            "{html}"
        );
    }
);

both!(
    a_month_shows_and_counts_only_what_a_visitor_may_see,
    |app| async move {
        let music = app.category("Music", None).await;
        for n in 1..=3 {
            let start = format!("2027-03-18 1{n}:00:00");
            let end = format!("2027-03-18 1{n}:30:00");
            let body = event(&format!("Open {n}"), &start, &end);
            let body = match n {
                1 => with(body, json!({"categories": [music]})),
                _ => body,
            };
            slug_of(&app, body).await;
        }
        for (title, extra) in [
            ("Closed draft", json!({"status": "draft"})),
            ("Closed private", json!({"status": "private"})),
            ("Closed unlisted", json!({"hide_from_listings": true})),
        ] {
            let body = event(title, "2027-03-18 08:00:00", "2027-03-18 09:00:00");
            slug_of(&app, with(body, extra)).await;
        }
        let html = ok(&app, "/events/month/2027-03/").await;
        assert_eq!(html.matches("Open ").count(), 3, "{html}");
        assert!(!html.contains("Closed"), "{html}");
        assert!(
            !html.contains(r#"href="/events/2027-03-18/">+"#),
            "no hidden event is counted: {html}"
        );
        let music_only = ok(&app, "/events/month/2027-03/?category=music").await;
        assert!(music_only.contains("Open 1<"), "{music_only}");
        assert!(
            !music_only.contains("Open 2") && !music_only.contains("Open 3"),
            "{music_only}"
        );
        assert!(
            !music_only.contains(r#"href="/events/2027-03-18/?category=music">+"#),
            "the filter counts too: {music_only}"
        );
    }
);

both_with!(
    a_month_of_more_matches_than_a_search_counts_is_read_day_by_day,
    calendar_events::config::Settings {
        search_count_limit: 4,
        ..settings()
    },
    |app| async move {
        let music = app.category("Music", None).await;
        let in_music = |body| with(body, json!({"categories": [music]}));
        for n in 1..=5 {
            let start = format!("2027-03-15 0{n}:00:00");
            let end = format!("2027-03-15 0{n}:30:00");
            slug_of(&app, in_music(event(&format!("Recital {n}"), &start, &end))).await;
        }
        let late = event("Recital late", "2027-03-20 10:00:00", "2027-03-20 11:00:00");
        slug_of(&app, in_music(late)).await;
        let elsewhere = event(
            "Recital elsewhere",
            "2027-03-21 10:00:00",
            "2027-03-21 11:00:00",
        );
        slug_of(&app, elsewhere).await;
        let draft = event(
            "Recital draft",
            "2027-03-20 08:00:00",
            "2027-03-20 09:00:00",
        );
        slug_of(&app, in_music(with(draft, json!({"status": "draft"})))).await;
        slug_of(
            &app,
            event("Workshop 9", "2027-03-20 12:00:00", "2027-03-20 13:00:00"),
        )
        .await;
        let html = ok(&app, "/events/month/2027-03/?search=recital").await;
        assert_eq!(html.matches("Recital ").count(), 5, "{html}");
        assert!(html.contains("Recital late") && html.contains("Recital elsewhere"));
        assert!(!html.contains("Workshop 9") && !html.contains("Recital draft"));
        assert!(
            !html.contains(r#"href="/events/2027-03-20/?search=recital">+"#),
            "the draft is not counted: {html}"
        );
        assert!(
            html.contains(r#"href="/events/2027-03-15/?search=recital">+2 or more</a>"#),
            "five match, more than the four a search counts: {html}"
        );
        assert!(
            !html.contains(r#"href="/events/2027-03-15/?search=recital">+2 more</a>"#),
            "{html}"
        );
        let music_only = ok(&app, "/events/month/2027-03/?search=recital&category=music").await;
        assert_eq!(music_only.matches("Recital ").count(), 4, "{music_only}");
        assert!(music_only.contains("Recital late"), "{music_only}");
        assert!(
            !music_only.contains("Recital elsewhere") && !music_only.contains("Recital draft"),
            "{music_only}"
        );
    }
);

both_with!(
    a_month_searched_in_a_category_and_its_children_counts_its_days_too,
    calendar_events::config::Settings {
        search_count_limit: 4,
        ..settings()
    },
    |app| async move {
        let music = app.category("Music", None).await;
        let chamber = app.category("Chamber", Some(music)).await;
        for n in 1..=5 {
            let start = format!("2027-03-15 0{n}:00:00");
            let end = format!("2027-03-15 0{n}:30:00");
            let term = if n % 2 == 0 { music } else { chamber };
            let body = event(&format!("Recital {n}"), &start, &end);
            slug_of(&app, with(body, json!({"categories": [term]}))).await;
        }
        let late = event("Recital late", "2027-03-20 10:00:00", "2027-03-20 11:00:00");
        slug_of(&app, with(late, json!({"categories": [chamber]}))).await;
        let draft = event(
            "Recital draft",
            "2027-03-20 08:00:00",
            "2027-03-20 09:00:00",
        );
        let draft = with(draft, json!({"categories": [chamber], "status": "draft"}));
        slug_of(&app, draft).await;
        // A parent's events are its children's too: each day's walk finds both, and
        // counts them as far as the search does.
        let html = ok(&app, "/events/month/2027-03/?search=recital&category=music").await;
        assert_eq!(html.matches("Recital ").count(), 4, "{html}");
        assert!(html.contains("Recital late") && !html.contains("Recital draft"));
        assert!(
            html.contains(
                r#"href="/events/2027-03-15/?search=recital&#38;category=music">+2 or more</a>"#
            ),
            "{html}"
        );
        assert!(
            !html.contains(r#"href="/events/2027-03-20/?search=recital&#38;category=music">+"#),
            "the draft is not counted: {html}"
        );
    }
);

both!(
    an_event_that_started_last_month_is_on_this_months_days,
    |app| async move {
        slug_of(
            &app,
            event(
                "Winter residency",
                "2027-02-20 10:00:00",
                "2027-03-04 18:00:00",
            ),
        )
        .await;
        let day = ok(&app, "/events/2027-03-03/").await;
        assert!(day.contains("Winter residency"), "{day}");
        let month = ok(&app, "/events/month/2027-03/").await;
        // Monday 1 March (the grid's first day) to Thursday 4 March.
        assert_eq!(month.matches("Winter residency").count(), 4, "{month}");
        assert!(
            !ok(&app, "/events/2027-03-05/")
                .await
                .contains("Winter residency")
        );
    }
);

both!(
    a_busy_day_is_paged_then_leads_on_to_the_next_day,
    |app| async move {
        for n in 0..53 {
            let start = format!("2027-04-02 {:02}:{:02}:00", 8 + n / 6, (n % 6) * 10);
            let end = format!("2027-04-02 {:02}:{:02}:00", 8 + n / 6, (n % 6) * 10 + 5);
            app.event(event(&format!("Talk {n:02}"), &start, &end))
                .await;
        }
        let first = ok(&app, "/events/2027-04-02/").await;
        assert_eq!(first.matches("Talk ").count(), 50, "{first}");
        assert!(
            first.contains("href=\"/events/2027-04-02/?page=2\""),
            "{first}"
        );
        assert!(first.contains("href=\"/events/2027-04-01/\""), "{first}");
        let second = ok(&app, "/events/2027-04-02/?page=2").await;
        assert_eq!(second.matches("Talk ").count(), 3, "{second}");
        assert!(second.contains("Talk 52"), "{second}");
        assert!(second.contains("href=\"/events/2027-04-03/\""), "{second}");
        page(&app, "/events/2027-04-02/?page=3").await.assert(404);
        // Every event of the grid matches, and there are fewer than its probe reads:
        // the grid is placed, each of its matches counted.
        let month = ok(&app, "/events/month/2027-04/?search=talk").await;
        assert_eq!(month.matches("Talk ").count(), 3, "{month}");
        assert!(
            month.contains(r#"href="/events/2027-04-02/?search=talk">+50 more</a>"#),
            "{month}"
        );
    }
);
