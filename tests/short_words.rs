//! A search word of one or two characters (`€`, `dj`, `q`) is found through the
//! search index, by the trigrams it makes with the characters next to it (migration
//! 13; on PostgreSQL, a word of one character or of symbols through `event_symbols`,
//! migrations 14 and 15), and
//! finds exactly what reading every event's text finds: wherever it sits in a
//! field, in a field of two characters, next to a character no event had before,
//! in events the index has not reached yet, and only in what the caller may see.
//! The word is rare in a window of many events, so the list takes the index's
//! matches (`store::events::search`), with a count limit of 20 instead of 1,000.

mod common;

use calendar_events::config::Settings;
use common::*;
use serde_json::{Value, json};

const WINDOW: &str = "start_date=2027-01-01&end_date=2027-12-31";

fn limited() -> Settings {
    Settings {
        search_count_limit: 20,
        ..settings()
    }
}

fn day(n: u32) -> String {
    let d = chrono::NaiveDate::from_ymd_opt(2027, 1, 1).unwrap() + chrono::Days::new(n.into());
    format!("{d} 20:00:00")
}

async fn create(app: &TestApp, title: &str, n: u32, extra: Value) -> i64 {
    let end = day(n).replace("20:00", "21:00");
    app.event(with(event(title, &day(n), &end), extra)).await
}

/// Past the search queue's age, one more write indexes every event queued so far
/// (SQLite): the searches after it read the index, not the queue.
async fn index_everything(app: &TestApp) {
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    create(app, "Indexing trigger", 360, json!({})).await;
}

async fn found(app: &TestApp, search: &str, auth: &Auth) -> (Vec<i64>, u64) {
    found_in(app, WINDOW, search, auth).await
}

/// The events a search finds in `window`, and its total, which is exact.
async fn found_in(app: &TestApp, window: &str, search: &str, auth: &Auth) -> (Vec<i64>, u64) {
    let r = app
        .get_as(
            &format!("events?{window}&search={search}&per_page=50"),
            auth,
        )
        .await;
    r.assert(200);
    assert_eq!(r.header("x-calendar-total"), None, "{search}: exact");
    (event_ids(&r), r.body["total"].as_u64().unwrap())
}

both_with!(
    a_two_character_word_is_found_wherever_it_sits,
    limited(),
    |app| async move {
        for n in 0..200 {
            create(&app, &format!("Zebra night {n}"), n, json!({})).await;
        }
        let mut expected = vec![
            create(&app, "DJ set at the park", 201, json!({})).await,
            create(&app, "Dance with a dj", 202, json!({})).await,
            create(
                &app,
                "Brunch",
                203,
                json!({"description": "Music (dj) all day"}),
            )
            .await,
            create(&app, "Garden", 204, json!({"excerpt": "Dj"})).await,
            create(&app, "dj", 205, json!({})).await,
            create(&app, "Adjusted hours", 206, json!({})).await,
        ];
        let draft = create(&app, "Dj draft", 207, json!({"status": "draft"})).await;
        create(
            &app,
            "Dj unlisted",
            208,
            json!({"hide_from_listings": true}),
        )
        .await;
        let protected = create(
            &app,
            "Members",
            209,
            json!({"password": "pw", "description": "Our dj plays"}),
        )
        .await;
        create(
            &app,
            "Just a talk",
            210,
            json!({"description": "d j, not the word"}),
        )
        .await;
        index_everything(&app).await;

        let anonymous = Auth::None;
        let (found_ids, total) = found(&app, "dj", &anonymous).await;
        assert_eq!(found_ids, expected);
        assert_eq!(total, expected.len() as u64);
        // Upper case in the search, and beside a word the index serves as itself.
        assert_eq!(found(&app, "DJ", &anonymous).await.0, expected);
        assert_eq!(
            found(&app, "dj+park", &anonymous).await.0,
            expected[..1].to_vec()
        );
        assert_eq!(
            found(&app, "zebra+dj", &anonymous).await.0,
            Vec::<i64>::new()
        );

        let admin = app.admin.auth();
        let (all, _) = found(&app, "dj", &admin).await;
        assert!(all.contains(&draft) && all.contains(&protected), "{all:?}");

        // Next to a character no event held before: found while queued, and once
        // indexed.
        let omega = create(&app, "Ωdj", 211, json!({})).await;
        let punct = create(&app, "¿dj?", 212, json!({})).await;
        expected.extend([omega, punct]);
        assert_eq!(found(&app, "dj", &anonymous).await.0, expected);
        index_everything(&app).await;
        assert_eq!(found(&app, "dj", &anonymous).await.0, expected);

        // Trashed or retitled, an event stops matching.
        app.patch(&format!("events/{omega}"), json!({"title": "Omega"}))
            .await
            .assert(200);
        expected.retain(|id| *id != omega);
        index_everything(&app).await;
        assert_eq!(found(&app, "dj", &anonymous).await.0, expected);

        // A word of two characters that are not letters or digits, and one that
        // no event holds.
        let sharp = create(&app, "Learn C# fast", 213, json!({})).await;
        index_everything(&app).await;
        assert_eq!(found(&app, "c%23", &anonymous).await.0, [sharp]);
        assert_eq!(found(&app, "qx", &anonymous).await, (vec![], 0));
    }
);

