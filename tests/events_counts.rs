//! The total of a plain window (`start_date`/`end_date` only, as every visitor sees
//! it) comes from per-day counts kept by triggers; it must always equal the number
//! of events the window lists, through inserts, updates and deletes, whatever the
//! window's edges cut through.

mod common;

use common::*;
use serde_json::{Value, json};

/// Window edges: day boundaries, mid-day instants, and ones outside every event.
const STARTS: [&str; 8] = [
    "2027-03-01 00:00:00",
    "2027-03-10 00:00:00",
    "2027-03-10 12:00:00",
    "2027-03-10 23:59:59",
    "2027-03-11 00:00:00",
    "2027-03-12 10:00:00",
    "2027-03-15 00:00:00",
    "2027-03-20 00:00:00",
];
const ENDS: [&str; 8] = [
    "2027-03-10 12:00:00",
    "2027-03-15 10:30:00",
    "2027-03-20 00:00:00",
    "2027-03-20 11:15:00",
    "2027-03-20 12:00:00",
    "2027-03-20 23:59:59",
    "2027-03-31 00:00:00",
    "2028-01-01 00:00:00",
];

fn query(start: &str, end: &str) -> String {
    format!("events?start_date={start}&end_date={end}&strict_dates=true&per_page=50")
        .replace(' ', "%20")
}

/// Every window of the grid, for a visitor and for the administrator, alone and
/// with a category (whose per-day counts are kept apart): its total against the
/// events it lists.
async fn assert_totals_match_lists(app: &TestApp, category: i64, when: &str) {
    let admin = app.admin.auth();
    for start in STARTS {
        for end in ENDS {
            for (filter, auth) in [
                (String::new(), &Auth::None),
                (format!("&categories={category}"), &Auth::None),
                (String::new(), &admin),
                (format!("&categories={category}"), &admin),
            ] {
                let r = app.get_as(&(query(start, end) + &filter), auth).await;
                r.assert(200);
                let listed = titles(&r).len();
                if matches!(auth, Auth::None) {
                    // A count too low would also cut the list short: the posts say.
                    let in_category = (!filter.is_empty()).then_some(category);
                    let expected = visible_in_window(app, start, end, in_category).await;
                    assert_eq!(
                        listed,
                        expected,
                        "{when}: window {start} – {end}{filter} lists {:?}",
                        titles(&r)
                    );
                }
                let total: usize = r.header("X-WP-Total").unwrap().parse().unwrap();
                assert_eq!(
                    total,
                    listed,
                    "{when}: window {start} – {end}{filter} as {auth:?} lists {:?}",
                    titles(&r)
                );
                assert_eq!(r.body["total"], json!(listed), "{when}: {start} – {end}");
            }
        }
    }
}

/// How many events a visitor sees in the window, counted from the posts themselves:
/// published, or scheduled and due, not hidden, starting and ending inside it.
async fn visible_in_window(app: &TestApp, start: &str, end: &str, category: Option<i64>) -> usize {
    let utc = |t: &str| {
        chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S")
            .unwrap()
            .and_utc()
            .timestamp()
    };
    let dates = format!(
        "p.start_utc >= {} AND p.end_utc <= {}",
        utc(start),
        utc(end)
    );
    visible_events(app, &dates, category).await
}

fn at(title: &str, start: &str, end: &str, extra: Value) -> Value {
    with(event(title, start, end), extra)
}

