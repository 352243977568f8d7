//! The search index's matches: what each caller sees, counted whole or up to the limit.

use super::*;

both_with!(
    the_index_matches_show_what_each_caller_may_see_after_every_write,
    // As above: the index route, whose candidates PostgreSQL checks on their own row
    // of `event_search` (migration 28), which each write below must keep in step.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        calendar(&app).await;
        let fillers = (0..700u32).map(|n| {
            let app = &app;
            async move { create(app, &format!("Filler {n}"), 10 + n % 280, 8, json!({})).await }
        });
        futures_util::future::join_all(fillers).await;
        let okapi = |title: &'static str, n: u32, extra: Value| {
            let app = &app;
            async move { create(app, title, n, 10, extra).await }
        };
        let shown = okapi("Okapi shown", 205, json!({})).await;
        let draft = okapi("Okapi draft", 206, json!({"status": "draft"})).await;
        let private = okapi("Okapi private", 207, json!({"status": "private"})).await;
        let titled = okapi("Okapi members", 208, json!({"password": "pw"})).await;
        let described = okapi(
            "Members",
            209,
            json!({"password": "pw", "description": "An okapi"}),
        )
        .await;
        let trashed = okapi("Okapi trashed", 210, json!({})).await;
        let published = okapi("Okapi published later", 211, json!({"status": "draft"})).await;
        let listed = okapi(
            "Okapi listed later",
            212,
            json!({"hide_from_listings": true}),
        )
        .await;
        let unlisted = okapi("Okapi unlisted later", 213, json!({})).await;
        let moved = okapi("Okapi moved away", 214, json!({})).await;
        let author = app.user(Role::Author).await;
        let own = app
            .post_as(
                "events",
                with(
                    event("Okapi own draft", &day(215, 10), &day(215, 11)),
                    json!({"status": "draft"}),
                ),
                &author.auth(),
            )
            .await
            .id();
        app.delete(&format!("events/{trashed}")).await.assert(200);
        let edits = [
            (published, json!({"status": "publish"})),
            (listed, json!({"hide_from_listings": false})),
            (unlisted, json!({"hide_from_listings": true})),
            (
                moved,
                json!({"start_date": day(2, 10), "end_date": day(2, 11)}),
            ),
        ];
        for (id, edit) in edits {
            app.post(&format!("events/{id}"), edit).await.assert(200);
        }
        let public = vec![shown, titled, published, listed];
        let every = vec![
            shown, draft, private, titled, described, published, listed, own,
        ];
        let authors = vec![shown, titled, published, listed, own];
        let windows = [
            format!("starts_after={}", date(8)),
            format!("start_date={}&end_date={}", date(8), date(330)),
        ];
        for window in windows {
            let query = format!("events?{window}&search=okapi");
            for (auth, expected) in [
                (Auth::None, &public),
                (app.admin.auth(), &every),
                (author.auth(), &authors),
            ] {
                let r = app.get_as(&query, &auth).await;
                r.assert(200);
                assert_eq!(&event_ids(&r), expected, "{query} as {auth:?}: {}", r.text);
                assert_eq!(r.body["total"].as_u64(), Some(expected.len() as u64));
            }
        }
    }
);

