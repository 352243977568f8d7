//! A restore before the last batch, and a trash again.

use super::*;

both_with!(
    a_restore_while_the_batches_run_behind_the_trash_leaves_them_running,
    Settings {
        step_batch: 1,
        ..settings()
    },
    |app| async move {
        // Enough events that the runner the trash set going is still at work when
        // the restore comes (on PostgreSQL some hundreds are left; SQLite's batches
        // may all be done): the restore answers, the runner goes on to the last.
        let cal = setup(&app).await;
        let batch: Vec<Value> = (0..800)
            .map(|i| {
                with(
                    at_day(&format!("Busy {i}"), 1 + i % 28),
                    json!({"venue": cal.hall}),
                )
            })
            .collect();
        for body in batch {
            app.post("events", body).await.assert(201);
        }
        let hall = cal.hall;
        app.delete(&format!("venues/{hall}")).await.assert(200);
        let restored = app
            .post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await;
        restored.assert(200);
        assert_eq!(restored.body["status"], "publish");
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        assert_eq!(links_of(&app, cal.at_hall[0]).await.0, None);
        // Events linked to it meanwhile keep their links, whichever batch they meet.
        let mut kept = Vec::new();
        for i in 0..3 {
            let links = json!({"venue": hall});
            kept.push(
                app.event(with(at_day(&format!("Kept {i}"), 2 + i), links))
                    .await,
            );
        }
        for &e in &kept {
            assert_eq!(links_of(&app, e).await.0, Some(hall));
        }
        app.wait_for_work_in_steps().await;
        assert_eq!(linked_to(&app, hall).await, 3);
        kept.sort_unstable();
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (kept, 3));
        assert_summaries_hold(&app, "restored while unlinking").await;
    }
);

both_with!(
    a_trash_again_unlinks_the_links_kept_while_it_was_restored,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let hall = cal.hall;
        let again = restored_with_a_kept_link(&app, hall).await;
        // Trashed again before its last batch, it loses every event, that one too.
        app.delete(&format!("venues/{hall}")).await.assert(200);
        app.wait_for_work_in_steps().await;
        assert!(queued(&app).await.is_empty());
        assert_eq!(linked_to(&app, hall).await, 0);
        app.post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await
            .assert(200);
        assert_eq!(links_of(&app, again).await.0, None);
        assert_eq!(listed(&app, &format!("venue={hall}")).await, (vec![], 0));
        assert_summaries_hold(&app, "trashed again").await;
    }
);

both_with!(
    a_link_written_while_a_batch_is_in_flight_waits_for_it_and_is_kept,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let hall = cal.hall;
        trash_queued(&app, hall).await;
        app.post(&format!("venues/{hall}"), json!({"status": "publish"}))
            .await
            .assert(200);
        // A batch in flight holds its locks until it commits (on PostgreSQL the
        // queue's row among them; on SQLite, the writer): an event linked to the
        // venue meanwhile is written after it, its link kept, and no later batch
        // unlinks it.
        let mut batch = app.store.pool.write().await.unwrap();
        let done = linked_unlinks::unlink_batch(&mut batch, hall, 2)
            .await
            .unwrap();
        assert!(!done, "more batches to come");
        let create = app.post(
            "events",
            with(at_day("Meanwhile", 26), json!({"venue": hall})),
        );
        tokio::pin!(create);
        let early = tokio::time::timeout(std::time::Duration::from_millis(300), &mut create).await;
        assert!(early.is_err(), "the write waits for the batch in flight");
        batch.commit().await.unwrap();
        let event = create.await.assert(201).id();
        assert_eq!(links_of(&app, event).await.0, Some(hall));
        while !one_batch(&app, hall).await {}
        assert!(queued(&app).await.is_empty());
        assert_eq!(links_of(&app, event).await.0, Some(hall));
        for &unlinked in &cal.at_hall {
            assert_eq!(links_of(&app, unlinked).await.0, None);
        }
        assert_eq!(
            listed(&app, &format!("venue={hall}")).await,
            (vec![event], 1)
        );
        assert_summaries_hold(&app, "a link written during a batch").await;
    }
);
