//! Words of ASCII letters and digits, which both databases find through their
//! index of whole words (SQLite's migration 51, PostgreSQL's 52): anywhere inside
//! a word, in any field, through edits and deletions, as the text's own check
//! finds them; and words inside many pieces of the calendar's text, or inside a
//! piece longer than the index holds, which they find through the trigram index
//! instead.

use super::*;
use calendar_events::store::Backend;

/// Each event's title and description, around `carnival`.
const FESTIVAL: [(&str, &str); 9] = [
    ("Carnival Parade", ""),
    ("Pre-Carnival Ball", ""),
    ("Xcarnivalx Night", ""),
    ("CARNIVALÉ Gala", ""),
    ("Quiet Evening", "<p>A carnival&nbsp;of masks</p>"),
    ("Carni Val", "car-nival, carni_val"),
    ("Carnivore Feast", ""),
    ("Carnival Later", ""),
    // A piece PostgreSQL reads as NULL in an array literal, unless quoted.
    ("Null Island", ""),
];

/// The titles holding `word` among those created, sorted.
fn expected(created: &[(&str, &str)], word: &str) -> Vec<String> {
    let mut titles: Vec<String> = created
        .iter()
        .filter(|(title, description)| {
            format!("{title} {description}")
                .to_lowercase()
                .contains(word)
        })
        .map(|(title, _)| title.to_string())
        .collect();
    titles.sort();
    titles
}

/// The events the index of whole words finds holding `piece` as a whole word.
async fn holding_piece(app: &TestApp, piece: &str) -> Vec<i64> {
    let mut conn = app.store.pool.read().await.unwrap();
    let (table, holds, value) = match app.backend() {
        Backend::Sqlite => ("posts_words", "posts_words MATCH ?", format!("\"{piece}\"")),
        Backend::Postgres => (
            "event_search",
            "search_pieces(haystack) && string_to_array($1, ' ')",
            piece.to_string(),
        ),
    };
    let id = match app.backend() {
        Backend::Sqlite => "rowid",
        Backend::Postgres => "id",
    };
    let q = sea_query::Query::select()
        .expr(sea_query::Expr::cust(id))
        .from(sea_query::Alias::new(table))
        .and_where(sea_query::Expr::cust_with_values(holds, [value]))
        .order_by_expr(sea_query::Expr::cust(id), sea_query::Order::Asc)
        .to_owned();
    conn.query(&q, |row| row.i64(0)).await.unwrap()
}

both_with!(
    ascii_words_are_found_inside_words_by_the_pieces_holding_them,
    // The window's first events are fillers, more than the probe reads (half the
    // count limit): the words are rare in them, and looked up in the index.
    calendar_events::config::Settings {
        search_count_limit: 4,
        response_cache_bytes: 0,
        ..settings()
    },
    |app| async move {
        for day in 1..=6 {
            let date = format!("2027-05-0{day}");
            app.event(event(
                &format!("Filler {day}"),
                &format!("{date} 10:00:00"),
                &format!("{date} 11:00:00"),
            ))
            .await;
        }
        let mut ids = Vec::new();
        for (title, description) in FESTIVAL {
            let body = with(
                event(title, "2027-05-10 19:00:00", "2027-05-10 21:00:00"),
                json!({"description": description}),
            );
            ids.push(app.event(body).await);
        }
        // Eighty pieces holding `zqx`, more than a word is looked up through.
        let many: Vec<String> = (0..80).map(|i| format!("zqx{i}")).collect();
        let crowded = app
            .event(with(
                event(
                    "Crowded Words",
                    "2027-05-11 19:00:00",
                    "2027-05-11 21:00:00",
                ),
                json!({"description": many.join(" ")}),
            ))
            .await;
        let mut created: Vec<(&str, &str)> = FESTIVAL.to_vec();
        let crowded_text = many.join(" ");
        created.push(("Crowded Words", &crowded_text));
        // Pieces longer than FTS5 holds whole, alike in the part it holds: more
        // events hold `zqlong` than the search counts, so that it reads the
        // index's matches as they are.
        let long_prefix = "x".repeat(33_000);
        let long_found = format!("{long_prefix}zqlong");
        let long_other = format!("{long_prefix}zqother");
        let long_events = [
            ("Long Found 1", &long_found),
            ("Long Found 2", &long_found),
            ("Long Found 3", &long_found),
            ("Long Found 4", &long_found),
            ("Long Found 5", &long_found),
            ("Long Other", &long_other),
        ];
        for (title, text) in long_events {
            app.event(with(
                event(title, "2027-05-12 19:00:00", "2027-05-12 21:00:00"),
                json!({"description": text}),
            ))
            .await;
            created.push((title, text));
        }

        let words = [
            "carnival",
            "carni",
            "nival",
            "arniv",
            "val",
            "carnivale",
            "masks",
            "nbsp",
            "zqx",
            "zqx7",
            "zqx79",
            "zqlong",
            "null",
            "nul",
            "carnival parade",
            "carnival zqx",
            "zeppelin",
        ];
        // Answered with some events still queued (scanned), then from the index
        // alone once the queue is indexed.
        let queued_answers = {
            let mut answers = Vec::new();
            for word in words {
                answers.push(search(&app, &word.replace(' ', "%20")).await);
            }
            answers
        };
        index_queued(&app).await;
        if let Some(q) = queued(&app).await {
            assert!(q.is_empty(), "all indexed: {q:?}");
        }
        for (word, queued_answer) in words.iter().zip(&queued_answers) {
            let mut model = expected(&created, word.split(' ').next().unwrap());
            if let Some(second) = word.split(' ').nth(1) {
                let also = expected(&created, second);
                model.retain(|t| also.contains(t));
            }
            assert_eq!(
                &search(&app, &word.replace(' ', "%20")).await,
                &model,
                "{word}, indexed"
            );
            assert_eq!(queued_answer, &model, "{word}, queued");
        }
        assert_eq!(
            holding_piece(&app, "carnivalé").await,
            [ids[3]],
            "a piece is held whole, accents and all"
        );
        assert_eq!(holding_piece(&app, "zqx42").await, [crowded]);
        assert_eq!(holding_piece(&app, "null").await, [ids[8]]);

        // An edit takes the old words out of the index; a deletion, all of them.
        app.patch(
            &format!("events/{}", ids[0]),
            json!({"title": "Koala Parade"}),
        )
        .await
        .assert(200);
        app.delete(&format!("events/{}?force=true", ids[7]))
            .await
            .assert(200);
        index_queued(&app).await;
        let mut remaining: Vec<(&str, &str)> = created.clone();
        remaining[0].0 = "Koala Parade";
        remaining.remove(7);
        for word in ["carnival", "koala", "parade", "later"] {
            assert_eq!(
                search(&app, word).await,
                expected(&remaining, word),
                "{word}, after writes"
            );
        }
        assert_eq!(
            holding_piece(&app, "carnival").await,
            [ids[1], ids[4]],
            "the events still holding it as a whole word"
        );
    }
);

