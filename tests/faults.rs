//! Database faults: an unreachable PostgreSQL gives a quick 503 and the server
//! recovers by itself; a full or read-only SQLite refuses writes with 503 while
//! reads keep working.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use calendar_events::http::{self, AppState};
use calendar_events::service::Service;
use calendar_events::store::Store;
use common::*;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A TCP proxy to PostgreSQL that can be cut (every connection dropped, nothing
/// listening) and restored on the same port: a database outage without touching
/// the shared server.
struct Proxy {
    port: u16,
    accept: Option<JoinHandle<()>>,
    links: Arc<std::sync::Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    async fn start(port: u16) -> Proxy {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let links: Arc<std::sync::Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let tasks = links.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect("127.0.0.1:5432").await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                tasks.lock().unwrap().push(link);
            }
        });
        Proxy {
            port,
            accept: Some(accept),
            links,
        }
    }

    fn cut(&mut self) {
        if let Some(a) = self.accept.take() {
            a.abort();
        }
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_postgres_is_a_quick_503_and_the_server_recovers() {
    let name = format!("cal_test_{}_fault", std::process::id());
    if let Err(e) = pg_admin(format!(
        "DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}"
    )) {
        assert!(!ci(), "CI=true but PostgreSQL is unreachable: {e}");
        return;
    }
    let mut proxy = Proxy::start(0).await;
    let port = proxy.port;
    let url = pg_url_for(&name).replace("127.0.0.1:5432", &format!("127.0.0.1:{port}"));
    let store = Store::open(&url).await.expect("open through the proxy");
    let service = Service::configured(store, &settings());
    let router = http::service(Arc::new(AppState::new(service, settings())));
    let get = |router: axum::Router| async move {
        let req = axum::http::Request::builder()
            .uri(format!("{API}/venues"))
            .body(axum::body::Body::empty())
            .unwrap();
        let resp = tower::ServiceExt::oneshot(router, req).await.unwrap();
        let status = resp.status().as_u16();
        let body: serde_json::Value = serde_json::from_slice(
            &axum::body::to_bytes(resp.into_body(), usize::MAX)
                .await
                .unwrap(),
        )
        .unwrap_or_default();
        (status, body)
    };
    assert_eq!(get(router.clone()).await.0, 200);

    proxy.cut();
    for _ in 0..3 {
        let started = Instant::now();
        let (status, body) = get(router.clone()).await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["code"], "rest_unavailable");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "answered in {:?}",
            started.elapsed()
        );
    }

    let _proxy = Proxy::start(port).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, _) = get(router.clone()).await;
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the server did not recover");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(router);
    let _ = pg_admin(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
}

/// Applies a pragma to the SQLite writer connection the server uses.
async fn on_writer(app: &TestApp, pragma: &str) {
    let mut tx = app.store.pool.write().await.unwrap();
    tx.batch(pragma).await.unwrap();
    tx.commit().await.unwrap();
}

#[tokio::test]
async fn full_sqlite_refuses_writes_with_503_and_keeps_reading() {
    let app = TestApp::sqlite().await;
    let id = app.post("venues", json!({"venue": "Before"})).await.id();
    // The database may not grow any more: the same error a full disk gives.
    let pages = page_count(&app).await;
    on_writer(&app, &format!("PRAGMA max_page_count = {pages}")).await;
    let big = "x".repeat(60_000);
    let mut refused = None;
    for i in 0..50 {
        let r = app
            .post(
                "venues",
                json!({"venue": format!("Filler {i}"), "description": big}),
            )
            .await;
        if r.status.as_u16() != 201 {
            refused = Some(r);
            break;
        }
    }
    let refused = refused.expect("a write was refused once the database was full");
    refused.assert_error(503, "rest_unavailable");
    app.get(&format!("venues/{id}")).await.assert(200);
    app.get("venues").await.assert(200);
}

/// The database's size in pages.
async fn page_count(app: &TestApp) -> i64 {
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .expr(sea_query::Expr::cust("page_count"))
        .from(sea_query::Alias::new("pragma_page_count"))
        .to_owned();
    conn.query_one(&q, |r| r.i64(0)).await.unwrap()
}

#[tokio::test]
async fn writes_resume_once_there_is_room_though_search_indexing_still_needs_more() {
    let app = TestApp::sqlite().await;
    // Events waiting to be indexed for search, with much text to index.
    let words: Vec<String> = (0..600)
        .map(|i| format!("word{i}x{}", i * 7919 % 1000))
        .collect();
    let text = words.join(" ");
    let mut events = Vec::new();
    for i in 0..40 {
        let body = with(
            event(
                &format!("Queued {i}"),
                "2027-05-10 19:00:00",
                "2027-05-10 21:00:00",
            ),
            json!({"description": text}),
        );
        events.push(app.event(body).await);
    }
    // The disk fills up.
    let full = page_count(&app).await;
    on_writer(&app, &format!("PRAGMA max_page_count = {full}")).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // Then a little room comes back: enough for a small write, far too little
    // for the index of all that text.
    let mut tx = app.store.pool.write().await.unwrap();
    tx.batch(&format!("PRAGMA max_page_count = {}", full + 40))
        .await
        .unwrap();
    drop(tx);
    for i in 0..5 {
        app.post("venues", json!({"venue": format!("Small {i}")}))
            .await
            .assert(201);
    }
    // Search still finds the queued events, as it scans what is not indexed yet.
    let r = app
        .get("events?start_date=2027-05-01&end_date=2027-05-31&search=word599x")
        .await;
    assert_eq!(r.body["total"], events.len(), "{}", r.text);
    // With room again, the index catches up and the queue empties.
    on_writer(&app, "PRAGMA max_page_count = 1073741823").await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    app.post("venues", json!({"venue": "Later"}))
        .await
        .assert(201);
    let mut conn = app.store.pool.read().await.unwrap();
    let q = sea_query::Query::select()
        .expr(sea_query::Expr::cust("count(*)"))
        .from(sea_query::Alias::new("search_queue"))
        .to_owned();
    assert_eq!(conn.query_one(&q, |r| r.i64(0)).await.unwrap(), 0);
}

