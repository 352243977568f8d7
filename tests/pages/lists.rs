//! The list of events, the home page, the filters and the pages of a venue, an organizer or a term.

use super::*;

both!(
    the_list_shows_published_upcoming_events_only,
    |app| async move {
        slug_of(
            &app,
            event(
                "Spring Concert",
                "2027-03-10 19:00:00",
                "2027-03-10 21:00:00",
            ),
        )
        .await;
        for (title, status) in [
            ("Draft Gala", "draft"),
            ("Private Dinner", "private"),
            ("Pending Fair", "pending"),
        ] {
            let body = with(
                event(title, "2027-03-11 19:00:00", "2027-03-11 21:00:00"),
                json!({"status": status}),
            );
            slug_of(&app, body).await;
        }
        slug_of(
            &app,
            event("Old Party", "2020-01-10 19:00:00", "2020-01-10 21:00:00"),
        )
        .await;
        for path in ["/", "/events/", "/events/list/"] {
            let html = ok(&app, path).await;
            assert!(html.contains("Spring Concert"), "{path}: {html}");
            for absent in ["Draft Gala", "Private Dinner", "Pending Fair", "Old Party"] {
                assert!(!html.contains(absent), "{path} shows {absent}");
            }
            assert!(html.contains(r#"href="/event/spring-concert/""#), "{html}");
            assert!(html.contains("March 2027"), "grouped by month: {html}");
        }
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_home_page_answers_with_the_discovery_link() {
    let app = TestApp::sqlite_with(calendar_events::config::Settings {
        rest_root: "/wp-json".into(),
        ..settings()
    })
    .await;
    let r = page(&app, "/").await;
    r.assert(200);
    let link = r.header("link").unwrap_or_default();
    assert!(link.contains(r#"rel="https://api.w.org/""#), "{link}");
}

both!(the_list_is_paginated_by_query, |app| async move {
    for day in 10..22 {
        let start = format!("2027-04-{day} 10:00:00");
        let end = format!("2027-04-{day} 11:00:00");
        slug_of(&app, event(&format!("Talk {day}"), &start, &end)).await;
    }
    let first = ok(&app, "/events/").await;
    assert!(
        first.contains("Talk 10") && !first.contains("Talk 21"),
        "{first}"
    );
    assert!(first.contains(r#"href="/events/?page=2""#), "{first}");
    let second = ok(&app, "/events/?page=2").await;
    assert!(
        second.contains("Talk 21") && !second.contains("Talk 10"),
        "{second}"
    );
    page(&app, "/events/?page=9").await.assert(404);
});

both!(
    filters_narrow_the_list_and_link_its_feeds,
    |app| async move {
        let (venue, _) = linked(&app, "venues", json!({"venue": "Blue Room"})).await;
        let music = with(
            event("Jazz Night", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
            json!({"categories": [{"name": "Music"}], "venue": venue}),
        );
        slug_of(&app, music).await;
        slug_of(
            &app,
            event("Book Club", "2027-03-11 19:00:00", "2027-03-11 21:00:00"),
        )
        .await;
        let all = ok(&app, "/events/").await;
        assert!(
            all.contains(r#"<label for="f-search">"#) && all.contains(r#"name="category""#),
            "{all}"
        );
        let html = ok(&app, "/events/?category=music").await;
        assert!(
            html.contains("Jazz Night") && !html.contains("Book Club"),
            "{html}"
        );
        assert!(
            html.contains(r#"<option value="music" selected>"#),
            "{html}"
        );
        assert!(
            html.contains("/events/?categories=music&#38;ical=1"),
            "{html}"
        );
        assert!(
            html.contains("webcal://calendar.test/events/?categories=music"),
            "{html}"
        );
        assert!(
            html.contains("/calendar/events/v1/events?categories=music"),
            "{html}"
        );
        let searched = ok(&app, "/events/?search=book").await;
        assert!(searched.contains("Book Club") && !searched.contains("Jazz Night"));
        let unknown = page(&app, "/events/?category=no-such-category").await;
        unknown.assert(400);
        assert!(
            unknown.text.contains("<h1>Page not found</h1>"),
            "{}",
            unknown.text
        );
        let by_venue = ok(&app, &format!("/events/month/2027-03/?venue={venue}")).await;
        assert!(by_venue.contains("Jazz Night") && !by_venue.contains("Book Club"));
    }
);

both!(
    venue_organizer_and_term_pages_list_their_events,
    |app| async move {
        let (venue, venue_slug) = linked(
            &app,
            "venues",
            json!({"venue": "Blue Room", "address": "2 Quay"}),
        )
        .await;
        let (organizer, organizer_slug) = linked(
            &app,
            "organizers",
            json!({"organizer": "Jazz Club", "phone": "+33 1 23"}),
        )
        .await;
        let body = with(
            event("Jazz Night", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
            json!({"venue": venue, "organizer": [organizer], "categories": [{"name": "Music"}], "tags": [{"name": "Late"}]}),
        );
        slug_of(&app, body).await;
        slug_of(
            &app,
            event("Book Club", "2027-03-11 19:00:00", "2027-03-11 21:00:00"),
        )
        .await;
        for path in [
            format!("/venue/{venue_slug}/"),
            format!("/organizer/{organizer_slug}/"),
            "/events/category/music/".to_string(),
            "/events/tag/late/".to_string(),
            "/tag/late/".to_string(),
        ] {
            let html = ok(&app, &path).await;
            assert!(
                html.contains("Jazz Night") && !html.contains("Book Club"),
                "{path}: {html}"
            );
        }
        assert!(
            ok(&app, &format!("/venue/{venue_slug}/"))
                .await
                .contains("2 Quay")
        );
        assert!(
            ok(&app, &format!("/organizer/{organizer_slug}/"))
                .await
                .contains(r#"<a href="tel:+33123">+33 1 23</a>"#)
        );
    }
);

both!(
    another_language_keeps_the_filters_but_never_a_password,
    |app| async move {
        slug_of(
            &app,
            event("Jazz Night", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
        )
        .await;
        let html = ok(&app, "/events/list/?search=jazz&page=1").await;
        assert!(
            html.contains("href=\"/fr/events/list/?search=jazz&#38;page=1\""),
            "{html}"
        );
        let protected = slug_of(
            &app,
            with(
                event("Tasting", "2027-03-11 19:00:00", "2027-03-11 21:00:00"),
                json!({"password": "vintage"}),
            ),
        )
        .await;
        let opened = ok(&app, &format!("/event/{protected}/?password=vintage")).await;
        assert!(!opened.contains("vintage\""), "{opened}");
        assert!(
            opened.contains(&format!("href=\"/fr/event/{protected}/\"")),
            "{opened}"
        );
    }
);

/// Venues a visitor may see ("Blue Room"), may not ("Secret Cellar", a draft), and
/// one the test trashes ("Old Barn").
async fn open_draft_and_doomed_venues(app: &TestApp) -> [i64; 3] {
    let mut ids = [0; 3];
    let bodies = [
        json!({"venue": "Blue Room"}),
        json!({"venue": "Secret Cellar", "status": "draft"}),
        json!({"venue": "Old Barn"}),
    ];
    for (id, body) in ids.iter_mut().zip(bodies) {
        *id = linked(app, "venues", body).await.0;
    }
    ids
}

both!(
    the_filters_offer_only_the_venues_and_organizers_a_visitor_may_see,
    |app| async move {
        let [room, cellar, gone] = open_draft_and_doomed_venues(&app).await;
        let (host, _) = linked(&app, "organizers", json!({"organizer": "Ann Host"})).await;
        let (hidden, _) = linked(
            &app,
            "organizers",
            json!({"organizer": "Quiet Host", "status": "private"}),
        )
        .await;
        app.delete(&format!("venues/{gone}")).await.assert(200);
        let html = ok(&app, "/events/month/2027-03/").await;
        for shown in [room, host] {
            assert!(
                html.contains(&format!(r#"<option value="{shown}""#)),
                "{shown}: {html}"
            );
        }
        for withheld in [cellar, hidden, gone] {
            assert!(
                !html.contains(&format!(r#"<option value="{withheld}""#)),
                "{withheld}: {html}"
            );
        }
        assert!(html.contains("Blue Room") && html.contains("Ann Host"));
        for name in ["Secret Cellar", "Quiet Host", "Old Barn"] {
            assert!(!html.contains(name), "{name}: {html}");
        }
    }
);

both!(
    a_days_list_names_each_events_venue_a_visitor_may_see,
    |app| async move {
        let [room, cellar, barn] = open_draft_and_doomed_venues(&app).await;
        let (host, _) = linked(&app, "organizers", json!({"organizer": "Ann Host"})).await;
        for (title, venue) in [
            ("Jazz Night", room),
            ("Cellar Set", cellar),
            ("Barn Dance", barn),
        ] {
            let body = with(
                event(title, "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
                json!({"venue": venue, "organizer": [host], "categories": [{"name": "Music"}]}),
            );
            slug_of(&app, body).await;
        }
        app.delete(&format!("venues/{barn}")).await.assert(200);
        for path in ["/events/2027-03-10/", "/events/list/"] {
            let html = ok(&app, path).await;
            for title in ["Jazz Night", "Cellar Set", "Barn Dance"] {
                assert!(html.contains(title), "{path} {title}: {html}");
            }
            // The form's choices name the venue too: the entry's own markup.
            let shown = r#"<span class="venue">Blue Room</span>"#;
            assert_eq!(html.matches(shown).count(), 1, "{path}: {html}");
            for withheld in ["Secret Cellar", "Old Barn"] {
                assert!(!html.contains(withheld), "{path} {withheld}: {html}");
            }
        }
    }
);
