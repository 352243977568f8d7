//! No path reveals a post its caller may not see: de-duplication, searches,
//! filters and term lists answer for a hidden post exactly as for an unknown one.

mod common;

use calendar_events::domain::permissions::Role;
use common::*;
use serde_json::{Value, json};

const WINDOW: &str = "start_date=2027-03-01&end_date=2027-03-31";

fn march(title: &str, extra: Value) -> Value {
    with(
        event(title, "2027-03-10 10:00:00", "2027-03-10 12:00:00"),
        extra,
    )
}

/// A venue and an organizer in each hidden state, as the administrator made them.
async fn hidden_linked(app: &TestApp) -> Vec<(&'static str, i64, &'static str)> {
    let mut out = Vec::new();
    for (state, extra) in [
        ("draft", json!({"status": "draft"})),
        ("private", json!({"status": "private"})),
        ("pending", json!({"status": "pending"})),
        ("protected", json!({"password": "pw"})),
    ] {
        for (path, key) in [("venues", "venue"), ("organizers", "organizer")] {
            let name = format!("Secret {state} {key}");
            let body = with(
                json!({key: name, "phone": "555-0100", "description": "Backstage door code 1234"}),
                extra.clone(),
            );
            let id = app.post(path, body).await.id();
            out.push((path, id, state));
        }
    }
    out
}

both!(
    creating_a_post_named_like_a_hidden_one_makes_a_new_one,
    |app| async move {
        let hidden = hidden_linked(&app).await;
        let contributor = app.user(Role::Contributor).await;
        let author = app.user(Role::Author).await;
        for (path, id, state) in &hidden {
            let key = &path[..path.len() - 1];
            let name = format!("Secret {state} {key}");
            for user in [&contributor, &author] {
                let r = app.post_as(path, json!({key: name}), &user.auth()).await;
                r.assert(201);
                assert_ne!(r.id(), *id, "{user:?} got the hidden {state} {key}");
                assert_eq!(r.body["phone"], Value::Null, "{}", r.text);
                // The same again finds the caller's own new one.
                let again = app.post_as(path, json!({key: name}), &user.auth()).await;
                assert_eq!(again.id(), r.id());
            }
            // Inline in an event write, likewise.
            let r = app
                .post_as(
                    "events",
                    march("Inline", json!({key: {key: name}})),
                    &author.auth(),
                )
                .await;
            r.assert(201);
            let linked = if *path == "venues" {
                r.body["venue"]["id"].clone()
            } else {
                r.body["organizer"][0]["id"].clone()
            };
            assert!(
                linked.as_i64().is_some_and(|l| l != *id),
                "{state}: {}",
                r.text
            );
            // An editor, who may read them all, gets the existing one.
            let r = app.post(path, json!({key: name})).await;
            assert_eq!(r.id(), *id);
        }
    }
);

both!(
    linking_a_hidden_venue_by_id_is_an_unknown_id,
    |app| async move {
        let hidden = hidden_linked(&app).await;
        let author = app.user(Role::Author).await;
        for (path, id, state) in hidden {
            let key = &path[..path.len() - 1];
            let r = app
                .post_as("events", march("Link", json!({key: id})), &author.auth())
                .await;
            if state == "protected" {
                // Listed, blanked, to everyone: linking to it reveals nothing new.
                r.assert(201);
            } else {
                let unknown = app
                    .post_as(
                        "events",
                        march("Link", json!({key: 999_999})),
                        &author.auth(),
                    )
                    .await;
                assert_eq!(r.error_body(), unknown.error_body(), "{state} {key}");
            }
        }
    }
);

