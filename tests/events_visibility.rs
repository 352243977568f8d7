//! Events: who sees what, who may change what, and the venue, organizer and term
//! lists that depend on events.

mod common;

use axum::http::Method;
use calendar_events::domain::permissions::Role;
use chrono::{Duration, Utc};
use common::*;
use serde_json::{Value, json};

const FROM_2027: &str = "start_date=2027-01-01";

fn feb(title: &str, extra: Value) -> Value {
    with(
        event(title, "2027-02-01 10:00:00", "2027-02-01 12:00:00"),
        extra,
    )
}

both!(
    drafts_are_readable_by_their_author_and_editors_only,
    |app| async move {
        let author = app.user(Role::Contributor).await;
        let other = app.user(Role::Contributor).await;
        let editor = app.user(Role::Editor).await;
        let r = app
            .post_as("events", feb("Secret plan", json!({})), &author.auth())
            .await;
        r.assert(201);
        assert_eq!(r.body["status"], "draft");
        let path = format!("events/{}", r.id());
        app.get(&path)
            .await
            .assert_error(403, "event-not-accessible");
        app.get_as(&path, &other.auth())
            .await
            .assert_error(403, "event-not-accessible");
        app.get_as(&path, &author.auth()).await.assert(200);
        app.get_as(&path, &editor.auth()).await.assert(200);
        // Lists: never for anonymous callers or other contributors.
        let list = format!("events?{FROM_2027}");
        assert!(titles(&app.get(&list).await).is_empty());
        assert!(titles(&app.get_as(&list, &other.auth()).await).is_empty());
        assert_eq!(
            titles(&app.get_as(&list, &author.auth()).await),
            ["Secret plan"]
        );
        assert_eq!(
            titles(&app.get_as(&list, &editor.auth()).await),
            ["Secret plan"]
        );
    }
);

both!(
    password_protected_events_need_the_password,
    |app| async move {
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let organizer = app
            .post("organizers", json!({"organizer": "Org"}))
            .await
            .id();
        let id = app
            .event(feb(
                "Members only",
                json!({"password": "s3cret", "description": "Inside info", "excerpt": "Ex",
                   "cost": "10$", "all_day": true, "venue": venue, "organizer": [organizer],
                   "categories": ["Private"], "tags": ["vip"], "featured": true,
                   "website": "https://example.com/m", "image": "https://cdn.example.com/m.png"}),
            ))
            .await;
        let path = format!("events/{id}");
        for q in ["", "?password=wrong"] {
            let r = app.get(&format!("{path}{q}")).await;
            assert_eq!(
                r.error_body(),
                json!({"code":"event-password-protected","message":"The requested event is not accessible without a password","data":{"status":403}})
            );
        }
        let r = app.get(&format!("{path}?password=s3cret")).await;
        r.assert(200);
        assert_eq!(r.body["description"], "<p>Inside info</p>");
        // In lists the event is there, blanked.
        let list = app.get(&format!("events?{FROM_2027}")).await;
        let e = &list.body["events"][0];
        assert_eq!(e["title"], "Members only", "the title is kept");
        for (field, blank) in [
            ("description", json!("")),
            ("excerpt", json!("")),
            ("image", json!(false)),
            ("all_day", Value::Null),
            ("cost", json!("")),
            ("website", json!("")),
            ("show_map", Value::Null),
            ("show_map_link", Value::Null),
            ("hide_from_listings", Value::Null),
            ("sticky", Value::Null),
            ("featured", Value::Null),
            ("categories", json!([])),
            ("tags", json!([])),
            ("venue", json!([])),
            ("organizer", json!([])),
            ("custom_fields", json!([])),
        ] {
            assert_eq!(e[field], blank, "{field}");
        }
        assert_eq!(
            e["cost_details"],
            json!({"currency_symbol":"","currency_code":"","currency_position":"","values":[]})
        );
        assert_eq!(e["start_date"], "2027-02-01 00:00:00", "dates are kept");
        let full = app
            .get(&format!("events?{FROM_2027}&password=s3cret"))
            .await;
        let e = &full.body["events"][0];
        assert_eq!(e["cost"], "10$");
        assert_eq!(e["venue"]["id"], venue);
        assert_eq!(e["all_day"], true);
        // An empty password removes the protection.
        app.patch(&path, json!({"password": ""})).await.assert(200);
        app.get(&path).await.assert(200);
    }
);

