//! Searches among categories and tags, whichever way their events are read.

use super::*;

both_with!(
    a_search_in_categories_meets_each_event_once_whichever_way_they_are_read,
    Settings {
        search_count_limit: 10,
        ..settings()
    },
    |app| async move {
        let music = app.category("Music", None).await;
        let jazz = app.category("Jazz", Some(music)).await;
        // Subcategories enough for their events to pass the limit's share of a
        // filter its own rows drive (150 per match counted).
        let mut styles = vec![jazz];
        for n in 0..18 {
            styles.push(app.category(&format!("Style {n}"), Some(music)).await);
        }
        let talks = app.category("Talks", None).await;
        let film = app.category("Film", None).await;
        // Zebra nights by turns in the parent, its subcategories, both, and
        // neither: the parent's terms hold more events than a search of this limit
        // sorts, so every event drives; the talks and films are few, and their own
        // rows drive, each event at its first term.
        let (mut music_ids, mut talks_ids, mut rare) = (Vec::new(), Vec::new(), Vec::new());
        for n in 0..240u32 {
            let categories = match n % 4 {
                0 => json!([music]),
                1 => json!(styles),
                2 => json!([vec![music], styles.clone()].concat()),
                _ => json!([talks]),
            };
            let rare_one = n % 30 == 7;
            let title = if rare_one {
                format!("Zebra aardvark night {n}")
            } else {
                format!("Zebra night {n}")
            };
            let id = create(&app, &title, n, 20, json!({"categories": categories})).await;
            if n % 4 == 3 {
                talks_ids.push(id);
            } else {
                music_ids.push(id);
                if rare_one {
                    rare.push(id);
                }
            }
        }
        let film_only = create(&app, "Zebra film", 250, 20, json!({"categories": [film]})).await;
        talks_ids.push(
            create(
                &app,
                "Zebra talk on film",
                251,
                20,
                json!({"categories": [film, talks]}),
            )
            .await,
        );
        let protected = create(
            &app,
            "Zebra members",
            260,
            20,
            json!({"categories": [jazz], "password": "pw"}),
        )
        .await;
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        create(&app, "Indexing trigger", 340, 10, json!({})).await;

        let mut every = [music_ids.clone(), talks_ids.clone()].concat();
        every.sort();
        talks_ids.push(film_only);
        talks_ids.sort();
        for (categories, expected, first_total) in [
            (music.to_string(), &music_ids, (10, true)),
            (format!("{jazz},{music},{talks}"), &every, (10, true)),
            (format!("{talks},{film}"), &talks_ids, (10, true)),
        ] {
            let q = format!("{WINDOW}&categories={categories}&search=zebra&per_page=7");
            let (all, totals) = every_page(&app, "events", &q, &Auth::None).await;
            assert_eq!(&all, expected, "{q}: each event once, in list order");
            assert_eq!(totals[0], first_total, "{q}");
            assert_eq!(
                *totals.last().unwrap(),
                (expected.len() as u64, false),
                "{q}"
            );
        }
        for categories in [music.to_string(), format!("{music},{talks},{film}")] {
            let q = format!("{WINDOW}&categories={categories}&search=aardvark");
            let (all, totals) = every_page(&app, "events", &q, &Auth::None).await;
            let expected = if categories.contains(',') {
                8
            } else {
                rare.len()
            };
            assert_eq!(all.len(), expected, "{q}");
            assert!(rare.iter().all(|id| all.contains(id)), "{q}");
            assert_eq!(totals, [(expected as u64, false)], "{q}");
        }
        // A protected event is shown, for a filter on its categories, to those who
        // may read it only.
        let q = format!("events?{WINDOW}&categories={music}&search=members");
        assert_eq!(app.get_as(&q, &Auth::None).await.body["total"], 0);
        let r = app.get_as(&q, &app.admin.auth()).await;
        assert_eq!(event_ids(&r), [protected]);
    }
);

