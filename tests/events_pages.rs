//! `GET /events`: the default window, order, paging, and the relations each
//! event of a page embeds.

mod common;

use chrono::{Duration, Utc};
use common::*;
use serde_json::json;

/// An explicit window that keeps fixed 2027 dates listed whatever today is.
const FROM_2027: &str = "start_date=2027-01-01";

/// A wall time `days` from now in the site zone (UTC), as the API takes it.
fn days_from_now(days: i64) -> String {
    (Utc::now() + Duration::days(days))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

both!(
    default_window_is_today_to_two_years_ahead,
    |app| async move {
        for (title, days) in [
            ("Past", -3),
            ("Soon", 10),
            ("Next year", 400),
            ("Far", 365 * 3),
        ] {
            let start = days_from_now(days);
            let end = (Utc::now() + Duration::days(days) + Duration::hours(1))
                .format("%Y-%m-%d %H:%M:%S")
                .to_string();
            app.event(event(title, &start, &end)).await;
        }
        let r = app.get("events").await;
        r.assert(200);
        assert_eq!(titles(&r), ["Soon", "Next year"]);
        let today = Utc::now().format("%Y-%m-%d").to_string();
        let rest_url = r.body["rest_url"].as_str().unwrap();
        assert!(
            rest_url.starts_with(&format!(
                "{SITE}{API}/events/?page=1&per_page=10&start_date={today}+00%3A00%3A00&end_date="
            )),
            "{rest_url}"
        );
        assert!(rest_url.contains("+23%3A59%3A59"), "{rest_url}");
        assert!(rest_url.ends_with("&status=publish"), "{rest_url}");
        // A start date alone keeps the default end.
        let r = app.get("events?start_date=2020-01-01").await;
        assert_eq!(titles(&r), ["Past", "Soon", "Next year"]);
    }
);

both!(order_is_by_start_then_id, |app| async move {
    for (title, start) in [
        ("Late", "2027-03-01 18:00:00"),
        ("Tie 1", "2027-03-01 09:00:00"),
        ("Tie 2", "2027-03-01 09:00:00"),
        ("Early", "2027-02-01 09:00:00"),
    ] {
        app.event(event(title, start, "2027-03-02 00:00:00")).await;
    }
    let r = app.get(&format!("events?{FROM_2027}")).await;
    assert_eq!(titles(&r), ["Early", "Tie 1", "Tie 2", "Late"]);
});

both!(
    pages_link_to_their_neighbours_with_the_effective_query,
    |app| async move {
        let empty = app.get(&format!("events?{FROM_2027}")).await;
        empty.assert(200);
        assert_eq!(empty.body["events"], json!([]));
        assert_eq!(
            (
                empty.body["total"].clone(),
                empty.body["total_pages"].clone()
            ),
            (json!(0), json!(0))
        );
        for i in 1..=12 {
            app.event(event(
                &format!("E{i:02}"),
                &format!("2027-01-{i:02} 09:00:00"),
                &format!("2027-01-{i:02} 10:00:00"),
            ))
            .await;
        }
        let r = app
            .get(&format!("events?per_page=5&page=2&{FROM_2027}&search=e"))
            .await;
        r.assert(200);
        assert_eq!(titles(&r), ["E06", "E07", "E08", "E09", "E10"]);
        assert_eq!(
            keys(&r.body),
            [
                "events",
                "rest_url",
                "next_rest_url",
                "previous_rest_url",
                "total",
                "total_pages"
            ]
        );
        assert_eq!(
            (r.body["total"].clone(), r.body["total_pages"].clone()),
            (json!(12), json!(3))
        );
        assert_eq!(r.header("x-tec-total"), Some("12"));
        assert_eq!(r.header("x-tec-totalpages"), Some("3"));
        let rest_url = r.body["rest_url"].as_str().unwrap();
        assert!(
            rest_url.starts_with(&format!(
                "{SITE}{API}/events/?page=2&per_page=5&start_date=2027-01-01+00%3A00%3A00&end_date="
            )),
            "{rest_url}"
        );
        assert!(rest_url.contains("&search=e"), "{rest_url}");
        let next = r.body["next_rest_url"].as_str().unwrap();
        assert_eq!(
            next,
            format!("{}&page=3", rest_url.replacen("page=2&", "", 1))
        );
        let prev = r.body["previous_rest_url"].as_str().unwrap();
        assert_eq!(
            prev,
            rest_url.replacen("page=2&", "", 1),
            "page 1 has no page parameter"
        );
        let last = app
            .get(&format!("events?{}", next.split_once('?').unwrap().1))
            .await;
        assert_eq!(titles(&last), ["E11", "E12"]);
        assert!(last.body.get("next_rest_url").is_none());
        let r = app
            .get(&format!("events?page=4&per_page=5&{FROM_2027}"))
            .await;
        assert_eq!(
            r.error_body(),
            json!({"code":"event-archive-page-not-found","message":"The requested event archive page does not exist","data":{"status":404}})
        );
        let clamped = app.get(&format!("events?per_page=500&{FROM_2027}")).await;
        assert_eq!(titles(&clamped).len(), 12);
        assert!(
            clamped.body["rest_url"]
                .as_str()
                .unwrap()
                .contains("per_page=50&")
        );
    }
);

both!(
    a_page_embeds_the_right_relations_for_every_event,
    |app| async move {
        // Each event gets its own venue, two organizers in varying order, a category and
        // a tag of its own plus shared ones, so a mix-up in the batched loading shows.
        let shared_org = app
            .post("organizers", json!({"organizer": "Shared org"}))
            .await
            .id();
        let mut expected = Vec::new();
        for i in 0..10 {
            let venue = app
                .post(
                    "venues",
                    json!({"venue": format!("Venue {i}"), "city": format!("City {i}")}),
                )
                .await
                .id();
            let own_org = app
                .post("organizers", json!({"organizer": format!("Org {i}")}))
                .await
                .id();
            let orgs = if i % 2 == 0 {
                vec![own_org, shared_org]
            } else {
                vec![shared_org, own_org]
            };
            let day = format!("2027-04-{:02}", i + 1);
            let body = with(
                event(
                    &format!("Event {i}"),
                    &format!("{day} 09:00:00"),
                    &format!("{day} 10:00:00"),
                ),
                json!({"venue": venue, "organizer": orgs, "categories": [format!("Cat {i}"), "Common"],
                       "tags": [format!("tag-{i}")]}),
            );
            let id = app.event(body).await;
            expected.push((id, venue, orgs, i));
        }
        let r = app.get(&format!("events?{FROM_2027}&per_page=10")).await;
        let events = r.body["events"].as_array().unwrap();
        assert_eq!(events.len(), 10);
        for (e, (id, venue, orgs, i)) in events.iter().zip(&expected) {
            assert_eq!(e["id"], *id);
            assert_eq!(e["venue"]["id"], *venue, "event {i}");
            assert_eq!(e["venue"]["city"], format!("City {i}"));
            let got: Vec<i64> = e["organizer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_i64().unwrap())
                .collect();
            assert_eq!(&got, orgs, "event {i}");
            let cats: Vec<&str> = e["categories"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap())
                .collect();
            assert_eq!(cats, [format!("Cat {i}").as_str(), "Common"], "event {i}");
            assert_eq!(
                e["categories"][1]["count"], 10,
                "the shared category counts every event"
            );
            let tags: Vec<&str> = e["tags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap())
                .collect();
            assert_eq!(tags, [format!("tag-{i}").as_str()]);
        }
        // The same events, one by one, embed exactly what the list did.
        for e in events {
            let single = app.get(&format!("events/{}", e["id"])).await;
            let mut single = single.body;
            single.as_object_mut().unwrap().remove("json_ld");
            let mut listed = e.clone();
            // Single GETs add JSON-LD to the embedded venue and organizers.
            for v in [&mut single, &mut listed] {
                v["venue"].as_object_mut().unwrap().remove("json_ld");
                for o in v["organizer"].as_array_mut().unwrap() {
                    o.as_object_mut().unwrap().remove("json_ld");
                }
            }
            assert_eq!(single, listed);
        }
    }
);
