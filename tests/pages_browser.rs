//! The calendar's pages in a real browser and through the Nu HTML Checker, on both
//! backends. `tests/clients/browser/pages.js` drives Debian's headless Chromium
//! (playwright-core) with JavaScript off, as a visitor: month → day → event → venue →
//! back, a category filter, the password form, the language switch; each view at
//! 1280 and 375 px (screenshots under `target/screenshots/pages/`), and axe-core on
//! each (no serious or critical violation). Every view's HTML is then checked by
//! the Nu HTML Checker (`vnu-jar`, on the machine's Java): no error. `.ci/run`
//! installs Chromium (apt) and the npm packages; elsewhere the checks are skipped,
//! loudly, when they are missing.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{Value, json};

const CLIENT: &str = "tests/clients/browser";
const MONTH: &str = "/events/month/2027-03/";

/// A month of events: a three-day festival, a busy day, a protected tasting.
async fn calendar(app: &TestApp) -> (String, String) {
    let admin = app.admin.auth();
    let music = app
        .post_as("categories", json!({"name": "Music"}), &admin)
        .await
        .id();
    app.post_as("categories", json!({"name": "Theatre"}), &admin)
        .await
        .assert(201);
    let hall = app
        .post_as(
            "venues",
            json!({"venue": "Riverside Hall", "address": "1 River Rd", "city": "Lyon",
                   "country": "France", "geo_lat": 45.76, "geo_lng": 4.84}),
            &admin,
        )
        .await
        .id();
    let council = app
        .post_as(
            "organizers",
            json!({"organizer": "Arts Council", "email": "arts@council.example", "phone": "+33 4 00 00 00 00"}),
            &admin,
        )
        .await
        .id();
    let linked = json!({"venue": hall, "organizer": [council], "categories": [music]});
    app.post_as(
        "events",
        with(
            event(
                "Spring Festival",
                "2027-03-05 10:00:00",
                "2027-03-07 22:00:00",
            ),
            with(
                linked.clone(),
                json!({"description": "<p>Three <em>days</em> of music</p>", "cost": "25"}),
            ),
        ),
        &admin,
    )
    .await
    .assert(201);
    for hour in 9..14 {
        let start = format!("2027-03-12 {hour:02}:00:00");
        let end = format!("2027-03-12 {hour:02}:45:00");
        app.post_as(
            "events",
            with(
                event(&format!("Workshop {hour}h"), &start, &end),
                linked.clone(),
            ),
            &admin,
        )
        .await
        .assert(201);
    }
    app.post_as(
        "events",
        with(
            event("Wine tasting", "2027-03-20 18:00:00", "2027-03-20 20:00:00"),
            json!({"password": "vintage", "description": "<p>Grand cru</p>", "slug": "wine-tasting"}),
        ),
        &admin,
    )
    .await
    .assert(201);
    ("/event/wine-tasting/".into(), "vintage".into())
}

fn installed() -> bool {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let modules = Path::new(CLIENT).join("node_modules");
    let present = Path::new(&chromium).exists()
        && modules.join("playwright-core").is_dir()
        && modules.join("axe-core").is_dir()
        && modules.join("vnu-jar").is_dir();
    let how = format!("apt-get install chromium; npm ci --prefix {CLIENT}");
    tool_installed(
        present,
        "chromium, playwright-core, axe-core and vnu-jar",
        &how,
    )
}

