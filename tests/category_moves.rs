//! A category with more events at or below it than a batch (`--step-batch`) moves in
//! steps (`store::category_moves`): the tree changes in the request, and the category
//! keys of its subtree's events follow a batch per transaction behind the answer.
//! Events written meanwhile, other moves and deletions meanwhile, all come out exact.

mod common;
mod process;

use calendar_events::config::Settings;
use calendar_events::domain::term::{Taxonomy, TermChanges};
use calendar_events::store::{category_moves, terms};
use common::*;
use serde_json::json;

fn in_batches_of_two() -> Settings {
    Settings {
        step_batch: 2,
        ..settings()
    }
}

/// Arts and Music at the top; Jazz under Music, Bebop under Jazz. Three events in
/// Jazz (one a draft), three in Bebop (one also in Arts), one in Music.
struct Calendar {
    arts: i64,
    music: i64,
    jazz: i64,
    bebop: i64,
    in_jazz: Vec<i64>,
    in_bebop: Vec<i64>,
    in_music: i64,
}

async fn setup(app: &TestApp) -> Calendar {
    let arts = app.post("categories", json!({"name": "Arts"})).await.id();
    let music = app.post("categories", json!({"name": "Music"})).await.id();
    let jazz = app
        .post("categories", json!({"name": "Jazz", "parent": music}))
        .await
        .id();
    let bebop = app
        .post("categories", json!({"name": "Bebop", "parent": jazz}))
        .await
        .id();
    let mut in_jazz = Vec::new();
    for i in 0..3 {
        let status = if i == 2 { "draft" } else { "publish" };
        let body = with(
            at_day(&format!("Jazz {i}"), i + 1),
            json!({"status": status, "categories": [jazz]}),
        );
        in_jazz.push(app.event(body).await);
    }
    let mut in_bebop = Vec::new();
    for i in 0..3 {
        let categories = if i == 0 {
            vec![bebop, arts]
        } else {
            vec![bebop]
        };
        let body = with(
            at_day(&format!("Bebop {i}"), i + 10),
            json!({ "categories": categories }),
        );
        in_bebop.push(app.event(body).await);
    }
    let in_music = app
        .event(with(at_day("Music", 20), json!({"categories": [music]})))
        .await;
    Calendar {
        arts,
        music,
        jazz,
        bebop,
        in_jazz,
        in_bebop,
        in_music,
    }
}

fn at_day(name: &str, day: usize) -> serde_json::Value {
    event(
        name,
        &format!("2027-03-{day:02} 20:00:00"),
        &format!("2027-03-{day:02} 23:00:00"),
    )
}

fn sorted(mut ids: Vec<i64>) -> Vec<i64> {
    ids.sort_unstable();
    ids
}

/// Moves the category as the server does when it moves it in steps: its subtree
/// queued, then the new parent written, in one transaction; no batch runs.
async fn move_queued(app: &TestApp, id: i64, parent: i64) {
    let mut tx = app.store.pool.write().await.unwrap();
    terms::lock_tree(&mut tx).await.unwrap();
    category_moves::queue_subtree(&mut tx, id).await.unwrap();
    let term = terms::get(&mut tx, id)
        .await
        .unwrap()
        .expect("the category");
    let changes = TermChanges {
        name: None,
        description: None,
        slug: None,
        parent: Some(parent),
        id: None,
    };
    terms::update(&mut tx, &term, &changes).await.unwrap();
    tx.commit().await.unwrap();
}

/// Runs one batch of the moves queued; whether none is left.
async fn one_batch(app: &TestApp) -> bool {
    let mut tx = app.store.pool.write().await.unwrap();
    let done = category_moves::rekey_batch(&mut tx, 2).await.unwrap();
    tx.commit().await.unwrap();
    done
}

