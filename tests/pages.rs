//! The public calendar pages: what a visitor's browser gets at the `url` of every
//! event, venue, organizer and term, and at the calendar's views; on both backends.

mod common;

use axum::http::Method;
use common::*;
use serde_json::{Value, json};

async fn page(app: &TestApp, path: &str) -> Resp {
    let r = app.get(path).await;
    assert_eq!(
        r.header("content-type"),
        Some("text/html; charset=utf-8"),
        "{path}: {}",
        r.text
    );
    r
}

async fn ok(app: &TestApp, path: &str) -> String {
    let r = page(app, path).await;
    r.assert(200);
    r.text
}

/// Creates an event as the administrator; answers its slug.
async fn slug_of(app: &TestApp, body: Value) -> String {
    let r = app.post("events", body).await;
    r.assert(201);
    r.body["slug"].as_str().unwrap().to_string()
}

async fn linked(app: &TestApp, path: &str, body: Value) -> (i64, String) {
    let r = app.post(path, body).await;
    r.assert(201);
    (r.id(), r.body["slug"].as_str().unwrap().to_string())
}

/// A three-day event, 10 to 12 March 2027.
async fn long_festival(app: &TestApp) {
    let body = event(
        "Long Festival",
        "2027-03-10 10:00:00",
        "2027-03-12 18:00:00",
    );
    slug_of(app, body).await;
}

/// A crowded day: more events than a month cell shows.
async fn five_sessions_on_the_15th(app: &TestApp) {
    for n in 1..=5 {
        let start = format!("2027-03-15 0{n}:00:00");
        let end = format!("2027-03-15 0{n}:30:00");
        slug_of(app, event(&format!("Session {n}"), &start, &end)).await;
    }
}

