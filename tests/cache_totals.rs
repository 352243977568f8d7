//! A cached page of every public event in a window, full and followed by more,
//! keeps its events when the events written enter or leave the list after it:
//! only its total moves, in its body and headers, exactly as the server would
//! compute them.
//!
//! As in `cache_invalidation.rs`, events are renamed behind the server's back (no
//! data version moves): a page that still shows the old titles was kept.

mod common;

use common::*;
use serde_json::{Value, json};

/// Page 1 of June 2030, two events a page.
const PAGE: &str = "events?start_date=2030-06-01&end_date=2030-06-30&per_page=2";
/// The same list asked otherwise: another key of the cache, computed apart.
const SAME_LIST: &str = "events?per_page=2&end_date=2030-06-30&start_date=2030-06-01";

/// A published event on `day` at `hour`, with these fields besides.
async fn event_at(app: &TestApp, title: &str, day: &str, hour: u32, fields: Value) -> i64 {
    let base = json!({
        "title": title,
        "start_date": format!("{day} {hour:02}:00:00"),
        "end_date": format!("{day} {:02}:00:00", hour + 1),
        "status": "publish",
    });
    app.event(with(base, fields)).await
}

async fn rename(app: &TestApp, ids: &[i64], prefix: &str) {
    for id in ids {
        app.behind_the_servers_back(&format!(
            "UPDATE posts SET title = '{prefix}' || title WHERE id = {id}"
        ))
        .await;
    }
}

async fn restore(app: &TestApp, ids: &[i64], prefix: &str) {
    for id in ids {
        app.behind_the_servers_back(&format!(
            "UPDATE posts SET title = substr(title, {}) WHERE id = {id}",
            prefix.len() + 1
        ))
        .await;
    }
}

/// `path`, computed and cached once the next go-live moment of this data version is
/// known, so that it stays fresh until a write (one computed before is fresh for
/// its second only, and then computed again in the background: from the renamed
/// titles).
async fn cached(app: &TestApp, path: &str) -> Resp {
    // A list no answer is cached for yet looks the moment up.
    static ASKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = ASKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 50 + 1;
    app.get(&format!(
        "events?start_date=2001-01-01&end_date=2001-01-02&per_page={n}"
    ))
    .await
    .assert(200);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    app.get(path).await
}

/// The totals a list shows, in its body and in each header, which must agree.
fn totals(list: &Resp) -> (u64, u64) {
    let total = list.body["total"].as_u64().expect("a total");
    let pages = list.body["total_pages"].as_u64().expect("total pages");
    for (header, value) in [
        ("x-wp-total", total),
        ("x-tec-total", total),
        ("x-wp-totalpages", pages),
        ("x-tec-totalpages", pages),
    ] {
        assert_eq!(
            list.header(header),
            Some(value.to_string().as_str()),
            "{header}"
        );
    }
    (total, pages)
}

/// The page as cached is the page as computed: the same list under another key,
/// once the titles are back, answers the same bytes and tag.
async fn assert_as_computed(app: &TestApp, kept: &Resp, renamed: &[i64]) {
    restore(app, renamed, "Renamed ").await;
    let computed = app.get(SAME_LIST).await;
    assert_eq!(kept.body, computed.body);
    assert_eq!(kept.header("etag"), computed.header("etag"));
    assert_eq!(kept.header("link"), computed.header("link"));
    assert_eq!(totals(kept), totals(&computed));
    rename(app, renamed, "Renamed ").await;
}