both!(
    window_totals_equal_the_events_listed_through_every_kind_of_write,
    |app| async move {
        let category = app.post("categories", json!({"name": "Gala"})).await.id();
        let ids: Vec<i64> = {
            let mut ids = Vec::new();
            for (i, body) in [
                at(
                    "First day, early",
                    "2027-03-10 08:00:00",
                    "2027-03-10 09:00:00",
                    json!({}),
                ),
                at(
                    "First day, late",
                    "2027-03-10 13:00:00",
                    "2027-03-10 14:00:00",
                    json!({}),
                ),
                at(
                    "Over midnight",
                    "2027-03-10 23:30:00",
                    "2027-03-11 01:00:00",
                    json!({}),
                ),
                at(
                    "Inside",
                    "2027-03-15 10:00:00",
                    "2027-03-15 11:00:00",
                    json!({}),
                ),
                at(
                    "Long, ends last day",
                    "2027-03-12 10:00:00",
                    "2027-03-20 10:00:00",
                    json!({}),
                ),
                at(
                    "Ends after the edge",
                    "2027-03-19 22:00:00",
                    "2027-03-20 13:00:00",
                    json!({}),
                ),
                at(
                    "Last day",
                    "2027-03-20 11:00:00",
                    "2027-03-20 11:30:00",
                    json!({}),
                ),
                at(
                    "After",
                    "2027-03-25 10:00:00",
                    "2027-03-25 11:00:00",
                    json!({}),
                ),
                at(
                    "Spans it all",
                    "2027-03-01 10:00:00",
                    "2027-03-30 11:00:00",
                    json!({}),
                ),
                at(
                    "Hidden",
                    "2027-03-15 12:00:00",
                    "2027-03-15 13:00:00",
                    json!({"hide_from_listings": true}),
                ),
                at(
                    "Draft",
                    "2027-03-15 12:00:00",
                    "2027-03-15 13:00:00",
                    json!({"status": "draft"}),
                ),
                at(
                    "Protected",
                    "2027-03-16 12:00:00",
                    "2027-03-16 13:00:00",
                    json!({"password": "s3cret"}),
                ),
                // Scheduled for now: visible by the clock, not by a write.
                at(
                    "Due",
                    "2027-03-16 12:00:00",
                    "2027-03-16 13:00:00",
                    json!({"status": "future"}),
                ),
                at(
                    "Scheduled",
                    "2027-03-16 12:00:00",
                    "2027-03-16 13:00:00",
                    json!({"status": "future", "date": "2030-01-01 00:00:00"}),
                ),
                at(
                    "All day",
                    "2027-03-20 00:00:00",
                    "2027-03-20 23:59:59",
                    json!({"all_day": true}),
                ),
            ]
            .into_iter()
            .enumerate()
            {
                let body = if i % 2 == 0 {
                    with(body, json!({"categories": [category]}))
                } else {
                    body
                };
                ids.push(app.event(body).await);
            }
            ids
        };
        // The first window cuts through days: mid-day on both sides.
        let r = app
            .get(&query("2027-03-10 12:00:00", "2027-03-20 12:00:00"))
            .await;
        let mut listed = titles(&r);
        listed.sort();
        assert_eq!(
            listed,
            [
                "Due",
                "First day, late",
                "Inside",
                "Last day",
                "Long, ends last day",
                "Over midnight",
                "Protected"
            ]
        );
        assert_totals_match_lists(&app, category, "as created").await;

        let id = |title: &str| {
            ids[[
                "First day, early",
                "First day, late",
                "Over midnight",
                "Inside",
                "Long, ends last day",
                "Ends after the edge",
                "Last day",
                "After",
                "Spans it all",
                "Hidden",
                "Draft",
                "Protected",
                "Due",
                "Scheduled",
                "All day",
            ]
            .iter()
            .position(|t| *t == title)
            .unwrap()]
        };
        let edits = [
            (
                format!("events/{}", id("Inside")),
                json!({"start_date": "2027-03-26 10:00:00", "end_date": "2027-03-26 11:00:00"}),
            ),
            (
                format!("events/{}", id("After")),
                json!({"start_date": "2027-03-20 09:00:00", "end_date": "2027-03-20 09:30:00"}),
            ),
            (
                format!("events/{}", id("Long, ends last day")),
                json!({"hide_from_listings": true}),
            ),
            (
                format!("events/{}", id("Hidden")),
                json!({"hide_from_listings": false}),
            ),
            (
                format!("events/{}", id("First day, late")),
                json!({"status": "draft"}),
            ),
            (
                format!("events/{}", id("Draft")),
                json!({"status": "publish"}),
            ),
            (
                format!("events/{}", id("Due")),
                json!({"status": "publish"}),
            ),
            (
                format!("events/{}", id("Over midnight")),
                json!({"title": "Renamed only"}),
            ),
        ];
        for (path, body) in edits {
            app.post(&path, body).await.assert(200);
        }
        assert_totals_match_lists(&app, category, "after updates").await;

        app.delete(&format!("events/{}", id("Last day")))
            .await
            .assert(200);
        app.delete(&format!("events/{}?force=true", id("Spans it all")))
            .await
            .assert(200);
        app.delete(&format!("events/{}?force=true", id("Draft")))
            .await
            .assert(200);
        assert_totals_match_lists(&app, category, "after deletes").await;

        // Out of the trash again.
        app.post(
            &format!("events/{}", id("Last day")),
            json!({"status": "publish"}),
        )
        .await
        .assert(200);
        assert_totals_match_lists(&app, category, "after a restore").await;
    }
);