async fn post_form(app: &TestApp, path: &str, form: &str) -> Resp {
    let content = "application/x-www-form-urlencoded";
    let r = app
        .call_raw(
            Method::POST,
            path,
            content,
            form.as_bytes().to_vec(),
            &Auth::None,
        )
        .await;
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    r
}

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
    the_event_page_escapes_and_links_everything,
    |app| async move {
        let (venue, venue_slug) = linked(
        &app,
        "venues",
        json!({"venue": "Town Hall", "address": "1 Main Street", "city": "Springfield", "country": "France"}),
    )
    .await;
        let (organizer, organizer_slug) = linked(
            &app,
            "organizers",
            json!({"organizer": "Ada Lovelace", "email": "ada@example.org"}),
        )
        .await;
        let body = with(
            event(
                "Rock <3 & \"Roll\"",
                "2027-03-10 19:00:00",
                "2027-03-10 21:00:00",
            ),
            json!({
                "description": "<p>Bring <strong>friends</strong></p>",
                "venue": venue, "organizer": [organizer],
                "categories": [{"name": "Music"}], "tags": [{"name": "Jazz"}],
                "cost": "15", "timezone": "Europe/Paris",
            }),
        );
        let slug = slug_of(&app, body).await;
        let html = ok(&app, &format!("/event/{slug}/")).await;
        // Titles are stored as text (tags stripped, a lone `<` kept): shown escaped.
        assert!(
            html.contains("<h1>Rock &#60;3 &#38; &#34;Roll&#34;</h1>"),
            "{html}"
        );
        assert!(!html.contains("Rock <3"), "{html}");
        assert_eq!(html.matches("<h1>").count(), 1);
        assert!(
            html.contains("<strong>friends</strong>"),
            "sanitized HTML as HTML"
        );
        assert!(
            html.contains(&format!(r#"href="/venue/{venue_slug}/""#)),
            "{html}"
        );
        assert!(html.contains("1 Main Street") && html.contains("openstreetmap.org"));
        assert!(html.contains(&format!(r#"href="/organizer/{organizer_slug}/""#)));
        assert!(html.contains("mailto:ada@example.org"));
        assert!(html.contains(r#"href="/events/category/music/""#), "{html}");
        assert!(html.contains(r#"href="/events/tag/jazz/""#), "{html}");
        assert!(html.contains("Europe/Paris"), "the zone is named: {html}");
        assert!(
            html.contains(r#"datetime="2027-03-10T19:00:00+01:00""#),
            "{html}"
        );
        assert!(html.contains(&format!("/event/{slug}/?ical=1")));
        assert!(html.contains("calendar.google.com/calendar/render?action=TEMPLATE"));
    }
);

both!(the_page_allows_no_inline_script, |app| async move {
    let slug = slug_of(
        &app,
        with(
            event("A <3 trap", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
            json!({"description": "<p>Text</p>"}),
        ),
    )
    .await;
    let r = page(&app, &format!("/event/{slug}/")).await;
    let csp = r.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.contains("default-src 'none'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(csp.contains("style-src 'self'"), "{csp}");
    let html = &r.text;
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert_eq!(
        html.matches(r#"<script type="application/ld+json">"#)
            .count(),
        1
    );
    let ld = html
        .split(r#"<script type="application/ld+json">"#)
        .nth(1)
        .unwrap();
    let ld = ld.split("</script>").next().unwrap();
    let parsed: Value = serde_json::from_str(ld).expect("JSON-LD parses");
    assert_eq!(parsed["@type"], "Event");
    assert_eq!(parsed["name"], "A <3 trap");
    assert!(
        ld.contains(r"A \u003c3 trap"),
        "no `<` in the data block: {ld}"
    );
    assert!(
        !html.contains(" style=") && !html.contains(" onclick="),
        "{html}"
    );
});

both!(hidden_events_are_html_404s, |app| async move {
    let draft = slug_of(
        &app,
        with(
            event("Secret plan", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
            json!({"status": "draft"}),
        ),
    )
    .await;
    for path in [
        format!("/event/{draft}/"),
        "/event/no-such-event/".to_string(),
        "/venue/nowhere/".into(),
        "/events/category/none/".into(),
    ] {
        let r = page(&app, &path).await;
        r.assert(404);
        assert!(
            r.text.contains("<h1>Page not found</h1>"),
            "{path}: {}",
            r.text
        );
        assert!(!r.text.contains("Secret plan"));
    }
});

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
        five_sessions_on_the_15th(&app).await;
        let html = ok(&app, "/events/month/2027-03/").await;
        assert!(
            html.contains(r#"<a class="more" href="/events/2027-03-15/">+2 more</a>"#),
            "{html}"
        );
        let day = ok(&app, "/events/2027-03-15/").await;
        assert_eq!(day.matches("Session ").count(), 5, "{day}");
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
    a_protected_event_shows_its_content_only_with_its_password,
    |app| async move {
        let slug = slug_of(
            &app,
            with(
                event(
                    "Members Meeting",
                    "2027-03-10 19:00:00",
                    "2027-03-10 21:00:00",
                ),
                json!({"password": "open sesame", "description": "<p>Room 101</p>"}),
            ),
        )
        .await;
        let path = format!("/event/{slug}/");
        let form = ok(&app, &path).await;
        assert!(
            form.contains(r#"<input type="password" id="password" name="password""#),
            "{form}"
        );
        assert!(form.contains(r#"<label for="password">"#) && !form.contains("Room 101"));
        let wrong = post_form(&app, &path, "password=guess").await;
        wrong.assert(200);
        assert!(
            wrong.text.contains("That password is not right.") && !wrong.text.contains("Room 101")
        );
        let right = post_form(&app, &path, "password=open+sesame").await;
        right.assert(200);
        assert_eq!(right.header("cache-control"), Some("private, no-store"));
        let by_link = page(&app, &format!("{path}?password=open+sesame")).await;
        assert!(by_link.text.contains("Room 101"));
        assert_eq!(by_link.header("cache-control"), Some("private, no-store"));
        assert!(
            right.text.contains("Room 101") && right.text.contains("Members Meeting"),
            "{}",
            right.text
        );
    }
);

both!(pages_speak_the_language_of_their_prefix, |app| async move {
    let slug = slug_of(
        &app,
        event("Concert", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
    )
    .await;
    let html = ok(&app, "/fr/events/").await;
    assert!(html.contains(r#"<html lang="fr">"#), "{html}");
    assert!(
        html.contains("Évènements à venir") && html.contains("mars 2027"),
        "{html}"
    );
    assert!(
        html.contains(&format!(r#"href="/fr/event/{slug}/""#)),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<link rel="alternate" hreflang="de" href="http://calendar.test/de/events/">"#
        ),
        "{html}"
    );
    let one = ok(&app, &format!("/fr/event/{slug}/")).await;
    assert!(
        one.contains("mercredi 10 mars 2027") && one.contains("Fuseau horaire"),
        "{one}"
    );
    let month = ok(&app, "/de/events/month/2027-03/").await;
    assert!(
        month.contains(r#"lang="de""#) && month.contains("Montag"),
        "{month}"
    );
    for missing in ["/es/event/nada/", "/es/venue/"] {
        let missing = page(&app, missing).await;
        missing.assert(404);
        assert!(missing.text.contains("Página no encontrada"));
    }
});

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stylesheet_is_served_and_cached_and_an_override_allowed() {
    let app = TestApp::sqlite_with(calendar_events::config::Settings {
        site_stylesheet: Some("https://brand.example.org/site.css".into()),
        ..settings()
    })
    .await;
    let html = page(&app, "/").await;
    let csp = html.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.contains("style-src 'self' https://brand.example.org;"),
        "{csp}"
    );
    assert!(
        html.text
            .contains(r#"<link rel="stylesheet" href="https://brand.example.org/site.css">"#)
    );
    let href = html
        .text
        .split(r#"<link rel="stylesheet" href=""#)
        .nth(1)
        .unwrap();
    let href = href.split('"').next().unwrap();
    assert!(href.starts_with("/assets/calendar.css?v="), "{href}");
    let css = app.get(href).await;
    css.assert(200);
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    assert!(
        css.header("cache-control")
            .unwrap_or_default()
            .contains("max-age=31536000")
    );
    assert!(css.text.contains("table.month"));
}

both!(a_cached_page_follows_every_write, |app| async move {
    let first = ok(&app, "/events/").await;
    assert!(!first.contains("Brand New Show"));
    let again = page(&app, "/events/").await;
    let etag = again
        .header("etag")
        .expect("a page has an ETag")
        .to_string();
    let headers = [("if-none-match", etag.as_str())];
    let unchanged = app
        .call_with(Method::GET, "/events/", None, &Auth::None, &headers)
        .await;
    unchanged.assert(304);
    slug_of(
        &app,
        event(
            "Brand New Show",
            "2027-03-10 19:00:00",
            "2027-03-10 21:00:00",
        ),
    )
    .await;
    assert!(ok(&app, "/events/").await.contains("Brand New Show"));
    let changed = app
        .call_with(Method::GET, "/events/", None, &Auth::None, &headers)
        .await;
    changed.assert(200);
});

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_month_busier_than_one_list_is_read_day_by_day() {
    // 102 events in the grid, more than it reads as one list (100), with a feed
    // bound that would take them all: every day still shows its first three and
    // its own count.
    let app = TestApp::sqlite_with(calendar_events::config::Settings {
        feed_max_events: 1000,
        ..settings()
    })
    .await;
    five_sessions_on_the_15th(&app).await;
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
    assert_eq!(html.matches("Session ").count(), 3, "{html}");
    assert_eq!(html.matches("Stall ").count(), 3, "{html}");
    assert_eq!(
        html.matches(r#"href="/event/late-fair/""#).count(),
        2,
        "{html}"
    );
}

both!(
    a_scheduled_event_goes_live_on_the_pages_by_itself,
    |app| async move {
        let live_at = (chrono::Utc::now() + chrono::Duration::seconds(2))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let slug = slug_of(
            &app,
            with(
                event("Premiere", "2027-06-10 20:00:00", "2027-06-10 22:00:00"),
                json!({"status": "future", "date_utc": live_at}),
            ),
        )
        .await;
        let path = format!("/event/{slug}/");
        page(&app, &path).await.assert(404);
        assert!(!ok(&app, "/events/list/").await.contains("Premiere"));
        tokio::time::sleep(std::time::Duration::from_millis(2300)).await;
        // Only pages are asked: nothing else makes the post go live.
        assert!(ok(&app, &path).await.contains("Premiere"));
        assert!(ok(&app, "/events/list/").await.contains("Premiere"));
    }
);

both!(
    titles_with_entities_read_as_their_characters,
    |app| async move {
        // As The Events Calendar's API hands titles out, and `import tec` keeps them.
        let slug = slug_of(
            &app,
            event(
                "New Year&#8217;s Day &amp; Night",
                "2027-01-01 10:00:00",
                "2027-01-01 23:00:00",
            ),
        )
        .await;
        let html = ok(&app, &format!("/event/{slug}/")).await;
        assert!(
            html.contains("<h1>New Year\u{2019}s Day &#38; Night</h1>"),
            "{html}"
        );
        assert!(!html.contains("&amp;#8217;"), "{html}");
        let list = ok(&app, "/events/month/2027-01/").await;
        assert!(list.contains("New Year\u{2019}s Day &#38; Night"), "{list}");
        let feed = app.get(&format!("/event/{slug}/?ical=1")).await;
        assert!(
            feed.text
                .contains("SUMMARY:New Year\u{2019}s Day & Night\r\n"),
            "{}",
            feed.text
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
    }
);