both_with!(
    moving_a_category_of_more_events_than_a_batch_answers_and_keys_them_all,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let below_jazz = sorted([cal.in_jazz.clone(), cal.in_bebop.clone()].concat());
        assert_eq!(listed_in_category(&app, cal.music).await.len(), 7);
        let r = app
            .post(
                &format!("categories/{}", cal.jazz),
                json!({ "parent": cal.arts }),
            )
            .await;
        r.assert(200);
        assert_eq!(r.body["parent"], cal.arts);
        assert_eq!(r.body["name"], "Jazz");
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "moved").await;
        assert_eq!(
            listed_in_category(&app, cal.music).await,
            vec![cal.in_music]
        );
        assert_eq!(listed_in_category(&app, cal.arts).await, below_jazz);
        assert_eq!(listed_in_category(&app, cal.jazz).await, below_jazz);
        assert_eq!(
            listed_in_category(&app, cal.bebop).await,
            sorted(cal.in_bebop.clone())
        );
        // And back, in steps again: it and its subtree are queued afresh.
        app.post(
            &format!("categories/{}", cal.jazz),
            json!({ "parent": cal.music }),
        )
        .await
        .assert(200);
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "moved back").await;
        assert_eq!(listed_in_category(&app, cal.music).await.len(), 7);
        assert_eq!(
            listed_in_category(&app, cal.arts).await,
            vec![cal.in_bebop[0]]
        );
    }
);

both_with!(
    events_written_and_categories_moved_while_keys_follow_come_out_exact,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        move_queued(&app, cal.jazz, cal.arts).await;
        // The tree moved at once; the keys wait for the batches.
        let jazz = app.get(&format!("categories/{}", cal.jazz)).await;
        assert_eq!(jazz.body["parent"], cal.arts);
        assert_eq!(
            listed_in_category(&app, cal.arts).await,
            vec![cal.in_bebop[0]]
        );

        // An event that leaves Bebop meanwhile keeps no key of the categories it
        // was below, though the batches will never visit it.
        let leaving = cal.in_bebop[1];
        app.post(&format!("events/{leaving}"), json!({"categories": []}))
            .await
            .assert(200);
        assert!(!listed_in_category(&app, cal.music).await.contains(&leaving));
        // One created in Bebop meanwhile is keyed by the tree as it is.
        let new = app
            .event(with(
                at_day("Bebop new", 25),
                json!({"categories": [cal.bebop]}),
            ))
            .await;
        assert!(listed_in_category(&app, cal.arts).await.contains(&new));
        assert!(!listed_in_category(&app, cal.music).await.contains(&new));

        // A batch, then Bebop moves to the top while Jazz's keys are still following.
        assert!(!one_batch(&app).await, "more events are queued");
        app.post(&format!("categories/{}", cal.bebop), json!({"parent": 0}))
            .await
            .assert(200);
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "moved twice").await;
        let mut conn = app.store.pool.read().await.unwrap();
        assert!(!category_moves::any_queued(&mut conn).await.unwrap());
        drop(conn);
        assert_eq!(
            listed_in_category(&app, cal.arts).await,
            sorted(vec![
                cal.in_jazz[0],
                cal.in_jazz[1],
                cal.in_jazz[2],
                cal.in_bebop[0]
            ])
        );
        assert_eq!(
            listed_in_category(&app, cal.music).await,
            vec![cal.in_music]
        );
        assert_eq!(
            listed_in_category(&app, cal.bebop).await,
            sorted(vec![cal.in_bebop[0], cal.in_bebop[2], new])
        );
    }
);

