//! Cached answers show scheduled posts once they go live.

use super::*;

both!(
    a_cached_event_shows_its_scheduled_venue_and_organizer_once_they_go_live,
    |app| async move {
        // Anonymous reads of an event are cached until the next write, unless something
        // in them changes by the clock: here both linked posts go live in two seconds.
        let live_at = (Utc::now() + Duration::seconds(2))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let scheduled = json!({"status": "future", "date_utc": live_at});
        let venue = app
            .post(
                "venues",
                with(json!({"venue": "Opening Soon"}), scheduled.clone()),
            )
            .await
            .id();
        let organizer = app
            .post(
                "organizers",
                with(json!({"organizer": "Soon"}), scheduled.clone()),
            )
            .await
            .id();
        let id = app
            .event(feb(
                "Opening night",
                json!({"venue": venue, "organizer": [organizer]}),
            ))
            .await;
        let path = format!("events/{id}");
        for _ in 0..2 {
            let r = app.get(&path).await;
            r.assert(200);
            assert_eq!(r.body["venue"], json!([]), "not live yet");
            assert_eq!(r.body["organizer"], json!([]));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(12);
        loop {
            let r = app.get(&path).await;
            if r.body["venue"]["id"] == venue {
                assert_eq!(r.body["organizer"][0]["id"], organizer);
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the cached answer outlived the venue going live"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }
);

both!(
    a_cached_list_of_a_fixed_window_shows_a_scheduled_event_once_it_goes_live,
    |app| async move {
        // Lists of a fixed window stay cached past their second, until a write or until
        // the next scheduled post goes live; so do default lists, whose window (today to
        // two years on) moves only at quarter-hours.
        let live_at = (Utc::now() + Duration::seconds(2))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let day = (Utc::now() + Duration::days(30))
            .format("%Y-%m-%d")
            .to_string();
        let on_day = |title: &str, extra: Value| {
            with(
                event(
                    title,
                    &format!("{day} 10:00:00"),
                    &format!("{day} 12:00:00"),
                ),
                extra,
            )
        };
        app.event(on_day("Already on", json!({}))).await;
        app.event(on_day(
            "Coming up",
            json!({"status": "future", "date_utc": live_at}),
        ))
        .await;
        let fixed = format!("events?start_date={day}&end_date={day}");
        let paths = [fixed.as_str(), "events"];
        let titles = |r: &Resp| -> Vec<String> {
            r.body["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["title"].as_str().unwrap().to_string())
                .collect()
        };
        for _ in 0..2 {
            for path in paths {
                assert_eq!(titles(&app.get(path).await), ["Already on"], "{path}");
            }
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(12);
        for path in paths {
            loop {
                let r = app.get(path).await;
                if titles(&r).len() == 2 {
                    assert_eq!(r.body["total"], 2);
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "the cached list {path} outlived the event going live"
                );
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        }
    }
);

both!(
    a_cached_venue_list_shows_a_scheduled_venue_once_it_goes_live,
    |app| async move {
        let live_at = (Utc::now() + Duration::seconds(2))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        app.post("venues", json!({"venue": "Open Hall"}))
            .await
            .assert(201);
        app.post(
            "venues",
            json!({"venue": "New Hall", "status": "future", "date_utc": live_at}),
        )
        .await
        .assert(201);
        for _ in 0..2 {
            assert_eq!(app.get("venues").await.body["total"], 1, "not live yet");
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(12);
        while app.get("venues").await.body["total"] != 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "the cached list outlived the venue going live"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }
);
