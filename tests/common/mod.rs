//! Test harness: the real router over a real SQLite file or a real PostgreSQL
//! database, driven with HTTP requests through `tower::ServiceExt::oneshot`.
//!
//! Each behaviour is written once with `both!` and runs on both backends.
//! PostgreSQL comes from `CALENDAR_TEST_PG_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`). When it cannot be reached the
//! PostgreSQL half is skipped with a notice, unless `CI=true`, where it fails.

#![allow(dead_code)]

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request, header};
use base64::Engine;
use calendar_events::config::Settings;
use calendar_events::domain::permissions::Role;
use calendar_events::http::{self, AppState, auth_secret_hash};
use calendar_events::service::Service;
use calendar_events::store::users::{self, CredentialKind};
use calendar_events::store::{Backend, Store};
use serde_json::Value;
use tower::ServiceExt;

mod bodies;
pub mod new_events;
mod pages;
mod postgres;
mod resp;
mod summaries;
mod visible;
#[allow(unused_imports)]
pub use bodies::{chinese, event, event_ids, keys, listed_in_category, tickets, titles, with};
#[allow(unused_imports)]
pub use pages::{every_page, ids_of};
#[allow(unused_imports)]
pub use postgres::{ci, pg_admin, pg_reachable, pg_url_as, pg_url_for};
pub use resp::{Auth, Resp};
#[allow(unused_imports)]
pub use summaries::assert_summaries_hold;
#[allow(unused_imports)]
pub use visible::visible_events;

pub const API: &str = "/calendar/events/v1";
pub const SITE: &str = "http://calendar.test";

/// Runs a test body on SQLite and on PostgreSQL: `both!(name, |app| async move { … });`
#[macro_export]
macro_rules! both {
    ($name:ident, |$app:ident| $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $app = $crate::common::TestApp::sqlite().await;
                $body.await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($app) = $crate::common::TestApp::postgres().await else {
                    return;
                };
                $body.await;
            }
        }
    };
}

/// As [`both!`], on a server with the given settings:
/// `both_with!(name, settings(), |app| async move { … });`
#[macro_export]
macro_rules! both_with {
    ($name:ident, $settings:expr, |$app:ident| $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $app = $crate::common::TestApp::sqlite_with($settings).await;
                $body.await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($app) = $crate::common::TestApp::postgres_with($settings).await else {
                    return;
                };
                $body.await;
            }
        }
    };
}

/// A user made for a test, with a working application password.
#[derive(Clone, Debug)]
pub struct TestUser {
    pub id: i64,
    pub login: String,
    pub password: String,
}

impl TestUser {
    pub fn auth(&self) -> Auth {
        Auth::Basic(self.login.clone(), self.password.clone())
    }
}

pub struct TestApp {
    pub store: Store,
    router: axum::Router,
    _dir: Option<tempfile::TempDir>,
    pub pg_database: Option<String>,
    pub admin: TestUser,
}

