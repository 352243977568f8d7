//! Swagger UI at `/api-docs`, in a real browser (Debian's headless Chromium driven
//! by playwright-core, `tests/clients/browser/swagger.js`), on both backends: the
//! Authorize button takes an application password, and "Try it out" on "Create an
//! event" with the document's example body creates it. Screenshots of each step are
//! kept under `target/screenshots/api-docs/`. `.ci/run` installs Chromium (apt) and
//! playwright-core (npm); elsewhere the check is skipped, loudly, when they are missing.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const CLIENT: &str = "tests/clients/browser";

async fn swagger_ui_authorizes_and_creates(
    backend: &str,
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let installed = Path::new(&chromium).exists()
        && Path::new(CLIENT)
            .join("node_modules/playwright-core")
            .is_dir();
    let how = format!("apt-get install chromium; npm ci --prefix {CLIENT}");
    if !tool_installed(installed, "chromium and playwright-core", &how) {
        return;
    }
    let Some((app, site, server)) = on_socket(make, |s| s).await else {
        return;
    };
    let shots: PathBuf = ["target", "screenshots", "api-docs", backend]
        .iter()
        .collect();
    std::fs::create_dir_all(&shots).unwrap();
    let args = vec![
        Path::new(CLIENT).join("swagger.js").display().to_string(),
        format!("{site}/api-docs"),
        app.admin.login.clone(),
        app.admin.password.clone(),
        shots.display().to_string(),
    ];
    let seen = run_json("node", args).await;
    server.abort();
    assert_eq!(seen["status"], "201", "{seen}");
    assert_eq!(
        seen["errors"],
        serde_json::json!([]),
        "no script errors in the page"
    );
    let id = seen["id"].as_i64().unwrap();
    let event = app.get(&format!("events/{id}")).await;
    event.assert(200);
    assert_eq!(event.body["title"], seen["title"]);
    assert_eq!(event.body["venue"]["venue"], "Riverside Hall");
    for shot in [
        "api-docs.png",
        "api-docs-authorized.png",
        "api-docs-created.png",
    ] {
        assert!(shots.join(shot).is_file(), "no screenshot {shot}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swagger_ui_authorizes_and_creates_sqlite() {
    swagger_ui_authorizes_and_creates("sqlite", async |s| Some(TestApp::sqlite_with(s).await))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swagger_ui_authorizes_and_creates_postgres() {
    swagger_ui_authorizes_and_creates("postgres", TestApp::postgres_with).await;
}