async fn pages_work_in_a_browser(
    backend: &str,
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    if !installed() {
        return;
    }
    let Some((app, site, server)) = on_socket(make, |s| s).await else {
        return;
    };
    let (protected, password) = calendar(&app).await;
    let shots: PathBuf = ["target", "screenshots", "pages", backend].iter().collect();
    std::fs::create_dir_all(&shots).unwrap();
    let args = vec![
        Path::new(CLIENT).join("pages.js").display().to_string(),
        site.clone(),
        MONTH.into(),
        protected.clone(),
        password,
        shots.display().to_string(),
    ];
    let seen = run_json("node", args).await;
    server.abort();
    assert_eq!(
        seen["month"]["cells"], 35,
        "five weeks of March 2027: {seen}"
    );
    assert!(
        seen["day"]["url"]
            .as_str()
            .unwrap()
            .contains("/events/2027-03-"),
        "{seen}"
    );
    assert!(seen["day"]["events"].as_u64().unwrap() >= 1, "{seen}");
    assert!(
        seen["event"]["url"].as_str().unwrap().contains("/event/"),
        "{seen}"
    );
    assert_eq!(seen["venue"]["h1"], "Riverside Hall", "{seen}");
    assert_eq!(seen["back"]["url"], seen["event"]["url"], "{seen}");
    let filter = &seen["filter"];
    assert!(
        filter["url"].as_str().unwrap().contains("categories="),
        "{seen}"
    );
    assert!(
        filter["after"].as_u64() < filter["before"].as_u64(),
        "{seen}"
    );
    assert!(
        filter["feed"].as_u64().unwrap() >= 1,
        "a filtered view links its feed: {seen}"
    );
    assert_eq!(seen["password"]["refused"], 1, "{seen}");
    assert_eq!(seen["password"]["description"], "Grand cru", "{seen}");
    assert!(
        seen["language"]["url"].as_str().unwrap().contains("/fr/"),
        "{seen}"
    );
    assert_eq!(seen["language"]["lang"], "fr", "{seen}");
    assert_eq!(
        seen["overflow"],
        json!({}),
        "nothing wider than a phone: {seen}"
    );
    assert_eq!(seen["violations"], json!([]), "axe-core: {seen}");
    assert_eq!(seen["errors"], json!([]), "no errors in the pages: {seen}");
    let views = [
        "month", "day", "event", "venue", "list", "filtered", "password", "french",
    ];
    let urls: Vec<String> = views
        .iter()
        .map(|v| match *v {
            "month" => format!("{site}{MONTH}"),
            "list" => format!("{site}/events/list/"),
            "password" => format!("{site}{protected}"),
            "day" | "event" | "venue" => seen[*v]["url"].as_str().unwrap().to_string(),
            "filtered" => seen["filter"]["url"].as_str().unwrap().to_string(),
            _ => seen["language"]["url"].as_str().unwrap().to_string(),
        })
        .collect();
    valid_html(&app, &site, &views, &urls).await;
    for name in [
        "month",
        "day",
        "event",
        "venue",
        "list-filtered",
        "password-opened",
        "month-fr",
        "event-375",
    ] {
        assert!(
            shots.join(format!("{name}.png")).is_file(),
            "no screenshot {name}"
        );
    }
}

/// Each view's HTML, as the server sends it, through the Nu HTML Checker.
async fn valid_html(app: &TestApp, site: &str, views: &[&str], urls: &[String]) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (view, url) in views.iter().zip(urls) {
        let page = app.get(url.strip_prefix(site).unwrap()).await;
        page.assert(200);
        let file = dir.path().join(format!("{view}.html"));
        std::fs::write(&file, &page.text).unwrap();
        files.push(file.display().to_string());
    }
    let jar = Path::new(CLIENT).join("node_modules/vnu-jar/build/dist/vnu.jar");
    let mut args = vec![
        "-jar".to_string(),
        jar.display().to_string(),
        "--errors-only".into(),
        "--format".into(),
        "json".into(),
        "--stdout".into(),
    ];
    args.extend(files);
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("java")
            .args(&args)
            .output()
            .expect("run java")
    })
    .await
    .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "vnu printed no JSON: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        report["messages"],
        json!([]),
        "the Nu HTML Checker: {report:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_work_in_a_browser_sqlite() {
    pages_work_in_a_browser("sqlite", async |s| Some(TestApp::sqlite_with(s).await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_work_in_a_browser_postgres() {
    pages_work_in_a_browser("postgres", TestApp::postgres_with).await;
}