both!(
    searches_match_only_what_the_caller_can_read,
    |app| async move {
        hidden_linked(&app).await;
        app.post(
            "venues",
            json!({"venue": "Open Hall", "address": "12 Rue Ouverte"}),
        )
        .await
        .assert(201);
        app.post(
            "venues",
            json!({"venue": "Locked Hall", "address": "7 Rue Secrete", "password": "pw"}),
        )
        .await
        .assert(201);
        let names = |r: &Resp, key: &str| -> Vec<String> {
            r.body[key]
                .as_array()
                .unwrap_or_else(|| panic!("{}", r.text))
                .iter()
                .map(|v| v[&key[..key.len() - 1]].as_str().unwrap().to_string())
                .collect()
        };
        let r = app.get("venues?search=Rue").await;
        assert_eq!(names(&r, "venues"), ["Open Hall"]);
        assert_eq!(r.body["total"], 1);
        let r = app.get("venues?search=secrete").await;
        assert_eq!(r.body["total"], 0, "{}", r.text);
        // Even its name is blanked, so even its name does not match.
        assert_eq!(app.get("venues?search=locked").await.body["total"], 0);
        for path in ["venues", "organizers"] {
            let r = app.get(&format!("{path}?search=door%20code")).await;
            assert_eq!(r.body["total"], 0, "{path}: {}", r.text);
            // An editor finds every one.
            let r = app
                .get_as(&format!("{path}?search=door%20code"), &app.admin.auth())
                .await;
            assert_eq!(r.body["total"], 4, "{path}");
        }
    }
);

both!(
    filters_on_hidden_posts_answer_as_for_unknown_ones,
    |app| async move {
        let editor = app.admin.auth();
        let draft_venue = app
            .post("venues", json!({"venue": "Draft V", "status": "draft"}))
            .await
            .id();
        let draft_org = app
            .post(
                "organizers",
                json!({"organizer": "Draft O", "status": "draft"}),
            )
            .await
            .id();
        let draft = app
            .event(march(
                "Draft",
                json!({"status": "draft", "venue": draft_venue, "organizer": [draft_org]}),
            ))
            .await;
        app.event(march("Child", json!({"post_parent": draft})))
            .await;
        let contributor = app.user(Role::Contributor).await;
        for who in [Auth::None, contributor.auth()] {
            for (hidden, unknown) in [
                (
                    format!("venues?event={draft}"),
                    "venues?event=999999".to_string(),
                ),
                (
                    format!("organizers?event={draft}"),
                    "organizers?event=999999".into(),
                ),
                (
                    format!("events?{WINDOW}&post_parent={draft}"),
                    format!("events?{WINDOW}&post_parent=999999"),
                ),
                (
                    format!("events?{WINDOW}&venue={draft_venue}"),
                    format!("events?{WINDOW}&venue=999999"),
                ),
                (
                    format!("events?{WINDOW}&organizer={draft_org}"),
                    format!("events?{WINDOW}&organizer=999999"),
                ),
                (
                    format!("categories?post={draft}"),
                    "categories?post=999999".into(),
                ),
                (format!("tags?event={draft}"), "tags?event=999999".into()),
            ] {
                let (h, u) = (
                    app.get_as(&hidden, &who).await,
                    app.get_as(&unknown, &who).await,
                );
                h.assert_error(400, "rest_invalid_param");
                assert_eq!(h.error_body(), u.error_body(), "{hidden}");
            }
        }
        // Those who may see them still filter by them.
        for q in [
            format!("venues?event={draft}"),
            format!("events?{WINDOW}&post_parent={draft}"),
            format!("events?{WINDOW}&venue={draft_venue}"),
            format!("categories?post={draft}"),
        ] {
            app.get_as(&q, &editor).await.assert(200);
        }
    }
);

