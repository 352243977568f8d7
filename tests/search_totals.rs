//! A search counts its matches up to `--search-count-limit`: past it the totals are
//! floors, said by `X-Calendar-Total: at-least`, and paging on finds every match in
//! list order. Each way a search can take (the probe of the window's first events,
//! a walk of the window, the search index's matches) is reached here by a word whose
//! matches sit where it leads, with a limit of 20 instead of 1,000; the index's, for
//! a word the probe never saw, wants a probe of 20 events or more (a limit of 40 or
//! more), which its tests set.

mod common;

use calendar_events::config::Settings;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

const LIMIT: u64 = 20;
const WINDOW: &str = "start_date=2027-01-01&end_date=2027-12-31";

/// A count limit that the tests' few hundred events outgrow as a million events
/// outgrow a thousand: a probe of two events, a walk of eighty.
const SHALLOW_LIMIT: u64 = 4;

fn shallow() -> Settings {
    Settings {
        search_count_limit: SHALLOW_LIMIT,
        ..settings()
    }
}

fn limited() -> Settings {
    Settings {
        search_count_limit: LIMIT,
        ..settings()
    }
}

/// The day `n` of 2027 at `hour`, as the API takes dates.
fn day(n: u32, hour: u32) -> String {
    let d = chrono::NaiveDate::from_ymd_opt(2027, 1, 1).unwrap() + chrono::Days::new(n.into());
    format!("{d} {hour:02}:00:00")
}

async fn create(app: &TestApp, title: &str, n: u32, hour: u32, extra: Value) -> i64 {
    app.event(with(event(title, &day(n, hour), &day(n, hour + 1)), extra))
        .await
}

/// What the calendar holds, by the words the searches look for.
struct Calendar {
    /// On every day but every third: common from the window's start.
    zebra: Vec<i64>,
    /// On every third day: a third of the window.
    quiet: Vec<i64>,
    /// Late in the year only: none among the window's first events.
    late: Vec<i64>,
    /// One published; a draft, a protected event with the word in its description,
    /// and one hidden from listings are not shown to visitors.
    aardvark: i64,
    aardvark_draft: i64,
    aardvark_protected: i64,
}

async fn calendar(app: &TestApp) -> Calendar {
    let (mut zebra, mut quiet, mut late) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..180 {
        if n % 3 == 0 {
            quiet.push(create(app, &format!("Quiet evening {n}"), n, 18, json!({})).await);
        } else {
            zebra.push(create(app, &format!("Zebra night {n}"), n, 20, json!({})).await);
        }
    }
    for n in 300..330 {
        late.push(create(app, &format!("Late show {n}"), n, 22, json!({})).await);
    }
    let aardvark = create(app, "Aardvark talk", 200, 10, json!({})).await;
    let aardvark_draft = create(app, "Aardvark draft", 201, 10, json!({"status": "draft"})).await;
    let aardvark_protected = create(
        app,
        "Members only",
        202,
        10,
        json!({"password": "pw", "description": "An aardvark visits"}),
    )
    .await;
    create(
        app,
        "Aardvark unlisted",
        203,
        10,
        json!({"hide_from_listings": true}),
    )
    .await;
    // Past the search queue's age, one more write indexes every event queued so
    // far (SQLite): the searches below read the index, not the queue.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    create(app, "Indexing trigger", 340, 10, json!({})).await;
    Calendar {
        zebra,
        quiet,
        late,
        aardvark,
        aardvark_draft,
        aardvark_protected,
    }
}

fn floor_header(r: &Resp) -> Option<&str> {
    r.header("x-calendar-total")
}

/// Every page of `events?{query}` for `auth`: the events `expected` in list order,
/// the last page's total exact. The totals of the pages, in order.
async fn every_page_finds(
    app: &TestApp,
    query: &str,
    auth: &Auth,
    expected: &[i64],
) -> Vec<(u64, bool)> {
    let (all, totals) = every_page(app, "events", query, auth).await;
    assert_eq!(all, expected, "{query}");
    let last = (u64::try_from(expected.len()).unwrap(), false);
    assert_eq!(*totals.last().unwrap(), last, "{query}");
    totals
}

fn sorted_by_creation(mut v: Vec<i64>) -> Vec<i64> {
    // Each word's events were created in list order.
    v.sort();
    v
}

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

/// The events of [`WINDOW`] holding `aardvark`, and their total, for a visitor.
async fn aardvarks_in_window(app: &TestApp) -> (Vec<i64>, Option<u64>) {
    let r = app.get(&format!("events?{WINDOW}&search=aardvark")).await;
    r.assert(200);
    (event_ids(&r), r.body["total"].as_u64())
}

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

/// The date of day `n` of 2027, as the API takes it.
fn date(n: u32) -> String {
    day(n, 0)[..10].to_string()
}

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
