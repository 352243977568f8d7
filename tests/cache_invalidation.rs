//! A write drops only the cached answers it can change.
//!
//! Each test caches anonymous answers, then renames events behind the server's back
//! (no data version moves), then writes through the API: an answer that still shows
//! the old title was kept; one that shows the new title was computed again.

mod common;

use axum::http::Method;
use common::*;
use serde_json::{Value, json};

const JUNE_2030: &str = "events?start_date=2030-06-01&end_date=2030-06-30";

fn title(v: &Value) -> &str {
    v["title"].as_str().unwrap_or_default()
}

fn titles_of(list: &Resp) -> Vec<String> {
    list.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| title(e).to_string())
        .collect()
}

/// What the server answers now for an event's title, a venue's name, a term's count.
async fn event_title(app: &TestApp, id: i64) -> String {
    title(&app.get(&format!("events/{id}")).await.body).to_string()
}

async fn venue_name(app: &TestApp, id: i64) -> Value {
    app.get(&format!("venues/{id}")).await.body["venue"].clone()
}

async fn term_count(app: &TestApp, id: i64) -> Value {
    app.get(&format!("categories/{id}")).await.body["count"].clone()
}

async fn category(app: &TestApp, name: &str) -> i64 {
    app.post("categories", json!({"name": name})).await.id()
}

async fn event_in(app: &TestApp, title: &str, day: &str, categories: &[i64]) -> i64 {
    event_with(app, title, day, json!({"categories": categories})).await
}

/// A published event on `day`, with these fields besides.
async fn event_with(app: &TestApp, title: &str, day: &str, fields: Value) -> i64 {
    let base = json!({
        "title": title,
        "start_date": format!("{day} 10:00:00"),
        "end_date": format!("{day} 12:00:00"),
        "status": "publish",
    });
    app.event(with(base, fields)).await
}

async fn rename_behind_the_servers_back(app: &TestApp, ids: &[i64]) {
    for id in ids {
        app.behind_the_servers_back(&format!(
            "UPDATE posts SET title = 'Renamed ' || title WHERE id = {id}"
        ))
        .await;
    }
}

both!(
    an_event_write_keeps_answers_about_other_events_and_other_dates,
    |app| async move {
        let (music, sports, film) = (
            category(&app, "Music").await,
            category(&app, "Sports").await,
            category(&app, "Film").await,
        );
        let a = event_in(&app, "A", "2030-06-10", &[music]).await;
        let b = event_in(&app, "B", "2030-06-20", &[sports]).await;
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        // Cached: two events, a month, a venue, a category.
        assert_eq!(event_title(&app, a).await, "A");
        assert_eq!(event_title(&app, b).await, "B");
        assert_eq!(titles_of(&app.get(JUNE_2030).await), ["A", "B"]);
        assert_eq!(venue_name(&app, venue).await, "Hall");
        assert_eq!(term_count(&app, music).await, 1);
        rename_behind_the_servers_back(&app, &[a, b]).await;
        app.behind_the_servers_back(&format!(
            "UPDATE posts SET title = 'Renamed Hall' WHERE id = {venue}"
        ))
        .await;

        // An event in another year and another category: nothing above can change.
        event_in(&app, "C", "2041-01-01", &[film]).await;
        assert_eq!(event_title(&app, a).await, "A");
        assert_eq!(titles_of(&app.get(JUNE_2030).await), ["A", "B"]);
        assert_eq!(venue_name(&app, venue).await, "Hall");
        assert_eq!(term_count(&app, music).await, 1);

        // One in June 2030: the month is computed again, the events by ID are kept.
        let d = event_in(&app, "D", "2030-06-15", &[film]).await;
        assert_eq!(
            titles_of(&app.get(JUNE_2030).await),
            ["Renamed A", "D", "Renamed B"]
        );
        assert_eq!(app.get(JUNE_2030).await.header("x-wp-total"), Some("3"));
        assert_eq!(event_title(&app, a).await, "A");

        // One in Music, in another year: A is kept, and shows Music's new count.
        event_in(&app, "E", "2042-01-01", &[music]).await;
        let shown = app.get(&format!("events/{a}")).await.body;
        assert_eq!(title(&shown), "A");
        assert_eq!(shown["categories"][0]["count"], 2);
        assert_eq!(term_count(&app, music).await, 2);
        let month = app.get(JUNE_2030).await;
        assert_eq!(
            month.body["events"][0]["categories"][0]["count"], 2,
            "{:?}",
            month.body
        );

        // The count moves again: the kept answer is filled once more, and its tag
        // follows what it shows.
        let before = app.get(&format!("events/{a}")).await;
        event_in(&app, "F", "2043-01-01", &[music]).await;
        let after = app.get(&format!("events/{a}")).await;
        assert_eq!(title(&after.body), "A");
        assert_eq!(after.body["categories"][0]["count"], 3);
        let tag = after.header("etag").expect("a tag").to_string();
        assert_ne!(before.header("etag"), Some(tag.as_str()));
        let path = format!("events/{a}");
        let unchanged = app
            .call_with(
                Method::GET,
                &path,
                None,
                &Auth::None,
                &[("if-none-match", &tag)],
            )
            .await;
        unchanged.assert(304);

        // B itself is written: its answers are computed again, the venue is still kept.
        app.post(&format!("events/{b}"), json!({"excerpt": "new"}))
            .await
            .assert(200);
        assert_eq!(event_title(&app, b).await, "Renamed B");
        assert_eq!(venue_name(&app, venue).await, "Hall");

        // Trashing D leaves the month without it.
        app.delete(&format!("events/{d}")).await.assert(200);
        assert_eq!(
            titles_of(&app.get(JUNE_2030).await),
            ["Renamed A", "Renamed B"]
        );

        // A write of anything else (a venue) drops everything.
        app.post("venues", json!({"venue": "Other"}))
            .await
            .assert(201);
        assert_eq!(venue_name(&app, venue).await, "Renamed Hall");
    }
);