pub fn settings() -> Settings {
    Settings {
        site_url: SITE.into(),
        site_host: "calendar.test".into(),
        rest_root: String::new(),
        timezone: chrono_tz::Tz::UTC,
        per_page_default: 10,
        per_page_max: 50,
        site_title: "Test calendar".into(),
        site_description: "Events, for tests".into(),
        site_stylesheet: None,
        feed_max_events: 1000,
        search_count_limit: 1000,
        search_depth: 10_000,
        tombstone_retention_secs: 90 * 86_400,
        step_batch: 500,
        jsonp: false,
        tribe_namespace: false,
        languages: vec!["en".into(), "fr".into(), "de".into(), "es".into()],
        max_body_bytes: 1024 * 1024,
        request_timeout: std::time::Duration::from_secs(30),
        max_concurrent_requests: 1024,
        body_read_timeout: std::time::Duration::from_secs(10),
        cors_origins: Vec::new(),
        auth_failure_limit: 10,
        auth_failure_window: std::time::Duration::from_secs(300),
        trust_forwarded_for: false,
        response_cache_bytes: 16 * 1024 * 1024,
        sqlite_mmap_bytes: 0,
        limits: calendar_events::api::args::Limits::default(),
    }
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl TestApp {
    pub async fn sqlite() -> TestApp {
        TestApp::sqlite_with(settings()).await
    }

    /// A SQLite-backed app with custom settings.
    pub async fn sqlite_with(settings: Settings) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("calendar.db").display());
        let store = Store::open_with(&url, &settings.store_options(None))
            .await
            .expect("open sqlite");
        TestApp::with_store(store, Some(dir), None, settings).await
    }

    /// `None` when PostgreSQL is unavailable outside CI.
    pub async fn postgres() -> Option<TestApp> {
        TestApp::postgres_with(settings()).await
    }

    /// A PostgreSQL-backed app with custom settings.
    pub async fn postgres_with(settings: Settings) -> Option<TestApp> {
        let template = postgres::pg_template()?;
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("cal_test_{}_{n}", std::process::id());
        pg_admin(format!("CREATE DATABASE {name} TEMPLATE {template}"))
            .expect("create test database");
        let store = Store::open(&pg_url_for(&name))
            .await
            .expect("open postgres");
        Some(TestApp::with_store(store, None, Some(name), settings).await)
    }

    pub async fn with_store(
        store: Store,
        dir: Option<tempfile::TempDir>,
        pg_database: Option<String>,
        settings: Settings,
    ) -> TestApp {
        let admin = make_user(&store, "admin", Role::Administrator).await;
        let service = Service::configured(store.clone(), &settings);
        let app = Arc::new(AppState::new(service, settings));
        TestApp {
            router: http::service(app),
            store,
            _dir: dir,
            pg_database,
            admin,
        }
    }

    /// Another app with an empty database of its own, on the same backend.
    pub async fn another(&self, settings: Settings) -> TestApp {
        match self.backend() {
            Backend::Sqlite => TestApp::sqlite_with(settings).await,
            Backend::Postgres => TestApp::postgres_with(settings)
                .await
                .expect("PostgreSQL, which this app runs on"),
        }
    }

    /// The URL the command line opens this app's database with.
    pub fn database_url(&self) -> String {
        match (&self._dir, &self.pg_database) {
            (Some(dir), _) => format!("sqlite://{}", dir.path().join("calendar.db").display()),
            (None, Some(name)) => pg_url_for(name),
            (None, None) => panic!("a second instance has no database of its own"),
        }
    }

    /// This instance's router, to send requests to it from other tasks.
    pub fn router(&self) -> axum::Router {
        self.router.clone()
    }

    /// Another server instance on the same PostgreSQL database (its own pools and cache).
    pub async fn second_instance(&self) -> Option<axum::Router> {
        let store = self.second_store().await?;
        let service = Service::configured(store, &settings());
        Some(http::service(Arc::new(AppState::new(service, settings()))))
    }

    /// Another instance on the same PostgreSQL database (its own pools and cache), as
    /// a whole test app with the same administrator; dropping it keeps the database.
    pub async fn second_app(&self) -> Option<TestApp> {
        let store = self.second_store().await?;
        let service = Service::configured(store.clone(), &settings());
        Some(TestApp {
            router: http::service(Arc::new(AppState::new(service, settings()))),
            store,
            _dir: None,
            pg_database: None,
            admin: self.admin.clone(),
        })
    }

    /// Another store on the same PostgreSQL database, as another instance opens it.
    pub async fn second_store(&self) -> Option<Store> {
        let db = self.pg_database.as_ref()?;
        Some(Store::open(&pg_url_for(db)).await.expect("second instance"))
    }

    /// Runs SQL on the database behind the server's back: no data version moves, so
    /// what the server then answers shows whether it came from its cache.
    pub async fn behind_the_servers_back(&self, sql: &str) {
        match (&self._dir, &self.pg_database) {
            (Some(dir), _) => {
                let db = rusqlite::Connection::open(dir.path().join("calendar.db")).unwrap();
                db.execute_batch(sql).unwrap();
            }
            (None, Some(name)) => {
                let (client, conn) =
                    tokio_postgres::connect(&pg_url_for(name), tokio_postgres::NoTls)
                        .await
                        .unwrap();
                let driver = tokio::spawn(conn);
                client.batch_execute(sql).await.unwrap();
                drop(client);
                let _ = driver.await;
            }
            (None, None) => panic!("no database to write to"),
        }
    }

    /// Waits until the terms deleted in steps (`store::term_deletion`) are gone, the
    /// categories moved in steps (`store::category_moves`) have their events' keys in
    /// line, and the venues and organizers trashed in steps (`store::linked_unlinks`)
    /// have no event left: the request answers before the last of them.
    pub async fn wait_for_work_in_steps(&self) {
        use calendar_events::store::{category_moves, linked_unlinks, term_deletion};
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let mut conn = self.store.pool.read().await.unwrap();
            let left = term_deletion::set_aside_terms(&mut conn).await.unwrap();
            let moving = category_moves::any_queued(&mut conn).await.unwrap();
            let unlinking = linked_unlinks::queued(&mut conn).await.unwrap();
            if left.is_empty() && !moving && unlinking.is_empty() {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "terms {left:?} still being deleted, categories moved (queued: {moving}), \
                 or posts {unlinking:?} unlinked"
            );
            drop(conn);
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    pub fn backend(&self) -> Backend {
        self.store.backend()
    }

    /// A new user of this role, with an application password.
    pub async fn user(&self, role: Role) -> TestUser {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        make_user(&self.store, &format!("{}{n}", role.as_str()), role).await
    }

    /// A request with an optional JSON body.
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>, auth: &Auth) -> Resp {
        self.call_with(method, path, body, auth, &[]).await
    }

    /// A request with an optional JSON body and more headers (`If-Match`, `Accept`, …).
    pub async fn call_with(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        auth: &Auth,
        headers: &[(&str, &str)],
    ) -> Resp {
        let mut req = Request::builder().method(method).uri(full_path(path));
        req = with_auth(req, auth);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let body = match body {
            Some(v) => {
                req = req.header(header::CONTENT_TYPE, "application/json");
                Body::from(serde_json::to_vec(&v).unwrap())
            }
            None => Body::empty(),
        };
        self.send(req.body(body).unwrap()).await
    }

    /// A request with a raw body and content type.
    pub async fn call_raw(
        &self,
        method: Method,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
        auth: &Auth,
    ) -> Resp {
        let req = with_auth(
            Request::builder()
                .method(method)
                .uri(full_path(path))
                .header(header::CONTENT_TYPE, content_type),
            auth,
        );
        self.send(req.body(Body::from(body)).unwrap()).await
    }

    pub async fn send(&self, req: Request<Body>) -> Resp {
        let resp = self
            .router
            .clone()
            .oneshot(req)
            .await
            .expect("router is infallible");
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&bytes).to_string();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            body,
            text,
        }
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.call(Method::GET, path, None, &Auth::None).await
    }

    pub async fn get_as(&self, path: &str, auth: &Auth) -> Resp {
        self.call(Method::GET, path, None, auth).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Resp {
        self.call(Method::POST, path, Some(body), &self.admin.auth())
            .await
    }

    pub async fn post_as(&self, path: &str, body: Value, auth: &Auth) -> Resp {
        self.call(Method::POST, path, Some(body), auth).await
    }

    pub async fn delete(&self, path: &str) -> Resp {
        self.call(Method::DELETE, path, None, &self.admin.auth())
            .await
    }

    pub async fn delete_as(&self, path: &str, auth: &Auth) -> Resp {
        self.call(Method::DELETE, path, None, auth).await
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(db) = self.pg_database.take() {
            let _ = pg_admin(format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
        }
    }
}

/// Paths not starting with `/` are relative to the namespace.
fn full_path(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{API}/{path}")
    }
}

