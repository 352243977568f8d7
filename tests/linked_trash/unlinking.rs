//! The trash of a venue or organizer of many events: its batches, and reads and writes meanwhile.

use super::*;

both_with!(
    trashing_a_venue_and_an_organizer_of_many_events_unlinks_them_all,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        for (collection, id) in [("venues", cal.hall), ("organizers", cal.acme)] {
            let r = app.delete(&format!("{collection}/{id}")).await;
            r.assert(200);
            assert_eq!(r.body["status"], "trash");
            app.delete(&format!("{collection}/{id}")).await.assert(410);
        }
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "trashed").await;
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_eq!(linked_to(&app, cal.acme).await, 0);
        for &e in &cal.at_hall {
            assert_eq!(links_of(&app, e).await, (None, vec![]));
        }
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        assert_eq!(
            listed(&app, &format!("venue={}", cal.hall)).await,
            (vec![], 0)
        );
    }
);

both_with!(
    while_a_trashed_post_s_events_are_unlinked_no_read_shows_the_link,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        trash_queued(&app, cal.hall).await;
        trash_queued(&app, cal.acme).await;
        assert_eq!(linked_to(&app, cal.hall).await, 5, "no batch has run");
        for &e in &cal.at_hall {
            assert_eq!(links_of(&app, e).await, (None, vec![]));
        }
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        let visitor = app.get(&format!("events/{}", cal.at_hall[0])).await;
        assert!(visitor.body["venue"]["id"].is_null(), "{}", visitor.text);
        let page = app.get("events?start_date=2027-01-01").await;
        assert!(!page.text.contains("\"Hall\""), "{}", page.text);
        assert!(!page.text.contains("Acme"), "{}", page.text);
        let ical = app.get("events?ical=1&start_date=2027-01-01").await;
        assert!(ical.text.contains("Club"), "{}", ical.text);
        assert!(!ical.text.contains("LOCATION:Hall") && !ical.text.contains("Acme"));

        // Filters by them list nothing, as after the batches; beside another, its events.
        let (hall, club, acme) = (cal.hall, cal.club, cal.acme);
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        assert_eq!(
            listed(&app, &format!("venue={hall},{club}")).await,
            (vec![cal.at_club], 1)
        );
        assert_eq!(
            listed(&app, &format!("organizer={acme}")).await,
            (vec![], 0)
        );
        let near = "geoloc_lat=48.85&geoloc_lng=2.35";
        assert_eq!(listed(&app, near).await, (vec![], 0));
        // The lists of venues and organizers: no events, none upcoming, no event's.
        let trashed = "status=trash";
        for (collection, id) in [("venues", hall), ("organizers", acme)] {
            let with_events = format!("{trashed}&has_events=1");
            assert!(
                !posts_listed(&app, collection, &with_events)
                    .await
                    .contains(&id)
            );
            let without = format!("{trashed}&has_events=0");
            assert!(posts_listed(&app, collection, &without).await.contains(&id));
            let upcoming = format!("{trashed}&only_with_upcoming=1");
            assert!(
                !posts_listed(&app, collection, &upcoming)
                    .await
                    .contains(&id)
            );
            let of_event = format!("{trashed}&event={}", cal.at_hall[0]);
            assert!(
                !posts_listed(&app, collection, &of_event)
                    .await
                    .contains(&id)
            );
        }

        // A batch, then the venue is restored: it answers at once, the batches left
        // go on, and its events stay unlinked from it.
        assert!(!one_batch(&app, hall).await);
        assert_eq!(linked_to(&app, hall).await, 3);
        let restored = app
            .post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await;
        restored.assert(200);
        assert_eq!(restored.body["status"], "publish");
        assert_eq!(linked_to(&app, hall).await, 3, "the restore runs no batch");
        assert_eq!(queued(&app).await, vec![hall, acme]);
        assert_shows_no_events(&app, "venues", hall, &cal.at_hall, false).await;
        assert_eq!(listed(&app, near).await, (vec![], 0));
        // Named by its fields, as a new event's venue, it is not found: the event
        // gets a venue of its own.
        let inline = json!({"venue": {"venue": "Hall"}});
        let by_fields = app.event(with(at_day("Hall by name", 24), inline)).await;
        let (found, _) = links_of(&app, by_fields).await;
        assert!(found.is_some_and(|v| v != hall), "{found:?}");

        // An event linked to it by ID is written at once and keeps its link: the
        // batches pass over it, and it reads linked, on its own and in a page beside
        // the events not unlinked yet; the venue shows it only for that event.
        let again = app
            .event(with(at_day("Hall again", 25), json!({"venue": hall})))
            .await;
        assert_eq!(queued(&app).await, vec![hall, acme], "no batch ran");
        assert_eq!(linked_to(&app, hall).await, 4);
        assert_eq!(links_of(&app, again).await.0, Some(hall));
        let page = venues_on_page(&app).await;
        assert_eq!(page[&again], Some(hall), "{page:?}");
        for &e in &cal.at_hall {
            assert_eq!(links_of(&app, e).await.0, None);
            assert_ne!(page.get(&e), Some(&Some(hall)), "{page:?}");
        }
        let of_again = format!("status=publish&event={again}");
        assert_eq!(posts_listed(&app, "venues", &of_again).await, vec![hall]);
        assert_shows_no_events(&app, "venues", hall, &cal.at_hall, true).await;
        // A filter by it lists the events linked since, in its window only.
        let later = event(
            "Hall next year",
            "2028-03-01 20:00:00",
            "2028-03-01 23:00:00",
        );
        let next_year = app.event(with(later, json!({"venue": hall}))).await;
        let by_hall = format!("venue={hall}");
        assert_eq!(listed(&app, &by_hall).await, (vec![again], 1));
        let named = format!("{by_hall}&include={again},{next_year},{}", cal.at_hall[0]);
        let r = app
            .get_as(&format!("events?{named}"), &app.admin.auth())
            .await;
        let mut shown = event_ids(&r);
        shown.sort_unstable();
        assert_eq!(shown, vec![again, next_year], "{}", r.text);
        // Named, an event not unlinked yet is not among them.
        let not_kept = format!("{by_hall}&include={}", cal.at_hall[0]);
        let r = app
            .get_as(&format!("events?{not_kept}"), &app.admin.auth())
            .await;
        assert_eq!((event_ids(&r), &r.body["total"]), (vec![], &json!(0)));
        // As each caller may see them: a draft for its readers only.
        let drafted = json!({"venue": hall, "status": "draft"});
        let draft = app.event(with(at_day("Hall draft", 26), drafted)).await;
        assert_eq!(listed(&app, &by_hall).await, (vec![again, draft], 2));
        let public = app
            .get(&format!(
                "events?start_date=2027-01-01&end_date=2027-12-31&{by_hall}"
            ))
            .await;
        assert_eq!(
            (event_ids(&public), &public.body["total"]),
            (vec![again], &json!(1))
        );
        for e in [next_year, draft] {
            app.delete(&format!("events/{e}?force=true"))
                .await
                .assert(200);
        }
        while !one_batch(&app, hall).await {}
        assert_eq!(queued(&app).await, vec![acme]);
        assert_eq!(linked_to(&app, hall).await, 1);
        assert_eq!(links_of(&app, again).await.0, Some(hall));
        assert_eq!(
            listed(&app, &format!("venue={hall}")).await,
            (vec![again], 1)
        );
        let published = "status=publish";
        let upcoming = format!("{published}&only_with_upcoming=1");
        assert!(
            posts_listed(&app, "venues", &upcoming)
                .await
                .contains(&hall)
        );

        // The organizer restored, then given to an event by an update.
        app.post(&format!("organizers/{acme}"), json!({"status": "publish"}))
            .await
            .assert(200);
        assert_shows_no_events(&app, "organizers", acme, &cal.at_hall, false).await;
        let update = json!({"organizer": [acme, cal.other]});
        let updated = app.post(&format!("events/{again}"), update).await;
        updated.assert(200);
        let shown: Vec<i64> = updated.body["organizer"]
            .as_array()
            .map(|a| a.iter().filter_map(|o| o["id"].as_i64()).collect())
            .unwrap_or_default();
        assert_eq!(shown, vec![acme, cal.other]);
        assert_eq!(queued(&app).await, vec![acme], "no batch ran");
        assert_eq!(
            listed(&app, &format!("organizer={acme}")).await,
            (vec![again], 1)
        );
        let both = format!("organizer={acme}&venue={}", cal.club);
        assert_eq!(listed(&app, &both).await, (vec![], 0));
        while !one_batch(&app, acme).await {}
        assert!(queued(&app).await.is_empty());
        assert_eq!(linked_to(&app, acme).await, 1);
        assert_eq!(
            links_of(&app, again).await,
            (Some(hall), vec![acme, cal.other])
        );
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        assert_summaries_hold(&app, "unlinked").await;
    }
);

