//! iCalendar feeds: every event list and every event as `text/calendar`, by
//! `?ical=1`, by `Accept`, and at the reference's page URLs; on both backends.

mod common;

use axum::http::Method;
use common::*;
use serde_json::json;

/// The content lines of a calendar, unfolded, after checking the wire form:
/// CRLF line ends only, and no line longer than 75 octets.
fn lines(text: &str) -> Vec<String> {
    assert!(text.ends_with("\r\n"), "{text}");
    let mut out: Vec<String> = Vec::new();
    for line in text.trim_end_matches("\r\n").split("\r\n") {
        assert!(
            !line.contains('\n') && !line.contains('\r'),
            "bare line break in {line:?}"
        );
        assert!(line.len() <= 75, "{} octets: {line}", line.len());
        match line.strip_prefix(' ') {
            Some(rest) => out.last_mut().expect("a folded first line").push_str(rest),
            None => out.push(line.to_string()),
        }
    }
    out
}

/// The `VEVENT`s, each as its lines.
fn vevents(lines: &[String]) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for l in lines {
        match l.as_str() {
            "BEGIN:VEVENT" => current = Some(Vec::new()),
            "END:VEVENT" => all.push(current.take().expect("BEGIN before END")),
            _ => {
                if let Some(c) = current.as_mut() {
                    c.push(l.clone());
                }
            }
        }
    }
    all
}

/// The value of the first property named `name` (with any parameters).
fn prop<'a>(lines: &'a [String], name: &str) -> Option<&'a str> {
    lines.iter().find_map(|l| {
        let rest = l.strip_prefix(name)?;
        match rest.as_bytes().first() {
            Some(b':') => Some(&rest[1..]),
            Some(b';') => rest.split_once(':').map(|(_, v)| v),
            _ => None,
        }
    })
}

/// The whole line of the first property named `name`.
fn line<'a>(lines: &'a [String], name: &str) -> Option<&'a str> {
    lines
        .iter()
        .find(|l| l.starts_with(&format!("{name}:")) || l.starts_with(&format!("{name};")))
        .map(String::as_str)
}

fn by_summary<'a>(events: &'a [Vec<String>], summary: &str) -> Option<&'a Vec<String>> {
    events.iter().find(|e| prop(e, "SUMMARY") == Some(summary))
}

fn summaries(text: &str) -> Vec<String> {
    vevents(&lines(text))
        .iter()
        .map(|e| prop(e, "SUMMARY").unwrap_or_default().to_string())
        .collect()
}

async fn get_with_accept(app: &TestApp, path: &str, accept: &str) -> Resp {
    app.call_with(Method::GET, path, None, &Auth::None, &[("accept", accept)])
        .await
}

/// An evening in Paris across the spring change of 2027 (02:00 → 03:00 on 28 March).
fn across_the_change() -> serde_json::Value {
    with(
        event(
            "Night, across the change",
            "2027-03-27 23:00:00",
            "2027-03-28 04:00:00",
        ),
        json!({
            "timezone": "Europe/Paris",
            "description": "<p>Music; dancing, <b>all night</b>.</p><p>Details: <a href=\"https://example.org/night\">here</a></p>",
            "venue": {"venue": "Salle Pleyel", "address": "252 Rue du Faubourg Saint-Honoré", "city": "Paris", "country": "France"},
            "organizer": [{"organizer": "Night Owls", "email": "owls@example.org"}],
            "categories": [{"name": "Music"}],
        }),
    )
}