#[tokio::test]
async fn read_only_sqlite_refuses_writes_with_503_and_keeps_reading() {
    let app = TestApp::sqlite().await;
    let id = app
        .post("organizers", json!({"organizer": "Before"}))
        .await
        .id();
    on_writer(&app, "PRAGMA query_only = ON").await;
    app.post("organizers", json!({"organizer": "After"}))
        .await
        .assert_error(503, "rest_unavailable");
    app.get(&format!("organizers/{id}")).await.assert(200);
}

/// Counts to a billion: minutes of work for either database.
const ENDLESS: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) \
                       SELECT count(*) FROM c";

#[tokio::test]
async fn a_sqlite_read_stops_at_its_requests_deadline() {
    use calendar_events::store::{StoreError, db::DEADLINE};
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("slow.db").display());
    let store = Store::open_with(&url, &timeout_of(Duration::from_millis(200)))
        .await
        .unwrap();
    let started = Instant::now();
    let deadline = started + Duration::from_millis(200);
    let result = DEADLINE
        .scope(deadline, async {
            let mut conn = store.pool.read().await.unwrap();
            conn.batch(ENDLESS).await
        })
        .await;
    assert!(
        matches!(result, Err(StoreError::Unavailable(_))),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "interrupted");
    // The connection goes back to the pool in working order.
    for _ in 0..8 {
        let mut conn = store.pool.read().await.unwrap();
        conn.batch("SELECT 1").await.unwrap();
    }
}

#[tokio::test]
async fn postgres_cancels_a_statement_past_the_servers_timeout() {
    use calendar_events::store::StoreError;
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let db = app.pg_database.clone().unwrap();
    let store = Store::open_with(&pg_url_for(&db), &timeout_of(Duration::from_millis(200)))
        .await
        .unwrap();
    let started = Instant::now();
    let mut conn = store.pool.read().await.unwrap();
    let result = conn.batch(ENDLESS).await;
    assert!(
        matches!(result, Err(StoreError::Unavailable(_))),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "cancelled");
    conn.batch("SELECT 1").await.unwrap();
    // Without a timeout (the command-line tools, migrations) nothing is cancelled.
    let mut patient = app.store.pool.read().await.unwrap();
    patient.batch("SELECT pg_sleep(0.3)").await.unwrap();
}

/// The version reads' connections of the test database, as PostgreSQL lists them.
async fn version_connections(db: &str, terminate: bool) -> i64 {
    let (client, conn) = tokio_postgres::connect(&pg_url_for(db), tokio_postgres::NoTls)
        .await
        .expect("connect");
    let driver = tokio::spawn(conn);
    let action = if terminate {
        "pg_terminate_backend(pid)"
    } else {
        "true"
    };
    let sql = format!(
        "SELECT count({action}) FROM pg_stat_activity \
         WHERE datname = $1 AND query = 'SELECT last_value FROM calendar_data_version'"
    );
    let n: i64 = client.query_one(&sql, &[&db]).await.unwrap().get(0);
    drop(client);
    let _ = driver.await;
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_data_version_connection_is_replaced_without_a_failed_read() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let db = app.pg_database.clone().unwrap();
    let id = app.post("venues", json!({"venue": "Hall A"})).await.id();
    let r = app.get(&format!("venues/{id}")).await;
    r.assert(200);
    assert_eq!(r.body["venue"], "Hall A");
    assert_eq!(version_connections(&db, true).await, 1, "one was killed");

    app.put(&format!("venues/{id}"), json!({"venue": "Hall B"}))
        .await
        .assert(200);
    // The next read goes over a new connection at once: it does not fail (which
    // would leave the answer uncached), and it sees the write made after the old
    // connection died.
    let version = app.store.pool.data_version().await;
    assert!(version.is_ok(), "{version:?}");
    let r = app.get(&format!("venues/{id}")).await;
    r.assert(200);
    assert_eq!(r.body["venue"], "Hall B");
    assert_eq!(version_connections(&db, false).await, 1);
}

/// Store options of a server whose statements stop after `timeout`.
fn timeout_of(timeout: Duration) -> calendar_events::store::StoreOptions {
    calendar_events::store::StoreOptions {
        timeout: Some(timeout),
        ..Default::default()
    }
}
