//! Authentication, the role matrix, and the error shapes of the reference.

mod common;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::json;

both!(basic_and_bearer_authenticate, |app| async move {
    let editor = app.user(Role::Editor).await;
    app.post_as("venues", json!({"venue": "A"}), &editor.auth())
        .await
        .assert(201);
    make_token(&app.store, editor.id, "tok-123").await;
    app.post_as(
        "venues",
        json!({"venue": "B"}),
        &Auth::Bearer("tok-123".into()),
    )
    .await
    .assert(201);
    // Application passwords are shown in groups of four; spaces are ignored.
    let spaced: String = editor
        .password
        .chars()
        .enumerate()
        .flat_map(|(i, c)| {
            if i > 0 && i % 4 == 0 {
                vec![' ', c]
            } else {
                vec![c]
            }
        })
        .collect();
    app.post_as(
        "venues",
        json!({"venue": "C"}),
        &Auth::Basic(editor.login.clone(), spaced),
    )
    .await
    .assert(201);
});

both!(
    wrong_credentials_are_401_never_anonymous,
    |app| async move {
        let editor = app.user(Role::Editor).await;
        let wrong = Auth::Basic(editor.login.clone(), "nope".into());
        let r = app.post_as("venues", json!({"venue": "A"}), &wrong).await;
        r.assert_error(401, "incorrect_password");
        assert_eq!(
            r.error_body(),
            json!({"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}})
        );
        // Even reads: a bad credential is refused, not downgraded.
        app.get_as("venues", &wrong)
            .await
            .assert_error(401, "incorrect_password");
        app.get_as("venues", &Auth::Basic("ghost".into(), "nope".into()))
            .await
            .assert_error(401, "incorrect_password");
        app.get_as("venues", &Auth::Bearer("unknown".into()))
            .await
            .assert_error(401, "incorrect_password");
        let garbage = axum::http::Request::builder()
            .uri(format!("{API}/venues"))
            .header("authorization", "Basic !!!notbase64")
            .body(axum::body::Body::empty())
            .unwrap();
        app.send(garbage)
            .await
            .assert_error(401, "incorrect_password");
        let scheme = axum::http::Request::builder()
            .uri(format!("{API}/venues"))
            .header("authorization", "Digest abc")
            .body(axum::body::Body::empty())
            .unwrap();
        app.send(scheme)
            .await
            .assert_error(401, "incorrect_password");
    }
);

both!(
    anonymous_writes_are_401_and_subscribers_403,
    |app| async move {
        let subscriber = app.user(Role::Subscriber).await;
        let r = app
            .post_as("venues", json!({"venue": "A"}), &Auth::None)
            .await;
        r.assert_error(401, "rest_forbidden");
        assert_eq!(
            r.error_body(),
            json!({"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":401}})
        );
        app.post_as("organizers", json!({"organizer": "A"}), &subscriber.auth())
            .await
            .assert_error(403, "rest_forbidden");
        // Missing fields are reported before permission.
        app.post_as("venues", json!({}), &Auth::None)
            .await
            .assert_error(400, "rest_missing_callback_param");
    }
);

both!(role_matrix_for_venue_writes, |app| async move {
    let admin = app.admin.clone();
    let editor = app.user(Role::Editor).await;
    let author = app.user(Role::Author).await;
    let contributor = app.user(Role::Contributor).await;
    let subscriber = app.user(Role::Subscriber).await;

    // Each role creates; contributors' posts are scaled back to draft/pending.
    let mut own = Vec::new();
    for (u, expected) in [
        (&admin, "publish"),
        (&editor, "publish"),
        (&author, "publish"),
        (&contributor, "draft"),
    ] {
        let r = app
            .post_as(
                "venues",
                json!({"venue": format!("V {}", u.login)}),
                &u.auth(),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["status"], expected, "{}", u.login);
        assert_eq!(r.body["author"], u.id.to_string());
        own.push(r.id());
    }
    let (admin_v, _editor_v, author_v, contributor_v) = (own[0], own[1], own[2], own[3]);

    let update = |id: i64, who: &TestUser| {
        let (app, auth) = (&app, who.auth());
        async move {
            app.post_as(&format!("venues/{id}"), json!({"city": "X"}), &auth)
                .await
                .status
                .as_u16()
        }
    };
    // Editors edit anyone's; authors their own only; contributors their own drafts only.
    assert_eq!(update(author_v, &editor).await, 200);
    assert_eq!(update(author_v, &author).await, 200);
    assert_eq!(update(admin_v, &author).await, 403);
    assert_eq!(update(contributor_v, &contributor).await, 200);
    assert_eq!(update(author_v, &contributor).await, 403);
    assert_eq!(update(author_v, &subscriber).await, 403);
    let anon = app
        .post_as(
            &format!("venues/{author_v}"),
            json!({"city": "X"}),
            &Auth::None,
        )
        .await;
    anon.assert_error(401, "rest_forbidden");

    // A contributor's post, once published by an editor, is no longer theirs to edit.
    app.post_as(
        &format!("venues/{contributor_v}"),
        json!({"status": "publish"}),
        &editor.auth(),
    )
    .await
    .assert(200);
    assert_eq!(update(contributor_v, &contributor).await, 403);

    // Authors cannot hand a post to someone else; editors can.
    let r = app
        .post_as(
            &format!("venues/{author_v}"),
            json!({"author": editor.id}),
            &author.auth(),
        )
        .await;
    r.assert_error(403, "rest_forbidden");
    let r = app
        .post_as(
            &format!("venues/{author_v}"),
            json!({"author": editor.id}),
            &editor.auth(),
        )
        .await;
    assert_eq!(r.body["author"], editor.id.to_string());

    // Delete follows edit; force needs an editor.
    app.delete_as(&format!("venues/{admin_v}"), &author.auth())
        .await
        .assert_error(403, "rest_forbidden");
    let own_venue = app
        .post_as(
            "venues",
            json!({"venue": "Mine", "city": "Y"}),
            &author.auth(),
        )
        .await
        .id();
    app.delete_as(&format!("venues/{own_venue}?force=true"), &author.auth())
        .await
        .assert_error(403, "rest_forbidden");
    app.delete_as(&format!("venues/{own_venue}"), &author.auth())
        .await
        .assert(200);
    app.delete_as(&format!("venues/{own_venue}?force=true"), &editor.auth())
        .await
        .assert(200);
});

both!(
    routes_and_methods_that_do_not_exist_are_rest_no_route,
    |app| async move {
        let r = app.get("nonexistent").await;
        r.assert_error(404, "rest_no_route");
        assert_eq!(
            r.error_body(),
            json!({"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}})
        );
        app.call(Method::PUT, "venues", Some(json!({})), &app.admin.auth())
            .await
            .assert_error(404, "rest_no_route");
        app.call(Method::DELETE, "categories", None, &app.admin.auth())
            .await
            .assert_error(404, "rest_no_route");
        app.get("venues/by-slug/")
            .await
            .assert_error(404, "rest_no_route");
        app.get("/xx/calendar/events/v1/venues")
            .await
            .assert_error(404, "rest_no_route");
        app.get("/nothing-here")
            .await
            .assert_error(404, "rest_no_route");
        // The home page answers: the calendar's list of upcoming events.
        app.get("/").await.assert(200);
    }
);

both!(language_prefixes_serve_the_same_routes, |app| async move {
    app.post("venues", json!({"venue": "Salle"}))
        .await
        .assert(201);
    for lang in ["en", "fr", "de", "es"] {
        let r = app.get(&format!("/{lang}{API}/venues")).await;
        r.assert(200);
        assert_eq!(r.body["total"], 1);
        let venue_url = r.body["rest_url"].as_str().unwrap();
        assert!(
            venue_url.starts_with(&format!("{SITE}/{lang}{API}/venues/")),
            "{venue_url}"
        );
    }
});

both!(malformed_and_oversized_bodies, |app| async move {
    let r = app
        .call_raw(
            Method::POST,
            "venues",
            "application/json",
            b"{\"venue\": ".to_vec(),
            &app.admin.auth(),
        )
        .await;
    r.assert_error(400, "rest_invalid_json");
    app.call_raw(
        Method::POST,
        "venues",
        "application/json",
        b"[1,2]".to_vec(),
        &app.admin.auth(),
    )
    .await
    .assert_error(400, "rest_invalid_json");
    let big = format!("{{\"venue\": \"{}\"}}", "x".repeat(2 * 1024 * 1024));
    app.call_raw(
        Method::POST,
        "venues",
        "application/json",
        big.into_bytes(),
        &app.admin.auth(),
    )
    .await
    .assert_error(413, "rest_payload_too_large");
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let body = format!("{{\"venue\": \"v\", \"image\": {deep}}}");
    let r = app
        .call_raw(
            Method::POST,
            "venues",
            "application/json",
            body.into_bytes(),
            &app.admin.auth(),
        )
        .await;
    assert_eq!(r.status.as_u16(), 400, "{}", r.text);
});

both!(namespace_index_lists_every_route, |app| async move {
    let r = app.get("").await;
    r.assert(200);
    assert_eq!(r.body["namespace"], "calendar/events/v1");
    let routes = r.body["routes"].as_object().unwrap();
    for key in [
        "/calendar/events/v1",
        "/calendar/events/v1/doc",
        "/calendar/events/v1/events",
        "/calendar/events/v1/events/(?P<id>\\d+)",
        "/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)",
        "/calendar/events/v1/venues",
        "/calendar/events/v1/organizers/(?P<id>\\d+)",
        "/calendar/events/v1/categories/(?P<id>\\d+)",
        "/calendar/events/v1/tags",
    ] {
        assert!(routes.contains_key(key), "missing {key}");
    }
    assert_eq!(
        routes["/calendar/events/v1/events"]["methods"],
        json!(["GET", "POST"])
    );
    assert_eq!(
        routes["/calendar/events/v1/events/(?P<id>\\d+)"]["methods"],
        json!(["GET", "DELETE", "POST", "PUT", "PATCH"])
    );
    app.get("?namespace=other/v2")
        .await
        .assert_error(404, "rest_invalid_namespace");
    app.get("/calendar/events/v1/").await.assert(200);
});

both!(responses_carry_security_headers, |app| async move {
    let r = app.get("venues").await;
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=UTF-8")
    );
});