both!(
    a_list_is_a_calendar_of_what_the_caller_may_see,
    |app| async move {
        let night = app.event(across_the_change()).await;
        app.event(with(
            event("New Year", "2027-01-01 00:00:00", "2027-01-02 23:59:59"),
            json!({"all_day": true}),
        ))
        .await;
        app.event(with(
        event("Secret", "2027-02-01 10:00:00", "2027-02-01 11:00:00"),
        json!({"password": "pw", "description": "the hidden plan", "venue": {"venue": "Hideout"}}),
    ))
    .await;
        app.event(with(
            event("Draft", "2027-02-02 10:00:00", "2027-02-02 11:00:00"),
            json!({"status": "draft"}),
        ))
        .await;

        let path = "events?ical=1&start_date=2027-01-01&end_date=2027-12-31";
        let resp = app.get(path).await;
        resp.assert(200);
        let text = resp.text.clone();
        assert_eq!(
            resp.header("content-type"),
            Some("text/calendar; charset=utf-8")
        );
        assert_eq!(resp.header("x-wp-total"), Some("3"));
        let all = lines(&text);
        assert_eq!(all.first().map(String::as_str), Some("BEGIN:VCALENDAR"));
        assert_eq!(all.last().map(String::as_str), Some("END:VCALENDAR"));
        assert_eq!(prop(&all, "VERSION"), Some("2.0"));
        assert_eq!(prop(&all, "METHOD"), Some("PUBLISH"));
        assert!(prop(&all, "PRODID").is_some_and(|p| p.contains("calendar-events")));
        assert_eq!(prop(&all, "X-WR-CALNAME"), Some("Test calendar"));
        assert_eq!(prop(&all, "X-WR-CALDESC"), Some("Events\\, for tests"));
        assert_eq!(prop(&all, "X-WR-TIMEZONE"), Some("UTC"));
        // Paris's zone with its real change on 28 March 2027, at 02:00 local.
        assert!(all.iter().any(|l| l == "TZID:Europe/Paris"));
        let daylight = all
            .iter()
            .position(|l| l == "BEGIN:DAYLIGHT")
            .expect("a DAYLIGHT observance");
        assert_eq!(all[daylight + 1], "DTSTART:20270328T020000");
        assert_eq!(all[daylight + 2], "TZOFFSETFROM:+0100");
        assert_eq!(all[daylight + 3], "TZOFFSETTO:+0200");
        // No UID or DTSTAMP outside events.
        let first_event = all.iter().position(|l| l == "BEGIN:VEVENT").unwrap();
        assert!(
            !all[..first_event]
                .iter()
                .any(|l| l.starts_with("UID") || l.starts_with("DTSTAMP"))
        );

        let events = vevents(&all);
        assert_eq!(events.len(), 3, "{text}");
        assert!(
            by_summary(&events, "Draft").is_none(),
            "a draft shown to a visitor"
        );

        let e = by_summary(&events, "Night\\, across the change").expect("the Paris event");
        assert_eq!(
            prop(e, "UID"),
            Some(format!("{night}@calendar.test").as_str())
        );
        assert_eq!(
            line(e, "DTSTART"),
            Some("DTSTART;TZID=Europe/Paris:20270327T230000")
        );
        assert_eq!(
            line(e, "DTEND"),
            Some("DTEND;TZID=Europe/Paris:20270328T040000")
        );
        // The same instants as the JSON representation gives, across the change.
        let json = app.get(&format!("events/{night}")).await;
        json.assert(200);
        assert_eq!(json.body["utc_start_date"], "2027-03-27 22:00:00");
        assert_eq!(json.body["utc_end_date"], "2027-03-28 02:00:00");
        assert_eq!(prop(e, "STATUS"), Some("CONFIRMED"));
        assert_eq!(
            prop(e, "URL"),
            Some("http://calendar.test/event/night-across-the-change/")
        );
        let description = prop(e, "DESCRIPTION").expect("a description");
        assert!(
            description
                == "Music\\; dancing\\, all night.\\n\\nDetails: here (https://example.org/night)",
            "{description}"
        );
        assert!(
            description.contains("https://example.org/night"),
            "{description}"
        );
        assert_eq!(
            prop(e, "LOCATION"),
            Some("Salle Pleyel\\, 252 Rue du Faubourg Saint-Honoré\\, Paris\\, France")
        );
        assert_eq!(
            line(e, "ORGANIZER"),
            Some("ORGANIZER;CN=\"Night Owls\":mailto:owls@example.org")
        );
        assert_eq!(prop(e, "CATEGORIES"), Some("Music"));
        for name in ["DTSTAMP", "CREATED", "LAST-MODIFIED", "SEQUENCE"] {
            assert!(prop(e, name).is_some(), "{name} missing");
        }

        let new_year = by_summary(&events, "New Year").expect("the all-day event");
        assert_eq!(
            line(new_year, "DTSTART"),
            Some("DTSTART;VALUE=DATE:20270101")
        );
        assert_eq!(line(new_year, "DTEND"), Some("DTEND;VALUE=DATE:20270103"));

        let secret = by_summary(&events, "Secret").expect("the protected event, listed");
        for hidden in ["DESCRIPTION", "LOCATION", "CATEGORIES", "ORGANIZER"] {
            assert!(
                prop(secret, hidden).is_none(),
                "{hidden} of a protected event shown"
            );
        }
        assert!(!text.contains("hidden plan") && !text.contains("Hideout"));

        // The administrator's drafts, as in the JSON list.
        let drafts = app
            .get_as(
                "events?ical=1&start_date=2027-01-01&status=draft",
                &app.admin.auth(),
            )
            .await;
        drafts.assert(200);
        let events = vevents(&lines(&drafts.text));
        assert_eq!(events.len(), 1);
        assert_eq!(prop(&events[0], "STATUS"), Some("TENTATIVE"));
    }
);

