//! The totals and pages of common, late, rare and short words, alone and in windows.

use super::*;

both_with!(
    a_common_word_has_a_floor_total_and_every_match_pages_in_order,
    limited(),
    |app| async move {
        let cal = calendar(&app).await;
        let r = app
            .get(&format!("events?{WINDOW}&search=zebra&per_page=5"))
            .await;
        r.assert(200);
        assert_eq!(r.body["total"], LIMIT);
        assert_eq!(r.body["total_pages"], LIMIT / 5);
        assert_eq!(floor_header(&r), Some("at-least"));
        assert_eq!(r.header("x-wp-total"), Some("20"));
        assert_eq!(event_ids(&r), cal.zebra[..5]);
        assert!(r.body["next_rest_url"].as_str().is_some());

        let anonymous = Auth::None;
        let (all, totals) = every_page(
            &app,
            "events",
            &format!("{WINDOW}&search=zebra&per_page=7"),
            &anonymous,
        )
        .await;
        assert_eq!(all, sorted_by_creation(cal.zebra.clone()));
        // Floors until the asked page reaches the end, which is then counted exactly.
        let (last_total, last_floor) = *totals.last().unwrap();
        assert_eq!((last_total, last_floor), (cal.zebra.len() as u64, false));
        assert!(totals[0].1, "{totals:?}");

        // A page past the floor's pages is still served.
        let r = app
            .get(&format!("events?{WINDOW}&search=zebra&per_page=5&page=10"))
            .await;
        r.assert(200);
        assert_eq!(event_ids(&r), cal.zebra[45..50]);
        assert_eq!(r.body["total"], 50);
        assert_eq!(floor_header(&r), Some("at-least"));
    }
);

both_with!(
    words_common_late_or_rare_find_the_same_events_as_each_page_shows,
    limited(),
    |app| async move {
        let cal = calendar(&app).await;
        let anonymous = Auth::None;
        for (word, expected) in [("quiet", &cal.quiet), ("late", &cal.late)] {
            for per_page in [5, 50] {
                let q = format!("{WINDOW}&search={word}&per_page={per_page}");
                let totals = every_page_finds(&app, &q, &anonymous, expected).await;
                if per_page == 5 {
                    assert_eq!(totals[0], (LIMIT, true), "{q}");
                }
            }
        }
        // A window smaller than the probe: counted exactly.
        let r = app
            .get("events?start_date=2027-11-01&end_date=2027-11-10&search=late")
            .await;
        assert_eq!(r.body["total"], 10);
        assert_eq!(floor_header(&r), None);

        // A rare word: exact, whoever asks, and only what the caller may see.
        let r = app.get(&format!("events?{WINDOW}&search=aardvark")).await;
        assert_eq!(event_ids(&r), [cal.aardvark]);
        assert_eq!(
            (r.body["total"].as_u64(), floor_header(&r)),
            (Some(1), None)
        );
        let admin = app.admin.auth();
        let r = app
            .get_as(&format!("events?{WINDOW}&search=aardvark"), &admin)
            .await;
        assert_eq!(
            event_ids(&r),
            [cal.aardvark, cal.aardvark_draft, cal.aardvark_protected]
        );
        assert_eq!(r.body["total"], 3);
        // A word too short for SQLite's index, beside one it serves.
        let r = app
            .get(&format!("events?{WINDOW}&search=aardvark+lk"))
            .await;
        assert_eq!(event_ids(&r), [cal.aardvark]);
        let r = app.get(&format!("events?{WINDOW}&search=zebra+t+98")).await;
        assert_eq!(titles(&r), ["Zebra night 98"]);
        assert_eq!(r.body["total"], 1);
        // The protected event's description is not searched for visitors.
        let r = app.get(&format!("events?{WINDOW}&search=visits")).await;
        assert_eq!(r.body["total"], 0);
        let r = app
            .get_as(&format!("events?{WINDOW}&search=visits"), &admin)
            .await;
        assert_eq!(event_ids(&r), [cal.aardvark_protected]);
        // No match at all.
        let r = app.get(&format!("events?{WINDOW}&search=zeppelin")).await;
        assert_eq!(
            (r.body["total"].as_u64(), floor_header(&r)),
            (Some(0), None)
        );
    }
);

both_with!(
    deep_pages_of_several_words_with_a_short_one_find_every_match_in_order,
    // Past the count limit a page is walked to, or read from one set of the words'
    // matches, the short words checked on its rows (PostgreSQL), whichever the
    // probe's rate says reads fewer events: `zebra t` (every zebra) is common from
    // the window's start, `night 1` (a zebra with a 1 in its number) rarer, `late e`
    // never among the window's first events. A limit of 4 makes the index's
    // matches the way to count past a few pages, as a thousand does at a million
    // events.
    shallow(),
    |app| async move {
        let cal = calendar(&app).await;
        // Protected events among the deep pages, their hidden text holding every
        // word: a visitor's pages, walked or read from the set, leave them out.
        for n in [151, 170] {
            let hidden = json!({"password": "pw", "description": "Zebra night 1 late"});
            create(&app, "Members only", n, 21, hidden).await;
        }
        let zebra_numbers = (0..180).filter(|n| n % 3 != 0);
        let ones: Vec<i64> = zebra_numbers
            .zip(&cal.zebra)
            .filter(|(n, _)| n.to_string().contains('1'))
            .map(|(_, id)| *id)
            .collect();
        assert!(ones.len() > 20, "{}", ones.len());
        let anonymous = Auth::None;
        for (words, expected) in [
            ("zebra+t", &cal.zebra),
            ("night+1", &ones),
            ("late+e", &cal.late),
            ("zebra+night+a", &cal.zebra),
        ] {
            for per_page in [3, 7] {
                let q = format!("{WINDOW}&search={words}&per_page={per_page}");
                every_page_finds(&app, &q, &anonymous, expected).await;
            }
        }
    }
);

