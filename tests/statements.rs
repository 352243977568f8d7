//! A list request costs a fixed number of SQL statements, whatever the page holds:
//! the count, the page, the terms, and the venues and organizers (batched).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use calendar_events::store::db::STATEMENT_COUNTER;
use common::*;
use serde_json::json;

async fn uncached() -> Vec<TestApp> {
    let mut settings = common::settings();
    settings.response_cache_bytes = 0;
    let mut apps = vec![TestApp::sqlite_with(settings.clone()).await];
    if let Some(pg) = TestApp::postgres_with(settings).await {
        apps.push(pg);
    }
    apps
}

/// Statements run while answering one anonymous GET.
async fn statements_for(app: &TestApp, path: &str) -> (u64, Resp) {
    let counter = Arc::new(AtomicU64::new(0));
    let resp = STATEMENT_COUNTER
        .scope(counter.clone(), app.get(path))
        .await;
    (counter.load(Ordering::Relaxed), resp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_list_is_four_statements_whatever_the_page_holds() {
    for app in uncached().await {
        let mut totals = Vec::new();
        for n in [1usize, 10, 30] {
            for i in totals.len()..n {
                app.post(
                    "events",
                    json!({"title": format!("E{i}"), "start_date": format!("2027-04-{:02} 10:00:00", 1 + i % 28),
                           "end_date": format!("2027-04-{:02} 12:00:00", 1 + i % 28),
                           "venue": {"venue": format!("V{i}")},
                           "organizer": [{"organizer": format!("O{i}")}, {"organizer": "Shared"}],
                           "categories": [format!("cat{}", i % 3)], "tags": ["t1", format!("t{i}")]}),
                )
                .await
                .assert(201);
                totals.push(i);
            }
            // The first read after a write looks up when the next scheduled post is
            // due (once per data version, whatever the read); measured without it.
            app.get("categories").await.assert(200);
            let (count, r) = statements_for(
                &app,
                "events?per_page=50&start_date=2027-04-01&end_date=2027-04-30",
            )
            .await;
            r.assert(200);
            assert_eq!(r.body["events"].as_array().unwrap().len(), n);
            assert_eq!(
                r.body["events"][n - 1]["organizer"]
                    .as_array()
                    .unwrap()
                    .len(),
                2
            );
            assert_eq!(
                count,
                4,
                "{n} events took {count} statements ({:?})",
                app.backend()
            );
        }
        // A search reads a short stretch of its window first, to choose how to find
        // its matches (`store::events::search`): one statement more at most.
        let (count, r) = statements_for(
            &app,
            "events?per_page=50&start_date=2027-04-01&end_date=2027-04-30&search=e2",
        )
        .await;
        r.assert(200);
        assert_eq!(r.body["total"], 11, "E2 and E20 to E29");
        assert!(count <= 5, "a search took {count} statements");
        // Several categories: their terms resolved, the largest one's window and, on
        // PostgreSQL, each other one's (to choose how their events are counted, for
        // at most four), the count of the others' events outside the largest, the
        // page: at most two statements more for each category named.
        for (categories, named) in [("cat0,cat1", 2), ("cat0,cat1,cat2", 3)] {
            let window = "start_date=2027-04-01&end_date=2027-04-30";
            let path = format!("events?per_page=50&{window}&categories={categories}");
            let (count, r) = statements_for(&app, &path).await;
            r.assert(200);
            assert_eq!(r.body["total"], named * 10, "{categories}");
            assert!(
                count <= 6 + 2 * named,
                "{categories} took {count} statements ({:?})",
                app.backend()
            );
        }
        // Terms named by slug or ID are resolved together: six tags or twenty-five,
        // the same statements.
        let tag_id = app.get("tags?slug=t7").await.body["tags"][0]["id"]
            .as_i64()
            .unwrap();
        let named = |n: usize| {
            let mut keys: Vec<String> = (10..10 + n).map(|i| format!("t{i}")).collect();
            keys.push(tag_id.to_string());
            format!(
                "events?per_page=50&start_date=2027-04-01&tags={}",
                keys.join(",")
            )
        };
        let (six, r) = statements_for(&app, &named(5)).await;
        r.assert(200);
        let (many, r) = statements_for(&app, &named(19)).await;
        r.assert(200);
        assert_eq!(six, many, "tags named one by one ({:?})", app.backend());
        let (count, r) = statements_for(&app, "venues?per_page=50").await;
        r.assert(200);
        assert_eq!(count, 2, "a venue list took {count} statements");
        let (count, r) = statements_for(&app, "categories?hide_empty=0").await;
        r.assert(200);
        assert_eq!(count, 2, "a term list took {count} statements");
        let id = app
            .get("events?per_page=1&start_date=2027-04-01")
            .await
            .body["events"][0]["id"]
            .as_i64()
            .unwrap();
        let (count, r) = statements_for(&app, &format!("events/{id}")).await;
        r.assert(200);
        assert_eq!(count, 3, "a single event took {count} statements");
    }
}

/// Statements run outside the write transaction while creating one event (the
/// transaction runs in a task of its own, which the counter does not follow).
async fn reads_for_create(app: &TestApp, body: serde_json::Value) -> u64 {
    let counter = Arc::new(AtomicU64::new(0));
    let resp = STATEMENT_COUNTER
        .scope(counter.clone(), app.post("events", body))
        .await;
    resp.assert(201);
    counter.load(Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_reads_what_it_links_in_a_fixed_number_of_statements() {
    for app in uncached().await {
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let mut organizers = Vec::new();
        let mut categories = Vec::new();
        let mut tags = Vec::new();
        for i in 0..4 {
            organizers.push(
                app.post("organizers", json!({"organizer": format!("O{i}")}))
                    .await
                    .id(),
            );
            categories.push(
                app.post("categories", json!({"name": format!("C{i}")}))
                    .await
                    .id(),
            );
            tags.push(
                app.post("tags", json!({"name": format!("T{i}")}))
                    .await
                    .id(),
            );
        }
        let event = |n: usize| {
            json!({"title": format!("Linked {n}"), "start_date": "2027-06-01 10:00:00",
                   "end_date": "2027-06-01 12:00:00", "venue": venue,
                   "organizer": organizers[..n], "categories": categories[..n], "tags": tags[..n]})
        };
        let one = reads_for_create(&app, event(1)).await;
        let four = reads_for_create(&app, event(4)).await;
        // Credentials (on PostgreSQL with the shared failure counters, in the same
        // flight); terms and linked posts by ID. The answer is made from those and
        // from what the insert and the count increments return: nothing is read back.
        let expected = match app.backend() {
            calendar_events::store::Backend::Sqlite => 3,
            calendar_events::store::Backend::Postgres => 4,
        };
        assert_eq!(one, expected, "{:?}", app.backend());
        assert_eq!(four, one, "linking more does not read more");
    }
}

/// PostgreSQL plans each read for its own values (`force_custom_plan`: a generic
/// plan of a search can be a scan of every event), but lets the reads marked as
/// looking rows up by key, for their flight only, and every write transaction keep
/// generic plans: their statements and their triggers' look rows up by their keys.
/// A read marked as having one plan for every value (a search's count through the
/// trigram index alone) is planned once and keeps it, for its flight only; a write
/// keeps its own mode. A plan mode in the database URL's own options is the
/// operator's, everywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyed_reads_and_writes_keep_generic_plans_and_other_reads_plan_for_their_values() {
    use calendar_events::store::{Conn, Store};
    use sea_query::{Expr, Query};

    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let setting = Query::select()
        .expr(Expr::cust("current_setting('plan_cache_mode')"))
        .to_owned();
    // The plan mode the next statement of `conn` runs with.
    let mode = async |conn: &mut Conn| {
        let rows = conn.query(&setting, |r| r.string(0)).await.unwrap();
        rows.concat()
    };
    // (a write, a keyed read, the read after it on the same connection, a read of one
    // plan, the read after it, a plain read)
    let modes = async |store: &Store| {
        let mut tx = store.pool.write().await.unwrap();
        let written = mode(tx.by_key()).await;
        assert_eq!(written, mode(&mut tx).await, "a write keeps its mode");
        assert_eq!(written, mode(tx.one_plan()).await, "a write keeps its mode");
        tx.commit().await.unwrap();
        let mut conn = store.pool.read().await.unwrap();
        let keyed = mode(conn.by_key()).await;
        let after = mode(&mut conn).await;
        let one_plan = mode(conn.one_plan()).await;
        let after_one_plan = mode(&mut conn).await;
        let mut conn = store.pool.read().await.unwrap();
        let plain = mode(&mut conn).await;
        [written, keyed, after, one_plan, after_one_plan, plain]
    };
    let (auto, custom, generic) = ("auto", "force_custom_plan", "force_generic_plan");
    let expected = [auto, auto, custom, generic, custom, custom];
    assert_eq!(modes(&app.store).await, expected);
    // Twice: the connections used read as before.
    assert_eq!(modes(&app.store).await, expected);
    let url = format!(
        "{}?options=-c%20plan_cache_mode%3Dforce_generic_plan",
        app.database_url()
    );
    let operators = Store::open(&url).await.unwrap();
    assert_eq!(modes(&operators).await, [generic; 6]);
}

/// A keyed read that fails still has its `RESET` run after it, in the same flight:
/// the connection goes on planning each read for its values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_keyed_read_leaves_its_connection_planning_for_values() {
    use sea_query::{Expr, Query};

    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let mut conn = app.store.pool.read().await.unwrap();
    let failing = Query::select().expr(Expr::cust("1 / 0")).to_owned();
    assert!(conn.by_key().query(&failing, |r| r.i64(0)).await.is_err());
    let setting = Query::select()
        .expr(Expr::cust("current_setting('plan_cache_mode')"))
        .to_owned();
    let after = conn.query(&setting, |r| r.string(0)).await.unwrap();
    assert_eq!(after.concat(), "force_custom_plan");
}