both!(
    a_protected_event_is_not_matched_by_what_it_hides,
    |app| async move {
        let cat = app.post("categories", json!({"name": "Jazz"})).await.id();
        let tag = app.post("tags", json!({"name": "Free"})).await.id();
        let venue = app
            .post(
                "venues",
                json!({"venue": "Club", "geo_lat": 48.85, "geo_lng": 2.35}),
            )
            .await
            .id();
        let org = app
            .post("organizers", json!({"organizer": "Org"}))
            .await
            .id();
        let tickets = json!([{"name": "Seat", "url": "https://t.example/1", "price": "5"}]);
        let links = json!({"categories": [cat], "tags": [tag], "venue": venue,
                           "organizer": [org], "featured": true, "tickets": tickets});
        app.event(march("Open", links.clone())).await;
        let secret = app
            .event(march("Secret", with(links, json!({"password": "pw"}))))
            .await;
        for q in [
            format!("categories={cat}"),
            format!("tags={tag}"),
            format!("venue={venue}"),
            format!("organizer={org}"),
            "featured=1".into(),
            "ticketed=1".into(),
            "geoloc=1".into(),
            "geoloc_lat=48.85&geoloc_lng=2.35".into(),
        ] {
            let r = app.get(&format!("events?{WINDOW}&{q}")).await;
            assert_eq!(titles(&r), ["Open"], "{q}");
            assert_eq!(r.body["total"], 1, "{q}");
            let all = app
                .get_as(&format!("events?{WINDOW}&{q}"), &app.admin.auth())
                .await;
            assert_eq!(titles(&all), ["Open", "Secret"], "editor, {q}");
        }
        // The protected event's terms are as hidden as the event's own fields.
        let r = app.get(&format!("categories?post={secret}")).await;
        r.assert_error(400, "rest_invalid_param");
        // Unfiltered, it is listed, blanked.
        assert_eq!(
            titles(&app.get(&format!("events?{WINDOW}")).await),
            ["Open", "Secret"]
        );
    }
);

both!(
    only_those_who_manage_categories_create_them_by_name,
    |app| async move {
        let existing = app
            .post("categories", json!({"name": "Existing"}))
            .await
            .id();
        for role in [Role::Contributor, Role::Author] {
            let user = app.user(role).await;
            let r = app
                .post_as(
                    "events",
                    march("E", json!({"categories": ["Brand New Category"]})),
                    &user.auth(),
                )
                .await;
            r.assert_error(400, "rest_invalid_param");
            assert_eq!(
                r.body["data"]["details"]["categories"]["code"],
                "rest_cannot_create_term"
            );
            // Existing categories, by name or ID, and new tags are fine.
            let r = app
                .post_as(
                    "events",
                    march(
                        "E",
                        json!({"categories": ["Existing", existing], "tags": ["new tag by name"]}),
                    ),
                    &user.auth(),
                )
                .await;
            r.assert(201);
            assert_eq!(r.body["tags"][0]["name"], "new tag by name");
        }
        let r = app
            .get_as("categories?hide_empty=0&search=brand", &app.admin.auth())
            .await;
        assert_eq!(r.body["total"], 0, "no category was created");
        let r = app
            .post(
                "events",
                march("E", json!({"categories": ["Brand New Category"]})),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["categories"][0]["name"], "Brand New Category");
    }
);

both!(
    term_lists_of_hidden_events_answer_as_for_unknown_ones,
    |app| async move {
        let cat = app
            .post("categories", json!({"name": "Secret cat"}))
            .await
            .id();
        let mut hidden = Vec::new();
        for extra in [
            json!({"status": "draft"}),
            json!({"status": "pending"}),
            json!({"status": "private"}),
            json!({"status": "future", "date": "2030-01-01 00:00:00"}),
            json!({"password": "pw"}),
        ] {
            let id = app
                .event(march("Hidden", with(json!({"categories": [cat]}), extra)))
                .await;
            hidden.push(id);
        }
        let trashed = app
            .event(march("Trashed", json!({"categories": [cat]})))
            .await;
        app.delete(&format!("events/{trashed}")).await.assert(200);
        hidden.push(trashed);
        let subscriber = app.user(Role::Subscriber).await;
        for id in hidden {
            for who in [Auth::None, subscriber.auth()] {
                for q in [
                    format!("categories?post={id}"),
                    format!("categories?event={id}"),
                ] {
                    let r = app.get_as(&format!("{q}&hide_empty=0"), &who).await;
                    let unknown = app
                        .get_as(&q.replace(&id.to_string(), "999999"), &who)
                        .await;
                    r.assert_error(400, "rest_invalid_param");
                    assert_eq!(r.error_body(), unknown.error_body(), "{q}");
                }
            }
            let r = app
                .get_as(
                    &format!("categories?post={id}&hide_empty=0"),
                    &app.admin.auth(),
                )
                .await;
            assert_eq!(r.body["total"], 1, "an editor sees the terms of event {id}");
        }
    }
);