both_with!(
    deep_pages_of_a_search_among_the_drafts_find_every_match_in_order,
    // The administrator's drafts are a third of the calendar's events: a walk of
    // them counts a deep page's matches where the index would give every status's
    // (a limit of 4 makes pages past the eighth deep).
    shallow(),
    |app| async move {
        let mut drafts = Vec::new();
        for n in 0..90 {
            let (title, published) = match n % 2 {
                0 => ("Salsa class", "Salsa show"),
                _ => ("Tango class", "Tango show"),
            };
            let draft = json!({"status": "draft"});
            let id = create(&app, &format!("{title} {n}"), n, 19, draft).await;
            if n % 2 == 0 {
                drafts.push(id);
            }
            for hour in [20, 21] {
                create(&app, &format!("{published} {n}"), n, hour, json!({})).await;
            }
        }
        // As `calendar` does: the searches read the index, not its queue (SQLite).
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        create(&app, "Indexing trigger", 340, 10, json!({})).await;
        let admin = app.admin.auth();
        for words in ["salsa", "salsa+a"] {
            let q = format!("{WINDOW}&status=draft&search={words}&per_page=4");
            let totals = every_page_finds(&app, &q, &admin, &drafts).await;
            assert_eq!(totals[0], (SHALLOW_LIMIT, true), "{q}");
        }
    }
);

both_with!(
    a_rare_word_in_a_window_finds_an_event_moved_into_it,
    // Enough for the probe's none in 20 events to say the word is rare, so that
    // PostgreSQL looks it up among the events of the window's dates rather than walk
    // the window's 400 (`search::DATED_WALK_ROWS_PER_MATCH`).
    Settings {
        search_count_limit: 40,
        ..settings()
    },
    |app| async move {
        let cal = calendar(&app).await;
        let moved = app
            .event(event(
                "Aardvark encore",
                "2028-03-01 10:00:00",
                "2028-03-01 11:00:00",
            ))
            .await;
        assert_eq!(
            aardvarks_in_window(&app).await,
            (vec![cal.aardvark], Some(1))
        );
        // Found among the events of the window's dates by `event_search`'s start,
        // which the write keeps.
        app.patch(
            &format!("events/{moved}"),
            json!({"start_date": day(200, 10), "end_date": day(200, 11)}),
        )
        .await
        .assert(200);
        assert_eq!(
            aardvarks_in_window(&app).await,
            (vec![cal.aardvark, moved], Some(2))
        );
        app.patch(
            &format!("events/{moved}"),
            json!({"start_date": "2028-03-01 10:00:00", "end_date": "2028-03-01 11:00:00"}),
        )
        .await
        .assert(200);
        assert_eq!(
            aardvarks_in_window(&app).await,
            (vec![cal.aardvark], Some(1))
        );
    }
);

both_with!(
    a_rare_word_in_a_window_open_at_one_end_finds_its_matches_on_that_side,
    // A limit whose probe (21 events) finding no match says the word is rare, in a
    // window of more than `20 × limit` events: the word is looked up in the index,
    // whose candidates before the window's start (or after its end) PostgreSQL drops
    // on their row (`list::dated_index_matches`).
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let cal = calendar(&app).await;
        let early = create(&app, "Aardvark breakfast", 5, 10, json!({})).await;
        let fillers = (0..700u32).map(|n| {
            let app = &app;
            async move { create(app, &format!("Filler {n}"), 10 + n % 280, 8, json!({})).await }
        });
        futures_util::future::join_all(fillers).await;
        let r = app
            .get(&format!("events?starts_after={}&search=aardvark", date(8)))
            .await;
        r.assert(200);
        assert_eq!(event_ids(&r), [cal.aardvark]);
        assert_eq!(
            (r.body["total"].as_u64(), floor_header(&r)),
            (Some(1), None)
        );
        let r = app
            .get(&format!(
                "events?starts_before={}&search=aardvark",
                date(330)
            ))
            .await;
        assert_eq!(event_ids(&r), [early, cal.aardvark]);
        assert_eq!(r.body["total"], 2);
        let r = app
            .get(&format!(
                "events?starts_before={}&search=aardvark",
                date(150)
            ))
            .await;
        assert_eq!(event_ids(&r), [early]);
    }
);

both_with!(
    a_feed_of_a_common_word_says_its_total_is_a_floor,
    Settings {
        feed_max_events: 5,
        ..limited()
    },
    |app| async move {
        calendar(&app).await;
        let r = app
            .get(&format!("events?ical=1&{WINDOW}&search=zebra"))
            .await;
        r.assert(200);
        assert_eq!(r.text.matches("BEGIN:VEVENT").count(), 5);
        assert!(
            r.text
                .contains("X-CALENDAR-EVENTS-CUT:5 of at least 20 events\\; narrow the window"),
            "{}",
            r.text
        );
        assert_eq!(r.header("x-wp-total"), Some("20"));
        assert_eq!(floor_header(&r), Some("at-least"));
    }
);
