//! A filter of several large terms is counted from the events' bits (migration 32,
//! `store::events::keys::bits`): its totals and lists must be what the posts say,
//! for visitors and the administrator, beside other filters, through changes of an
//! event's terms, a category's move and a category's delete, for terms whose bits
//! are in each word of the own key (migration 34), and for a term past the 252
//! bits (counted by the values' ranges, or as a set of events).

mod common;

use common::*;
use serde_json::{Value, json};

const WINDOW: &str = "start_date=2027-05-01&end_date=2027-05-31%2023:59:59&per_page=50";

/// How many events of May 2027 the list with each group of `terms` (one of a
/// group's terms, or a term below it) shows, counted from the posts: for a
/// visitor, published and unprotected ones; for the administrator, all but trashed
/// ones; never hidden ones. `featured`: the featured ones only. The `LIMIT` keeps
/// SQLite 3.51 from making the `EXISTS` a join that counts an event once per term
/// it holds (see `store::exists`).
async fn expected(app: &TestApp, terms: &[&[i64]], admin: bool, featured: bool) -> usize {
    let held: String = terms
        .iter()
        .map(|group| {
            let group = group
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            format!(
                " AND EXISTS (SELECT 1 FROM term_relationships r \
                 JOIN term_ancestors a ON a.term_id = r.term_id \
                 WHERE r.post_id = p.id AND a.ancestor_id IN ({group}) LIMIT 1)"
            )
        })
        .collect();
    let seen = if admin {
        "p.status <> 'trash'"
    } else {
        "p.status = 'publish' AND p.password = ''"
    };
    let featured = if featured { " AND p.featured" } else { "" };
    let sql = format!(
        "(SELECT COUNT(*) FROM posts p WHERE p.post_type = 'event' AND NOT p.hide_from_listings \
         AND {seen}{featured} AND p.start_utc >= 1809129600 AND p.end_utc <= 1811807999\
         {held})"
    );
    usize::try_from(app.scalar(&sql).await).unwrap()
}

/// The list of `filter` in May, every page of it, against the posts' count, as a
/// visitor and as the administrator: its total, and as many events, each once.
async fn assert_counted(app: &TestApp, filter: &str, terms: &[&[i64]], featured: bool, when: &str) {
    for (auth, admin) in [(Auth::None, false), (app.admin.auth(), true)] {
        let expected = expected(app, terms, admin, featured).await;
        let mut listed = Vec::new();
        for page in 1..=expected.div_ceil(50).max(1) {
            let path = format!("events?{WINDOW}&{filter}&page={page}");
            let r = app.get_as(&path, &auth).await;
            r.assert(200);
            let total = expected.to_string();
            assert_eq!(
                r.header("X-WP-Total"),
                Some(total.as_str()),
                "{when}: {path} as {auth:?}"
            );
            listed.extend(titles(&r));
        }
        let mut unique = listed.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), expected, "{when}: {filter} as {auth:?}");
        assert_eq!(listed.len(), expected, "{when}: {filter} as {auth:?}");
    }
}

async fn tag(app: &TestApp, name: &str) -> i64 {
    let r = app.post("tags", json!({ "name": name })).await;
    r.assert(201);
    r.id()
}

/// The events: each of the first 90 with one to three of the categories and maybe
/// a tag, some protected, hidden, drafts or featured; ten with no term.
fn events(categories: &[i64], tags: &[i64]) -> Vec<Value> {
    (0..100usize)
        .map(|n| {
            let day = format!("2027-05-{:02} 1{}:00:00", 1 + n % 30, n % 10);
            let mut body = event(&format!("Event {n}"), &day, &day);
            if n < 90 {
                let picked: Vec<i64> = (0..=n % 3)
                    .map(|i| categories[(n * 7 + i * 3) % categories.len()])
                    .collect();
                body = with(body, json!({ "categories": picked }));
                if n % 4 != 3 {
                    body = with(body, json!({ "tags": [tags[n % tags.len()]] }));
                }
            }
            let extra = match n % 11 {
                1 => json!({"password": "pw"}),
                2 => json!({"hide_from_listings": true}),
                3 => json!({"status": "draft"}),
                4 | 5 => json!({"featured": true}),
                _ => json!({}),
            };
            with(body, extra)
        })
        .collect()
}

