//! node-wpapi, the WordPress REST client, against the server on a real socket with
//! `--rest-root /wp-json`, on both backends: `WPAPI.discover(site)` finds the API
//! from the home page's `Link` header and the site index, then lists, creates,
//! updates and deletes events with an application password
//! (`tests/clients/wpapi/check.js`). `.ci/run` installs it (`npm ci`); elsewhere
//! the check is skipped, loudly, when it is missing.

mod common;

use std::path::Path;

use common::*;
use serde_json::json;

const CLIENT: &str = "tests/clients/wpapi";

async fn wpapi_discovers_and_writes(
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    let installed = Path::new(CLIENT).join("node_modules/wpapi").is_dir();
    if !tool_installed(
        installed,
        "node-wpapi",
        &format!("npm ci --prefix {CLIENT}"),
    ) {
        return;
    }
    let wordpress = |s| calendar_events::config::Settings {
        rest_root: "/wp-json".into(),
        tribe_namespace: true,
        ..s
    };
    let Some((app, site, server)) = on_socket(make, wordpress).await else {
        return;
    };
    let existing = app
        .post(
            "/wp-json/calendar/events/v1/events",
            event("Already here", "2027-04-01 10:00:00", "2027-04-01 11:00:00"),
        )
        .await
        .id();
    // Once in this server's namespace, once in the reference's, as a client
    // written for a WordPress site calls it.
    for namespace in ["calendar/events/v1", "tribe/events/v1"] {
        let args = vec![
            Path::new(CLIENT).join("check.js").display().to_string(),
            format!("{site}/"),
            app.admin.login.clone(),
            app.admin.password.clone(),
            namespace.to_string(),
        ];
        let seen = run_json("node", args).await;
        assert_eq!(
            seen["endpoint"],
            format!("{site}/wp-json/"),
            "discovered root"
        );
        let created = seen["created"]["id"].as_i64().unwrap();
        assert_eq!(seen["created"]["title"], "Made by wpapi");
        assert_eq!(seen["listed"], json!([existing, created]));
        assert_eq!(seen["total"], 2, "wpapi read X-WP-Total");
        assert_eq!(seen["one"], "Made by wpapi");
        assert_eq!(seen["updated"], "Renamed by wpapi");
        assert_eq!(seen["deleted"], created);
        assert_eq!(seen["after"], json!([existing]));
        // And the server agrees: the event is gone for good.
        app.get(&format!("/wp-json/{namespace}/events/{created}"))
            .await
            .assert(400);
    }
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wpapi_discovers_and_writes_sqlite() {
    wpapi_discovers_and_writes(async |s| Some(TestApp::sqlite_with(s).await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wpapi_discovers_and_writes_postgres() {
    wpapi_discovers_and_writes(TestApp::postgres_with).await;
}