both_with!(
    a_category_deleted_while_its_subcategorys_keys_follow_a_move_leaves_none_of_its_keys,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        move_queued(&app, cal.music, cal.arts).await;
        // Through Music (one event) and Jazz (three), then Bebop's first two: Bebop
        // is still queued, past its first events.
        for _ in 0..4 {
            assert!(!one_batch(&app).await);
        }
        let mut conn = app.store.pool.read().await.unwrap();
        assert!(
            category_moves::is_queued(&mut conn, cal.bebop)
                .await
                .unwrap()
        );
        assert!(
            !category_moves::is_queued(&mut conn, cal.jazz)
                .await
                .unwrap()
        );
        drop(conn);
        // Jazz goes in one transaction; Bebop moves up to Music, whose keys its
        // events keep, and loses Jazz's, which no batch will find.
        let mut tx = app.store.pool.write().await.unwrap();
        let jazz = terms::get(&mut tx, cal.jazz).await.unwrap().unwrap();
        assert_eq!(jazz.taxonomy, Taxonomy::Category);
        terms::delete(&mut tx, &jazz).await.unwrap();
        tx.commit().await.unwrap();
        while !one_batch(&app).await {}
        assert_summaries_hold(&app, "deleted while moving").await;
        assert_eq!(
            listed_in_category(&app, cal.arts).await,
            sorted(vec![
                cal.in_bebop[0],
                cal.in_bebop[1],
                cal.in_bebop[2],
                cal.in_music
            ])
        );
    }
);

both_with!(
    writes_of_its_events_while_a_category_moves_in_steps_come_out_exact,
    in_batches_of_two(),
    |app| async move {
        let cal = setup(&app).await;
        let mut more = Vec::new();
        for i in 0..30 {
            let category = if i % 2 == 0 { cal.jazz } else { cal.bebop };
            let body = with(
                at_day(&format!("More {i}"), 1 + i % 28),
                json!({ "categories": [category] }),
            );
            more.push(app.event(body).await);
        }
        let app = std::sync::Arc::new(app);
        // Writers of the moving subtree's events, and of new ones, all along the
        // batches: each gives an event of it other categories, or a new one some.
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let (app, more) = (app.clone(), more.clone());
                let targets = [
                    vec![cal.bebop],
                    vec![cal.arts],
                    vec![],
                    vec![cal.jazz, cal.music],
                ];
                tokio::spawn(async move {
                    for (i, id) in more.iter().enumerate().skip(w).step_by(4) {
                        let categories = &targets[(i / 4) % targets.len()];
                        app.post(&format!("events/{id}"), json!({ "categories": categories }))
                            .await
                            .assert(200);
                        let new = with(
                            at_day(&format!("New {w} {i}"), 1 + i % 28),
                            json!({ "categories": [cal.bebop] }),
                        );
                        app.post("events", new).await.assert(201);
                    }
                })
            })
            .collect();
        for parent in [cal.arts, cal.music, cal.arts] {
            app.post(
                &format!("categories/{}", cal.jazz),
                json!({ "parent": parent }),
            )
            .await
            .assert(200);
        }
        for w in writers {
            w.await.unwrap();
        }
        app.wait_for_work_in_steps().await;
        assert_summaries_hold(&app, "written while moving").await;
        let jazz = app.get(&format!("categories/{}", cal.jazz)).await;
        assert_eq!(jazz.body["parent"], cal.arts);
        assert_eq!(listed_in_category(&app, cal.music).await, {
            let mut v = vec![cal.in_music];
            v.extend(
                more.iter()
                    .enumerate()
                    .filter(|(i, _)| (i / 4) % 4 == 3)
                    .map(|(_, id)| *id),
            );
            sorted(v)
        });
    }
);

both!(
    a_move_an_instance_stopped_during_goes_on_at_start_up,
    |app| async move {
        let cal = setup(&app).await;
        move_queued(&app, cal.jazz, cal.arts).await;
        let server = process::Server::start_with_args(&app.database_url(), &["--step-batch", "2"]);
        app.wait_for_work_in_steps().await;
        drop(server);
        assert_summaries_hold(&app, "finished at start-up").await;
        let below_jazz = sorted([cal.in_jazz.clone(), cal.in_bebop.clone()].concat());
        assert_eq!(listed_in_category(&app, cal.arts).await, below_jazz);
        assert_eq!(
            listed_in_category(&app, cal.music).await,
            vec![cal.in_music]
        );
    }
);