both!(
    an_event_moved_to_another_date_leaves_both_windows,
    |app| async move {
        let a = event_in(&app, "A", "2030-06-10", &[]).await;
        let july = "events?start_date=2030-07-01&end_date=2030-07-31";
        assert_eq!(titles_of(&app.get(JUNE_2030).await), ["A"]);
        assert!(titles_of(&app.get(july).await).is_empty());
        app.post(
            &format!("events/{a}"),
            json!({"start_date": "2030-07-10 10:00:00", "end_date": "2030-07-10 12:00:00"}),
        )
        .await
        .assert(200);
        assert!(titles_of(&app.get(JUNE_2030).await).is_empty());
        assert_eq!(titles_of(&app.get(july).await), ["A"]);
    }
);

both!(
    a_list_of_categories_or_tags_is_reached_only_by_events_it_could_hold,
    |app| async move {
        let (music, jazz, film) = (
            category(&app, "Music").await,
            category(&app, "Jazz").await,
            category(&app, "Film").await,
        );
        app.post(&format!("categories/{jazz}"), json!({"parent": music}))
            .await
            .assert(200);
        let live = app.post("tags", json!({"name": "live"})).await.id();
        let a = event_in(&app, "A", "2030-06-10", &[music]).await;
        let music_in_june = format!("{JUNE_2030}&categories={music}");
        let live_music = format!("{music_in_june}&tags={live}");
        assert_eq!(titles_of(&app.get(&music_in_june).await), ["A"]);
        assert!(titles_of(&app.get(&live_music).await).is_empty());
        rename_behind_the_servers_back(&app, &[a]).await;

        // Film, in June: neither list could hold it.
        let f = event_in(&app, "F", "2030-06-12", &[film]).await;
        assert_eq!(titles_of(&app.get(&music_in_june).await), ["A"]);
        assert!(titles_of(&app.get(&live_music).await).is_empty());

        // Jazz is below Music: Music's list holds its events.
        event_in(&app, "J", "2030-06-14", &[jazz]).await;
        let music = app.get(&music_in_june).await;
        assert_eq!(titles_of(&music), ["Renamed A", "J"]);
        assert_eq!(music.header("x-wp-total"), Some("2"));
        assert!(
            titles_of(&app.get(&live_music).await).is_empty(),
            "J has no tag live: kept"
        );

        // F moves into Music: both of its states count, the one after reaches the list.
        app.post(
            &format!("events/{f}"),
            json!({"categories": [jazz], "tags": [live]}),
        )
        .await
        .assert(200);
        assert_eq!(titles_of(&app.get(&live_music).await), ["F"]);
        assert_eq!(
            titles_of(&app.get(&music_in_june).await),
            ["Renamed A", "F", "J"]
        );

        // And out again: the state before reaches it.
        app.post(
            &format!("events/{f}"),
            json!({"categories": [film], "tags": []}),
        )
        .await
        .assert(200);
        assert!(titles_of(&app.get(&live_music).await).is_empty());
        assert_eq!(
            titles_of(&app.get(&music_in_june).await),
            ["Renamed A", "J"]
        );

        // Trashing an event of the category reaches its list.
        app.delete(&format!("events/{a}")).await.assert(200);
        assert_eq!(titles_of(&app.get(&music_in_june).await), ["J"]);
    }
);