both_with!(
    events_written_while_their_venue_is_unlinked_come_out_exact,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let mut more = Vec::new();
        for i in 0..24 {
            let links = json!({"venue": cal.hall, "organizer": [cal.acme, cal.other]});
            more.push(
                app.event(with(at_day(&format!("More {i}"), i + 1), links))
                    .await,
            );
        }
        let app = std::sync::Arc::new(app);
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let (app, more) = (app.clone(), more.clone());
                let (club, other) = (cal.club, cal.other);
                tokio::spawn(async move {
                    for (i, e) in more.iter().enumerate().filter(|(i, _)| i % 2 == w) {
                        let body = match i % 3 {
                            0 => json!({"title": format!("Renamed {i}")}),
                            1 => json!({"organizer": [other]}),
                            _ => json!({"venue": club}),
                        };
                        app.post(&format!("events/{e}"), body).await.assert(200);
                    }
                })
            })
            .collect();
        app.delete(&format!("venues/{}", cal.hall))
            .await
            .assert(200);
        app.delete(&format!("organizers/{}", cal.acme))
            .await
            .assert(200);
        for w in writers {
            w.await.unwrap();
        }
        app.wait_for_work_in_steps().await;
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_eq!(linked_to(&app, cal.acme).await, 0);
        for (i, &e) in more.iter().enumerate() {
            let venue = (i % 3 == 2).then_some(cal.club);
            assert_eq!(
                links_of(&app, e).await,
                (venue, vec![cal.other]),
                "event {i}"
            );
        }
        assert_summaries_hold(&app, "written meanwhile").await;
    }
);

both!(
    a_trash_an_instance_stopped_during_goes_on_at_start_up,
    |app| async move {
        let cal = setup(&app).await;
        trash_queued(&app, cal.hall).await;
        let server = process::Server::start_with_args(&app.database_url(), &["--step-batch", "2"]);
        app.wait_for_work_in_steps().await;
        drop(server);
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_summaries_hold(&app, "finished at start-up").await;
    }
);

both!(
    a_trash_that_leaves_no_work_makes_one_data_version,
    |app| async move {
        // The work in steps it sets going finds nothing queued: it writes nothing,
        // and every cached answer the trash cannot change stays cached.
        let cal = setup(&app).await;
        let before = app.store.pool.data_version().await.unwrap();
        app.delete(&format!("venues/{}", cal.hall))
            .await
            .assert(200);
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let after = app.store.pool.data_version().await.unwrap();
        assert_eq!(after, before + 1);
        assert_eq!(linked_to(&app, cal.hall).await, 0);
    }
);
