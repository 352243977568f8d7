//! The trash remembers what a post was: the status before it is shown to those who
//! may restore it, and a restore is decided on it, as WordPress decides.

mod common;

use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

fn july(title: &str, extra: Value) -> Value {
    with(
        event(title, "2027-07-10 10:00:00", "2027-07-10 12:00:00"),
        extra,
    )
}

both!(
    a_contributor_restores_their_own_draft_or_pending_post,
    |app| async move {
        let c = app.user(Role::Contributor).await;
        for (status, path, body) in [
            ("draft", "events", july("Mine", json!({"status": "draft"}))),
            (
                "pending",
                "events",
                july("Mine too", json!({"status": "pending"})),
            ),
            (
                "draft",
                "venues",
                json!({"venue": "My hall", "status": "draft"}),
            ),
            (
                "pending",
                "organizers",
                json!({"organizer": "Me", "status": "pending"}),
            ),
        ] {
            let id = app.post_as(path, body, &c.auth()).await.id();
            let item = format!("{path}/{id}");
            let r = app.delete_as(&item, &c.auth()).await;
            r.assert(200);
            assert_eq!(r.body["status"], "trash");
            assert_eq!(r.body["status_before_trash"], status, "{path}");
            let r = app.get_as(&item, &c.auth()).await;
            r.assert(200);
            assert_eq!(
                r.body["status_before_trash"], status,
                "shown to who may restore"
            );
            // Brought back as it was; asking to publish gives pending, as ever.
            let r = app
                .post_as(&item, json!({"status": status}), &c.auth())
                .await;
            r.assert(200);
            assert_eq!(r.body["status"], status);
            assert!(r.body.get("status_before_trash").is_none(), "{}", r.text);
            app.delete_as(&item, &c.auth()).await.assert(200);
            let r = app
                .post_as(&item, json!({"status": "publish"}), &c.auth())
                .await;
            r.assert(200);
            assert_eq!(r.body["status"], "pending", "{path}");
        }
    }
);

both!(
    a_contributor_cannot_bring_back_what_was_published,
    |app| async move {
        let c = app.user(Role::Contributor).await;
        let id = app
            .post_as("events", july("Submitted", json!({})), &c.auth())
            .await
            .id();
        let item = format!("events/{id}");
        // An editor publishes it, then trashes it.
        app.post(&item, json!({"status": "publish"}))
            .await
            .assert(200);
        let r = app.delete(&item).await;
        assert_eq!(r.body["status_before_trash"], "publish");
        for status in ["publish", "draft", "pending"] {
            app.post_as(&item, json!({"status": status}), &c.auth())
                .await
                .assert_error(403, "rest_forbidden");
        }
        // Someone else's trashed draft is not theirs to restore either.
        let other = app.user(Role::Contributor).await;
        let theirs = app
            .post_as("events", july("Theirs", json!({})), &other.auth())
            .await
            .id();
        app.delete_as(&format!("events/{theirs}"), &other.auth())
            .await
            .assert(200);
        app.post_as(
            &format!("events/{theirs}"),
            json!({"status": "draft"}),
            &c.auth(),
        )
        .await
        .assert_error(403, "rest_forbidden");
        // The editor restores it as it was.
        let r = app.post(&item, json!({"status": "publish"})).await;
        assert_eq!(r.body["status"], "publish");
    }
);

both!(
    authors_restore_their_own_published_posts_and_editors_anything,
    |app| async move {
        let a = app.user(Role::Author).await;
        let e = app.user(Role::Editor).await;
        for prior in ["publish", "draft", "private", "future"] {
            let mut extra = json!({"status": prior});
            if prior == "future" {
                extra["date"] = json!("2030-01-01 00:00:00");
            }
            let id = app
                .post_as("events", july(prior, extra), &a.auth())
                .await
                .id();
            let item = format!("events/{id}");
            let r = app.delete_as(&item, &a.auth()).await;
            r.assert(200);
            assert_eq!(r.body["status_before_trash"], prior);
            let r = app
                .post_as(&item, json!({"status": prior}), &a.auth())
                .await;
            r.assert(200);
            assert_eq!(r.body["status"], prior);
            // An editor may trash and restore anyone's.
            app.delete_as(&item, &e.auth()).await.assert(200);
            let r = app
                .post_as(&item, json!({"status": prior}), &e.auth())
                .await;
            assert_eq!(r.body["status"], prior);
        }
        // An author cannot restore someone else's.
        let id = app
            .post("venues", json!({"venue": "Editor's hall"}))
            .await
            .id();
        app.delete(&format!("venues/{id}")).await.assert(200);
        app.post_as(
            &format!("venues/{id}"),
            json!({"status": "publish"}),
            &a.auth(),
        )
        .await
        .assert_error(403, "rest_forbidden");
    }
);

both!(
    the_status_before_the_trash_is_documented,
    |app| async move {
        let doc = app.get("doc").await.body;
        for schema in ["Event", "Venue", "Organizer"] {
            let text = doc["components"]["schemas"][schema].to_string();
            assert!(text.contains("status_before_trash"), "{schema}");
        }
    }
);
