//! Searches among the featured events and the events with tickets.

use super::*;

/// Tickets an event is given: `ticketed=1` lists it.
fn tickets() -> Value {
    json!([{"name": "GA", "url": "https://t.example.com/1"}])
}

both_with!(
    a_search_with_a_flag_follows_every_change_of_the_events_flags,
    // More events with each flag set, and with each unset, in the window than a walk
    // reads at this limit (`20 × 42`): the search looks its word up in the index,
    // where PostgreSQL checks each candidate's flags with its words (migration 54),
    // a copy of the events' flags that each change below must keep in step.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let music = app.category("Music", None).await;
        let paris = app
            .post(
                "venues",
                json!({"venue": "Paris", "geo_lat": 48.8566, "geo_lng": 2.3522}),
            )
            .await
            .id();
        let fillers = (0..1800u32).map(|n| {
            let app = &app;
            let flags = if n % 2 == 0 {
                json!({"featured": true, "tickets": tickets(), "categories": [music]})
            } else {
                json!({"categories": [music]})
            };
            async move { create(app, &format!("Filler {n}"), 10 + n % 280, 8, flags).await }
        });
        futures_util::future::join_all(fillers).await;
        let okapi = |title: &'static str, n: u32, flags: Value| {
            let app = &app;
            async move { create(app, title, n, 10, flags).await }
        };
        let featured = okapi(
            "Okapi featured",
            205,
            json!({"featured": true, "venue": paris}),
        )
        .await;
        let both = okapi(
            "Okapi featured with tickets",
            206,
            json!({"featured": true, "tickets": tickets(), "categories": [music]}),
        )
        .await;
        let ticketed = okapi("Okapi tickets", 207, json!({"tickets": tickets()})).await;
        let plain = okapi(
            "Okapi plain",
            208,
            json!({"categories": [music], "venue": paris}),
        )
        .await;
        let unfeatured = okapi("Okapi unfeatured", 209, json!({"featured": true})).await;
        let given = okapi("Okapi given tickets", 210, json!({"categories": [music]})).await;
        let trashed = okapi(
            "Okapi trashed",
            211,
            json!({"featured": true, "tickets": tickets()}),
        )
        .await;
        let hidden = okapi("Okapi hidden", 212, json!({"featured": true})).await;
        let edits = [
            (unfeatured, json!({"featured": false})),
            (given, json!({"tickets": tickets(), "featured": true})),
            (ticketed, json!({"title": "Okapi tickets, retitled"})),
            (plain, json!({"tickets": []})),
            (hidden, json!({"hide_from_listings": true})),
        ];
        for (id, edit) in edits {
            app.post(&format!("events/{id}"), edit).await.assert(200);
        }
        app.delete(&format!("events/{trashed}")).await.assert(200);

        let window = format!("starts_after={}", date(8));
        for (filter, expected) in [
            ("featured=1".to_string(), vec![featured, both, given]),
            ("featured=0".to_string(), vec![ticketed, plain, unfeatured]),
            ("ticketed=1".to_string(), vec![both, ticketed, given]),
            ("ticketed=0".to_string(), vec![featured, plain, unfeatured]),
            ("featured=1&ticketed=1".to_string(), vec![both, given]),
            ("featured=0&ticketed=1".to_string(), vec![ticketed]),
            (format!("categories={music}&featured=1"), vec![both, given]),
            (format!("categories={music}&featured=0"), vec![plain]),
            (format!("categories={music}&ticketed=1"), vec![both, given]),
            // The located flag is not among the rows' terms.
            (format!("categories={music}&geoloc=1"), vec![plain]),
            ("geoloc=1&featured=0".to_string(), vec![plain]),
            ("geoloc=1&featured=1".to_string(), vec![featured]),
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
