//! Categories and tags.

mod common;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::json;

both!(category_create_matches_the_reference, |app| async move {
    let r = app
        .post(
            "categories",
            json!({"name": "Music", "description": "Music events"}),
        )
        .await;
    r.assert(201);
    let id = r.id();
    assert_eq!(
        r.header("location"),
        Some(format!("{SITE}{API}/categories/{id}").as_str())
    );
    assert_eq!(
        r.body,
        json!({"id": id, "count": 0, "description": "Music events", "name": "Music", "slug": "music",
               "taxonomy": "tribe_events_cat", "parent": 0, "meta": [],
               "url": format!("{SITE}/events/category/music/"),
               "urls": {"self": format!("{SITE}{API}/categories/{id}"), "collection": format!("{SITE}{API}/categories")}})
    );
    let keys: Vec<&str> = r
        .body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "count",
            "description",
            "name",
            "slug",
            "taxonomy",
            "parent",
            "meta",
            "url",
            "urls"
        ]
    );
    let got = app.get(&format!("categories/{id}")).await;
    assert_eq!(got.body, r.body);
});

both!(tags_have_no_parent_key, |app| async move {
    let r = app.post("tags", json!({"name": "free"})).await;
    r.assert(201);
    assert_eq!(r.body["taxonomy"], "post_tag");
    assert!(r.body.get("parent").is_none());
    assert_eq!(r.body["url"], format!("{SITE}/tag/free/"));
});

both!(category_hierarchy_rejects_cycles, |app| async move {
    let a = app.post("categories", json!({"name": "A"})).await.id();
    let b = app
        .post("categories", json!({"name": "B", "parent": a}))
        .await;
    b.assert(201);
    assert_eq!(b.body["parent"], a);
    assert_eq!(b.body["urls"]["up"], format!("{SITE}{API}/categories/{a}"));
    let b = b.id();
    let c = app
        .post("categories", json!({"name": "C", "parent": b}))
        .await
        .id();
    let cycle = app
        .post(&format!("categories/{a}"), json!({"parent": c}))
        .await;
    cycle.assert_error(400, "rest_invalid_param");
    assert!(cycle.body["data"]["params"].get("parent").is_some());
    app.post(&format!("categories/{a}"), json!({"parent": a}))
        .await
        .assert_error(400, "rest_invalid_param");
    app.post("categories", json!({"name": "D", "parent": 999999}))
        .await
        .assert_error(400, "rest_invalid_param");
    let tag = app.post("tags", json!({"name": "t"})).await.id();
    app.post("categories", json!({"name": "E", "parent": tag}))
        .await
        .assert_error(400, "rest_invalid_param");
    // Deleting a parent moves its children up.
    let del = app.delete(&format!("categories/{b}")).await;
    del.assert(200);
    assert_eq!(del.body["id"], b);
    assert_eq!(app.get(&format!("categories/{c}")).await.body["parent"], a);
    app.get(&format!("categories/{b}"))
        .await
        .assert_error(400, "rest_invalid_param");
});

both!(duplicate_names_and_slugs_are_rejected, |app| async move {
    let first = app.post("tags", json!({"name": "Jazz"})).await.id();
    let dup = app.post("tags", json!({"name": "Jazz"})).await;
    dup.assert_error(400, "term_exists");
    assert_eq!(dup.body["data"]["term_id"], first);
    app.post("tags", json!({"name": "Other", "slug": "jazz"}))
        .await
        .assert_error(400, "rest_invalid_param");
    // The same name in the other taxonomy is fine.
    app.post("categories", json!({"name": "Jazz"}))
        .await
        .assert(201);
    for field in ["name", "description", "slug"] {
        let r = app.post("tags", json!({"name": "X", field: ""})).await;
        r.assert_error(400, "rest_invalid_param");
    }
    app.post("tags", json!({}))
        .await
        .assert_error(400, "rest_missing_callback_param");
});

both!(term_update_and_delete, |app| async move {
    let id = app.post("categories", json!({"name": "Sports"})).await.id();
    for method in [Method::POST, Method::PUT, Method::PATCH] {
        let r = app
            .call(
                method,
                &format!("categories/{id}"),
                Some(json!({"description": "All sports"})),
                &app.admin.auth(),
            )
            .await;
        r.assert(200);
        assert_eq!(r.body["description"], "All sports");
        assert_eq!(r.body["name"], "Sports");
    }
    let renamed = app
        .post(
            &format!("categories/{id}"),
            json!({"name": "Sport", "slug": "sport"}),
        )
        .await;
    assert_eq!(renamed.body["slug"], "sport");
    let tag = app.post("tags", json!({"name": "t"})).await.id();
    app.get(&format!("categories/{tag}"))
        .await
        .assert_error(400, "rest_invalid_param");
    app.get(&format!("tags/{id}"))
        .await
        .assert_error(400, "rest_invalid_param");
    app.delete(&format!("tags/{tag}")).await.assert(200);
    app.delete(&format!("tags/{tag}"))
        .await
        .assert_error(400, "rest_invalid_param");
    app.get("tags/abc").await.assert_error(404, "rest_no_route");
});