both!(
    several_large_terms_are_counted_by_their_bits,
    |app| async move {
        let a = app.category("Alpha", None).await;
        let b = app.category("Beta", None).await;
        let below_b = app.category("Below beta", Some(b)).await;
        let c = app.category("Gamma", None).await;
        let d = app.category("Delta", None).await;
        let tags = [
            tag(&app, "one").await,
            tag(&app, "two").await,
            tag(&app, "three").await,
        ];
        for body in events(&[a, b, below_b, c, d], &tags) {
            app.event(body).await;
        }
        assert_summaries_hold(&app, "created").await;
        let check = |when: &'static str| {
            let app = &app;
            async move {
                for (filter, terms) in [
                    (format!("categories={a},{b}"), vec![a, b]),
                    (format!("categories={a},{c},{d}"), vec![a, c, d]),
                    (format!("categories={a},{b},{c},{d}"), vec![a, b, c, d]),
                    (format!("categories={below_b},{c}"), vec![below_b, c]),
                    (format!("tags={},{}", tags[0], tags[1]), tags[..2].to_vec()),
                ] {
                    assert_counted(app, &filter, &[&terms], false, when).await;
                }
                // Beside other filters, which are probed for each event.
                let filter = format!("categories={a},{b}&featured=1");
                assert_counted(app, &filter, &[&[a, b]], true, when).await;
                let filter = format!("categories={a},{c}&tags={}", tags[0]);
                assert_counted(app, &filter, &[&[a, c], &tags[..1]], false, when).await;
                // Several terms beside several others: the second filter is sought
                // by its bits on each event's own key.
                let (all, two) = ([a, b, c, d], &tags[..2]);
                let filter = format!("categories={a},{b},{c},{d}&tags={},{}", two[0], two[1]);
                assert_counted(app, &filter, &[&all, two], false, when).await;
                let filter = format!("tags={},{}&categories={a},{c}", two[0], two[1]);
                assert_counted(app, &filter, &[two, &[a, c]], false, when).await;
            }
        };
        check("created").await;

        // An event's terms changed: it loses one category and gains another.
        let r = app.get(&format!("events?{WINDOW}&categories={a}")).await;
        let first = event_ids(&r)[0];
        app.post(&format!("events/{first}"), json!({ "categories": [d] }))
            .await
            .assert(200);
        assert_summaries_hold(&app, "terms changed").await;
        check("terms changed").await;

        // A category moved under another: its events hold that one's key, and bit.
        app.post(&format!("categories/{below_b}"), json!({ "parent": a }))
            .await
            .assert(200);
        assert_summaries_hold(&app, "moved").await;
        check("moved").await;

        // A category deleted: its bit is freed, and the next category takes it
        // without the deleted one's events holding it.
        app.delete(&format!("categories/{c}?force=true"))
            .await
            .assert(200);
        assert_summaries_hold(&app, "deleted").await;
        let e = app.category("Epsilon", None).await;
        assert_summaries_hold(&app, "bit taken again").await;
        for (filter, terms) in [
            (format!("categories={a},{e}"), vec![a, e]),
            (format!("categories={b},{d},{e}"), vec![b, d, e]),
        ] {
            assert_counted(&app, &filter, &[&terms], false, "bit taken again").await;
        }
    }
);

