//! The calendar pages in a real browser (Debian's headless Chromium driven by
//! playwright-core, `tests/clients/browser/pages.js`), on both backends, at 375 and
//! 1280 pixels wide: month → day → event → venue → back, the filter form, the
//! password form and the language switch work without JavaScript of their own, and
//! axe-core finds no serious or critical accessibility violation on any of them.
//! Screenshots of each step are kept under `target/screenshots/pages/`. Every view's
//! HTML also passes the Nu HTML Checker (`vnu-jar`, on the machine's Java) without
//! an error or a warning. `.ci/run` installs Chromium (apt) and the npm packages;
//! elsewhere the checks are skipped, loudly, when they are missing.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{Value, json};

const CLIENT: &str = "tests/clients/browser";

/// The calendar the visit walks through.
async fn calendar(app: &TestApp) {
    let venue = app
        .post(
            "venues",
            json!({"venue": "Blue Room", "address": "2 Quay", "city": "Springfield"}),
        )
        .await;
    venue.assert(201);
    let jazz = with(
        event("Jazz Night", "2027-03-10 19:00:00", "2027-03-10 21:00:00"),
        json!({"venue": venue.id(), "categories": [{"name": "Music"}]}),
    );
    app.event(jazz).await;
    app.event(event(
        "Book Club",
        "2027-03-11 19:00:00",
        "2027-03-11 21:00:00",
    ))
    .await;
    let protected = with(
        event(
            "Members Meeting",
            "2027-03-12 18:00:00",
            "2027-03-12 19:00:00",
        ),
        json!({"password": "open sesame", "description": "<p>Room 101</p>"}),
    );
    app.event(protected).await;
}

fn check_width(seen: &Value) {
    assert_eq!(seen["day"], "/events/2027-03-10/", "{seen}");
    assert_eq!(seen["event"], "Jazz Night");
    assert_eq!(seen["venue"], "Blue Room");
    assert_eq!(seen["back"], "/event/jazz-night/");
    assert_eq!(seen["filtered"], "?search=&category=music&venue=");
    assert_eq!(seen["filteredTitles"], json!(["Jazz Night"]));
    assert_eq!(seen["unlocked"], "Room 101");
    assert_eq!(seen["lang"], "fr");
    assert_eq!(seen["frenchHeading"], "Évènements à venir");
}

async fn a_visitor_walks_the_calendar(
    backend: &str,
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let modules = Path::new(CLIENT).join("node_modules");
    let installed = Path::new(&chromium).exists()
        && modules.join("playwright-core").is_dir()
        && modules.join("axe-core").is_dir();
    let how = format!("apt-get install chromium; npm ci --prefix {CLIENT}");
    if !tool_installed(installed, "chromium, playwright-core and axe-core", &how) {
        return;
    }
    let Some((app, site, server)) = on_socket(make, |s| s).await else {
        return;
    };
    calendar(&app).await;
    let shots: PathBuf = ["target", "screenshots", "pages", backend].iter().collect();
    std::fs::create_dir_all(&shots).unwrap();
    let args = vec![
        Path::new(CLIENT).join("pages.js").display().to_string(),
        site,
        shots.display().to_string(),
        "open sesame".into(),
    ];
    let seen = run_json("node", args).await;
    server.abort();
    assert_eq!(seen["violations"], json!([]), "axe-core: {seen}");
    assert_eq!(
        seen["overflow"],
        json!([]),
        "pages wider than the window: {seen}"
    );
    assert_eq!(seen["errors"], json!([]), "script errors: {seen}");
    for width in ["375", "1280"] {
        check_width(&seen["widths"][width]);
        for shot in [
            "month", "day", "event", "venue", "filtered", "password", "french",
        ] {
            let file = shots.join(format!("{shot}-{width}.png"));
            assert!(file.is_file(), "no screenshot {}", file.display());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_walks_the_calendar_sqlite() {
    a_visitor_walks_the_calendar("sqlite", async |s| Some(TestApp::sqlite_with(s).await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_walks_the_calendar_postgres() {
    a_visitor_walks_the_calendar("postgres", TestApp::postgres_with).await;
}

/// One page of each kind, as a visitor's browser gets it.
const VIEWS: &[&str] = &[
    "/",
    "/events/month/2027-03/",
    "/events/2027-03-10/",
    "/event/jazz-night/",
    "/event/members-meeting/",
    "/venue/blue-room/",
    "/events/category/music/",
    "/events/?category=music&search=jazz",
    "/fr/events/month/2027-03/",
    "/de/event/jazz-night/",
    "/event/no-such-event/",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_view_is_valid_html() {
    let jar = Path::new(CLIENT).join("node_modules/vnu-jar/build/dist/vnu.jar");
    let java = std::process::Command::new("java")
        .arg("-version")
        .output()
        .is_ok();
    let how = format!("a Java runtime; npm ci --prefix {CLIENT}");
    if !tool_installed(java && jar.is_file(), "java and vnu-jar", &how) {
        return;
    }
    let app = TestApp::sqlite().await;
    calendar(&app).await;
    let dir: PathBuf = ["target", "html", "pages"].iter().collect();
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (i, path) in VIEWS.iter().enumerate() {
        let r = app.get(path).await;
        assert_eq!(
            r.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        let file = dir.join(format!("{i:02}.html"));
        std::fs::write(&file, &r.text).unwrap();
        files.push(file.display().to_string());
    }
    let mut args = vec![
        "-jar".to_string(),
        jar.display().to_string(),
        "--format".into(),
        "json".into(),
    ];
    args.extend(files);
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("java").args(&args).output()
    })
    .await
    .unwrap()
    .expect("java runs");
    // The checker reports on standard error, as JSON.
    let report: Value = serde_json::from_slice(&out.stderr)
        .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        report["messages"],
        json!([]),
        "pages in {}: {report:#}",
        dir.display()
    );
}
