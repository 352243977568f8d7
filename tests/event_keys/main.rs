//! Lists filtered by categories, tags, venues, organizers and flags read the events'
//! keys (migration 7), which triggers keep in step with every write. Through a
//! sequence of writes of every kind — an event's links, flags, dates, status and
//! password changed, trash and restore, venues gaining coordinates and going to the
//! trash, organizers and terms deleted, events deleted for good, categories moved
//! in their tree and a category with subcategories deleted — every filter must
//! list exactly the events a model of the calendar says, for a visitor and for an
//! administrator, with the same total.

#[path = "../common/mod.rs"]
mod common;

mod checks;

use std::collections::BTreeMap;

use calendar_events::config::Settings;
use checks::assert_lists_match;
use common::*;
use serde_json::{Value, json};

const WINDOW: &str = "start_date=2027-01-01&end_date=2027-12-31&per_page=50";

/// What the test knows of one event.
#[derive(Clone, Debug)]
struct Model {
    start: String,
    status: &'static str,
    protected: bool,
    hidden: bool,
    featured: bool,
    ticketed: bool,
    venue: Option<usize>,
    organizers: Vec<usize>,
    terms: Vec<usize>,
}

/// The calendar: linked posts and terms by index, events by title.
struct Calendar {
    venues: Vec<i64>,
    venue_located: Vec<bool>,
    organizers: Vec<i64>,
    terms: Vec<i64>,
    /// Each term's parent, by index (tags and top-level categories have none).
    parents: Vec<Option<usize>>,
    events: BTreeMap<String, (i64, Model)>,
    /// Posts and terms deleted or trashed, which a filter may no longer name.
    gone_posts: Vec<i64>,
    /// Terms deleted (term IDs are a sequence of their own: a post's may be the same).
    gone_terms: Vec<i64>,
}

/// The categories, by index; the other terms are tags.
const CATEGORIES: [usize; 4] = [0, 1, 4, 5];

impl Calendar {
    /// Whether the event is in the category or in one below it (`include_children`).
    fn within(&self, m: &Model, category: usize) -> bool {
        m.terms.iter().any(|&t| {
            let mut at = Some(t);
            while let Some(term) = at {
                if term == category {
                    return true;
                }
                at = self.parents[term];
            }
            false
        })
    }
}

fn body(title: &str, m: &Model, cal: &Calendar) -> Value {
    let (categories, tags): (Vec<usize>, Vec<usize>) =
        m.terms.iter().partition(|t| CATEGORIES.contains(t));
    let day = &m.start[..10];
    json!({
        "title": title,
        "start_date": m.start,
        "end_date": format!("{day} 23:00:00"),
        "status": m.status,
        "password": if m.protected { "pw" } else { "" },
        "hide_from_listings": m.hidden,
        "featured": m.featured,
        "tickets": if m.ticketed {
            json!([{"name": "Door", "url": "https://tickets.example.com/d", "price": "5", "currency": "EUR"}])
        } else {
            json!([])
        },
        "venue": m.venue.map_or(json!(0), |v| json!({"id": cal.venues[v]})),
        "organizer": m.organizers.iter().map(|o| json!({"id": cal.organizers[*o]})).collect::<Vec<_>>(),
        "categories": categories.iter().map(|t| cal.terms[*t]).collect::<Vec<_>>(),
        "tags": tags.iter().map(|t| cal.terms[*t]).collect::<Vec<_>>(),
    })
}