both_with!(
    a_search_in_terms_follows_every_change_of_an_events_terms,
    // The index route, in categories and a tag of many events: PostgreSQL checks
    // each candidate's terms with its words in the search index (migration 29),
    // whose copy of an event's terms each change below must keep in step.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let music = app.category("Music", None).await;
        let jazz = app.category("Jazz", Some(music)).await;
        let talks = app.category("Talks", None).await;
        let blues = app.category("Blues", Some(talks)).await;
        let gone = app.category("Gone", Some(music)).await;
        let outdoor = app.post("tags", json!({"name": "outdoor"})).await.id();
        // More of the terms' events in the window than a walk reads at this limit
        // (`20 × 42`): the search looks its word up in the index.
        let fillers = (0..900u32).map(|n| {
            let app = &app;
            let terms = json!({"categories": [music, talks], "tags": [outdoor]});
            async move { create(app, &format!("Filler {n}"), 10 + n % 280, 8, terms).await }
        });
        futures_util::future::join_all(fillers).await;
        let okapi = |title: &'static str, n: u32, terms: Value| {
            let app = &app;
            async move { create(app, title, n, 10, terms).await }
        };
        let in_child = okapi("Okapi jazz", 205, json!({"categories": [jazz]})).await;
        let tagged = okapi(
            "Okapi music outdoors",
            206,
            json!({"categories": [music], "tags": [outdoor]}),
        )
        .await;
        let given = okapi("Okapi given jazz", 207, json!({})).await;
        let taken = okapi("Okapi jazz taken", 208, json!({"categories": [jazz]})).await;
        let untagged = okapi(
            "Okapi untagged",
            209,
            json!({"categories": [music], "tags": [outdoor]}),
        )
        .await;
        let moved = okapi("Okapi blues", 210, json!({"categories": [blues]})).await;
        // In a category deleted below: its keys of the category and of music go.
        okapi("Okapi gone", 211, json!({"categories": [gone]})).await;
        let talk = okapi("Okapi talk", 212, json!({"categories": [talks]})).await;
        let edits = [
            (given, json!({"categories": [jazz]})),
            (taken, json!({"categories": [talks]})),
            (untagged, json!({"tags": []})),
        ];
        for (id, edit) in edits {
            app.post(&format!("events/{id}"), edit).await.assert(200);
        }
        app.post(&format!("categories/{blues}"), json!({"parent": music}))
            .await
            .assert(200);
        app.delete(&format!("categories/{gone}?force=true"))
            .await
            .assert(200);

        let window = format!("starts_after={}", date(8));
        for (filter, expected) in [
            (
                format!("categories={music}"),
                vec![in_child, tagged, given, untagged, moved],
            ),
            (format!("categories={jazz}"), vec![in_child, given]),
            (format!("categories={talks}"), vec![taken, talk]),
            (
                format!("categories={jazz},{talks}"),
                vec![in_child, given, taken, talk],
            ),
            (format!("tags={outdoor}"), vec![tagged]),
            (format!("categories={music}&tags={outdoor}"), vec![tagged]),
        ] {
            let query = format!("events?{window}&{filter}&search=okapi");
            let r = app.get(&query).await;
            assert_eq!(event_ids(&r), expected, "{query}: {}", r.text);
            assert_eq!(
                r.body["total"].as_u64(),
                Some(expected.len() as u64),
                "{query}"
            );
        }
    }
);

both_with!(
    a_walk_of_two_tags_pages_their_events_in_list_order,
    // A word in two of five of two tags' events: the probe sees it often, and the
    // page is walked, each tag's next events merged in list order
    // (`search::walk::walked_page`), several on each day, some in both tags.
    limited(),
    |app| async move {
        let red = app.post("tags", json!({"name": "red"})).await.id();
        let blue = app.post("tags", json!({"name": "blue"})).await.id();
        let mut expected = Vec::new();
        for n in 0..90u32 {
            let tags = match n % 3 {
                0 => json!([red]),
                1 => json!([blue]),
                _ => json!([red, blue]),
            };
            let title = if matches!(n % 5, 1 | 3) {
                "Zebra walk"
            } else {
                "Quiet walk"
            };
            let extra = json!({"tags": tags});
            let id = create(
                &app,
                &format!("{title} {n}"),
                20 + n / 4,
                8 + n % 4 * 2,
                extra,
            )
            .await;
            if title.starts_with("Zebra") {
                expected.push(id);
            }
        }
        // Pages of 4 are all full; of 5, the last holds one match, which the bounded
        // walk cannot tell from too few events read: the window is sorted for it.
        for per_page in [4, 5] {
            let query = format!("{WINDOW}&tags={red},{blue}&search=zebra&per_page={per_page}");
            let (all, totals) = every_page(&app, "events", &query, &Auth::None).await;
            assert_eq!(all, expected, "{query}");
            assert_eq!(*totals.last().unwrap(), (expected.len() as u64, false));
        }
    }
);