both!(
    term_lists_hide_empty_by_default_and_page_without_404,
    |app| async move {
        for name in ["b", "a", "c"] {
            app.post("tags", json!({"name": name})).await.assert(201);
        }
        let hidden = app.get("tags").await;
        hidden.assert(200);
        assert_eq!(
            hidden.body["total"], 0,
            "terms without events are hidden by default"
        );
        assert_eq!(hidden.body["tags"], json!([]));
        let r = app.get("tags?hide_empty=false&per_page=2").await;
        let keys: Vec<&str> = r
            .body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["rest_url", "total", "total_pages", "tags", "next_rest_url"]
        );
        let names: Vec<&str> = r.body["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"], "ordered by name");
        assert_eq!(r.header("x-tec-total"), Some("3"));
        let desc = app.get("tags?hide_empty=0&order=desc&orderby=name").await;
        assert_eq!(desc.body["tags"][0]["name"], "c");
        let past = app.get("tags?hide_empty=0&page=9").await;
        past.assert(200);
        assert_eq!(past.body["tags"], json!([]));
        assert_eq!(past.body["total"], 3);
        assert!(past.body.get("previous_rest_url").is_some());
    }
);

both!(term_list_filters, |app| async move {
    let music = app.post("categories", json!({"name": "Music"})).await.id();
    let jazz = app
        .post("categories", json!({"name": "Jazz", "parent": music}))
        .await
        .id();
    let sport = app
        .post("categories", json!({"name": "Sports", "slug": "foo-bar"}))
        .await
        .id();
    let total = |path: String| {
        let app = &app;
        async move { app.get(&path).await.body["total"].as_i64().unwrap() }
    };
    assert_eq!(
        total(format!("categories?hide_empty=0&parent={music}")).await,
        1
    );
    assert_eq!(
        total(format!("categories?hide_empty=0&include={music},{sport}")).await,
        2
    );
    assert_eq!(
        total(format!("categories?hide_empty=0&exclude={jazz}")).await,
        2
    );
    assert_eq!(
        total("categories?hide_empty=0&search=foo".into()).await,
        1,
        "search matches slugs too"
    );
    assert_eq!(total("categories?hide_empty=0&search=MUS".into()).await, 1);
    assert_eq!(
        total("categories?hide_empty=0&slug=foo-bar".into()).await,
        1
    );
    assert_eq!(
        total("categories?hide_empty=0&slug=unknown".into()).await,
        0
    );
    for q in [
        "include=999999",
        "exclude=abc",
        "order=",
        "orderby=",
        "orderby=bogus",
        "search=",
        "slug=",
        "parent=999999",
        "post=abc",
        "post=999999",
        "event=1",
        "hide_empty=maybe",
    ] {
        app.get(&format!("categories?{q}"))
            .await
            .assert_error(400, "rest_invalid_param");
    }
    app.get("tags?parent=1").await.assert(200);
});

both!(only_editors_manage_terms, |app| async move {
    let editor = app.user(Role::Editor).await;
    let author = app.user(Role::Author).await;
    let contributor = app.user(Role::Contributor).await;
    let subscriber = app.user(Role::Subscriber).await;
    app.post_as("categories", json!({"name": "E"}), &editor.auth())
        .await
        .assert(201);
    for u in [&author, &contributor, &subscriber] {
        app.post_as("categories", json!({"name": "X"}), &u.auth())
            .await
            .assert_error(403, "rest_forbidden");
    }
    app.post_as("categories", json!({"name": "X"}), &Auth::None)
        .await
        .assert_error(401, "rest_forbidden");
    let id = app.post("tags", json!({"name": "t"})).await.id();
    app.delete_as(&format!("tags/{id}"), &subscriber.auth())
        .await
        .assert_error(403, "rest_forbidden");
    app.delete_as(&format!("tags/{id}"), &Auth::None)
        .await
        .assert_error(401, "rest_forbidden");
    // Validation runs before permission: a subscriber deleting nothing gets 400.
    app.delete_as("categories/999999", &subscriber.auth())
        .await
        .assert_error(400, "rest_invalid_param");
});

both!(term_names_sort_regardless_of_case, |app| async move {
    let mut ids = Vec::new();
    for name in ["C x", "b x", "A x", "é x"] {
        ids.push(app.post("categories", json!({"name": name})).await.id());
    }
    let names = |r: &Resp| -> Vec<String> {
        r.body["categories"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", r.text))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let include = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    for (q, expected) in [
        ("hide_empty=0", ["A x", "b x", "C x", "é x"]),
        ("hide_empty=0&order=desc", ["é x", "C x", "b x", "A x"]),
        (
            "hide_empty=0&orderby=name&order=asc",
            ["A x", "b x", "C x", "é x"],
        ),
        (
            &*format!("hide_empty=0&include={include}"),
            ["A x", "b x", "C x", "é x"],
        ),
    ] {
        assert_eq!(
            names(&app.get(&format!("categories?{q}")).await),
            expected,
            "{q}"
        );
    }
    // An event lists its terms in the same order.
    let id = app
        .event(with(
            event("E", "2027-01-01 10:00:00", "2027-01-01 11:00:00"),
            json!({"categories": ids}),
        ))
        .await;
    let r = app.get(&format!("events/{id}")).await;
    let listed: Vec<&str> = r.body["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["A x", "b x", "C x", "é x"]);
});
