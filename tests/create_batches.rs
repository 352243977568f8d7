//! Event creates written in batches: a batch writes what one create after another
//! would, a failed batch writes nothing and sends its creates on alone, and a burst
//! of different creates answers each with its own event.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::Method;
use calendar_events::domain::post::Status;
use calendar_events::store::Backend;
use calendar_events::store::event_batch::{BatchError, CreateBatcher, Created, NewEvent};
use calendar_events::store::schema::Posts;
use common::new_events::new_event;
use common::*;
use serde_json::{Value, json};

/// Runs `$test(app)` on SQLite and on PostgreSQL, on a current-thread runtime: there
/// a batch's task runs only once every create the test started is queued, so they
/// make one batch.
macro_rules! on_both_backends {
    ($test:ident) => {
        mod $test {
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                super::$test(TestApp::sqlite().await).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(app) = TestApp::postgres().await {
                    super::$test(app).await;
                }
            }
        }
    };
}

/// Queues every create at once (one batch on a current-thread runtime, up to its
/// size) and returns what each was answered, in order.
async fn create_all(app: &TestApp, events: impl IntoIterator<Item = NewEvent>) -> Vec<Created> {
    let batcher = CreateBatcher::new(app.store.pool.clone());
    futures_util::future::join_all(events.into_iter().map(|e| batcher.create(e)))
        .await
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e:?}")))
        .collect()
}

async fn count_of(app: &TestApp, term: i64) -> i64 {
    let r = app.get(&format!("categories/{term}")).await;
    r.assert(200);
    r.body["count"].as_i64().unwrap()
}