both_with!(
    a_common_two_character_word_pages_every_match_in_order,
    limited(),
    |app| async move {
        let mut expected = Vec::new();
        for n in 0..120 {
            let title = if n % 4 == 0 {
                format!("Zebra dj {n}")
            } else {
                format!("Zebra night {n}")
            };
            let id = create(&app, &title, n, json!({})).await;
            if n % 4 == 0 {
                expected.push(id);
            }
        }
        index_everything(&app).await;
        let mut all = Vec::new();
        for page in 1..=6 {
            let r = app
                .get(&format!("events?{WINDOW}&search=dj&per_page=5&page={page}"))
                .await;
            r.assert(200);
            all.extend(event_ids(&r));
        }
        assert_eq!(all, expected);
    }
);

both_with!(
    a_one_character_word_is_found_wherever_it_sits,
    limited(),
    |app| async move {
        for n in 0..200 {
            create(&app, &format!("Zebra night {n}"), n, json!({})).await;
        }
        let mut expected = vec![
            create(&app, "€5 entry", 201, json!({})).await,
            create(&app, "Entry 5€", 202, json!({})).await,
            create(
                &app,
                "Fair",
                203,
                json!({"description": "Tickets: 10 € at the door"}),
            )
            .await,
            create(&app, "Market", 204, json!({"excerpt": "€"})).await,
            create(&app, "€", 205, json!({})).await,
        ];
        create(&app, "€ draft", 206, json!({"status": "draft"})).await;
        let cyrillic = create(&app, "ЖАРА party", 207, json!({})).await;
        index_everything(&app).await;

        let anonymous = Auth::None;
        assert_eq!(
            found(&app, "%E2%82%AC", &anonymous).await,
            (expected.clone(), 5)
        );
        // Upper case in the text, lower case in the search, and the other way round.
        assert_eq!(found(&app, "%D0%B6", &anonymous).await.0, [cyrillic]);
        assert_eq!(found(&app, "%D0%96", &anonymous).await.0, [cyrillic]);
        assert_eq!(
            found(&app, "%E2%82%AC+entry", &anonymous).await.0,
            expected[..2].to_vec()
        );
        // Next to characters no event held before: while queued and once indexed.
        let new = create(&app, "☂€☂", 208, json!({})).await;
        expected.push(new);
        assert_eq!(found(&app, "%E2%82%AC", &anonymous).await.0, expected);
        index_everything(&app).await;
        assert_eq!(found(&app, "%E2%82%AC", &anonymous).await.0, expected);
        assert_eq!(found(&app, "%E2%98%82", &anonymous).await.0, [new]);
        // A character no event holds, alone or beside a word many events hold.
        assert_eq!(found(&app, "%C2%A7", &anonymous).await, (vec![], 0));
        assert_eq!(found(&app, "%C2%A7+zebra", &anonymous).await, (vec![], 0));
        assert_eq!(
            found(&app, "zebra+%C2%A7%C2%A7", &anonymous).await,
            (vec![], 0)
        );
        // …and beside a word few events hold, which the index's matches serve.
        assert_eq!(found(&app, "entry+%C2%A7", &anonymous).await, (vec![], 0));
        assert_eq!(
            found(&app, "entry", &anonymous).await.0,
            expected[..2].to_vec()
        );
        // A letter few events hold, alone and beside other words.
        let quiz = create(&app, "Quiz", 209, json!({})).await;
        let antiques = create(&app, "Fair", 210, json!({"excerpt": "Antiques"})).await;
        index_everything(&app).await;
        assert_eq!(
            found(&app, "q", &anonymous).await,
            (vec![quiz, antiques], 2)
        );
        assert_eq!(found(&app, "Q+fair", &anonymous).await.0, [antiques]);
        assert_eq!(found(&app, "zebra+q", &anonymous).await, (vec![], 0));
    }
);