async fn setup(app: &TestApp) -> Calendar {
    let mut cal = Calendar {
        venues: Vec::new(),
        venue_located: vec![true, false],
        organizers: Vec::new(),
        terms: Vec::new(),
        parents: vec![None; 6],
        events: BTreeMap::new(),
        gone_posts: Vec::new(),
        gone_terms: Vec::new(),
    };
    cal.venues.push(
        app.post(
            "venues",
            json!({"venue": "Hall", "geo_lat": 48.85, "geo_lng": 2.35}),
        )
        .await
        .id(),
    );
    cal.venues
        .push(app.post("venues", json!({"venue": "Barn"})).await.id());
    for name in ["Ann", "Bob"] {
        cal.organizers.push(
            app.post("organizers", json!({"organizer": name}))
                .await
                .id(),
        );
    }
    for (path, name) in [
        ("categories", "Music"),
        ("categories", "Film"),
        ("tags", "free"),
        ("tags", "outdoor"),
    ] {
        cal.terms
            .push(app.post(path, json!({"name": name})).await.id());
    }
    // Jazz under Music, Bebop under Jazz.
    for (name, parent) in [("Jazz", 0), ("Bebop", 4)] {
        let id = app.category(name, Some(cal.terms[parent])).await;
        cal.terms.push(id);
        cal.parents[cal.terms.len() - 1] = Some(parent);
    }
    let base = Model {
        start: String::new(),
        status: "publish",
        protected: false,
        hidden: false,
        featured: false,
        ticketed: false,
        venue: None,
        organizers: Vec::new(),
        terms: Vec::new(),
    };
    let events = [
        Model {
            venue: Some(0),
            organizers: vec![0],
            terms: vec![0, 2],
            featured: true,
            ..base.clone()
        },
        Model {
            venue: Some(1),
            organizers: vec![0, 1],
            terms: vec![0, 1, 3],
            ..base.clone()
        },
        Model {
            venue: Some(0),
            organizers: vec![1],
            terms: vec![1, 2],
            ticketed: true,
            ..base.clone()
        },
        Model {
            terms: vec![0, 3],
            status: "draft",
            featured: true,
            ..base.clone()
        },
        Model {
            venue: Some(1),
            terms: vec![0, 2, 3],
            protected: true,
            ..base.clone()
        },
        Model {
            venue: Some(0),
            organizers: vec![0],
            terms: vec![1],
            hidden: true,
            ..base.clone()
        },
        Model {
            organizers: vec![1],
            terms: vec![2],
            ticketed: true,
            featured: true,
            ..base.clone()
        },
        // In the past: a venue and an organizer with events, none of them upcoming.
        Model {
            venue: Some(1),
            organizers: vec![1],
            terms: vec![0],
            ..base.clone()
        },
        // In a subcategory, in a category and one below it, in one below a tag's
        // events' category.
        Model {
            terms: vec![5],
            featured: true,
            ..base.clone()
        },
        Model {
            terms: vec![0, 4, 2],
            ..base.clone()
        },
        Model {
            terms: vec![4, 1],
            ..base.clone()
        },
    ];
    for (i, mut m) in events.into_iter().enumerate() {
        m.start = if i == 7 {
            "2025-05-10 10:00:00".to_string()
        } else {
            format!("2027-{:02}-1{} 10:00:00", 1 + i % 9, i % 10)
        };
        let title = format!("Gala {i}");
        let id = app.event(body(&title, &m, &cal)).await;
        cal.events.insert(title, (id, m));
    }
    cal
}

/// Updates an event to its model's state.
async fn update(app: &TestApp, cal: &mut Calendar, title: &str, change: impl FnOnce(&mut Model)) {
    let (id, mut m) = cal.events[title].clone();
    change(&mut m);
    app.post(&format!("events/{id}"), body(title, &m, cal))
        .await
        .assert(200);
    cal.events.insert(title.to_string(), (id, m));
}

both!(filtered_lists_follow_every_write, |app| async move {
    every_write(app).await;
});

// The same writes with every term of more than one event deleted in steps.
both_with!(
    filtered_lists_follow_terms_deleted_in_steps,
    Settings {
        step_batch: 1,
        ..settings()
    },
    |app| async move { every_write(app).await }
);