both!(hidden_events_are_left_out_of_lists_only, |app| async move {
    let editor = app.user(Role::Editor).await;
    let hidden = app
        .event(feb("Hidden", json!({"hide_from_listings": true})))
        .await;
    app.event(feb("Shown", json!({}))).await;
    let list = format!("events?{FROM_2027}");
    assert_eq!(titles(&app.get(&list).await), ["Shown"]);
    assert_eq!(titles(&app.get_as(&list, &editor.auth()).await), ["Shown"]);
    assert!(titles(&app.get(&format!("events?include={hidden}")).await).is_empty());
    let r = app.get(&format!("events/{hidden}")).await;
    r.assert(200);
    assert_eq!(r.body["hide_from_listings"], true);
});

both!(
    embedded_linked_posts_follow_their_own_visibility,
    |app| async move {
        let draft_venue = app
            .post("venues", json!({"venue": "Unannounced", "status": "draft"}))
            .await
            .id();
        let draft_org = app
            .post(
                "organizers",
                json!({"organizer": "Ghost", "status": "draft"}),
            )
            .await
            .id();
        let public_org = app
            .post("organizers", json!({"organizer": "Public"}))
            .await
            .id();
        let id = app
            .event(feb(
                "Teaser",
                json!({"venue": draft_venue, "organizer": [draft_org, public_org]}),
            ))
            .await;
        let r = app.get(&format!("events/{id}")).await;
        r.assert(200);
        assert_eq!(r.body["venue"], json!([]));
        assert_eq!(r.body["organizer"].as_array().unwrap().len(), 1);
        assert_eq!(r.body["organizer"][0]["id"], public_org);
        assert!(r.body["json_ld"].get("location").is_none());
        let listed = app.get(&format!("events?{FROM_2027}")).await;
        assert_eq!(listed.body["events"][0]["venue"], json!([]));
        let editor = app.user(Role::Editor).await;
        let r = app.get_as(&format!("events/{id}"), &editor.auth()).await;
        assert_eq!(r.body["venue"]["id"], draft_venue);
        assert_eq!(r.body["organizer"].as_array().unwrap().len(), 2);
    }
);

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