both_with!(
    a_word_of_other_characters_is_found_by_its_runs,
    limited(),
    |app| async move {
        for n in 0..200 {
            create(&app, &format!("Zebra night, {n}."), n, json!({})).await;
        }
        let workshop = create(&app, "C++ workshop", 201, json!({})).await;
        let intro = create(
            &app,
            "Intro",
            202,
            json!({"description": "Learn c++ in a day..."}),
        )
        .await;
        let cafe = create(&app, "Café crème", 203, json!({})).await;
        let wait = create(&app, "Wait... for it", 204, json!({})).await;
        create(&app, "C+ and C+", 205, json!({})).await;
        let draft = create(&app, "C++ draft", 206, json!({"status": "draft"})).await;
        let doors = create(&app, "Doors at 8 p.m. (quiet)", 207, json!({})).await;
        index_everything(&app).await;

        let anonymous = Auth::None;
        assert_eq!(
            found(&app, "c%2B%2B", &anonymous).await,
            (vec![workshop, intro], 2)
        );
        assert_eq!(found(&app, "...", &anonymous).await.0, [intro, wait]);
        assert_eq!(found(&app, "caf%C3%A9", &anonymous).await.0, [cafe]);
        assert_eq!(found(&app, "%C3%A9", &anonymous).await.0, [cafe]);
        assert_eq!(found(&app, "%C3%A8me", &anonymous).await.0, [cafe]);
        // Every event holds the comma and the full stop, none of them together; and
        // a full stop, but none before a q.
        assert_eq!(found(&app, ",.", &anonymous).await, (vec![], 0));
        assert_eq!(found(&app, ".q", &anonymous).await, (vec![], 0));
        assert_eq!(found(&app, "p.m.", &anonymous).await.0, [doors]);
        assert_eq!(found(&app, "(q", &anonymous).await.0, [doors]);
        assert_eq!(
            found(&app, "c%2B%2B+workshop", &anonymous).await.0,
            [workshop]
        );
        let admin = app.admin.auth();
        assert_eq!(
            found(&app, "c%2B%2B", &admin).await.0,
            [workshop, intro, draft]
        );

        // Retitled, an event matches its new text, not its old.
        app.patch(
            &format!("events/{workshop}"),
            json!({"title": "C workshop: ..."}),
        )
        .await
        .assert(200);
        index_everything(&app).await;
        assert_eq!(found(&app, "c%2B%2B", &anonymous).await.0, [intro]);
        assert_eq!(
            found(&app, "...", &anonymous).await.0,
            [workshop, intro, wait]
        );

        // Deleted for good, it is found no more.
        app.delete(&format!("events/{wait}?force=true"))
            .await
            .assert(200);
        assert_eq!(found(&app, "...", &anonymous).await.0, [workshop, intro]);
    }
);