/// Four creates in one batch: on a current-thread runtime, the batch's task runs
/// only once all of them are queued.
async fn one_batch_writes_what_one_create_after_another_would(app: TestApp) {
    let organizers = [
        app.post("organizers", json!({"organizer": "First"}))
            .await
            .id(),
        app.post("organizers", json!({"organizer": "Second"}))
            .await
            .id(),
    ];
    let jazz = app.post("categories", json!({"name": "Jazz"})).await.id();
    let folk = app.post("categories", json!({"name": "Folk"})).await.id();
    let author = app.admin.id;

    let mut first = new_event("Jazz Night", Status::Publish, author, 1);
    first.organizers = vec![organizers[1], organizers[0], organizers[1]];
    first.terms = vec![jazz];
    // Asks for the slug the next "Jazz Night" would otherwise get.
    let mut second = new_event("Other", Status::Publish, author, 2);
    second.post.slug = Some("jazz-night-2".into());
    second.terms = vec![jazz, folk];
    // Sets a column the others do not: a second insert in the batch.
    let mut third = new_event("Jazz Night", Status::Publish, author, 3);
    third.post.excerpt = Some("<p>Short</p>".into());
    third.terms = vec![jazz];
    // A draft counts for no term.
    let mut fourth = new_event("Jazz Night", Status::Draft, author, 4);
    fourth.terms = vec![folk];

    let created = create_all(&app, [first, second, third, fourth]).await;

    let slugs: Vec<&str> = created.iter().map(|c| c.event.post.slug.as_str()).collect();
    assert_eq!(
        slugs,
        ["jazz-night", "jazz-night-2", "jazz-night-3", "jazz-night-4"]
    );
    for c in &created {
        assert_eq!(*c.counts, HashMap::from([(jazz, 3), (folk, 1)]));
    }
    assert_eq!(count_of(&app, jazz).await, 3);
    assert_eq!(count_of(&app, folk).await, 1);

    let one = app
        .get(&format!("events/{}", created[0].event.post.id))
        .await;
    one.assert(200);
    let names: Vec<&str> = one.body["organizer"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["organizer"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Second", "First"], "in order given, each once");
    assert_eq!(one.body["categories"][0]["id"], jazz);
    let third = app
        .get(&format!("events/{}", created[2].event.post.id))
        .await;
    assert_eq!(third.body["excerpt"], "<p>Short</p>");
    assert_eq!(third.body["title"], "Jazz Night");
    let draft = app
        .get(&format!("events/{}", created[3].event.post.id))
        .await;
    draft.assert(403);
    // The next create alone continues the family.
    let next = app
        .post(
            "events",
            event("Jazz Night", "2027-01-01 10:00", "2027-01-01 11:00"),
        )
        .await;
    next.assert(201);
    assert_eq!(next.body["slug"], "jazz-night-5");
}

on_both_backends!(one_batch_writes_what_one_create_after_another_would);

/// One batch of three creates, the second linking an organizer that does not exist:
/// none is written, each is told to write alone, and alone the others succeed.
async fn a_failed_batch_writes_nothing(app: TestApp) {
    let batcher = CreateBatcher::new(app.store.pool.clone());
    let author = app.admin.id;
    let mut broken = new_event("Broken", Status::Publish, author, 2);
    broken.organizers = vec![987_654];
    let before = app.get("events?status=any&per_page=50").await;
    // On a current-thread runtime the batch's task runs only once all three are queued.
    let answers = futures_util::future::join_all([
        batcher.create(new_event("Good One", Status::Publish, author, 1)),
        batcher.create(broken),
        batcher.create(new_event("Good Two", Status::Publish, author, 3)),
    ])
    .await;
    for answer in &answers {
        assert!(
            matches!(answer, Err(BatchError::NotWritten)),
            "{:?}",
            answer.as_ref().map(|c| c.event.post.id)
        );
    }
    let after = app.get("events?status=any&per_page=50").await;
    assert_eq!(after.body["total"], before.body["total"], "nothing written");

    let alone = batcher
        .create(new_event("Good One", Status::Publish, author, 1))
        .await
        .unwrap_or_else(|_| panic!("a good create alone is written"));
    assert_eq!(alone.event.post.slug, "good-one");
    let listed = app.get(&format!("events/{}", alone.event.post.id)).await;
    listed.assert(200);
}

on_both_backends!(a_failed_batch_writes_nothing);

/// More creates than one statement carries rows for: 70 queued at once make a batch
/// of 64 and one of 6, whose inserts, relations and counts go in several pieces.
async fn batches_larger_than_a_statement_are_written_whole(app: TestApp) {
    let organizers = [
        app.post("organizers", json!({"organizer": "One"}))
            .await
            .id(),
        app.post("organizers", json!({"organizer": "Two"}))
            .await
            .id(),
    ];
    let mut terms = Vec::new();
    for name in ["A", "B", "C", "D"] {
        terms.push(app.post("categories", json!({"name": name})).await.id());
    }
    let author = app.admin.id;
    let events: Vec<NewEvent> = (0..70)
        .map(|i| {
            let mut e = new_event(&format!("Big {}", i % 7), Status::Publish, author, i % 30);
            if i % 3 == 0 {
                e.post.excerpt = Some(format!("<p>E{i}</p>"));
            }
            e.organizers = if i % 2 == 0 {
                organizers.to_vec()
            } else {
                vec![organizers[1], organizers[0]]
            };
            e.terms = vec![terms[0], terms[1 + (i as usize) % 3]];
            e
        })
        .collect();
    let created = create_all(&app, events).await;
    // Slugs as one create after another would choose them: in order of arrival on
    // SQLite, whose one runner writes the batch of 64 and then that of 6. PostgreSQL's
    // two runners write both at once, and either may take a title's first slugs.
    let mut expected: Vec<String> = (0..created.len())
        .map(|i| match i / 7 + 1 {
            1 => format!("big-{}", i % 7),
            n => format!("big-{}-{n}", i % 7),
        })
        .collect();
    let mut slugs: Vec<String> = created.iter().map(|c| c.event.post.slug.clone()).collect();
    for (i, c) in created.iter().enumerate() {
        let title = format!("big-{}", i % 7);
        let slug = &c.event.post.slug;
        assert!(
            slug == &title || slug.starts_with(&format!("{title}-")),
            "{slug}"
        );
        assert_eq!(c.event.post.excerpt.is_empty(), i % 3 != 0);
    }
    if app.backend() == Backend::Postgres {
        expected.sort();
        slugs.sort();
    }
    assert_eq!(slugs, expected);
    // The batch committed last answers with the counts as it committed them: the
    // final ones. On SQLite that is the batch of the last arrivals; PostgreSQL's two
    // runners may commit the batch of 6 before that of 64, so there it is the batch
    // whose answer counts the most (every create adds to the first term).
    let last = &created
        .iter()
        .max_by_key(|c| c.counts.get(&terms[0]).copied())
        .unwrap()
        .counts;
    if app.backend() == Backend::Sqlite {
        assert_eq!(last, &created.last().unwrap().counts);
    }
    assert_eq!(last.get(&terms[0]), Some(&70));
    let mut others = 0;
    for t in &terms[1..] {
        let count = count_of(&app, *t).await;
        assert_eq!(last.get(t), Some(&count));
        others += count;
    }
    assert_eq!(others, 70);
    assert_eq!(count_of(&app, terms[0]).await, 70);
    let odd = app
        .get(&format!("events/{}", created[69].event.post.id))
        .await;
    let ids: Vec<i64> = odd.body["organizer"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [organizers[1], organizers[0]]);
    let all = app
        .get("events?per_page=50&start_date=2020-01-01&end_date=2099-01-01")
        .await;
    assert_eq!(all.body["total"], 70);
}

on_both_backends!(batches_larger_than_a_statement_are_written_whole);

/// One batch of creates holding every kind of key: featured and ticketed events in
/// subcategories and tags, at located and unlocated venues, with organizers; hidden,
/// protected, drafts, and events sharing their days. PostgreSQL writes their keys
/// and summaries a statement at a time (migration 31): each must be what its
/// definition gives, as created and after each kind of later write.
async fn a_batch_keeps_every_summary(app: TestApp) {
    let located = app
        .post(
            "venues",
            json!({"venue": "Located", "geo_lat": 48.85, "geo_lng": 2.35}),
        )
        .await
        .id();
    let plain = app.post("venues", json!({"venue": "Plain"})).await.id();
    let organizers = [
        app.post("organizers", json!({"organizer": "One"}))
            .await
            .id(),
        app.post("organizers", json!({"organizer": "Two"}))
            .await
            .id(),
    ];
    let parent = app.category("Parent", None).await;
    let child = app.category("Child", Some(parent)).await;
    let grandchild = app.category("Grandchild", Some(child)).await;
    let other = app.category("Other", None).await;
    let tag = app.post("tags", json!({"name": "Loud"})).await.id();
    let author = app.admin.id;
    let events: Vec<NewEvent> = (0..40)
        .map(|i: i64| {
            let status = match i % 5 {
                3 => Status::Draft,
                4 => Status::Pending,
                _ => Status::Publish,
            };
            let mut e = new_event(&format!("Every {i}"), status, author, i % 6);
            let set = |e: &mut NewEvent, column: Posts, value: sea_query::Value| {
                e.columns.retain(|(c, _)| *c != column);
                e.columns.push((column, value));
            };
            if i % 2 == 0 {
                set(&mut e, Posts::Featured, true.into());
            }
            if i % 3 == 0 {
                set(&mut e, Posts::Tickets, "Door".to_string().into());
            }
            match i % 4 {
                0 => set(&mut e, Posts::VenueId, located.into()),
                1 => set(&mut e, Posts::VenueId, plain.into()),
                _ => {}
            }
            if i % 7 == 0 {
                set(&mut e, Posts::HideFromListings, true.into());
            }
            if i % 9 == 0 {
                e.post.password = Some("secret".into());
            }
            e.organizers = organizers[..(i as usize) % 3].to_vec();
            e.terms = match i % 5 {
                0 => vec![grandchild, tag],
                1 => vec![child, parent],
                2 => vec![other],
                3 => vec![grandchild, other, tag],
                _ => vec![],
            };
            e.counted = status == Status::Publish;
            e
        })
        .collect();
    let created = create_all(&app, events).await;
    assert_eq!(created.len(), 40);
    assert_summaries_hold(&app, "created in one batch").await;
    let keys = |kind: i64| format!("SELECT COUNT(*) FROM event_keys WHERE kind = {kind}");
    // The definition is not vacuous: every kind of key is there.
    let mut conn = app.store.pool.read().await.unwrap();
    for kind in 0..=8 {
        let n = conn
            .query_one(
                &sea_query::Query::select()
                    .expr(sea_query::Expr::cust(format!("({})", keys(kind))))
                    .to_owned(),
                |r| r.i64(0),
            )
            .await
            .unwrap();
        assert!(n > 0, "no key of kind {kind}");
    }
    drop(conn);

    let id = |i: usize| created[i].event.post.id;
    app.post(
        &format!("events/{}", id(0)),
        json!({"featured": false, "venue": plain}),
    )
    .await
    .assert(200);
    app.post(
        &format!("events/{}", id(1)),
        json!({"categories": [other], "tags": []}),
    )
    .await
    .assert(200);
    app.post(
        &format!("events/{}", id(2)),
        json!({"start_date": "2031-03-01 10:00:00", "end_date": "2031-03-04 10:00:00"}),
    )
    .await
    .assert(200);
    app.post(&format!("events/{}", id(3)), json!({"status": "publish"}))
        .await
        .assert(200);
    app.delete(&format!("events/{}", id(5))).await.assert(200);
    app.delete(&format!("events/{}?force=true", id(6)))
        .await
        .assert(200);
    app.post(
        &format!("venues/{plain}"),
        json!({"geo_lat": 1.5, "geo_lng": 2.5}),
    )
    .await
    .assert(200);
    app.delete(&format!("organizers/{}?force=true", organizers[1]))
        .await
        .assert(200);
    app.delete(&format!("categories/{child}?force=true"))
        .await
        .assert(200);
    assert_summaries_hold(&app, "after later writes").await;
}

on_both_backends!(a_batch_keeps_every_summary);

both!(
    a_burst_of_different_creates_answers_each_with_its_own_event,
    |app| async move {
        let app = Arc::new(app);
        let venue = app.post("venues", json!({"venue": "Hall"})).await.id();
        let organizers: Vec<i64> = [
            app.post("organizers", json!({"organizer": "A"})).await.id(),
            app.post("organizers", json!({"organizer": "B"})).await.id(),
        ]
        .to_vec();
        let category = app.post("categories", json!({"name": "Busy"})).await.id();
        let bodies: Vec<Value> = (0..48)
            .map(|i| {
                let mut body = event(
                    &format!("Burst {}", i % 5),
                    &format!("2027-05-{:02} 10:00:00", 1 + i % 28),
                    &format!("2027-05-{:02} 12:00:00", 1 + i % 28),
                );
                let order = if i % 2 == 0 {
                    json!([organizers[0], organizers[1]])
                } else {
                    json!([organizers[1], organizers[0]])
                };
                body = with(body, json!({"organizer": order, "categories": [category]}));
                match i % 6 {
                    0 => with(body, json!({"excerpt": format!("Excerpt {i}")})),
                    1 => with(body, json!({"venue": venue, "status": "draft"})),
                    // Written alone: it creates its venue and its tag.
                    2 => with(body, json!({"venue": {"venue": format!("New Hall {i}")}, "tags": [format!("new-tag-{i}")]})),
                    _ => with(body, json!({"venue": venue, "description": format!("Number {i}")})),
                }
            })
            .collect();
        let tasks: Vec<_> = bodies
            .iter()
            .cloned()
            .map(|body| {
                let app = app.clone();
                tokio::spawn(async move {
                    app.call(Method::POST, "events", Some(body), &app.admin.auth())
                        .await
                })
            })
            .collect();
        let mut slugs = std::collections::HashSet::new();
        let mut published = 0;
        for (i, (task, body)) in tasks.into_iter().zip(&bodies).enumerate() {
            let r = task.await.unwrap();
            r.assert(201);
            assert_eq!(r.body["title"], body["title"]);
            assert_eq!(r.body["start_date"], body["start_date"]);
            assert!(slugs.insert(r.body["slug"].as_str().unwrap().to_string()));
            let order: Vec<i64> = r.body["organizer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_i64().unwrap())
                .collect();
            let asked: Vec<i64> = body["organizer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            assert_eq!(order, asked, "create {i}");
            match i % 6 {
                0 => assert_eq!(r.body["excerpt"], format!("<p>Excerpt {i}</p>")),
                1 => assert_eq!(r.body["status"], "draft"),
                2 => {
                    assert_eq!(r.body["venue"]["venue"], format!("New Hall {i}"));
                    assert_eq!(r.body["tags"][0]["name"], format!("new-tag-{i}"));
                }
                _ => assert_eq!(r.body["venue"]["id"], venue),
            }
            if i % 6 != 1 {
                published += 1;
            }
            // What the create answered is what a read finds.
            let stored = app
                .get_as(&format!("events/{}", r.id()), &app.admin.auth())
                .await;
            assert_eq!(stored.body["slug"], r.body["slug"]);
            let ids = |v: &Value| -> Vec<i64> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o["id"].as_i64().unwrap())
                    .collect()
            };
            assert_eq!(ids(&stored.body["organizer"]), order);
        }
        assert_eq!(count_of(&app, category).await, published);
        let list = app
            .get("events?start_date=2027-05-01&end_date=2027-05-31&per_page=50")
            .await;
        assert_eq!(list.body["total"], published);
    }
);