both_with!(
    a_rare_word_in_a_small_category_finds_its_matches_there_only,
    // A probe of 21 events seeing none says the word is rare. The category's window
    // (120 events) is past `2 × limit` and within `20 × limit`, and the window's dates
    // hold ten times as many events, too many to look the word up among them: SQLite
    // walks the category's events, PostgreSQL reads the index's candidates of the word
    // and the term together (`search::TERM_WALK_ROWS_PER_MATCH`).
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let walks = app.category("Walks", None).await;
        let talks = app.category("Talks", None).await;
        let mut rare = Vec::new();
        for n in 0..120u32 {
            // Two, past the probe's first 21 events: 82 and 107.
            let rare_one = n >= 60 && n % 25 == 7;
            let title = if rare_one {
                format!("Walk with an aardvark {n}")
            } else {
                format!("Walk {n}")
            };
            let id = create(&app, &title, n, 9, json!({"categories": [walks]})).await;
            if rare_one {
                rare.push(id);
            }
        }
        let fillers = (0..1200u32).map(|n| {
            let app = &app;
            async move { create(app, &format!("Filler {n}"), n % 300, 8, json!({})).await }
        });
        futures_util::future::join_all(fillers).await;
        // The word outside the category, and inside it where a visitor may not see it.
        create(
            &app,
            "Aardvark talk",
            70,
            12,
            json!({"categories": [talks]}),
        )
        .await;
        for extra in [
            json!({"status": "draft"}),
            json!({"hide_from_listings": true}),
        ] {
            let extra = with(json!({"categories": [walks]}), extra);
            create(&app, "Aardvark walk, unlisted", 80, 12, extra).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        create(&app, "Indexing trigger", 340, 10, json!({})).await;

        let r = app
            .get(&format!(
                "events?{WINDOW}&categories={walks}&search=aardvark"
            ))
            .await;
        r.assert(200);
        assert_eq!(event_ids(&r), rare);
        assert_eq!(
            (r.body["total"].as_u64(), floor_header(&r)),
            (Some(2), None)
        );
    }
);

both_with!(
    a_search_of_terms_read_from_a_set_of_its_matches_pages_them_in_order,
    // The window's first 21 events (the probe at this limit) hold no match, and the
    // word's matches elsewhere are many beside the tags' rows: SQLite counts the
    // tags' rows against the set of the word's matches, value by value, and keeps
    // the rows it read for the page (`search::in_set`). Each page must hold the
    // next matches of both tags merged in list order, an event of both once.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let crowd = app.post("tags", json!({"name": "crowd"})).await.id();
        let niche = app.post("tags", json!({"name": "niche"})).await.id();
        let crowd_events = (0..300u32).map(|n| {
            let app = &app;
            let okapi = n >= 40 && n % 4 == 0;
            let tags = if okapi && n % 40 == 0 {
                json!([crowd, niche])
            } else {
                json!([crowd])
            };
            let title = if okapi {
                format!("Okapi crowd {n}")
            } else {
                format!("Filler {n}")
            };
            async move {
                let id = create(app, &title, n, 12, json!({ "tags": tags })).await;
                okapi.then_some((n, 12, id))
            }
        });
        let both_tags: Vec<(u32, u32, i64)> = futures_util::future::join_all(crowd_events)
            .await
            .into_iter()
            .flatten()
            .collect();
        // The niche's own matches, between the crowd's, at hours of their own.
        let mut niche_only = Vec::new();
        for n in (45..300u32).step_by(20) {
            let id = create(&app, "Okapi niche", n, 8, json!({ "tags": [niche] })).await;
            niche_only.push((n, 8, id));
        }
        // Matches a visitor may not see, among the crowd's: a draft, and a protected
        // event whose description alone holds the word.
        let draft = json!({ "tags": [crowd, niche], "status": "draft" });
        let draft = create(&app, "Okapi draft", 101, 7, draft).await;
        let protected =
            json!({ "tags": [crowd], "password": "pw", "description": "An okapi visits" });
        let protected = create(&app, "Members only", 103, 7, protected).await;
        // Matches out of the window and the tags: the set is cheaper than looking up
        // each match's keys.
        let elsewhere = (0..60).map(|_| {
            app.event(event(
                "Okapi elsewhere",
                "2029-03-01 10:00:00",
                "2029-03-01 11:00:00",
            ))
        });
        futures_util::future::join_all(elsewhere).await;
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        create(&app, "Indexing trigger", 340, 10, json!({})).await;

        let in_order = |events: Vec<(u32, u32, i64)>| {
            let mut events = events;
            events.sort();
            events.into_iter().map(|(_, _, id)| id).collect::<Vec<_>>()
        };
        let crowd_ids = in_order(both_tags.clone());
        let niche_ids = in_order(
            both_tags
                .iter()
                .copied()
                .filter(|(n, _, _)| n % 40 == 0)
                .chain(niche_only.iter().copied())
                .collect(),
        );
        let either = in_order([both_tags, niche_only].concat());
        assert!(either.len() > 42 + 7, "{} matches", either.len());
        for (tags, expected) in [
            (format!("{crowd},{niche}"), &either),
            (format!("{niche},{crowd}"), &either),
            (crowd.to_string(), &crowd_ids),
            (niche.to_string(), &niche_ids),
        ] {
            let q = format!("{WINDOW}&tags={tags}&search=okapi&per_page=7");
            let (all, totals) = every_page(&app, "events", &q, &Auth::None).await;
            assert_eq!(&all, expected, "{q}: each match once, in list order");
            let first = if expected.len() > 42 {
                (42, true)
            } else {
                (expected.len() as u64, false)
            };
            assert_eq!(totals[0], first, "{q}");
            assert_eq!(
                *totals.last().unwrap(),
                (expected.len() as u64, false),
                "{q}"
            );
        }
        // A page deeper than the rows a count keeps for it (two tags' 4,051 each) is
        // counted, and past the last.
        let deep = app
            .get(&format!(
                "events?{WINDOW}&tags={crowd},{niche}&search=okapi&per_page=50&page=81"
            ))
            .await;
        deep.assert(404);
        assert_eq!(deep.body["code"], "event-archive-page-not-found");
        // The administrator, who may read them, is shown both.
        let q = format!("{WINDOW}&tags={crowd},{niche}&search=okapi&per_page=7");
        let (all, _) = every_page(&app, "events", &q, &app.admin.auth()).await;
        assert!(all.contains(&draft) && all.contains(&protected), "{q}");
        assert_eq!(all.len(), either.len() + 2, "{q}");
    }
);