both_with!(
    a_common_letter_beside_a_rare_word_is_checked_on_the_rare_words_matches,
    Settings {
        search_count_limit: 1,
        ..settings()
    },
    |app| async move {
        // `e` in many pairs of characters: SQLite looks up `jazz` alone, and checks
        // `e` on the rows of its matches. With a count limit of 1 (and pages of 50,
        // counted to their end), the window of the year is long enough for the
        // index's matches to be probed one by one, the weeks around the rare word's
        // events short enough for a set of them.
        for n in 0..200 {
            let description = "Seven eerie eves: ebb, emu, elk, end, red, bet, hex, yew, fee, peg";
            create(
                &app,
                &format!("Zebra evening {n}"),
                n,
                json!({"description": description}),
            )
            .await;
        }
        let evening = create(&app, "Jazz evening", 201, json!({})).await;
        let free = create(&app, "Jazz", 202, json!({"excerpt": "Free"})).await;
        create(&app, "Jazz club night", 203, json!({})).await;
        create(
            &app,
            "Jazz",
            204,
            json!({"description": "A night of drums"}),
        )
        .await;
        let protected = create(
            &app,
            "Jazz club night",
            205,
            json!({"password": "pw", "description": "Seven evenings"}),
        )
        .await;
        let admin = app.admin.auth();
        let weeks = "start_date=2027-07-15&end_date=2027-08-31";
        for indexed in [false, true] {
            if indexed {
                index_everything(&app).await;
            }
            for window in [WINDOW, weeks] {
                for search in ["jazz+e", "E+jazz"] {
                    let anonymous = found_in(&app, window, search, &Auth::None).await;
                    assert_eq!(
                        anonymous,
                        (vec![evening, free], 2),
                        "{window} {search} {indexed}"
                    );
                    let all = found_in(&app, window, search, &admin).await;
                    assert_eq!(
                        all,
                        (vec![evening, free, protected], 3),
                        "{window} {search}"
                    );
                }
                let none = found_in(&app, window, "jazz+%C3%A9", &Auth::None).await;
                assert_eq!(none, (vec![], 0));
            }
        }
    }
);

/// PostgreSQL's keys of a text's symbols (migrations 15 and 24), by their definition:
/// every window of one to three characters holding a symbol, of each run between
/// spaces, and each letter and digit the text holds. Read position by position with
/// `substr`, which is quadratic in a run's length; fine for the short texts compared.
const SYMBOLS_BY_DEFINITION: &str = r#"
CREATE FUNCTION pg_temp.symbols_by_definition(text TEXT) RETURNS TEXT[] LANGUAGE sql AS $$
    SELECT COALESCE(array_agg(DISTINCT k), '{}')
    FROM (
        SELECT substr(run[1], i, n) AS k
        FROM regexp_matches(lower(text), '[^ ]*[^ a-z0-9][^ ]*', 'g') AS run,
            generate_series(1, 3) AS n,
            generate_series(1, length(run[1]) - n + 1) AS i
        WHERE translate(substr(run[1], i, n), 'abcdefghijklmnopqrstuvwxyz0123456789', '') <> ''
        UNION ALL
        SELECT ch
        FROM unnest(string_to_array('abcdefghijklmnopqrstuvwxyz0123456789', NULL)) AS ch
        WHERE strpos(lower(text), ch) > 0
    ) AS keys
$$;
SELECT setseed(0.23);
CREATE TEMP TABLE texts AS
    SELECT s FROM (VALUES (''), (' '), ('abcde'), ('ab.cd'), ('x.ab.cd.y'), ('x.abc.y'),
        ('x.abcd.y'), ('x.abcde.y'), ('.'), ('..a..'), ('a.b'), ('☂'), ('Café crème'),
        (E'line\nbreak'), (E'tab\there'), ('C++ at 8 p.m. (quiet)'), ('<p>friends.</p>'))
        AS fixed(s)
    UNION ALL
    SELECT (SELECT string_agg((ARRAY['a', 'b', 'c', '1', '.', '<', '>', 'é', '-', ' ',
                '☂', '+', E'\n', 'Q'])[1 + floor(random() * 14)::int], '')
            FROM generate_series(1, 1 + g % 50) WHERE g > 0)
    FROM generate_series(1, 20000) AS g;