both!(the_default_window_counts_what_it_lists, |app| async move {
    let day = |d: i64| {
        (chrono::Utc::now() + chrono::Duration::days(d))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    };
    for d in [-1, 0, 1, 30, 700, 800] {
        app.event(event(&format!("Day {d}"), &day(d), &day(d)))
            .await;
    }
    let r = app.get("events?per_page=50").await;
    r.assert(200);
    assert_eq!(
        r.header("X-WP-Total"),
        Some(titles(&r).len().to_string().as_str())
    );
    assert!(
        titles(&r).contains(&"Day 1".to_string()),
        "{:?}",
        titles(&r)
    );
    assert!(
        !titles(&r).contains(&"Day 800".to_string()),
        "{:?}",
        titles(&r)
    );
});

/// The first day of the `n`th block of 32 days since 1970 (`event_key_blocks`), as
/// a date of the API.
fn block_start(n: i64) -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Duration::days(32 * n)
}

fn stamp(day: chrono::NaiveDate, time: &str) -> String {
    format!("{} {time}", day.format("%Y-%m-%d"))
}

// Windows of months and years, whose totals add up the blocks of days wholly
// inside them and the day pairs of the blocks they cut: the totals equal what
// they list, for edges on, beside and between blocks' first days, for events
// that cross a block's edge, through writes that move events between blocks.
both!(
    long_window_totals_equal_the_events_listed_across_blocks,
    |app| async move {
        let category = app.post("categories", json!({"name": "Season"})).await.id();
        // Blocks 600..606 run from 2022-07-25 to 2023-02-04.
        let edge = |n: i64, days: i64| block_start(n) + chrono::Duration::days(days);
        let mut ids = Vec::new();
        let mut n = 0;
        for block in 600..606 {
            for (from, to, extra) in [
                (edge(block, 0), edge(block, 0), json!({})),
                (edge(block, 3), edge(block, 3), json!({"status": "draft"})),
                (edge(block, 10), edge(block, 11), json!({"password": "pw"})),
                // Across the block's last day into the next block.
                (edge(block, 31), edge(block, 33), json!({})),
                (edge(block, 20), edge(block, 45), json!({})),
                (
                    edge(block, 16),
                    edge(block, 16),
                    json!({"hide_from_listings": true}),
                ),
            ] {
                n += 1;
                let mut body = at(
                    &format!("E{n}"),
                    &stamp(from, "10:00:00"),
                    &stamp(to, "11:00:00"),
                    extra,
                );
                if n % 3 == 0 {
                    body = with(body, json!({"categories": [category]}));
                }
                ids.push(app.event(body).await);
            }
        }
        let windows = [
            (edge(600, 0), edge(606, 0)),
            (edge(600, 1), edge(605, 31)),
            (edge(599, 31), edge(603, 1)),
            (edge(600, 5), edge(602, 20)),
            (edge(600, 31), edge(603, 0)),
            (edge(601, 0), edge(604, 0)),
            (edge(600, 20), edge(601, 31)),
        ];
        let check = |when: &'static str| {
            let app = &app;
            let windows = &windows;
            async move {
                let admin = app.admin.auth();
                for (from, to) in windows {
                    for (time_from, time_to) in [("00:00:00", "23:59:59"), ("10:30:00", "10:30:00")]
                    {
                        for (filter, auth) in [
                            (String::new(), &Auth::None),
                            (format!("&categories={category}"), &Auth::None),
                            (String::new(), &admin),
                            (format!("&categories={category}"), &admin),
                        ] {
                            let path =
                                query(&stamp(*from, time_from), &stamp(*to, time_to)) + &filter;
                            let r = app.get_as(&path, auth).await;
                            r.assert(200);
                            assert_eq!(
                                r.body["total"],
                                json!(titles(&r).len()),
                                "{when}: {path} as {auth:?} lists {:?}",
                                titles(&r)
                            );
                        }
                    }
                }
            }
        };
        check("as created").await;
        // Moved across blocks both ways, hidden, published, trashed, deleted.
        let moved = [
            (
                0,
                json!({"start_date": stamp(edge(603, 2), "10:00:00"), "end_date": stamp(edge(603, 2), "11:00:00")}),
            ),
            (
                21,
                json!({"start_date": stamp(edge(600, 30), "10:00:00"), "end_date": stamp(edge(602, 1), "11:00:00")}),
            ),
            (4, json!({"hide_from_listings": true})),
            (15, json!({"hide_from_listings": false})),
            (7, json!({"status": "publish"})),
            (9, json!({"password": ""})),
        ];
        for (i, body) in moved {
            app.post(&format!("events/{}", ids[i]), body)
                .await
                .assert(200);
        }
        app.delete(&format!("events/{}", ids[12])).await.assert(200);
        app.delete(&format!("events/{}?force=true", ids[28]))
            .await
            .assert(200);
        check("after writes").await;
        // The blocks hold exactly the sums of their days (on PostgreSQL, over their
        // stripes, over which the writes spread them by transaction).
        let mut conn = app.store.pool.read().await.unwrap();
        let days = "SELECT kind, value, status, protected, \
                    (end_day - ((end_day % 32) + 32) % 32) / 32 AS end_block, \
                    (start_day - ((start_day % 32) + 32) % 32) / 32 AS start_block, \
                    SUM(events) AS events FROM event_key_days \
                    GROUP BY 1, 2, 3, 4, 5, 6 HAVING SUM(events) <> 0";
        let blocks = "SELECT kind, value, status, protected, end_block, start_block, \
                      SUM(events) AS events FROM event_key_blocks \
                      GROUP BY 1, 2, 3, 4, 5, 6 HAVING SUM(events) <> 0";
        for (these, those) in [(days, blocks), (blocks, days)] {
            let differing = conn
                .query_one(
                    &sea_query::Query::select()
                        .expr(sea_query::Expr::cust(format!(
                            "(SELECT COUNT(*) FROM ({these} EXCEPT {those}) d)"
                        )))
                        .to_owned(),
                    |r| r.i64(0),
                )
                .await
                .unwrap();
            assert_eq!(differing, 0, "blocks whose sums differ from their days'");
        }
    }
);

