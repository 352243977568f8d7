//! A deletion for good of a post of many events.

use super::*;

both_with!(
    deleting_for_good_a_post_of_many_events_unlinks_them_first,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        // Not in the trash: trashed, unlinked, deleted with its last batch.
        let r = app.delete(&format!("venues/{}?force=true", cal.hall)).await;
        r.assert(200);
        assert_eq!(r.body["venue"], "Hall");
        app.wait_for_work_in_steps().await;
        app.get_as(&format!("venues/{}", cal.hall), &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        // In the trash with its events still linked.
        trash_queued(&app, cal.acme).await;
        app.delete(&format!("organizers/{}?force=true", cal.acme))
            .await
            .assert(200);
        app.wait_for_work_in_steps().await;
        app.get_as(&format!("organizers/{}", cal.acme), &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        let queued = {
            let mut conn = app.store.pool.read().await.unwrap();
            linked_unlinks::queued(&mut conn).await.unwrap()
        };
        assert!(queued.is_empty(), "{queued:?}");
        assert_eq!(linked_to(&app, cal.hall).await, 0);
        assert_eq!(linked_to(&app, cal.acme).await, 0);
        assert_eq!(
            links_of(&app, cal.at_club).await,
            (Some(cal.club), vec![cal.other])
        );
        assert_summaries_hold(&app, "deleted").await;
    }
);

both_with!(
    a_post_deleted_for_good_in_steps_goes_with_its_last_batch,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let hall = cal.hall;
        // Marked as its deletion for good marks it; no batch runs until the test
        // runs one.
        let again = restored_with_a_kept_link(&app, hall).await;
        let path = format!("venues/{hall}");
        {
            let mut tx = app.store.pool.write().await.unwrap();
            let post = posts::get(&mut tx, hall).await.unwrap().expect("the venue");
            let marked = linked_unlinks::delete_when_unlinked(&mut tx, &post, 1_800_000_000);
            assert!(marked.await.unwrap());
            tx.commit().await.unwrap();
        }
        assert_eq!(links_of(&app, again).await.0, None);
        // From the mark on it is gone to every read and write, though its row stays
        // in the trash until its last batch.
        let admin = app.admin.auth();
        for read in [path.clone(), format!("events?venue={hall}")] {
            app.get_as(&read, &admin)
                .await
                .assert_error(400, "rest_invalid_param");
        }
        let trash = app.get_as("venues?status=trash", &admin).await;
        trash.assert(200);
        assert_eq!(
            ids_of(&trash, "venues"),
            Vec::<i64>::new(),
            "{}",
            trash.text
        );
        assert_eq!(trash.header("x-wp-total"), Some("0"));
        app.post(&path, json!({"status": "publish"}))
            .await
            .assert_error(400, "rest_invalid_param");
        app.post(&path, json!({"venue": "Renamed"}))
            .await
            .assert_error(400, "rest_invalid_param");
        app.delete(&format!("{path}?force=true"))
            .await
            .assert_error(400, "rest_invalid_param");
        let status = app
            .scalar(&format!(
                "(SELECT COUNT(*) FROM posts WHERE id = {hall} AND status = 'trash')"
            ))
            .await;
        assert_eq!(status, 1, "the row stays until its last batch");
        // Sync hears of it as deleted at once, and again from its last batch on.
        assert_eq!(synced_status(&app, hall).await, Some(json!("deleted")));
        while !one_batch(&app, hall).await {}
        // Gone, with every link to it, that of the event linked meanwhile too.
        app.get_as(&path, &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        assert!(queued(&app).await.is_empty());
        assert_eq!(linked_to(&app, hall).await, 0);
        assert_eq!(links_of(&app, again).await.0, None);
        // Sync hears of it as of any post deleted for good.
        assert_eq!(synced_status(&app, hall).await, Some(json!("deleted")));
        assert_summaries_hold(&app, "deleted in steps").await;
    }
);

/// The status the administrator's sync of the venues gives `venue`, if any.
async fn synced_status(app: &TestApp, venue: i64) -> Option<Value> {
    let synced = app
        .get_as(
            "venues?modified_after=2000-01-01&per_page=50",
            &app.admin.auth(),
        )
        .await;
    synced.assert(200);
    let found = synced.body["venues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"] == venue);
    found.map(|v| v["status"].clone())
}

both_with!(
    a_conditional_deletion_for_good_of_a_restored_post_checks_the_post_as_sent,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let (hall, acme) = (cal.hall, cal.acme);
        // Restored with fewer events than a batch still linked, and with more; the
        // first deletion sets the batches going, so it comes first.
        restored_with_a_kept_link(&app, hall).await;
        trash_queued(&app, acme).await;
        let acme_path = format!("organizers/{acme}");
        app.post(&acme_path, json!({"status": "publish"}))
            .await
            .assert(200);
        while linked_to(&app, acme).await > 2 {
            assert!(!one_batch(&app, acme).await);
        }
        assert_eq!(queued(&app).await, vec![hall, acme]);
        let admin = app.admin.auth();
        for path in [acme_path, format!("venues/{hall}")] {
            let read = app.get_as(&path, &admin).await;
            read.assert(200);
            let tag = read.header("etag").expect("an ETag").to_string();
            // Its trash, in the same transaction, is no change the condition sees.
            let delete = |tag: String| {
                let (app, path, admin) = (&app, &path, &admin);
                async move {
                    let forced = format!("{path}?force=true");
                    let headers = [("if-match", tag.as_str())];
                    app.call_with(axum::http::Method::DELETE, &forced, None, admin, &headers)
                        .await
                }
            };
            delete("\"stale\"".into())
                .await
                .assert_error(412, "rest_precondition_failed");
            delete(tag).await.assert(200);
            app.get_as(&path, &admin)
                .await
                .assert_error(400, "rest_invalid_param");
        }
        app.wait_for_work_in_steps().await;
        assert_eq!(linked_to(&app, hall).await, 0);
        assert_eq!(linked_to(&app, acme).await, 0);
    }
);