both!(
    writes_after_a_cached_page_move_only_its_total,
    |app| async move {
        let a = event_at(&app, "A", "2030-06-05", 10, json!({})).await;
        let b = event_at(&app, "B", "2030-06-10", 10, json!({})).await;
        let c = event_at(&app, "C", "2030-06-20", 10, json!({})).await;
        let first = cached(&app, PAGE).await;
        assert_eq!(titles(&first), ["A", "B"]);
        assert_eq!(totals(&first), (3, 2));
        rename(&app, &[a, b], "Renamed ").await;

        // After the page: a published event, one at B's very start (a later ID), a
        // draft, one hidden from listings, an update of one after the page.
        let d = event_at(&app, "D", "2030-06-25", 10, json!({})).await;
        event_at(&app, "Twin", "2030-06-10", 10, json!({})).await;
        event_at(&app, "Draft", "2030-06-26", 10, json!({"status": "draft"})).await;
        let hidden = json!({"hide_from_listings": true});
        event_at(&app, "Hidden", "2030-06-27", 10, hidden).await;
        app.post(&format!("events/{c}"), json!({"cost": "5"}))
            .await
            .assert(200);
        let kept = app.get(PAGE).await;
        assert_eq!(titles(&kept), ["A", "B"], "kept");
        assert_eq!(totals(&kept), (5, 3));
        assert_ne!(kept.header("etag"), first.header("etag"));
        assert_as_computed(&app, &kept, &[a, b]).await;

        // Out of the list after the page: trashed, drafted, hidden.
        app.delete(&format!("events/{d}")).await.assert(200);
        app.post(&format!("events/{c}"), json!({"status": "draft"}))
            .await
            .assert(200);
        let kept = app.get(PAGE).await;
        assert_eq!(titles(&kept), ["A", "B"], "kept");
        assert_eq!(totals(&kept), (3, 2));
        assert_as_computed(&app, &kept, &[a, b]).await;

        // Back in, by an update.
        app.post(&format!("events/{c}"), json!({"status": "publish"}))
            .await
            .assert(200);
        let kept = app.get(PAGE).await;
        assert_eq!(
            (titles(&kept), totals(&kept)),
            (vec!["A".into(), "B".into()], (4, 2))
        );
        assert_as_computed(&app, &kept, &[a, b]).await;
    }
);

both!(
    writes_that_reach_the_page_or_its_next_link_compute_it_again,
    |app| async move {
        let a = event_at(&app, "A", "2030-06-05", 10, json!({})).await;
        let b = event_at(&app, "B", "2030-06-10", 10, json!({})).await;
        let c = event_at(&app, "C", "2030-06-20", 10, json!({})).await;
        assert_eq!(titles(&cached(&app, PAGE).await), ["A", "B"]);
        rename(&app, &[a, b], "Renamed ").await;

        // Before the page's last event: it enters the page.
        event_at(&app, "Early", "2030-06-07", 10, json!({})).await;
        let page = cached(&app, PAGE).await;
        assert_eq!(titles(&page), ["Renamed A", "Early"]);
        assert_eq!(totals(&page), (4, 2));

        // Out of the list after the page: kept while the page keeps its next link,
        // computed again when it loses it.
        restore(&app, &[a], "Renamed ").await;
        rename(&app, &[a], "Again ").await;
        app.delete(&format!("events/{c}")).await.assert(200);
        let page = app.get(PAGE).await;
        assert_eq!(titles(&page), ["Renamed A", "Early"], "kept");
        assert_eq!(totals(&page), (3, 2));
        app.delete(&format!("events/{b}")).await.assert(200);
        let page = app.get(PAGE).await;
        assert_eq!(titles(&page), ["Again A", "Early"], "computed again");
        assert_eq!(totals(&page), (2, 1));
        assert!(page.body.get("next_rest_url").is_none(), "{}", page.body);
        assert_eq!(page.header("link"), None);

        // A list filtered by anything else is computed again by any write it holds.
        restore(&app, &[a], "Again ").await;
        let mut more = Vec::new();
        for day in ["2030-06-21", "2030-06-22"] {
            more.push(event_at(&app, "More", day, 10, json!({})).await);
        }
        let featured = format!("{PAGE}&featured=0");
        assert_eq!(titles(&cached(&app, &featured).await), ["A", "Early"]);
        rename(&app, &[a], "Renamed ").await;
        event_at(&app, "Late", "2030-06-28", 10, json!({})).await;
        assert_eq!(titles(&app.get(&featured).await), ["Renamed A", "Early"]);
    }
);

/// A page cached on instance B moves its total when instance A creates an event
/// after it, through the shared record of changes, as B would compute it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_instance_moves_the_total_of_its_cached_page() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let Some(b) = a.second_app().await else {
        return;
    };
    let first = event_at(&a, "First", "2030-06-05", 10, json!({})).await;
    let second = event_at(&a, "Second", "2030-06-10", 10, json!({})).await;
    event_at(&a, "Third", "2030-06-20", 10, json!({})).await;
    assert_eq!(totals(&cached(&b, PAGE).await), (3, 2));
    rename(&a, &[first, second], "Renamed ").await;
    event_at(&a, "Fourth", "2030-06-25", 10, json!({})).await;
    let kept = b.get(PAGE).await;
    assert_eq!(titles(&kept), ["First", "Second"], "kept on B");
    assert_eq!(totals(&kept), (4, 2));
    restore(&a, &[first, second], "Renamed ").await;
    let computed = b.get(SAME_LIST).await;
    assert_eq!(kept.body, computed.body);
    assert_eq!(kept.header("etag"), computed.header("etag"));
}