// Terms past the 252 bits have none: a filter with one is counted by its values'
// ranges, or as a set of events when they are many, as exactly. Terms with bits in
// the own key's later words are counted by those.
both!(
    a_term_without_a_bit_is_counted_by_its_range,
    |app| async move {
        // Two categories made first, which have bits.
        let (x, y) = (
            app.category("Ex", None).await,
            app.category("Why", None).await,
        );
        let mut made = Vec::new();
        // Bits 0 and 1 are the categories', 2 to 251 the first 250 tags'.
        for n in 0..255 {
            made.push(tag(&app, &format!("tag {n}")).await);
        }
        let (late, later) = (made[250], made[251]);
        let early = made[0];
        let high = [made[70], made[140], made[249]];
        for n in 0..45usize {
            let day = format!("2027-05-{:02} 0{}:00:00", 1 + n % 28, n % 10);
            let tags = json!([high[n % 3], high[(n + 1) % 3]]);
            let extra = match n % 5 {
                1 => json!({"password": "pw"}),
                2 => json!({"status": "draft"}),
                _ => json!({}),
            };
            let body = with(
                event(&format!("High {n}"), &day, &day),
                json!({ "tags": tags }),
            );
            app.event(with(body, extra)).await;
        }
        assert_summaries_hold(&app, "tagged high").await;
        for terms in [high.to_vec(), vec![high[0], high[2]], vec![early, high[1]]] {
            let values: Vec<String> = terms.iter().map(i64::to_string).collect();
            let filter = format!("tags={}", values.join(","));
            assert_counted(&app, &filter, &[&terms], false, "later words").await;
        }
        for n in 0..30usize {
            let day = format!("2027-05-{:02} 10:00:00", 1 + n % 28);
            let tags = match n % 3 {
                0 => json!([early, late]),
                1 => json!([late]),
                _ => json!([later, early]),
            };
            app.event(with(
                event(&format!("Tagged {n}"), &day, &day),
                json!({ "tags": tags }),
            ))
            .await;
        }
        assert_summaries_hold(&app, "tagged").await;
        for (filter, terms) in [
            (format!("tags={early},{late}"), vec![early, late]),
            (format!("tags={late},{later}"), vec![late, later]),
            (
                format!("tags={early},{late},{later}"),
                vec![early, late, later],
            ),
        ] {
            assert_counted(&app, &filter, &[&terms], false, "past the bits").await;
        }

        // Many such terms of like sizes are counted as a set of events: each event
        // of one to three of them, once, whatever its visibility.
        let many = &made[246..254];
        for n in 0..60usize {
            let day = format!("2027-05-{:02} 1{}:00:00", 1 + n % 28, n % 10);
            let tags: Vec<i64> = (0..=n % 3)
                .map(|i| many[(n + i * 3) % many.len()])
                .collect();
            let extra = match n % 7 {
                1 => json!({"password": "pw"}),
                2 => json!({"hide_from_listings": true}),
                3 => json!({"status": "draft"}),
                _ => json!({}),
            };
            let categories = match n % 3 {
                0 => json!([x]),
                1 => json!([x, y]),
                _ => json!([]),
            };
            let terms = json!({ "tags": tags, "categories": categories });
            let body = with(event(&format!("Many {n}"), &day, &day), terms);
            app.event(with(body, extra)).await;
        }
        assert_summaries_hold(&app, "many tagged").await;
        let listed = |terms: &[i64]| {
            let values: Vec<String> = terms.iter().map(i64::to_string).collect();
            format!("tags={}", values.join(","))
        };
        let with_early: Vec<i64> = std::iter::once(early).chain(many.iter().copied()).collect();
        for terms in [many.to_vec(), many[2..].to_vec(), with_early] {
            assert_counted(
                &app,
                &listed(&terms),
                &[&terms],
                false,
                "many past the bits",
            )
            .await;
        }
        // Beside two categories (the lighter filter, read first).
        let filter = format!("{}&categories={x},{y}", listed(many));
        assert_counted(&app, &filter, &[many, &[x, y]], false, "beside categories").await;
    }
);