// Several categories count each event once, however their sizes compare: beside a
// large one, the small ones' events are each looked up among the earlier values'
// (PostgreSQL's probes, `keys::Probes`), and beside a small one, as PostgreSQL plans
// it. An event in a subcategory is in its parent; a protected one is counted for
// the administrator only.
both!(
    several_categories_count_each_event_once_beside_a_large_one,
    |app| async move {
        let big = app.category("Big", None).await;
        let below = app.category("Below", Some(big)).await;
        let small = app.category("Small", None).await;
        let smaller = app.category("Smaller", None).await;
        let on = |n: u32| format!("2027-05-{:02} 10:00:00", 1 + n % 28);
        let mut create = Vec::new();
        for n in 0..60u32 {
            let category = if n % 4 == 0 { below } else { big };
            create.push((format!("Big {n}"), n, json!([category]), json!({})));
        }
        for (title, categories, extra) in [
            ("Small alone", json!([small]), json!({})),
            ("Small and big", json!([small, big]), json!({})),
            ("Small and below", json!([small, below]), json!({})),
            ("Small protected", json!([small]), json!({"password": "pw"})),
            ("Small and smaller", json!([small, smaller]), json!({})),
            ("Smaller and big", json!([smaller, big]), json!({})),
        ] {
            create.push((title.to_string(), 7, categories, extra));
        }
        for (title, n, categories, extra) in &create {
            let body = with(
                event(title, &on(*n), &on(*n)),
                json!({"categories": categories}),
            );
            app.event(with(body, extra.clone())).await;
        }
        let window = "start_date=2027-05-01&end_date=2027-05-31&per_page=50";
        for (filter, anonymous, admin) in [
            (format!("{big},{small}"), 65usize, 66),
            (format!("{small},{big}"), 65, 66),
            (format!("{big},{small},{smaller}"), 65, 66),
            (format!("{small},{smaller}"), 5, 6),
            (format!("{below},{small}"), 19, 20),
            // A category with one below it: the events of the one above.
            (format!("{big},{below}"), 63, 63),
            (format!("{below},{big},{small}"), 65, 66),
        ] {
            for (auth, expected) in [(Auth::None, anonymous), (app.admin.auth(), admin)] {
                let mut listed = Vec::new();
                for page in 1..=expected.div_ceil(50) {
                    let path = format!("events?{window}&categories={filter}&page={page}");
                    let r = app.get_as(&path, &auth).await;
                    r.assert(200);
                    let total = expected.to_string();
                    assert_eq!(r.header("X-WP-Total"), Some(total.as_str()), "{path}");
                    listed.extend(titles(&r));
                }
                let mut unique = listed.clone();
                unique.sort_unstable();
                unique.dedup();
                assert_eq!(unique.len(), listed.len(), "{filter}: {listed:?}");
                assert_eq!(listed.len(), expected, "{filter}: {listed:?}");
            }
        }
    }
);
