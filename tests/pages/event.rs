//! An event's page: escaping, scripts, hidden and protected events, titles, scheduled posts, the cache, the stylesheet and languages.

use super::*;

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
