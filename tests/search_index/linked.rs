//! Venues and organizers found by each searched field, and by those who may see them.

use super::*;

both!(
    a_venue_is_found_by_each_searched_field_indexed_or_queued,
    |app| async move {
        let app = uncached(app).await;
        app.post("venues", json!({"venue": "Tamarin Theatre"}))
            .await
            .assert(201);
        for (field, value) in venue_fields() {
            let mut body = json!({"venue": format!("Venue by {field}")});
            body[field] = json!(value);
            app.post("venues", body).await.assert(201);
        }
        // A pair whose only neighbours are characters past ASCII: found on
        // PostgreSQL only if they are listed as the texts' (migration 36). And a
        // pair of such characters, which PostgreSQL checks on every venue.
        app.post("venues", json!({"venue": "⟨qz⟩ Hall"}))
            .await
            .assert(201);
        app.post("venues", json!({"venue": "ǆ⟩⟨ Hall"}))
            .await
            .assert(201);
        app.post(
            "organizers",
            json!({"organizer": "Quokka Quartet", "description": "Marmot music",
                   "excerpt": "Wallaby words", "phone": "+44 20 7946 0958",
                   "email": "booking@bilby.example.org",
                   "website": "https://numbat.example.org/"}),
        )
        .await
        .assert(201);
        app.post(
            "organizers",
            json!({"organizer": "Other players", "excerpt": "Say \"hi\""}),
        )
        .await
        .assert(201);
        let venue_words = [
            ("tamarin", "Tamarin Theatre"),
            ("dingo desc", "Venue by description"),
            ("ECHIDNA", "Venue by excerpt"),
            ("axolotl road", "Venue by address"),
            ("assowary", "Venue by city"),
            ("platypus", "Venue by province"),
            ("stoat", "Venue by state"),
            ("shrew", "Venue by stateprovince"),
            ("z9z 4q", "Venue by zip"),
            ("555 0173", "Venue by phone"),
            // Two characters (SQLite: the trigrams beginning with them), at the end
            // of a venue's last field too.
            ("73", "Venue by phone"),
            ("QX", "Venue by zip"),
            ("9z", "Venue by zip"),
            ("QZ", "⟨qz⟩ Hall"),
            ("ǅ⟩", "ǆ⟩⟨ Hall"),
        ];
        let organizer_words = [
            ("quokka", "Quokka Quartet"),
            ("marmot", "Quokka Quartet"),
            ("wallaby", "Quokka Quartet"),
            ("7946", "Quokka Quartet"),
            ("booking@bilby", "Quokka Quartet"),
            ("numbat.example", "Quokka Quartet"),
            ("players", "Other players"),
            ("58", "Quokka Quartet"),
            ("g/", "Quokka Quartet"),
            ("\"h", "Other players"),
        ];
        for state in ["queued", "indexed"] {
            for (word, name) in venue_words {
                assert_eq!(found(&app, "venues", word).await, [name], "{state}: {word}");
            }
            for (word, name) in organizer_words {
                assert_eq!(
                    found(&app, "organizers", word).await,
                    [name],
                    "{state}: {word}"
                );
            }
            // What is only in a field the search does not read, or only in another
            // type's fields, is not found.
            assert!(found(&app, "organizers", "tamarin").await.is_empty());
            assert!(found(&app, "venues", "quokka").await.is_empty());
            assert!(found(&app, "venues", "zebra").await.is_empty());
            for pair in ["jj", "jx", "\"\"", "zq"] {
                assert!(found(&app, "venues", pair).await.is_empty(), "{pair}");
            }
            index_queued(&app).await;
        }
    }
);

both!(
    venue_and_organizer_writes_reach_the_search_at_once,
    |app| async move {
        let app = uncached(app).await;
        let venue = app
            .post("venues", json!({"venue": "Wombat Lodge", "city": "Perth"}))
            .await
            .id();
        let organizer = app
            .post("organizers", json!({"organizer": "Wombat Society"}))
            .await
            .id();
        for state in ["queued", "indexed"] {
            assert_eq!(
                found(&app, "venues", "wombat").await,
                ["Wombat Lodge"],
                "{state}"
            );
            assert_eq!(
                found(&app, "organizers", "wombat").await,
                ["Wombat Society"],
                "{state}"
            );
            index_queued(&app).await;
        }

        // Renamed, and moved to a city that matches the old name: the index still
        // holds the old name until the writer reindexes the venue.
        app.patch(
            &format!("venues/{venue}"),
            json!({"venue": "Koala Lodge", "city": "Wombatville"}),
        )
        .await
        .assert(200);
        app.patch(
            &format!("organizers/{organizer}"),
            json!({"organizer": "Koala Society"}),
        )
        .await
        .assert(200);
        for state in ["queued", "indexed"] {
            assert_eq!(
                found(&app, "venues", "wombat").await,
                ["Koala Lodge"],
                "{state}: by its new city"
            );
            assert!(found(&app, "venues", "lodge p").await.is_empty(), "{state}");
            assert_eq!(found(&app, "venues", "koala").await, ["Koala Lodge"]);
            assert!(
                found(&app, "organizers", "wombat").await.is_empty(),
                "{state}"
            );
            assert_eq!(
                found(&app, "organizers", "koala").await,
                ["Koala Society"],
                "{state}"
            );
            index_queued(&app).await;
        }

        // Moved away: no longer matches.
        app.patch(&format!("venues/{venue}"), json!({"city": "Perth"}))
            .await
            .assert(200);
        for state in ["queued", "indexed"] {
            assert!(found(&app, "venues", "wombat").await.is_empty(), "{state}");
            assert_eq!(
                found(&app, "venues", "perth").await,
                ["Koala Lodge"],
                "{state}"
            );
            index_queued(&app).await;
        }

        // Trashed, then deleted: gone from the search, queued or indexed.
        app.delete(&format!("venues/{venue}")).await.assert(200);
        assert!(found(&app, "venues", "koala").await.is_empty());
        app.delete(&format!("venues/{venue}?force=true"))
            .await
            .assert(200);
        app.delete(&format!("organizers/{organizer}?force=true"))
            .await
            .assert(200);
        let editor = app
            .user(calendar_events::domain::permissions::Role::Editor)
            .await;
        for state in ["queued", "indexed"] {
            for kind in ["venues", "organizers"] {
                assert!(
                    found_as(&app, kind, "koala", &editor.auth())
                        .await
                        .is_empty(),
                    "{state}: {kind}"
                );
            }
            index_queued(&app).await;
        }
    }
);

both!(
    a_protected_venue_is_found_only_by_those_who_may_edit_it,
    |app| async move {
        let app = uncached(app).await;
        app.post(
            "venues",
            json!({"venue": "Hidden Heron Hall", "city": "Nowhere", "password": "open sesame"}),
        )
        .await
        .assert(201);
        app.post("venues", json!({"venue": "Open Heron Hall"}))
            .await
            .assert(201);
        let editor = app
            .user(calendar_events::domain::permissions::Role::Editor)
            .await;
        for state in ["queued", "indexed"] {
            assert_eq!(
                found(&app, "venues", "heron").await,
                ["Open Heron Hall"],
                "{state}"
            );
            assert!(found(&app, "venues", "nowhere").await.is_empty(), "{state}");
            assert_eq!(
                found_as(&app, "venues", "heron", &editor.auth()).await,
                ["Hidden Heron Hall", "Open Heron Hall"],
                "{state}"
            );
            index_queued(&app).await;
        }
    }
);
