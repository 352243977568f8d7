//! The real binary under signals: SIGTERM finishes in-flight writes; SIGKILL at
//! random moments loses no acknowledged write and leaves the database intact.
//! `CALENDAR_CRASH_TRIALS` sets the number of kills (default 3; 20 for release checks).

mod common;
mod process;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use process::{Http, Server, create_admin};
use serde_json::json;

fn trials() -> usize {
    std::env::var("CALENDAR_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
}

/// What clients were told: venue ID → (name, last acknowledged city, city of an unacknowledged update).
type Acked = Arc<Mutex<HashMap<i64, (String, String, Option<String>)>>>;

async fn writer(
    http: Http,
    base: String,
    tag: String,
    acked: Acked,
    stop: Arc<std::sync::atomic::AtomicBool>,
) {
    let mut mine: Vec<i64> = Vec::new();
    let mut i = 0u64;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        i += 1;
        if i.is_multiple_of(3) && !mine.is_empty() {
            let id = mine[(i as usize) % mine.len()];
            let city = format!("city-{tag}-{i}");
            acked.lock().unwrap().get_mut(&id).unwrap().2 = Some(city.clone());
            match http
                .send(
                    "PATCH",
                    &format!("{base}/venues/{id}"),
                    Some(&json!({"city": city})),
                )
                .await
            {
                Some((200, body)) => {
                    assert_eq!(body["city"], city.as_str());
                    let mut a = acked.lock().unwrap();
                    let entry = a.get_mut(&id).unwrap();
                    entry.1 = city;
                    entry.2 = None;
                }
                Some((status, body)) => panic!("update answered {status}: {body}"),
                None => return,
            }
        } else {
            let name = format!("venue-{tag}-{i}");
            let city = format!("city-{tag}-{i}");
            match http
                .send(
                    "POST",
                    &format!("{base}/venues"),
                    Some(&json!({"venue": name, "city": city})),
                )
                .await
            {
                Some((201, body)) => {
                    let id = body["id"].as_i64().unwrap();
                    mine.push(id);
                    acked.lock().unwrap().insert(id, (name, city, None));
                }
                Some((status, body)) => panic!("create answered {status}: {body}"),
                None => return,
            }
        }
    }
}

async fn crash_trials(database_url: &str) {
    let password = create_admin(database_url, "crash-admin");
    let http = Http::new("crash-admin", &password);
    let acked: Acked = Arc::new(Mutex::new(HashMap::new()));
    for trial in 0..trials() {
        let server = Server::start(database_url);
        let base = server.url("/calendar/events/v1");
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writers: Vec<_> = (0..8)
            .map(|w| {
                tokio::spawn(writer(
                    http.clone(),
                    base.clone(),
                    format!("{trial}-{w}"),
                    acked.clone(),
                    stop.clone(),
                ))
            })
            .collect();
        // A pseudo-random moment between 150 and 650 ms, different for every trial.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        tokio::time::sleep(Duration::from_millis(150 + u64::from(nanos % 500))).await;
        server.kill9();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for w in writers {
            w.await
                .expect("writer panicked: a write was answered with an error");
        }
    }
    assert!(
        !acked.lock().unwrap().is_empty(),
        "no write was acknowledged at all"
    );

    let server = Server::start(database_url);
    let base = server.url("/calendar/events/v1");
    let snapshot: Vec<_> = acked
        .lock()
        .unwrap()
        .iter()
        .map(|(k, v)| (*k, v.clone()))
        .collect();
    for (id, (name, city, in_flight)) in snapshot {
        let (status, body) = http
            .send("GET", &format!("{base}/venues/{id}"), None)
            .await
            .expect("server up");
        assert_eq!(status, 200, "acknowledged venue {id} is missing: {body}");
        assert_eq!(body["venue"], name.as_str());
        let stored = body["city"].as_str().unwrap_or("");
        assert!(
            stored == city || in_flight.as_deref() == Some(stored),
            "venue {id}: city {stored:?}, acknowledged {city:?}"
        );
    }
    let status = server.terminate();
    assert!(status.success(), "clean exit after SIGTERM: {status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_sigkill_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.db");
    let url = format!("sqlite://{}", path.display());
    crash_trials(&url).await;
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_sigkill_of_the_server_loses_no_acknowledged_write() {
    let name = format!("cal_test_crash_{}", std::process::id());
    if let Err(e) = common::pg_admin(format!(
        "DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}"
    )) {
        assert!(!common::ci(), "CI=true but PostgreSQL is unreachable: {e}");
        return;
    }
    crash_trials(&common::pg_url_for(&name)).await;
    let _ = common::pg_admin(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_finishes_in_flight_writes_then_exits() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("term.db").display());
    let password = create_admin(&url, "term-admin");
    let http = Http::new("term-admin", &password);
    let server = Server::start(&url);
    let base = server.url("/calendar/events/v1");
    let pending: Vec<_> = (0..40)
        .map(|i| {
            let (http, base) = (http.clone(), base.clone());
            tokio::spawn(async move {
                http.send(
                    "POST",
                    &format!("{base}/organizers"),
                    Some(&json!({"organizer": format!("org {i}")})),
                )
                .await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(5)).await;
    let status = server.terminate();
    assert!(status.success(), "exit status {status:?}");
    let mut acked = Vec::new();
    for p in pending {
        if let Some((201, body)) = p.await.unwrap() {
            acked.push(body["id"].as_i64().unwrap());
        }
    }
    let server = Server::start(&url);
    for id in acked {
        let (status, _) = http
            .send(
                "GET",
                &server.url(&format!("/calendar/events/v1/organizers/{id}")),
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            status, 200,
            "organizer {id} was acknowledged before shutdown"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_reach_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("log.db").display());
    let password = create_admin(&url, "log-admin");
    let log = dir.path().join("server.log");
    let server = Server::start_logging(&url, "trace", Some(&log));
    let base = server.url("/calendar/events/v1");
    let good = Http::new("log-admin", &password);
    let bad = Http::new("log-admin", "wrong-secret-value-123");
    good.send(
        "POST",
        &format!("{base}/venues"),
        Some(&json!({"venue": "Logged"})),
    )
    .await
    .unwrap();
    bad.send("GET", &format!("{base}/venues"), None)
        .await
        .unwrap();
    let status = server.terminate();
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("request"),
        "the log has request lines: {text}"
    );
    for secret in [password.as_str(), "wrong-secret-value-123"] {
        assert!(!text.contains(secret), "a secret appears in the log");
    }
    assert!(
        !text.to_ascii_lowercase().contains("authorization: basic"),
        "no credentials header in the log"
    );
}