async fn every_write(app: TestApp) {
    let mut cal = setup(&app).await;
    assert_lists_match(&app, &cal, "created").await;

    update(&app, &mut cal, "Gala 0", |m| {
        m.terms = vec![1, 3];
        m.venue = Some(1);
        m.organizers = vec![1];
        m.featured = false;
        m.ticketed = true;
        m.start = "2027-11-02 09:00:00".into();
    })
    .await;
    update(&app, &mut cal, "Gala 3", |m| m.status = "publish").await;
    update(&app, &mut cal, "Gala 4", |m| m.protected = false).await;
    update(&app, &mut cal, "Gala 5", |m| m.hidden = false).await;
    update(&app, &mut cal, "Gala 6", |m| m.protected = true).await;
    assert_lists_match(
        &app,
        &cal,
        "links, flags, dates, status and password changed",
    )
    .await;

    // The barn's and Bob's latest events move to the past, one by one, then one comes
    // back: the latest start of each is looked up again each time.
    for title in ["Gala 0", "Gala 1", "Gala 4", "Gala 6", "Gala 2"] {
        update(&app, &mut cal, title, |m| {
            m.start = "2025-06-01 10:00:00".into()
        })
        .await;
        assert_lists_match(&app, &cal, &format!("{title} moved to the past")).await;
    }
    update(&app, &mut cal, "Gala 2", |m| {
        m.start = "2027-05-15 10:00:00".into()
    })
    .await;
    update(&app, &mut cal, "Gala 6", |m| m.status = "draft").await;
    assert_lists_match(&app, &cal, "one back, one a draft").await;

    let (id, _) = cal.events["Gala 1"];
    app.delete(&format!("events/{id}")).await.assert(200);
    cal.events.get_mut("Gala 1").unwrap().1.status = "trash";
    assert_lists_match(&app, &cal, "trashed").await;
    update(&app, &mut cal, "Gala 1", |m| m.status = "publish").await;
    assert_lists_match(&app, &cal, "restored").await;

    // The barn gets coordinates: its events are located now. The hall goes to the
    // trash, which unlinks it from its events.
    app.post(
        &format!("venues/{}", cal.venues[1]),
        json!({"geo_lat": 51.5, "geo_lng": -0.12}),
    )
    .await
    .assert(200);
    cal.venue_located[1] = true;
    assert_lists_match(&app, &cal, "a venue located").await;
    // Both venues located: an event moves from one to the other, and only its venue's
    // key changes.
    update(&app, &mut cal, "Gala 0", |m| m.venue = Some(0)).await;
    assert_lists_match(&app, &cal, "moved between located venues").await;
    app.delete(&format!("venues/{}", cal.venues[0]))
        .await
        .assert(200);
    cal.gone_posts.push(cal.venues[0]);
    for (_, m) in cal.events.values_mut() {
        if m.venue == Some(0) {
            m.venue = None;
        }
    }
    assert_lists_match(&app, &cal, "a venue trashed").await;

    // An organizer deleted for good, a tag deleted, an event deleted for good.
    app.delete(&format!("organizers/{}?force=true", cal.organizers[1]))
        .await
        .assert(200);
    app.delete(&format!("tags/{}?force=true", cal.terms[3]))
        .await
        .assert(200);
    app.wait_for_work_in_steps().await;
    cal.gone_posts.push(cal.organizers[1]);
    cal.gone_terms.push(cal.terms[3]);
    for (_, m) in cal.events.values_mut() {
        m.organizers.retain(|o| *o != 1);
        m.terms.retain(|t| *t != 3);
    }
    let (id, _) = cal.events["Gala 2"];
    app.delete(&format!("events/{id}?force=true"))
        .await
        .assert(200);
    cal.events.remove("Gala 2");
    assert_lists_match(&app, &cal, "an organizer, a tag and an event deleted").await;

    // Jazz, with Bebop below it, moves from Music to Film, then to the top, then
    // back under Music; an event leaves Jazz for Bebop; then Jazz is deleted, and
    // Bebop moves up to Music.
    for (parent, when) in [
        (Some(1), "a subtree moved to another category"),
        (None, "a subtree moved to the top"),
        (Some(0), "a subtree moved back"),
    ] {
        let id = parent.map_or(0, |p| cal.terms[p]);
        app.post(
            &format!("categories/{}", cal.terms[4]),
            json!({"parent": id}),
        )
        .await
        .assert(200);
        cal.parents[4] = parent;
        assert_lists_match(&app, &cal, when).await;
    }
    update(&app, &mut cal, "Gala 10", |m| {
        m.terms = vec![5, 1];
        m.ticketed = true;
    })
    .await;
    update(&app, &mut cal, "Gala 9", |m| {
        m.terms = vec![4, 2];
        m.featured = true;
    })
    .await;
    // The flag alone, its terms untouched: the terms' featured keys go with it.
    let (id, _) = cal.events["Gala 8"];
    app.post(&format!("events/{id}"), json!({"featured": false}))
        .await
        .assert(200);
    cal.events.get_mut("Gala 8").unwrap().1.featured = false;
    assert_lists_match(
        &app,
        &cal,
        "events moved between subcategories, flags changed",
    )
    .await;
    app.delete(&format!("categories/{}?force=true", cal.terms[4]))
        .await
        .assert(200);
    app.wait_for_work_in_steps().await;
    cal.gone_terms.push(cal.terms[4]);
    cal.parents[5] = Some(0);
    for (_, m) in cal.events.values_mut() {
        m.terms.retain(|t| *t != 4);
    }
    assert_lists_match(&app, &cal, "a category with a subcategory deleted").await;
}

/// The triggers that find an event's keys by its ID use the event's index (migration
/// 42): the bundled SQLite planned them on the primary key's (kind, value) or (kind)
/// prefix, and at a million events a create read every own key (60-80 ms), a term link
/// removed every term key. Each one's statement, its `new`/`old` values made literals,
/// is planned here by the same SQLite the server runs.
#[tokio::test]
async fn triggers_find_an_events_keys_by_its_index() {
    let app = TestApp::sqlite().await;
    let url = app.database_url();
    let db = rusqlite::Connection::open(url.trim_start_matches("sqlite://")).unwrap();
    let mut triggers = db
        .prepare(
            "SELECT name, sql FROM sqlite_master \
             WHERE type = 'trigger' AND (name LIKE 'event_keys_flag_bits_%' OR name IN \
             ('event_keys_term_delete', 'event_keys_organizer_delete', \
              'event_keys_flag_terms_delete'))",
        )
        .unwrap();
    let triggers: Vec<(String, String)> = triggers
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(triggers.len(), 7, "{triggers:?}");
    for (name, sql) in triggers {
        let body = &sql[sql.find("BEGIN").unwrap() + "BEGIN".len()..sql.rfind("END").unwrap()];
        let mut statement = body.trim().trim_end_matches(';').to_string();
        let columns = ["event_id", "post_id", "organizer_id", "kind", "value"];
        for (column, literal) in columns.into_iter().zip(["7", "7", "12", "4", "1"]) {
            for row in ["new", "old"] {
                statement = statement.replace(&format!("{row}.{column}"), literal);
            }
        }
        let mut explain = db
            .prepare(&format!("EXPLAIN QUERY PLAN {statement}"))
            .unwrap();
        let plan: Vec<String> = explain
            .query_map([], |r| r.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let updated = plan
            .iter()
            .find(|step| {
                step.starts_with("SEARCH event_keys ") || step.starts_with("SCAN event_keys")
            })
            .unwrap_or_else(|| panic!("{name}: {plan:?}"));
        assert!(
            updated.contains("INDEX event_keys_event (event_id=?"),
            "{name} finds the event's keys by {updated}"
        );
    }
}