fn with_auth(req: axum::http::request::Builder, auth: &Auth) -> axum::http::request::Builder {
    match auth {
        Auth::None => req,
        Auth::Basic(login, password) => {
            let token =
                base64::engine::general_purpose::STANDARD.encode(format!("{login}:{password}"));
            req.header(header::AUTHORIZATION, format!("Basic {token}"))
        }
        Auth::Bearer(token) => req.header(header::AUTHORIZATION, format!("Bearer {token}")),
    }
}

async fn make_user(store: &Store, login: &str, role: Role) -> TestUser {
    let now = chrono::Utc::now().timestamp();
    let password = format!(
        "pw-{login}-{}",
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut tx = store.pool.write().await.unwrap();
    let user = users::create(&mut tx, login, role, now).await.unwrap();
    users::add_secret(
        &mut tx,
        user.id,
        CredentialKind::AppPassword,
        "test",
        &auth_secret_hash(&password),
        now,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    TestUser {
        id: user.id,
        login: login.to_string(),
        password,
    }
}

/// Adds a bearer token for a user.
pub async fn make_token(store: &Store, user_id: i64, token: &str) {
    let mut tx = store.pool.write().await.unwrap();
    users::add_secret(
        &mut tx,
        user_id,
        CredentialKind::Token,
        "t",
        &auth_secret_hash(token),
        0,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

impl TestApp {
    pub async fn put(&self, path: &str, body: Value) -> Resp {
        self.call(Method::PUT, path, Some(body), &self.admin.auth())
            .await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Resp {
        self.call(Method::PATCH, path, Some(body), &self.admin.auth())
            .await
    }

    /// Creates an event as the administrator and returns its ID.
    pub async fn event(&self, body: Value) -> i64 {
        let r = self.post("events", body).await;
        r.assert(201);
        r.id()
    }

    /// PostgreSQL: the statistics of the search table made at once, as autovacuum
    /// makes them once enough rows are written (its index of whole words gives
    /// each piece's share of the events).
    pub async fn analyze_event_search(&self) {
        let mut tx = self.store.pool.write().await.unwrap();
        tx.conn().batch("ANALYZE event_search").await.unwrap();
        tx.commit().await.unwrap();
    }

    /// PostgreSQL: the per mille of the events holding `piece`, as the statistics
    /// of the index of whole words give it (`word_index::PIECES_SHARE`).
    pub async fn pieces_per_mille(&self, piece: &str) -> i64 {
        self.scalar(&format!(
            "(SELECT (COALESCE(sum(f.freq), 0) * 1000)::bigint FROM pg_stats s, \
             unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) \
             AS f(elem, freq) WHERE s.tablename = 'event_search_pieces' AND f.elem = '{piece}')"
        ))
        .await
    }

    /// The integer the SQL expression `sql` gives (`SELECT {sql}`), read on one of
    /// the store's connections.
    pub async fn scalar(&self, sql: &str) -> i64 {
        let mut conn = self.store.pool.read().await.unwrap();
        conn.query_one(
            &sea_query::Query::select()
                .expr(sea_query::Expr::cust(sql.to_owned()))
                .to_owned(),
            |r| r.i64(0),
        )
        .await
        .unwrap()
    }

    /// Creates a category, under `parent` if given, and returns its ID.
    pub async fn category(&self, name: &str, parent: Option<i64>) -> i64 {
        let mut body = serde_json::json!({ "name": name });
        if let Some(parent) = parent {
            body["parent"] = parent.into();
        }
        let r = self.post("categories", body).await;
        r.assert(201);
        r.id()
    }
}

/// Whether an outside tool a test drives is installed. In CI it must be (`.ci/run`
/// installs it: `how`); elsewhere a missing one skips the check, loudly.
pub fn tool_installed(present: bool, what: &str, how: &str) -> bool {
    if present {
        return true;
    }
    assert!(!ci(), "CI must install {what} ({how})");
    eprintln!("NOTE: {what} not installed ({how}); the check is SKIPPED");
    false
}

/// A server on a real loopback socket, for outside clients: the app (`make`, with
/// settings naming the socket's URL and `adjust`ed), its site URL, and the serving
/// task (abort it when done). `None` when the backend is unavailable.
pub async fn on_socket(
    make: impl AsyncFnOnce(Settings) -> Option<TestApp>,
    adjust: impl FnOnce(Settings) -> Settings,
) -> Option<(
    TestApp,
    String,
    tokio::task::JoinHandle<std::io::Result<()>>,
)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let base = Settings {
        site_url: site.clone(),
        site_host: "127.0.0.1".into(),
        ..settings()
    };
    let app = make(adjust(base)).await?;
    let router = app.router();
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    Some((app, site, server))
}

/// Runs an outside program (off the runtime's threads) that prints one JSON line,
/// and that line; a failure shows what it printed.
pub async fn run_json(program: &str, args: Vec<String>) -> Value {
    let program = program.to_string();
    let shown = format!("{program} {}", args.join(" "));
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(program).args(&args).output()
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("{shown}: {e}"));
    assert!(
        out.status.success(),
        "{shown} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{shown} printed no JSON line: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}