both!(
    a_search_is_reached_only_by_events_whose_text_holds_its_words,
    |app| async move {
        let jazz_in_june = format!("{JUNE_2030}&search=jazz");
        let a = event_in(&app, "Jazz night", "2030-06-10", &[]).await;
        assert_eq!(titles_of(&app.get(&jazz_in_june).await), ["Jazz night"]);
        rename_behind_the_servers_back(&app, &[a]).await;

        // No "jazz" in its text: the search is kept.
        let folk = event_in(&app, "Folk evening", "2030-06-12", &[]).await;
        assert_eq!(titles_of(&app.get(&jazz_in_june).await), ["Jazz night"]);

        // In a word of its description ("jazzy"): reached.
        let description = json!({"description": "<p>Live JAZZY tunes</p>"});
        event_with(&app, "Evening", "2030-06-14", description).await;
        assert_eq!(
            titles_of(&app.get(&jazz_in_june).await),
            ["Renamed Jazz night", "Evening"]
        );

        // An update that brings the word in, then one that takes it out: the text
        // after reaches the search, then the text before.
        app.post(
            &format!("events/{folk}"),
            json!({"excerpt": "now with jazz"}),
        )
        .await
        .assert(200);
        assert_eq!(
            titles_of(&app.get(&jazz_in_june).await),
            ["Renamed Jazz night", "Folk evening", "Evening"]
        );
        app.post(&format!("events/{folk}"), json!({"excerpt": ""}))
            .await
            .assert(200);
        assert_eq!(
            titles_of(&app.get(&jazz_in_june).await),
            ["Renamed Jazz night", "Evening"]
        );
    }
);

both!(
    a_search_cached_before_a_write_answers_as_the_database_does_after,
    |app| async move {
        // Lower-casing differs between Rust, SQLite and PostgreSQL on these: the
        // cached answer must still be what the database finds now.
        let searches = [
            "istanbul",
            "i\u{307}stanbul",
            "οδοσ",
            "οδος",
            "straße",
            "kelvin",
        ];
        let path = |word: &str| format!("{JUNE_2030}&search={}", percent_encoded(word));
        for word in searches {
            assert!(titles_of(&app.get(&path(word)).await).is_empty());
        }
        for title in [
            "İSTANBUL NIGHTS",
            "ΟΔΟΣ",
            "STRASSE Straße",
            "\u{212A}ELVIN scale",
        ] {
            event_in(&app, title, "2030-06-10", &[]).await;
        }
        for word in searches {
            let cached = titles_of(&app.get(&path(word)).await);
            let fresh = titles_of(&app.get_as(&path(word), &app.admin.auth()).await);
            assert_eq!(cached, fresh, "search={word}");
        }
    }
);

fn percent_encoded(word: &str) -> String {
    word.bytes().map(|b| format!("%{b:02X}")).collect()
}

both!(
    a_list_of_a_venue_or_organizer_is_reached_only_by_events_linked_to_it,
    |app| async move {
        let hall = app.post("venues", json!({"venue": "Hall"})).await.id();
        let park = app.post("venues", json!({"venue": "Park"})).await.id();
        let ann = app
            .post("organizers", json!({"organizer": "Ann"}))
            .await
            .id();
        let a = event_with(&app, "A", "2030-06-10", json!({"venue": hall})).await;
        let at_hall = format!("{JUNE_2030}&venue={hall}");
        let by_ann = format!("{JUNE_2030}&organizer={ann}");
        assert_eq!(titles_of(&app.get(&at_hall).await), ["A"]);
        assert!(titles_of(&app.get(&by_ann).await).is_empty());
        rename_behind_the_servers_back(&app, &[a]).await;

        // At the park, by nobody: neither list could hold it.
        let p = event_with(&app, "P", "2030-06-12", json!({"venue": park})).await;
        assert_eq!(titles_of(&app.get(&at_hall).await), ["A"]);
        assert!(titles_of(&app.get(&by_ann).await).is_empty());

        // P moves to the hall, with Ann: both lists are reached by its state after.
        app.post(
            &format!("events/{p}"),
            json!({"venue": hall, "organizer": [ann]}),
        )
        .await
        .assert(200);
        assert_eq!(titles_of(&app.get(&at_hall).await), ["Renamed A", "P"]);
        assert_eq!(titles_of(&app.get(&by_ann).await), ["P"]);

        // And back to the park without Ann: by its state before.
        app.post(
            &format!("events/{p}"),
            json!({"venue": park, "organizer": []}),
        )
        .await
        .assert(200);
        assert_eq!(titles_of(&app.get(&at_hall).await), ["Renamed A"]);
        assert!(titles_of(&app.get(&by_ann).await).is_empty());

        // Trashing the hall's event reaches the hall's list.
        app.delete(&format!("events/{a}")).await.assert(200);
        assert!(titles_of(&app.get(&at_hall).await).is_empty());
    }
);

