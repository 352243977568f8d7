//! Writes of events that cross on the rows they share with other writers: the
//! per-day counts of their days and the summaries of their venues and organizers.
//! Every write is written, every total stays exact, and on PostgreSQL none of them
//! deadlocks (`store::events::lock_shared_rows`), where a deadlock would cost a
//! second, fail a whole batch back to its creates written alone, or be retried.

mod common;

use std::sync::Arc;
use std::time::Duration;

use axum::http::Method;
use calendar_events::domain::post::Status;
use calendar_events::store::event_batch::{BatchError, CreateBatcher, Created, NewEvent};
use common::new_events::{NOW, new_event_at};
use common::*;
use serde_json::json;
use tokio::task::JoinHandle;

/// The writes' venues (East, Middle, West), their organizers (Early, Late), and the
/// create batchers of two instances sharing the app's database.
struct Crossing {
    app: Arc<TestApp>,
    venues: [i64; 3],
    organizers: [i64; 2],
    instances: [Arc<CreateBatcher>; 2],
}

const EAST: usize = 0;
const MIDDLE: usize = 1;
const WEST: usize = 2;
const EARLY: usize = 0;
const LATE: usize = 1;

impl Crossing {
    async fn new(app: TestApp) -> Crossing {
        let mut venues = [0; 3];
        for (id, name) in venues.iter_mut().zip(["East", "Middle", "West"]) {
            *id = app.post("venues", json!({"venue": name})).await.id();
        }
        let mut organizers = [0; 2];
        for (id, name) in organizers.iter_mut().zip(["Early", "Late"]) {
            *id = app
                .post("organizers", json!({"organizer": name}))
                .await
                .id();
        }
        let instances = [
            Arc::new(CreateBatcher::new(app.store.pool.clone())),
            Arc::new(CreateBatcher::new(app.store.pool.clone())),
        ];
        Crossing {
            app: Arc::new(app),
            venues,
            organizers,
            instances,
        }
    }

    /// A batch of seven on days `first..first + 7`, which it writes in three pieces
    /// (4, 2 and 1 events): the venue of each piece, as `order` gives them; Early
    /// organizes the first piece's events when it begins at East or West.
    fn batch(&self, round: usize, first: i64, order: [usize; 3]) -> Vec<NewEvent> {
        (0..7)
            .map(|i| {
                let piece = match i {
                    0..4 => 0,
                    4..6 => 1,
                    _ => 2,
                };
                let venue = self.venues[order[piece]];
                let title = format!("Round {round} from {first}");
                let author = self.app.admin.id;
                let mut e = new_event_at(&title, Status::Publish, author, first + i, Some(venue));
                let later = usize::from(piece != 0);
                e.organizers = vec![self.organizers[(order[0] + later) % 2]];
                e
            })
            .collect()
    }

    /// Writes `batches` at once, one on each instance.
    fn write(
        &self,
        batches: [Vec<NewEvent>; 2],
    ) -> Vec<JoinHandle<Vec<Result<Created, BatchError>>>> {
        batches
            .into_iter()
            .zip(&self.instances)
            .map(|(events, batcher)| {
                let batcher = batcher.clone();
                tokio::spawn(async move {
                    futures_util::future::join_all(events.into_iter().map(|e| batcher.create(e)))
                        .await
                })
            })
            .collect()
    }

    /// Panics unless every create of the batches was written.
    async fn all_written(round: usize, tasks: Vec<JoinHandle<Vec<Result<Created, BatchError>>>>) {
        for task in tasks {
            for (i, created) in task.await.unwrap().into_iter().enumerate() {
                if let Err(e) = created {
                    panic!("round {round}, create {i}: {e:?}");
                }
            }
        }
    }

    /// Checks the number of published events each venue and organizer lists.
    async fn assert_listed(&self, venues: [i64; 3], organizers: [i64; 2]) {
        let linked = self.venues.iter().map(|v| ("venue", *v)).zip(venues);
        let linked = linked.chain(
            self.organizers
                .iter()
                .map(|o| ("organizer", *o))
                .zip(organizers),
        );
        for ((param, id), expected) in linked {
            let path = format!("events?{param}={id}&start_date=2027-01-01&per_page=1");
            let list = self.app.get(&path).await;
            list.assert(200);
            assert_eq!(list.body["total"], expected, "{param} {id}");
        }
    }