both!(
    venue_and_organizer_lists_filter_by_their_events,
    |app| async move {
        let names = |r: Resp, key: &'static str| -> Vec<String> {
            let mut v: Vec<String> = r.body[key]
                .as_array()
                .unwrap_or_else(|| panic!("{}", r.text))
                .iter()
                .map(|p| {
                    p[key.trim_end_matches('s')]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
            v.sort();
            v
        };
        let mut venue = std::collections::HashMap::new();
        for name in ["Busy", "Drafty", "Past", "Idle"] {
            venue.insert(name, app.post("venues", json!({"venue": name})).await.id());
        }
        let org = app
            .post("organizers", json!({"organizer": "Org"}))
            .await
            .id();
        app.post("organizers", json!({"organizer": "Lonely"}))
            .await
            .assert(201);
        let past = (Utc::now() - Duration::days(30))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let busy = app
            .event(feb(
                "Busy",
                json!({"venue": venue["Busy"], "organizer": [org]}),
            ))
            .await;
        app.event(feb(
            "Draft",
            json!({"venue": venue["Drafty"], "status": "draft"}),
        ))
        .await;
        app.event(with(
            event("Old", &past, &past),
            json!({"venue": venue["Past"]}),
        ))
        .await;
        assert_eq!(
            names(app.get(&format!("venues?event={busy}")).await, "venues"),
            ["Busy"]
        );
        assert_eq!(
            names(
                app.get(&format!("organizers?event={busy}")).await,
                "organizers"
            ),
            ["Org"]
        );
        let editor = app.user(Role::Editor).await.auth();
        assert_eq!(
            names(
                app.get_as("venues?has_events=true", &editor).await,
                "venues"
            ),
            ["Busy", "Past"]
        );
        assert_eq!(
            names(
                app.get_as("venues?has_events=false", &editor).await,
                "venues"
            ),
            ["Drafty", "Idle"]
        );
        assert_eq!(
            names(
                app.get_as("venues?only_with_upcoming=true", &editor).await,
                "venues"
            ),
            ["Busy", "Drafty"]
        );
        assert_eq!(
            names(app.get("venues?only_with_upcoming=true").await, "venues"),
            ["Busy"]
        );
        assert_eq!(
            names(app.get("organizers?has_events=false").await, "organizers"),
            ["Lonely"]
        );
        app.get(&format!("venues?event={}", venue["Idle"]))
            .await
            .assert_error(400, "rest_invalid_param");
    }
);

both!(trashing_a_venue_or_organizer_unlinks_it, |app| async move {
    let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
    let org = app
        .post("organizers", json!({"organizer": "Org"}))
        .await
        .id();
    let keep = app
        .post("organizers", json!({"organizer": "Keep"}))
        .await
        .id();
    let id = app
        .event(feb(
            "Linked",
            json!({"venue": venue, "organizer": [org, keep]}),
        ))
        .await;
    app.delete(&format!("venues/{venue}")).await.assert(200);
    app.delete(&format!("organizers/{org}")).await.assert(200);
    let r = app.get(&format!("events/{id}")).await;
    assert_eq!(r.body["venue"], json!([]));
    assert_eq!(r.body["organizer"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["organizer"][0]["id"], keep);
    let by_venue = format!("events?{FROM_2027}&venue={venue}");
    assert!(titles(&app.get_as(&by_venue, &app.admin.auth()).await).is_empty());
    // To a visitor, a trashed venue is as unknown as one that never was.
    app.get(&by_venue)
        .await
        .assert_error(400, "rest_invalid_param");
    // A trashed venue cannot be linked again.
    app.post("events", feb("Again", json!({"venue": venue})))
        .await
        .assert_error(400, "rest_invalid_param");
});

both!(term_counts_follow_published_events, |app| async move {
    let cat = app.post("categories", json!({"name": "Music"})).await.id();
    let count = || {
        let app = &app;
        async move { app.get(&format!("categories/{cat}")).await.body["count"].clone() }
    };
    let hidden = || {
        let app = &app;
        async move { titles_of_terms(&app.get("categories").await) }
    };
    assert!(
        hidden().await.is_empty(),
        "an empty category is hidden by default"
    );
    let a = app.event(feb("A", json!({"categories": [cat]}))).await;
    let b = app.event(feb("B", json!({"categories": [cat]}))).await;
    let draft = app
        .event(feb(
            "Draft",
            json!({"categories": [cat], "status": "draft"}),
        ))
        .await;
    assert_eq!(count().await, 2, "drafts do not count");
    assert_eq!(hidden().await, ["Music"]);
    app.patch(&format!("events/{draft}"), json!({"status": "publish"}))
        .await
        .assert(200);
    assert_eq!(count().await, 3);
    app.patch(&format!("events/{b}"), json!({"categories": []}))
        .await
        .assert(200);
    assert_eq!(count().await, 2);
    app.delete(&format!("events/{a}")).await.assert(200);
    assert_eq!(count().await, 1, "trashing decrements");
    app.post(&format!("events/{a}"), json!({"status": "publish"}))
        .await
        .assert(200);
    assert_eq!(count().await, 2, "restoring increments");
    app.delete(&format!("events/{a}?force=true"))
        .await
        .assert(200);
    app.delete(&format!("events/{draft}?force=true"))
        .await
        .assert(200);
    assert_eq!(count().await, 0);
    assert!(hidden().await.is_empty());
    assert_eq!(
        titles_of_terms(&app.get("categories?hide_empty=false").await),
        ["Music"]
    );
});

fn titles_of_terms(r: &Resp) -> Vec<String> {
    r.body["categories"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.text))
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

both!(category_lists_filter_by_event, |app| async move {
    let music = app.post("categories", json!({"name": "Music"})).await.id();
    app.post("categories", json!({"name": "Sports"}))
        .await
        .assert(201);
    let id = app
        .event(feb("Gig", json!({"categories": [music, "Extra"]})))
        .await;
    let other = app
        .event(feb("Match", json!({"categories": ["Sports"]})))
        .await;
    for param in ["post", "event"] {
        let r = app.get(&format!("categories?{param}={id}")).await;
        r.assert(200);
        let mut names = titles_of_terms(&r);
        names.sort();
        assert_eq!(names, ["Extra", "Music"], "{param}");
    }
    assert_eq!(
        titles_of_terms(&app.get(&format!("categories?event={other}")).await),
        ["Sports"]
    );
    let tags = app.get(&format!("tags?post={id}")).await;
    tags.assert(200);
    assert_eq!(tags.body["tags"], json!([]));
});

both!(
    searching_cannot_probe_the_hidden_text_of_protected_events,
    |app| async move {
        app.post(
        "events",
        json!({"title": "Members night", "description": "the secret code is zebra",
               "start_date": "2027-08-01 20:00:00", "end_date": "2027-08-01 22:00:00", "password": "pw"}),
    )
    .await
    .assert(201);
        let window = "start_date=2027-08-01&end_date=2027-08-02";
        let probe = app.get(&format!("events?{window}&search=zebra")).await;
        assert_eq!(
            probe.body["total"], 0,
            "the hidden description must not be searchable"
        );
        let by_title = app.get(&format!("events?{window}&search=members")).await;
        assert_eq!(by_title.body["total"], 1, "the title is public");
        assert_eq!(by_title.body["events"][0]["description"], "");
        let editor = app
            .get_as(&format!("events?{window}&search=zebra"), &app.admin.auth())
            .await;
        assert_eq!(editor.body["total"], 1, "editors search everything");
    }
);