both!(venues_with_events_follow_event_writes, |app| async move {
    let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
    let with_events = "venues?has_events=1";
    assert_eq!(app.get(with_events).await.header("x-wp-total"), Some("0"));
    app.event(json!({
        "title": "At the hall",
        "start_date": "2030-06-10 10:00:00",
        "end_date": "2030-06-10 12:00:00",
        "status": "publish",
        "venue": venue,
    }))
    .await;
    assert_eq!(app.get(with_events).await.header("x-wp-total"), Some("1"));
});

both!(
    an_event_that_changes_terms_reaches_the_term_lists,
    |app| async move {
        let (music, film) = (category(&app, "Music").await, category(&app, "Film").await);
        let a = event_in(&app, "A", "2030-06-10", &[music]).await;
        let of_a = format!("categories?post={a}");
        let listed = |r: &Resp| r.body["categories"].as_array().map_or(0, Vec::len);
        assert_eq!(listed(&app.get(&of_a).await), 1);
        assert_eq!(listed(&app.get("categories").await), 1, "Film is empty");
        app.post(&format!("events/{a}"), json!({"categories": [music, film]}))
            .await
            .assert(200);
        assert_eq!(listed(&app.get(&of_a).await), 2);
        assert_eq!(listed(&app.get("categories").await), 2);
    }
);

/// An anonymous GET of `uri` on another instance's router, as JSON.
async fn get_on(instance: axum::Router, uri: String) -> Value {
    let req = axum::http::Request::builder()
        .uri(uri)
        .body(axum::body::Body::empty())
        .unwrap();
    let resp = tower::ServiceExt::oneshot(instance, req).await.unwrap();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Instance B caches an answer about event A and one about event B; a write of A on
/// instance A reaches B's cache through the shared record of changes, and leaves
/// its answer about event B.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_instance_drops_exactly_what_a_write_changed() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let Some(b) = a.second_instance().await else {
        return;
    };
    let first = event_in(&a, "First", "2030-06-10", &[]).await;
    let second = event_in(&a, "Second", "2031-06-10", &[]).await;
    let read_b = |id: i64| {
        let b = b.clone();
        async move {
            let v = get_on(b, format!("{API}/events/{id}")).await;
            v["title"].as_str().unwrap().to_string()
        }
    };
    assert_eq!(read_b(first).await, "First");
    assert_eq!(read_b(second).await, "Second");
    rename_behind_the_servers_back(&a, &[second]).await;
    a.post(
        &format!("events/{first}"),
        json!({"title": "First, changed"}),
    )
    .await
    .assert(200);
    assert_eq!(read_b(first).await, "First, changed", "no stale read on B");
    assert_eq!(read_b(second).await, "Second", "kept in B's cache");

    // A list of one category, cached on B: a create on A in another category is
    // told to B with the event's terms, and leaves it; one in the category reaches it.
    let (music, film) = (category(&a, "Music").await, category(&a, "Film").await);
    let m = event_in(&a, "M", "2030-06-11", &[music]).await;
    let music_in_june = format!("{API}/{JUNE_2030}&categories={music}");
    let list_b = |uri: String| {
        let b = b.clone();
        async move {
            let v = get_on(b, uri).await;
            let titles: Vec<String> = v["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| title(e).to_string())
                .collect();
            titles
        }
    };
    assert_eq!(list_b(music_in_june.clone()).await, ["M"]);
    rename_behind_the_servers_back(&a, &[m]).await;
    event_in(&a, "Film night", "2030-06-12", &[film]).await;
    assert_eq!(list_b(music_in_june.clone()).await, ["M"], "kept on B");
    event_in(&a, "Concert", "2030-06-13", &[music]).await;
    assert_eq!(
        list_b(music_in_june).await,
        ["Renamed M", "Concert"],
        "no stale list on B"
    );
}