both_with!(
    a_common_word_beside_a_rare_one_is_found_on_the_rare_ones_rows,
    // PostgreSQL reads `jazz` through its pieces and, as the statistics say half
    // the events hold `salsa`, checks `salsa` on the rows they give; a word inside
    // each of `jazz`'s pieces holds for each of those rows. The probe
    // reads the window's first two events, and the index the rest.
    calendar_events::config::Settings {
        search_count_limit: 4,
        response_cache_bytes: 0,
        ..settings()
    },
    |app| async move {
        let mut created: Vec<(String, String)> = Vec::new();
        let mut add = async |title: String, extra: serde_json::Value| {
            let day = created.len() % 28 + 1;
            let date = format!("2027-05-{day:02}");
            let body = with(
                event(
                    &title,
                    &format!("{date} 10:00:00"),
                    &format!("{date} 11:00:00"),
                ),
                extra.clone(),
            );
            app.event(body).await;
            let listed = extra.get("status").is_none() && extra.get("password").is_none();
            let text = extra["description"].as_str().unwrap_or("").to_string();
            if listed {
                created.push((title, text));
            }
        };
        for n in 0..48 {
            add(format!("Salsa Social {n}"), json!({})).await;
        }
        for n in 0..56 {
            add(format!("Quiet Evening {n}"), json!({})).await;
        }
        add("Jazz Café".into(), json!({})).await;
        add("Salsa Night".into(), json!({"description": "a jazz band"})).await;
        add("Jazzy Salsa".into(), json!({})).await;
        add("Jazz Trio".into(), json!({})).await;
        add(
            "Salsa Draft".into(),
            json!({"description": "jazz", "status": "draft"}),
        )
        .await;
        add(
            "Locked Salsa".into(),
            json!({"description": "jazz", "password": "pw"}),
        )
        .await;
        if app.backend() == Backend::Postgres {
            app.analyze_event_search().await;
            let share = app.pieces_per_mille("salsa").await;
            assert!(share > 60, "salsa is read through the trigrams: {share} ‰");
        }
        let created: Vec<(&str, &str)> = created
            .iter()
            .map(|(t, d)| (t.as_str(), d.as_str()))
            .collect();
        // `az` is inside each of `jazz`'s pieces, `ni` inside none.
        let searches = [
            "salsa jazz",
            "jazz salsa",
            "jazz social",
            "salsa jazzy",
            "jazz café",
            "jazz az",
            "jazz ni",
        ];
        for words in searches {
            let mut model = expected(&created, words.split(' ').next().unwrap());
            let also = expected(&created, words.split(' ').nth(1).unwrap());
            model.retain(|t| also.contains(t));
            assert_eq!(
                search(&app, &words.replace(' ', "%20")).await,
                model,
                "{words}"
            );
        }
        assert_eq!(
            search(&app, "salsa%20jazz").await,
            ["Jazzy Salsa", "Salsa Night"]
        );
    }
);