both_with!(
    matches_the_index_counts_whole_are_paged_in_list_order,
    // The index route with every match counted (fewer than the limit): the page is
    // taken from the matches the count read, sorted by their starts, for a list
    // driven by every event, by one tag and by two (whose walk would sort the
    // window). With a word of two characters beside, SQLite takes that route too
    // rather than a set of the index's matches.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let red = app.post("tags", json!({"name": "red"})).await.id();
        let blue = app.post("tags", json!({"name": "blue"})).await.id();
        // More of the tags' events in the window than a walk reads at this limit
        // (`20 × 42`), none of them matching: the probe sees no match.
        let fillers = (0..900u32).map(|n| {
            let app = &app;
            let tags = json!({"tags": [red, blue]});
            async move { create(app, &format!("Filler {n}"), 10 + n % 200, 8, tags).await }
        });
        futures_util::future::join_all(fillers).await;
        // Created out of list order; two at the same hour, listed by ID.
        let mut okapis = Vec::new();
        for (n, hour, tags) in [
            (260, 10, json!([red])),
            (250, 12, json!([blue])),
            (270, 10, json!([red, blue])),
            (250, 9, json!([red])),
            (255, 10, json!([])),
            (265, 11, json!([blue])),
            (255, 10, json!([red])),
            (240, 10, json!([red, blue])),
        ] {
            let id = create(&app, &format!("Okapi {n}"), n, hour, json!({"tags": tags})).await;
            okapis.push((day(n, hour), id, tags));
        }
        // Not listed for visitors: a draft and an event hidden from listings.
        let hidden = [
            json!({"status": "draft"}),
            json!({"hide_from_listings": true}),
        ];
        for (n, extra) in (245..).zip(hidden) {
            let tags = json!({"tags": [red, blue]});
            create(&app, "Okapi unlisted", n, 10, with(tags, extra)).await;
        }
        okapis.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        let holding = |tags: &[i64]| -> Vec<i64> {
            let held = |t: &Value| {
                tags.iter()
                    .any(|tag| t.as_array().unwrap().contains(&json!(tag)))
            };
            okapis.iter().filter(|o| held(&o.2)).map(|o| o.1).collect()
        };
        let anonymous = Auth::None;
        let lists = [
            (
                String::new(),
                okapis.iter().map(|o| o.1).collect::<Vec<_>>(),
            ),
            (format!("&tags={red}"), holding(&[red])),
            (format!("&tags={red},{blue}"), holding(&[red, blue])),
        ];
        for ((filter, expected), words) in
            lists.iter().flat_map(|l| [(l, "okapi"), (l, "okapi+ok")])
        {
            let query = format!("{WINDOW}{filter}&search={words}&per_page=3");
            let (all, totals) = every_page(&app, "events", &query, &anonymous).await;
            assert_eq!(&all, expected, "{query}");
            let exact = (expected.len() as u64, false);
            assert!(totals.iter().all(|t| *t == exact), "{query}: {totals:?}");
        }
    }
);

both_with!(
    a_search_pages_through_its_first_matches_to_its_depth,
    // Ten matches reached, of fifteen: a deeper page is refused before any is read,
    // the page that reaches the depth links to none after it.
    Settings {
        search_count_limit: 10,
        search_depth: 10,
        ..settings()
    },
    |app| async move {
        for n in 1..=15 {
            app.event(event(&format!("Salsa {n:02}"), &day(n, 10), &day(n, 11)))
                .await;
            app.event(event(&format!("Tango {n:02}"), &day(n, 12), &day(n, 13)))
                .await;
        }
        let search = |page: u32| {
            let app = &app;
            async move {
                app.get(&format!(
                    "events?{WINDOW}&search=salsa&per_page=4&page={page}"
                ))
                .await
            }
        };
        let first = search(1).await;
        first.assert(200);
        assert!(first.body["next_rest_url"].is_string());
        let at_depth = search(3).await;
        at_depth.assert(200);
        assert_eq!(
            titles(&at_depth),
            ["Salsa 09", "Salsa 10", "Salsa 11", "Salsa 12"]
        );
        assert_eq!(at_depth.header("x-calendar-total"), Some("at-least"));
        assert!(
            at_depth.body.get("next_rest_url").is_none(),
            "{}",
            at_depth.text
        );
        assert!(
            !at_depth
                .header("link")
                .unwrap_or("")
                .contains("rel=\"next\"")
        );
        let past = search(4).await;
        past.assert_error(400, "rest_invalid_param");
        assert_eq!(
            past.body["data"]["details"]["page"]["code"],
            "rest_search_too_deep"
        );
        assert!(
            past.body["data"]["params"]["page"]
                .as_str()
                .unwrap()
                .contains("10"),
            "{}",
            past.text
        );
        // Lists without a search page on as far as their events go.
        let unsearched = app.get(&format!("events?{WINDOW}&per_page=4&page=7")).await;
        unsearched.assert(200);
        assert_eq!(titles(&unsearched).len(), 4);
        // The calendar's list view (ten a page) stops its pager at the depth.
        let html = app.get("/events/list/?search=salsa").await;
        html.assert(200);
        assert!(!html.text.contains("page=2"), "{}", html.text);
        assert_eq!(
            app.get("/events/list/?search=salsa&page=2").await.status,
            400
        );
    }
);
