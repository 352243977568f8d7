//! Regression tests for what schema fuzzing (`fuzz/schemathesis.sh`) found: each is a
//! request that once made the server answer 5xx, panic or hang.

mod common;

use common::*;
use serde_json::json;

// `page` is any positive integer; a page so far past the last one that its offset
// (`(page - 1) * per_page`) does not fit a signed 64-bit integer is just an empty
// page, not a database error (it was a 500 on SQLite and PostgreSQL).
both!(
    list_pages_whose_offset_overflows_are_not_server_errors,
    |app| async move {
        app.post("venues", json!({"venue": "Hall"}))
            .await
            .assert(201);
        app.post("organizers", json!({"organizer": "Org"}))
            .await
            .assert(201);
        app.post("categories", json!({"name": "Music"}))
            .await
            .assert(201);
        app.post("tags", json!({"name": "jazz"})).await.assert(201);
        app.event(event("Gig", "2030-01-01 20:00:00", "2030-01-01 22:00:00"))
            .await;
        for page in [
            "9223372036854775807",
            "4611686018427387904",
            "184467440737095517",
        ] {
            for list in ["venues", "organizers"] {
                // A search counts its matches up to the end of the asked page: that
                // limit too must fit (it was a 500 with a search).
                for search in ["", "&search=hall", "&search=%E0%B8%81+%E0%B8%B3"] {
                    app.get(&format!("{list}?page={page}{search}"))
                        .await
                        .assert_error(
                            404,
                            &format!("{}-archive-page-not-found", &list[..list.len() - 1]),
                        );
                }
            }
            app.get(&format!("events?page={page}"))
                .await
                .assert_error(404, "event-archive-page-not-found");
            for list in ["categories", "tags"] {
                let r = app
                    .get(&format!("{list}?page={page}&per_page=50&hide_empty=false"))
                    .await;
                r.assert(200);
                assert_eq!(r.body[list], json!([]), "{list} page {page}: {}", r.text);
                assert_eq!(r.body["total"], 1, "{list} page {page}: {}", r.text);
            }
        }
    }
);

// A NUL character in any text argument (query, JSON or form body, path) is a 400
// `rest_invalid_param` on both backends; PostgreSQL cannot store it in text, and it
// was a 500 there.
both!(
    nul_characters_in_text_are_invalid_parameters,
    |app| async move {
        let nul = |name: &str, r: &Resp| {
            r.assert_error(400, "rest_invalid_param");
            assert!(
                r.body["data"]["params"].get(name).is_some(),
                "{name}: {}",
                r.text
            );
        };
        nul(
            "venue",
            &app.post("venues", json!({"venue": "Hall\u{0}"})).await,
        );
        nul(
            "city",
            &app.post("venues", json!({"venue": "Hall", "city": "a\u{0}b"}))
                .await,
        );
        nul(
            "organizer",
            &app.post("organizers", json!({"organizer": "\u{0}"})).await,
        );
        nul(
            "name",
            &app.post("categories", json!({"name": "c\u{0}"})).await,
        );
        nul(
            "description",
            &app.post("tags", json!({"name": "t", "description": "\u{0}"}))
                .await,
        );
        nul(
            "title",
            &app.post(
                "events",
                event("Gig\u{0}", "2030-01-01 20:00:00", "2030-01-01 22:00:00"),
            )
            .await,
        );
        nul(
            "venue",
            &app.post(
                "events",
                with(
                    event("Gig", "2030-01-01 20:00:00", "2030-01-01 22:00:00"),
                    json!({"venue": {"venue": "Inline\u{0}"}}),
                ),
            )
            .await,
        );
        let form = app
            .call_raw(
                axum::http::Method::POST,
                "events",
                "application/x-www-form-urlencoded",
                b"title=a%00&start_date=2030-01-01&end_date=2030-01-02".to_vec(),
                &app.admin.auth(),
            )
            .await;
        nul("title", &form);
        nul("search", &app.get("events?search=a%00b").await);
        nul("search", &app.get("venues?search=a%00b").await);
        nul("slug", &app.get("categories?slug=%00").await);
        nul("categories", &app.get("events?categories=jazz%00").await);
        nul("slug", &app.get("events/by-slug/a%00b").await);
        nul("slug", &app.get("organizers/by-slug/a%00b").await);
        // Nothing was written.
        let r = app.get("venues").await;
        r.assert(200);
        assert_eq!(r.body["total"], 0, "{}", r.text);
        let r = app.get("events").await;
        assert_eq!(r.body["total"], 0, "{}", r.text);
    }
);

// Trashing a venue or organizer gives it the slug `<slug>__trashed`, which another
// post of its type could already hold: one trashed before with the same slug, or one
// created with that slug. The unique slug index made that DELETE a 500 (stateful
// fuzzing, `DELETE /organizers/{id}`); now the trashed slug is numbered like any other.
both!(
    trashing_into_a_taken_trashed_slug_is_not_a_server_error,
    |app| async move {
        for (collection, name) in [("organizers", "organizer"), ("venues", "venue")] {
            let squatter = app
                .post(
                    collection,
                    json!({ name: "Other", "slug": "acme__trashed" }),
                )
                .await;
            assert_eq!(squatter.body["slug"], "acme__trashed");
            let id = app.post(collection, json!({ name: "Acme" })).await.id();
            let trashed = app.delete(&format!("{collection}/{id}")).await;
            trashed.assert(200);
            assert_eq!(trashed.body["slug"], "acme__trashed-2");
            let forced = app.delete(&format!("{collection}/{id}?force=true")).await;
            forced.assert(200);
        }
    }
);