DO $$
DECLARE
    differing TEXT;
BEGIN
    SELECT s INTO differing FROM texts
    WHERE search_symbols(s) IS DISTINCT FROM pg_temp.symbols_by_definition(s) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'search_symbols(%) is %, its definition gives %', quote_literal(differing),
            search_symbols(differing), pg_temp.symbols_by_definition(differing);
    END IF;
END
$$;
"#;

both!(a_long_token_is_searched_through, |app| async move {
    // One token of 40,000 characters, symbols all through it: its keys are read in
    // time linear in its length on PostgreSQL (migration 24).
    let token = format!("{}q#z", "abc.".repeat(10_000));
    let long = create(
        &app,
        "Long token",
        10,
        json!({"description": format!("<p>{token}</p>")}),
    )
    .await;
    create(&app, "Short one", 11, json!({"description": "<p>q# z</p>"})).await;
    index_everything(&app).await;
    for word in ["q%23z", "c.q%23", "%23z"] {
        assert_eq!(
            found(&app, word, &Auth::None).await,
            (vec![long], 1),
            "{word}"
        );
    }
    if app.backend() == calendar_events::store::Backend::Postgres {
        app.behind_the_servers_back(SYMBOLS_BY_DEFINITION).await;
    }
});

both_with!(
    a_short_word_among_many_distinct_characters_is_found_on_the_rows,
    // The window's 200 events are more than a walk is tried for at this limit.
    Settings {
        search_count_limit: 4,
        ..settings()
    },
    |app| async move {
        // 5,000 distinct characters: a word of two makes 10,000 trigrams with them,
        // more than SQLite reads its index for, and `龍` is in 400 pairs.
        for n in 0..200 {
            let description = chinese(n * 25, 25, "");
            create(
                &app,
                &format!("Zebra night {n}"),
                n,
                json!({ "description": description }),
            )
            .await;
        }
        create(
            &app,
            "Pairs",
            230,
            json!({"description": chinese(0, 200, "龍"), "status": "draft"}),
        )
        .await;
        let expected = vec![
            create(&app, "龍 night", 201, json!({})).await,
            create(&app, "Market", 202, json!({"description": "<p>鳳龍鳳</p>"})).await,
        ];
        create(&app, "Hidden 龍", 203, json!({"hide_from_listings": true})).await;
        index_everything(&app).await;

        let anonymous = Auth::None;
        assert_eq!(found(&app, "龍", &anonymous).await, (expected.clone(), 2));
        assert_eq!(
            found(&app, "鳳龍", &anonymous).await,
            (expected[1..].to_vec(), 1)
        );
        assert_eq!(
            found(&app, "market+龍", &anonymous).await.0,
            expected[1..].to_vec()
        );
        let qx = create(&app, "Qx 龍", 204, json!({"status": "draft"})).await;
        assert_eq!(found(&app, "qx", &anonymous).await, (vec![], 0));
        assert_eq!(found(&app, "qx", &app.admin.auth()).await, (vec![qx], 1));
        let (ids, total) = found(&app, "%E4%B8%80", &anonymous).await;
        assert_eq!((ids.len(), total), (1, 1), "一: the first filler alone");
    }
);

both!(
    a_venue_pair_among_many_distinct_characters_is_found,
    |app| async move {
        // 600 distinct characters past ASCII: two patterns each beside a pair are
        // more than PostgreSQL's index is given, and the venues are walked.
        for n in 0..24 {
            let body = json!({"venue": format!("Hall {n} {}", chinese(n * 25, 25, ""))});
            app.post("venues", body).await.assert(201);
        }
        let qx = app
            .post("venues", json!({"venue": "龍qx會館"}))
            .await
            .assert(201)
            .id();
        app.post("venues", json!({"venue": "Q x"}))
            .await
            .assert(201);
        index_everything(&app).await;
        let r = app.get("venues?search=qx").await;
        r.assert(200);
        assert_eq!(ids_of(&r, "venues"), [qx]);
    }
);