    /// Asserts that PostgreSQL detected no deadlock in the app's database. Its
    /// backends report one when they next go idle, at the latest when they exit, so
    /// every other connection to it is closed first. Ends the app's use of the
    /// database.
    async fn assert_no_deadlock(&self) {
        let Some(db) = &self.app.pg_database else {
            return;
        };
        let (client, connection) = tokio_postgres::connect(&pg_url_for(db), tokio_postgres::NoTls)
            .await
            .unwrap();
        let driver = tokio::spawn(connection);
        let others =
            "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()";
        client
            .execute(&format!("SELECT pg_terminate_backend(pid) {others}"), &[])
            .await
            .unwrap();
        for _ in 0..200 {
            let left: i64 = client
                .query_one(&format!("SELECT count(*) {others}"), &[])
                .await
                .unwrap()
                .get(0);
            if left == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let deadlocks: i64 = client
            .query_one(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(deadlocks, 0, "deadlocks PostgreSQL detected");
        drop(client);
        let _ = driver.await;
    }
}

const ROUNDS: usize = 12;

/// An HTTP date `day` days after the batches' `NOW`, at `hour` UTC (the tests' site zone).
fn date(day: i64, hour: i64) -> String {
    let t = NOW + day * 86_400 + hour * 3_600;
    let at = chrono::DateTime::from_timestamp(t, 0).unwrap();
    at.format("%Y-%m-%d %H:%M:%S").to_string()
}

// Two instances' batchers writing at once, each batch in pieces whose venues cross:
// one batch's first piece writes the summary of the venue the other's last piece
// writes, and the other way round. Each piece's triggers lock their rows in their
// own order: a deadlock would fail one batch, and its creates would be answered
// `NotWritten`. Then each venue's events are all listed, once.
both!(
    concurrent_batches_crossing_on_shared_rows_are_all_written,
    |app| async move {
        let crossing = Crossing::new(app).await;
        for round in 0..ROUNDS {
            // Days apart, so the two batches share no per-day count: only the summaries.
            let first = (round as i64) * 20;
            let tasks = crossing.write([
                crossing.batch(round, first + 1, [EAST, MIDDLE, WEST]),
                crossing.batch(round, first + 10, [WEST, MIDDLE, EAST]),
            ]);
            Crossing::all_written(round, tasks).await;
        }
        // Each round, four, two and one events at each venue, in one order and the
        // other; Early organizes both batches' first pieces, Late the rest.
        let r = ROUNDS as i64;
        crossing
            .assert_listed([5 * r, 4 * r, 5 * r], [8 * r, 6 * r])
            .await;
        crossing.assert_no_deadlock().await;
    }
);

// Writes of single events on another instance, while the two batches cross: an
// update that moves an event from East to West (its venue's summaries) and from Late
// to Early (its organizers'), into the days of the first batch; one that moves
// another the other way, into the second's; a trash at Middle on a day of the
// first; and a create written alone (its venue is new) with Early, on a day of the
// second. Each takes the shared rows' locks first, so none deadlocks with a batch.
both!(
    single_writes_crossing_batches_are_written_without_a_deadlock,
    |app| async move {
        let crossing = Crossing::new(app).await;
        let lone = match crossing.app.second_app().await {
            Some(other) => Arc::new(other),
            None => crossing.app.clone(),
        };
        let (venues, organizers) = (crossing.venues, crossing.organizers);
        let published = |title: String, day: i64, venue: i64, organizer: i64| {
            let start = date(day, 12);
            let end = date(day, 13);
            let e = with(event(&title, &start, &end), json!({"status": "publish"}));
            with(e, json!({"venue": venue, "organizer": [organizer]}))
        };
        for round in 0..ROUNDS {
            let first = (round as i64) * 20;
            let (a, b) = (first + 1, first + 10);
            // Events to move East to West, West to East, and to trash.
            let mut made = Vec::new();
            for (name, day, venue, organizer) in [
                ("East", b + 3, EAST, LATE),
                ("West", a + 3, WEST, EARLY),
                ("Middle", a + 5, MIDDLE, EARLY),
            ] {
                let title = format!("{name} {round}");
                let body = published(title, day, venues[venue], organizers[organizer]);
                made.push(lone.event(body).await);
            }
            let &[to_west, to_east, trashed] = made.as_slice() else {
                unreachable!("three events made");
            };
            let to_west_body = json!({"venue": venues[WEST], "organizer": [organizers[EARLY]],
                "start_date": date(a + 2, 9), "end_date": date(a + 2, 10)});
            let to_east_body = json!({"venue": venues[EAST], "organizer": [organizers[LATE]],
                "start_date": date(b + 2, 9), "end_date": date(b + 2, 10)});
            let alone = published(format!("Hall {round}"), b + 4, 0, organizers[EARLY]);
            let alone = with(alone, json!({"venue": {"venue": format!("Hall {round}")}}));
            // Each: its method, path and body, and the status it must be answered.
            let writes = [
                (
                    Method::POST,
                    format!("events/{to_west}"),
                    Some(to_west_body),
                    200,
                ),
                (
                    Method::POST,
                    format!("events/{to_east}"),
                    Some(to_east_body),
                    200,
                ),
                (Method::DELETE, format!("events/{trashed}"), None, 200),
                (Method::POST, "events".to_string(), Some(alone), 201),
            ];
            let batches = crossing.write([
                crossing.batch(round, a, [EAST, MIDDLE, WEST]),
                crossing.batch(round, b, [WEST, MIDDLE, EAST]),
            ]);
            let singles: Vec<JoinHandle<(u16, u16)>> = writes
                .into_iter()
                .map(|(method, path, body, expected)| {
                    let lone = lone.clone();
                    tokio::spawn(async move {
                        let r = lone.call(method, &path, body, &lone.admin.auth()).await;
                        (r.status.as_u16(), expected)
                    })
                })
                .collect();
            Crossing::all_written(round, batches).await;
            for single in singles {
                let (status, expected) = single.await.unwrap();
                assert_eq!(status, expected, "round {round}");
            }
        }
        // Each round the batches' 5, 4 and 5 events at East, Middle and West, and 8
        // and 6 for Early and Late; the two moved events each add one at East and at
        // West, and one for each organizer; the event created alone one for Early.
        let r = ROUNDS as i64;
        crossing
            .assert_listed([6 * r, 4 * r, 6 * r], [10 * r, 7 * r])
            .await;
        drop(lone);
        crossing.assert_no_deadlock().await;
    }
);
