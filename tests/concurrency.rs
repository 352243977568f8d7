//! Concurrent writers: unique slugs, no lost fields, one venue, one term.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use axum::http::Method;
use common::*;
use serde_json::json;

/// Runs `n` copies of a request at once and returns the responses.
async fn burst(
    app: &Arc<TestApp>,
    n: usize,
    method: Method,
    path: &str,
    body: serde_json::Value,
) -> Vec<Resp> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (app, method, path, body) =
                (app.clone(), method.clone(), path.to_string(), body.clone());
            tokio::spawn(
                async move { app.call(method, &path, Some(body), &app.admin.auth()).await },
            )
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

both!(
    hundred_writers_with_one_title_get_unique_slugs,
    |app| async move {
        let app = Arc::new(app);
        let body = json!({"title": "Same Title", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00"});
        let responses = burst(&app, 100, Method::POST, "events", body).await;
        let mut slugs = HashSet::new();
        for r in &responses {
            r.assert(201);
            assert!(
                slugs.insert(r.body["slug"].as_str().unwrap().to_string()),
                "duplicate slug {}",
                r.body["slug"]
            );
        }
        assert_eq!(slugs.len(), 100);
        assert!(slugs.contains("same-title") && slugs.contains("same-title-100"));
        let list = app
            .get("events?per_page=50&start_date=2027-03-01&end_date=2027-03-01")
            .await;
        assert_eq!(list.body["total"], 100);
    }
);

both!(
    concurrent_updates_of_one_event_lose_no_field,
    |app| async move {
        let app = Arc::new(app);
        let id = app
        .post("events", json!({"title": "T", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00"}))
        .await
        .id();
        let fields = [
            ("excerpt", json!("new excerpt")),
            ("cost", json!("10$")),
            ("website", json!("https://example.com/x")),
            ("featured", json!(true)),
            ("sticky", json!(true)),
            ("show_map", json!(true)),
            ("description", json!("new description")),
            ("title", json!("New title")),
        ];
        let tasks: Vec<_> = fields
            .iter()
            .cloned()
            .map(|(k, v)| {
                let app = app.clone();
                tokio::spawn(async move {
                    app.call(
                        Method::PATCH,
                        &format!("events/{id}"),
                        Some(json!({k: v})),
                        &app.admin.auth(),
                    )
                    .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().assert(200);
        }
        let e = app.get(&format!("events/{id}")).await.body;
        assert_eq!(e["excerpt"], "<p>new excerpt</p>");
        assert_eq!(e["cost"], "10$");
        assert_eq!(e["website"], "https://example.com/x");
        assert_eq!(e["featured"], true);
        assert_eq!(e["sticky"], true);
        assert_eq!(e["show_map"], true);
        assert_eq!(e["description"], "<p>new description</p>");
        assert_eq!(e["title"], "New title");
    }
);

both!(
    concurrent_identical_venues_are_one_venue,
    |app| async move {
        let app = Arc::new(app);
        let responses = burst(
            &app,
            30,
            Method::POST,
            "venues",
            json!({"venue": "Race Hall", "city": "Paris"}),
        )
        .await;
        let ids: HashSet<i64> = responses
            .iter()
            .map(|r| {
                r.assert(201);
                r.id()
            })
            .collect();
        assert_eq!(ids.len(), 1, "one venue, not {}", ids.len());
        let inline = json!({"title": "E", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00",
                        "venue": {"venue": "Inline Hall", "city": "Lyon"}, "organizer": [{"organizer": "Inline Org"}]});
        let events = burst(&app, 20, Method::POST, "events", inline).await;
        let venues: HashSet<i64> = events
            .iter()
            .map(|r| r.body["venue"]["id"].as_i64().unwrap())
            .collect();
        let organizers: HashSet<i64> = events
            .iter()
            .map(|r| r.body["organizer"][0]["id"].as_i64().unwrap())
            .collect();
        assert_eq!((venues.len(), organizers.len()), (1, 1));
    }
);

both!(
    concurrent_term_creation_by_name_makes_one_term,
    |app| async move {
        let app = Arc::new(app);
        let body = json!({"title": "E", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00",
                      "categories": ["Brand New"], "tags": ["fresh tag"]});
        let responses = burst(&app, 25, Method::POST, "events", body).await;
        let cats: HashSet<i64> = responses
            .iter()
            .map(|r| {
                r.assert(201);
                r.body["categories"][0]["id"].as_i64().unwrap()
            })
            .collect();
        let tags: HashSet<i64> = responses
            .iter()
            .map(|r| r.body["tags"][0]["id"].as_i64().unwrap())
            .collect();
        assert_eq!((cats.len(), tags.len()), (1, 1));
        let cat = app
            .get(&format!("categories/{}", cats.iter().next().unwrap()))
            .await;
        assert_eq!(
            cat.body["count"], 25,
            "every published event is counted once"
        );
        let all = app.get("categories?hide_empty=0").await;
        assert_eq!(all.body["total"], 1);
    }
);