// Several large categories read from the bits of each event's own key, beside
// several tags (heavier, so read second): those are sought by their bits on the
// same key.
both!(
    a_second_filter_of_terms_is_sought_by_its_bits,
    |app| async move {
        let a = app.category("Alpha", None).await;
        let b = app.category("Beta", None).await;
        let t = tag(&app, "tee").await;
        let u = tag(&app, "you").await;
        for n in 0..120usize {
            let day = format!("2027-05-{:02} {:02}:00:00", 1 + n % 30, n % 24);
            let categories = match n % 4 {
                0 => json!([a]),
                1 => json!([b]),
                2 => json!([a, b]),
                _ => json!([]),
            };
            let tags = match n % 3 {
                0 => json!([t]),
                1 => json!([u]),
                _ => json!([t, u]),
            };
            let extra = match n % 9 {
                1 => json!({"password": "pw"}),
                2 => json!({"status": "draft"}),
                _ => json!({}),
            };
            let terms = json!({ "categories": categories, "tags": tags });
            let body = with(event(&format!("Second {n}"), &day, &day), terms);
            app.event(with(body, extra)).await;
        }
        // A tag that leaves some events out.
        let body = with(
            event("Untagged", "2027-05-03 08:00:00", "2027-05-03 09:00:00"),
            json!({ "categories": [a] }),
        );
        app.event(body).await;
        let filter = format!("categories={a},{b}&tags={t},{u}");
        assert_counted(&app, &filter, &[&[a, b], &[t, u]], false, "second").await;
        let filter = format!("categories={a},{b}&tags={u}");
        assert_counted(&app, &filter, &[&[a, b], &[u]], false, "one tag").await;
    }
);

// A deep page (100 events skipped or more) of several large terms skips along
// the window's events with their bits: the same events, in the same order, as the
// posts give.
both!(
    a_deep_page_of_several_terms_skips_along_their_bits,
    |app| async move {
        let a = app.category("Alpha", None).await;
        let b = app.category("Beta", None).await;
        let c = app.category("Gamma", None).await;
        for n in 0..200usize {
            let day = format!("2027-05-{:02} {:02}:{:02}:00", 1 + n % 30, n % 24, n % 60);
            let categories = match n % 4 {
                0 => json!([a]),
                1 => json!([b, c]),
                2 => json!([c]),
                _ => json!([a, b]),
            };
            let body = with(
                event(&format!("Deep {n}"), &day, &day),
                json!({ "categories": categories }),
            );
            app.event(body).await;
        }
        let sql = format!(
            "SELECT p.id FROM posts p WHERE p.post_type = 'event' \
             AND p.start_utc >= 1809129600 AND p.end_utc <= 1811807999 \
             AND EXISTS (SELECT 1 FROM term_relationships r \
                         WHERE r.post_id = p.id AND r.term_id IN ({a}, {b}) LIMIT 1) \
             ORDER BY p.start_utc, p.id"
        );
        let mut conn = app.store.pool.read().await.unwrap();
        let expected: Vec<i64> = conn
            .query(
                &sea_query::Query::select()
                    .expr(sea_query::Expr::cust(format!("q.id FROM ({sql}) q")))
                    .to_owned(),
                |r| r.i64(0),
            )
            .await
            .unwrap();
        drop(conn);
        assert_eq!(expected.len(), 150, "{a} {b} {c}");
        let window = "start_date=2027-05-01&end_date=2027-05-31%2023:59:59&per_page=5";
        for page in [20usize, 21, 22, 27, 30] {
            let path = format!("events?{window}&categories={a},{b}&page={page}");
            let r = app.get(&path).await;
            r.assert(200);
            assert_eq!(r.header("X-WP-Total"), Some("150"), "{path}");
            let from = (page - 1) * 5;
            let want = &expected[from..(from + 5).min(expected.len())];
            assert_eq!(event_ids(&r), want, "{path}");
        }
    }
);
