//! A search of venues or organizers counts its matches up to `--search-count-limit`,
//! as an event search does: past it the totals are floors, said by
//! `X-Calendar-Total: at-least`, and paging on with `next_rest_url` finds every match
//! in list order. Words of one or two characters (which no trigram index serves) and
//! longer ones (which the index does) count alike; lists without a search stay exact.

mod common;

use calendar_events::config::Settings;
use common::*;
use serde_json::json;

const LIMIT: u64 = 10;
/// Venues holding `al` (and `sal`), created in this order.
const SALLES: usize = 25;

fn limited() -> Settings {
    Settings {
        search_count_limit: LIMIT,
        ..settings()
    }
}

fn floor(r: &Resp) -> Option<&str> {
    r.header("x-calendar-total")
}

/// The venues, newest first as listed: the salles, three others, and a draft salle.
async fn venues(app: &TestApp) -> (Vec<i64>, i64) {
    let mut salles = Vec::new();
    for n in 0..SALLES {
        let r = app
            .post("venues", json!({"venue": format!("Salle {n}")}))
            .await;
        r.assert(201);
        salles.push(r.id());
    }
    for n in 0..3 {
        app.post("venues", json!({"venue": format!("Opera {n}")}))
            .await
            .assert(201);
    }
    let r = app
        .post("venues", json!({"venue": "Salle draft", "status": "draft"}))
        .await;
    r.assert(201);
    salles.reverse();
    (salles, r.id())
}

both_with!(
    a_common_short_word_has_a_floor_total_and_every_venue_pages_in_order,
    limited(),
    |app| async move {
        let (salles, draft) = venues(&app).await;
        let r = app.get("venues?search=al&per_page=4").await;
        r.assert(200);
        assert_eq!(r.body["total"], LIMIT);
        assert_eq!(r.body["total_pages"], 3);
        assert_eq!(floor(&r), Some("at-least"));
        assert_eq!(ids_of(&r, "venues"), salles[..4]);

        let anonymous = Auth::None;
        for word in ["s", "al", "sal"] {
            let (all, totals) = every_page(
                &app,
                "venues",
                &format!("search={word}&per_page=4"),
                &anonymous,
            )
            .await;
            assert_eq!(all, salles, "{word}");
            assert_eq!(totals[0], (LIMIT, true), "{word}");
            // The page that reaches the end counts exactly.
            assert_eq!(*totals.last().unwrap(), (SALLES as u64, false), "{word}");
        }
        // A page past the limit counts to its end, and on.
        let r = app.get("venues?search=al&per_page=4&page=3").await;
        assert_eq!(ids_of(&r, "venues"), salles[8..12]);
        assert_eq!(
            (r.body["total"].as_u64(), floor(&r)),
            (Some(12), Some("at-least"))
        );
        assert!(r.body["next_rest_url"].as_str().is_some());
        // A page as deep as the matches: exact.
        let r = app.get("venues?search=al&per_page=50").await;
        assert_eq!(ids_of(&r, "venues"), salles);
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(25), None));
        // The draft counts for whoever may see it, and only for them.
        let admin = app.admin.auth();
        let r = app.get_as("venues?search=al&per_page=50", &admin).await;
        assert_eq!(r.body["total"], 26);
        assert_eq!(ids_of(&r, "venues")[0], draft);
        // Few matches, or no search: exact.
        let r = app.get("venues?search=op").await;
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(3), None));
        let r = app.get("venues?search=zq").await;
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(0), None));
        // A rare pair, read from the search index, finds the draft only for whoever
        // may see it.
        let r = app.get("venues?search=dr").await;
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(0), None));
        let r = app.get_as("venues?search=Dr", &admin).await;
        assert_eq!(ids_of(&r, "venues"), [draft]);
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(1), None));
        let r = app.get("venues?per_page=4").await;
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(28), None));
        assert_eq!(r.body["total_pages"], 7);
    }
);

both_with!(
    organizers_with_events_and_a_short_word_count_up_to_the_limit,
    limited(),
    |app| async move {
        let mut linked = Vec::new();
        for n in 0..12 {
            let r = app
                .post("organizers", json!({"organizer": format!("Alba {n}")}))
                .await;
            r.assert(201);
            linked.push(r.id());
        }
        // The last has no event.
        let idle = linked.pop().unwrap();
        for (n, id) in linked.iter().enumerate() {
            let day = format!("2027-03-{:02}", n + 1);
            app.event(with(
                event(
                    &format!("Talk {n}"),
                    &format!("{day} 10:00:00"),
                    &format!("{day} 11:00:00"),
                ),
                json!({"organizer": [id]}),
            ))
            .await;
        }
        linked.reverse();
        let anonymous = Auth::None;
        for query in ["has_events=1", "only_with_upcoming=1"] {
            let q = format!("{query}&search=al&per_page=5");
            let (all, totals) = every_page(&app, "organizers", &q, &anonymous).await;
            assert_eq!(all, linked, "{q}");
            assert_eq!(totals[0], (LIMIT, true), "{q}");
            assert_eq!(*totals.last().unwrap(), (11, false), "{q}");
        }
        let r = app.get("organizers?has_events=0&search=al").await;
        assert_eq!(ids_of(&r, "organizers"), [idle]);
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(1), None));
        let r = app.get("organizers?has_events=1&per_page=5").await;
        assert_eq!((r.body["total"].as_u64(), floor(&r)), (Some(11), None));
    }
);