both!(accept_and_ical_answer_the_same_calendar, |app| async move {
    let id = app.event(across_the_change()).await;
    let by_param = app.get("events?ical=1&start_date=2027-01-01").await;
    by_param.assert(200);
    let by_accept = get_with_accept(
        &app,
        &format!("{API}/events?start_date=2027-01-01"),
        "text/calendar",
    )
    .await;
    by_accept.assert(200);
    assert_eq!(
        by_accept.header("content-type"),
        Some("text/calendar; charset=utf-8")
    );
    assert_eq!(by_param.text, by_accept.text);
    // JSON stays the default, and caches learn the answer depends on Accept.
    let plain = app.get("events?start_date=2027-01-01").await;
    assert!(
        plain
            .header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(plain.header("vary"), Some("Accept"));
    assert_eq!(by_accept.header("vary"), Some("Accept"));

    let one = get_with_accept(&app, &format!("{API}/events/{id}"), "text/calendar").await;
    one.assert(200);
    assert_eq!(summaries(&one.text), vec!["Night\\, across the change"]);
    let page = app.get("/event/night-across-the-change/?ical=1").await;
    page.assert(200);
    assert_eq!(page.text, one.text);
    let by_slug = app
        .get("events/by-slug/night-across-the-change?ical=1")
        .await;
    assert_eq!(by_slug.text, one.text);
});

both!(hidden_events_are_not_found_as_calendars, |app| async move {
    let draft = app
        .event(with(
            event("Draft", "2027-02-02 10:00:00", "2027-02-02 11:00:00"),
            json!({"status": "draft"}),
        ))
        .await;
    for path in [
        format!("{API}/events/{draft}?ical=1"),
        "/event/draft/?ical=1".to_string(),
    ] {
        let r = app.get(&path).await;
        assert!(r.status.is_client_error(), "{path}: {}", r.status);
        assert!(
            r.header("content-type")
                .unwrap()
                .starts_with("application/json"),
            "{path}"
        );
        assert!(!r.text.contains("Draft"));
    }
    let as_admin = app
        .get_as(&format!("events/{draft}?ical=1"), &app.admin.auth())
        .await;
    as_admin.assert(200);
    assert_eq!(summaries(&as_admin.text), vec!["Draft"]);
});

both!(
    the_reference_page_urls_answer_their_feeds,
    |app| async move {
        app.event(across_the_change()).await;
        app.event(with(
            event("New Year", "2027-01-01 00:00:00", "2027-01-02 23:59:59"),
            json!({"all_day": true, "tags": [{"name": "holiday"}]}),
        ))
        .await;
        let upcoming = app.get("events?ical=1").await;
        upcoming.assert(200);
        for path in [
            "/?ical=1",
            "/events/?ical=1",
            "/events/list/?ical=1",
            "/events/ical/",
            "/fr/events/?ical=1",
        ] {
            let r = app.get(path).await;
            r.assert(200);
            assert_eq!(summaries(&r.text), summaries(&upcoming.text), "{path}");
        }
        let cases = [
            (
                "/events/list/?ical=1&tribe-bar-date=2027-01-03",
                vec!["Night\\, across the change"],
            ),
            (
                "/events/month/?ical=1&tribe-bar-date=2027-03",
                vec!["Night\\, across the change"],
            ),
            (
                "/events/month/?ical=1&tribe-bar-date=2027-01",
                vec!["New Year"],
            ),
            // A day shows what runs on it, not only what starts on it.
            ("/events/2027-01-02/ical/", vec!["New Year"]),
            (
                "/events/2027-03-28/ical/",
                vec!["Night\\, across the change"],
            ),
            ("/events/day/?ical=1&tribe-bar-date=2027-03-29", vec![]),
            (
                "/events/category/music/?ical=1",
                vec!["Night\\, across the change"],
            ),
            ("/events/tag/holiday/?ical=1", vec!["New Year"]),
            ("/events/?ical=1&tribe-bar-search=year", vec!["New Year"]),
        ];
        for (path, expected) in cases {
            let r = app.get(path).await;
            r.assert(200);
            assert_eq!(summaries(&r.text), expected, "{path}");
        }
        let outlook = app
            .get("/events/month/?outlook-ical=1&tribe-bar-date=2027-03")
            .await;
        outlook.assert(200);
        assert!(!outlook.text.contains("X-WR-CALNAME"));
        assert_eq!(summaries(&outlook.text), vec!["Night\\, across the change"]);
        // Without a feed asked for, the URL is the calendar page (tests/pages/).
        let page = app.get("/events/").await;
        page.assert(200);
        assert_eq!(
            page.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        app.get("/events/2027-13-45/ical/")
            .await
            .assert_error(404, "rest_no_route");
    }
);

both!(a_cached_feed_follows_every_write, |app| async move {
    let id = app
        .event(event("First", "2027-05-01 10:00:00", "2027-05-01 11:00:00"))
        .await;
    let path = "/events/?ical=1";
    assert_eq!(summaries(&app.get(path).await.text), vec!["First"]);
    assert_eq!(summaries(&app.get(path).await.text), vec!["First"]);
    app.event(event(
        "Second",
        "2027-05-02 10:00:00",
        "2027-05-02 11:00:00",
    ))
    .await;
    assert_eq!(
        summaries(&app.get(path).await.text),
        vec!["First", "Second"]
    );
    app.put(&format!("events/{id}"), json!({"title": "First, renamed"}))
        .await
        .assert(200);
    assert_eq!(
        summaries(&app.get(path).await.text),
        vec!["First\\, renamed", "Second"]
    );
    app.delete(&format!("events/{id}")).await.assert(200);
    assert_eq!(summaries(&app.get(path).await.text), vec!["Second"]);
});

async fn cut_feed(app: TestApp) {
    for day in 1..=3 {
        app.event(event(
            &format!("Day {day}"),
            &format!("2027-06-0{day} 10:00:00"),
            &format!("2027-06-0{day} 11:00:00"),
        ))
        .await;
    }
    let r = app.get("events?ical=1&per_page=1&page=2").await;
    r.assert(200);
    // Not one page: the window, up to the configured most events, earliest first.
    assert_eq!(summaries(&r.text), vec!["Day 1", "Day 2"]);
    assert_eq!(r.header("x-wp-total"), Some("3"));
    assert_eq!(
        prop(&lines(&r.text), "X-CALENDAR-EVENTS-CUT"),
        Some("2 of 3 events\\; narrow the window with start_date and end_date")
    );
    let whole = app.get("events?ical=1&start_date=2027-06-02").await;
    assert_eq!(summaries(&whole.text), vec!["Day 2", "Day 3"]);
    assert!(!whole.text.contains("X-CALENDAR-EVENTS-CUT"));
}

fn two_at_most() -> calendar_events::config::Settings {
    calendar_events::config::Settings {
        feed_max_events: 2,
        ..settings()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_longer_than_the_maximum_is_cut_and_says_so_sqlite() {
    cut_feed(TestApp::sqlite_with(two_at_most()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_longer_than_the_maximum_is_cut_and_says_so_postgres() {
    if let Some(app) = TestApp::postgres_with(two_at_most()).await {
        cut_feed(app).await;
    }
}

both!(sequence_counts_every_edit, |app| async move {
    let id = app
        .event(event(
            "Counted",
            "2027-05-01 10:00:00",
            "2027-05-01 11:00:00",
        ))
        .await;
    let sequence = || async {
        let r = app.get(&format!("events/{id}?ical=1")).await;
        r.assert(200);
        let all = lines(&r.text);
        prop(&vevents(&all)[0], "SEQUENCE").unwrap().to_string()
    };
    assert_eq!(sequence().await, "0");
    // Two edits within one second are two edits.
    app.put(&format!("events/{id}"), json!({"title": "Counted once"}))
        .await
        .assert(200);
    app.put(&format!("events/{id}"), json!({"title": "Counted twice"}))
        .await
        .assert(200);
    assert_eq!(sequence().await, "2");
});

both!(
    a_month_feed_holds_what_started_before_it_and_runs_into_it,
    |app| async move {
        // Twelve days, from February into March; and one that ended in February.
        app.event(event(
            "Residency",
            "2027-02-20 10:00:00",
            "2027-03-03 18:00:00",
        ))
        .await;
        app.event(event("Short", "2027-02-26 10:00:00", "2027-02-26 12:00:00"))
            .await;
        let march = app
            .get("/events/month/?ical=1&tribe-bar-date=2027-03")
            .await;
        march.assert(200);
        assert_eq!(summaries(&march.text), vec!["Residency"]);
        let day = app.get("/events/2027-03-02/ical/").await;
        assert_eq!(summaries(&day.text), vec!["Residency"]);
        let after = app.get("/events/2027-03-04/ical/").await;
        assert!(summaries(&after.text).is_empty(), "{}", after.text);
    }
);
