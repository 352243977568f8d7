//! node-wpapi, the WordPress REST client, against the server on a real socket with
//! `--rest-root /wp-json`, on both backends: `WPAPI.discover(site)` finds the API
//! from the home page's `Link` header and the site index, then lists, creates,
//! updates and deletes events with an application password
//! (`tests/clients/wpapi/check.js`). `.ci/run` installs it (`npm ci`); elsewhere
//! the check is skipped, loudly, when it is missing.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

const CLIENT: &str = "tests/clients/wpapi";

fn client_installed() -> bool {
    if Path::new(CLIENT).join("node_modules/wpapi").is_dir() {
        return true;
    }
    assert!(
        !ci(),
        "CI must install node-wpapi (npm ci --prefix {CLIENT})"
    );
    eprintln!("NOTE: node-wpapi not installed (npm ci --prefix {CLIENT}); the check is SKIPPED");
    false
}

async fn wpapi_discovers_and_writes(
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    if !client_installed() {
        return;
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let settings = calendar_events::config::Settings {
        site_url: site.clone(),
        site_host: "127.0.0.1".into(),
        rest_root: "/wp-json".into(),
        tribe_namespace: true,
        ..settings()
    };
    let Some(app) = make(settings).await else {
        return;
    };
    let router = app.router();
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    let existing = app
        .post(
            "/wp-json/calendar/events/v1/events",
            with(
                event("Already here", "2027-04-01 10:00:00", "2027-04-01 11:00:00"),
                serde_json::json!({}),
            ),
        )
        .await
        .id();
    // Once in this server's namespace, once in the reference's, as a client
    // written for a WordPress site calls it.
    for namespace in ["calendar/events/v1", "tribe/events/v1"] {
        let seen = run_wpapi(&site, &app.admin, namespace).await;
        assert_eq!(
            seen["endpoint"],
            format!("{site}/wp-json/"),
            "discovered root"
        );
        let created = seen["created"]["id"].as_i64().unwrap();
        assert_eq!(seen["created"]["title"], "Made by wpapi");
        assert_eq!(seen["listed"], serde_json::json!([existing, created]));
        assert_eq!(seen["total"], 2, "wpapi read X-WP-Total");
        assert_eq!(seen["one"], "Made by wpapi");
        assert_eq!(seen["updated"], "Renamed by wpapi");
        assert_eq!(seen["deleted"], created);
        assert_eq!(seen["after"], serde_json::json!([existing]));
        // And the server agrees: the event is gone for good.
        app.get(&format!("/wp-json/{namespace}/events/{created}"))
            .await
            .assert(400);
    }
    server.abort();
}

/// Runs `check.js` in one namespace; what it saw.
async fn run_wpapi(site: &str, admin: &TestUser, namespace: &str) -> Value {
    let args = [
        Path::new(CLIENT).join("check.js").display().to_string(),
        format!("{site}/"),
        admin.login.clone(),
        admin.password.clone(),
        namespace.to_string(),
    ];
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node").args(&args).output()
    })
    .await
    .unwrap()
    .expect("node runs");
    assert!(
        out.status.success(),
        "wpapi failed in {namespace}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON line")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wpapi_discovers_and_writes_sqlite() {
    wpapi_discovers_and_writes(async |s| Some(TestApp::sqlite_with(s).await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wpapi_discovers_and_writes_postgres() {
    wpapi_discovers_and_writes(TestApp::postgres_with).await;
}