both_with!(
    a_rare_word_among_many_terms_events_is_looked_up_on_their_keys,
    // Eight tags held by each of 900 events: more of the filter's events than a
    // search at this limit sorts (150 per match counted), so every event's key
    // drives and the tags are probed; a word too rare for the set of its matches
    // to be cheaper than looking each one up, in a window longer than a walk reads
    // (`20 × 42`). SQLite looks each match up among the tags' own keys
    // (`search::index_keys`): the matches without the tags, or out of the window,
    // are not listed.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let mut tags = Vec::new();
        for n in 0..8 {
            tags.push(
                app.post("tags", json!({ "name": format!("mood {n}") }))
                    .await
                    .id(),
            );
        }
        let events = (0..900u32).map(|n| {
            let app = &app;
            // From the 40th day, every 30th event holds the word: none among the
            // probe's first events.
            let okapi = n >= 120 && n % 30 == 0;
            let title = if okapi {
                format!("Okapi mood {n}")
            } else {
                format!("Filler {n}")
            };
            let terms = json!({ "tags": tags });
            async move {
                let id = create(app, &title, n / 3, 6 + n % 3, terms).await;
                okapi.then_some((n, id))
            }
        });
        let mut tagged: Vec<(u32, i64)> = futures_util::future::join_all(events)
            .await
            .into_iter()
            .flatten()
            .collect();
        tagged.sort();
        let expected: Vec<i64> = tagged.into_iter().map(|(_, id)| id).collect();
        // The word without the tags in the window, and with them out of it.
        for n in 0..5u32 {
            create(&app, "Okapi untagged", 100 + n, 20, json!({})).await;
            app.event(with(
                event("Okapi later", "2029-03-01 10:00:00", "2029-03-01 11:00:00"),
                json!({ "tags": [tags[n as usize]] }),
            ))
            .await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        create(&app, "Indexing trigger", 340, 10, json!({})).await;

        let named = tags
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let q = format!("{WINDOW}&tags={named}&search=okapi&per_page=7");
        let (all, totals) = every_page(&app, "events", &q, &Auth::None).await;
        assert_eq!(all, expected, "{q}");
        assert_eq!(
            totals,
            vec![(expected.len() as u64, false); totals.len()],
            "{q}"
        );
    }
);