both!(
    the_default_list_keeps_its_first_page_through_creates_after_it,
    |app| async move {
        let day = |n: i64| {
            (chrono::Utc::now() + chrono::Duration::days(n))
                .format("%Y-%m-%d")
                .to_string()
        };
        let mut ids = Vec::new();
        for (n, title) in [(2, "A"), (3, "B"), (4, "C")] {
            ids.push(event_at(&app, title, &day(n), 10, json!({})).await);
        }
        let first = cached(&app, "events?per_page=2").await;
        assert_eq!(
            (titles(&first), totals(&first)),
            (vec!["A".into(), "B".into()], (3, 2))
        );
        rename(&app, &ids[..2], "Renamed ").await;
        event_at(&app, "Next month", &day(30), 10, json!({})).await;
        let kept = app.get("events?per_page=2").await;
        assert_eq!(
            (titles(&kept), totals(&kept)),
            (vec!["A".into(), "B".into()], (4, 2))
        );
        restore(&app, &ids[..2], "Renamed ").await;
        let computed = app.get("events?per_page=2&page=1").await;
        assert_eq!(totals(&computed), (4, 2));
        assert_eq!(kept.body["events"], computed.body["events"]);
    }
);

/// The events running on 10 June 2030, as a calendar page's day asks for them.
const RUNNING: &str = "events?start_date=2030-06-06%2000:00:00&end_date=2030-06-14%2023:59:59\
    &starts_before=2030-06-11%2000:00:00&ends_after=2030-06-10%2000:00:00&strict_dates=1&per_page=2";
const SAME_RUNNING: &str = "events?per_page=2&strict_dates=1&ends_after=2030-06-10%2000:00:00\
    &starts_before=2030-06-11%2000:00:00&end_date=2030-06-14%2023:59:59&start_date=2030-06-06%2000:00:00";

/// A published event from `start` to `end`.
async fn spanning(app: &TestApp, title: &str, start: &str, end: &str, fields: Value) -> i64 {
    let base = json!({"title": title, "start_date": start, "end_date": end, "status": "publish"});
    app.event(with(base, fields)).await
}

both!(
    a_cached_day_of_running_events_moves_its_total_by_what_runs_that_day,
    |app| async move {
        let a = spanning(
            &app,
            "A",
            "2030-06-08 10:00:00",
            "2030-06-10 12:00:00",
            json!({}),
        )
        .await;
        let b = spanning(
            &app,
            "B",
            "2030-06-09 20:00:00",
            "2030-06-10 02:00:00",
            json!({}),
        )
        .await;
        spanning(
            &app,
            "C",
            "2030-06-10 10:00:00",
            "2030-06-10 11:00:00",
            json!({}),
        )
        .await;
        let first = cached(&app, RUNNING).await;
        assert_eq!(titles(&first), ["A", "B"]);
        assert_eq!(totals(&first), (3, 2));
        rename(&app, &[a, b], "Renamed ").await;

        // After the page: one running that day, one ending on its first second (not
        // running), a draft running that day.
        spanning(
            &app,
            "D",
            "2030-06-10 15:00:00",
            "2030-06-10 16:00:00",
            json!({}),
        )
        .await;
        spanning(
            &app,
            "E",
            "2030-06-09 22:00:00",
            "2030-06-10 00:00:00",
            json!({}),
        )
        .await;
        let draft = json!({"status": "draft"});
        spanning(
            &app,
            "F",
            "2030-06-10 18:00:00",
            "2030-06-10 19:00:00",
            draft,
        )
        .await;
        let kept = app.get(RUNNING).await;
        assert_eq!(titles(&kept), ["A", "B"], "kept");
        assert_eq!(totals(&kept), (4, 2));
        restore(&app, &[a, b], "Renamed ").await;
        let computed = app.get(SAME_RUNNING).await;
        assert_eq!(kept.body, computed.body);
        assert_eq!(totals(&kept), totals(&computed));
    }
);
