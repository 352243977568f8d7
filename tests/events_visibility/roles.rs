//! Who may write what.

use super::*;

both!(writes_follow_the_role_matrix, |app| async move {
    let subscriber = app.user(Role::Subscriber).await;
    let contributor = app.user(Role::Contributor).await;
    let author = app.user(Role::Author).await;
    let other_author = app.user(Role::Author).await;
    let other_contributor = app.user(Role::Contributor).await;
    let editor = app.user(Role::Editor).await;
    let body = feb("Event", json!({}));
    app.post_as("events", body.clone(), &Auth::None)
        .await
        .assert_error(401, "rest_forbidden");
    app.post_as("events", body.clone(), &subscriber.auth())
        .await
        .assert_error(403, "rest_forbidden");
    let own_draft = app
        .post_as("events", body.clone(), &contributor.auth())
        .await
        .id();
    let published = app.post_as("events", body.clone(), &author.auth()).await;
    assert_eq!(published.body["status"], "publish");
    let authors = published.id();
    let update = |id: i64, who: Auth| {
        let app = &app;
        async move {
            app.call(
                Method::PATCH,
                &format!("events/{id}"),
                Some(json!({"title": "Changed"})),
                &who,
            )
            .await
        }
    };
    update(own_draft, Auth::None)
        .await
        .assert_error(401, "rest_forbidden");
    update(own_draft, subscriber.auth())
        .await
        .assert_error(403, "rest_forbidden");
    update(own_draft, contributor.auth()).await.assert(200);
    update(own_draft, other_contributor.auth())
        .await
        .assert_error(403, "rest_forbidden");
    update(own_draft, author.auth())
        .await
        .assert_error(403, "rest_forbidden");
    update(authors, contributor.auth())
        .await
        .assert_error(403, "rest_forbidden");
    update(authors, author.auth()).await.assert(200);
    update(authors, other_author.auth())
        .await
        .assert_error(403, "rest_forbidden");
    update(authors, editor.auth()).await.assert(200);
    update(own_draft, editor.auth()).await.assert(200);
    // Once published, the contributor may no longer edit or delete it.
    app.patch(&format!("events/{own_draft}"), json!({"status": "publish"}))
        .await
        .assert(200);
    update(own_draft, contributor.auth())
        .await
        .assert_error(403, "rest_forbidden");
    app.delete_as(&format!("events/{own_draft}"), &contributor.auth())
        .await
        .assert_error(403, "rest_forbidden");
    // A contributor cannot publish through an update either.
    let second = app
        .post_as("events", body.clone(), &contributor.auth())
        .await
        .id();
    let r = app
        .call(
            Method::PUT,
            &format!("events/{second}"),
            Some(json!({"status": "publish"})),
            &contributor.auth(),
        )
        .await;
    assert_eq!(r.body["status"], "pending");
    app.delete_as(&format!("events/{second}"), &contributor.auth())
        .await
        .assert(200);
    // Deleting: anonymous 401; force needs an editor.
    app.delete_as(&format!("events/{authors}"), &Auth::None)
        .await
        .assert_error(401, "rest_forbidden");
    app.delete_as(&format!("events/{authors}?force=true"), &author.auth())
        .await
        .assert_error(403, "rest_forbidden");
    app.delete_as(&format!("events/{authors}"), &author.auth())
        .await
        .assert(200);
    app.delete_as(&format!("events/{authors}?force=true"), &editor.auth())
        .await
        .assert(200);
});

both!(
    contributors_cannot_publish_linked_posts_inline,
    |app| async move {
        let contributor = app.user(Role::Contributor).await;
        let r = app
            .post_as(
                "events",
                feb(
                    "Mine",
                    json!({"venue": {"venue": "My hall", "status": "publish"},
                               "organizer": [{"organizer": "My org"}]}),
                ),
                &contributor.auth(),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["venue"]["status"], "pending");
        assert_eq!(r.body["organizer"][0]["status"], "draft");
        assert!(titles(&app.get(&format!("events?{FROM_2027}")).await).is_empty());
        assert_eq!(app.get("venues").await.body["total"], 0);
        app.post_as(
            "events",
            feb(
                "Theirs",
                json!({"organizer": [{"organizer": "Org", "author": app.admin.id}]}),
            ),
            &contributor.auth(),
        )
        .await
        .assert_error(403, "rest_forbidden");
        // Editors publish inline posts by default, and may name their author.
        let r = app
            .post(
                "events",
                feb(
                    "Editorial",
                    json!({"venue": {"venue": "Their hall", "author": contributor.id}}),
                ),
            )
            .await;
        assert_eq!(r.body["venue"]["status"], "publish");
        assert_eq!(r.body["venue"]["author"], json!(contributor.id.to_string()));
    }
);
