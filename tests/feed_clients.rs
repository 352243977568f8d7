//! The iCalendar feed read by real consumers: the PyPI `icalendar` package and a
//! Radicale CalDAV server (`tests/clients/feed_check.py`), against the server on a
//! real socket, on both backends. `.ci/run` installs both packages; elsewhere the
//! check is skipped, loudly, when they are missing.

mod common;

use common::*;
use serde_json::json;

async fn check_with_consumers(
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    let installed = std::process::Command::new("python3")
        .args(["-c", "import icalendar, radicale"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !tool_installed(installed, "icalendar and radicale", "pip") {
        return;
    }
    let Some((app, site, server)) = on_socket(make, |s| s).await else {
        return;
    };

    // Across both 2027 changes in Paris, New York's spring change, an all-day
    // event, a long description that folds inside multi-byte characters.
    app.event(with(
        event("Nuit blanche", "2027-03-27 23:00:00", "2027-03-28 04:00:00"),
        json!({"timezone": "Europe/Paris", "description": "Crème brûlée, café; thé. ".repeat(12)}),
    ))
    .await;
    app.event(with(
        event(
            "Autumn change",
            "2027-10-31 01:30:00",
            "2027-10-31 03:30:00",
        ),
        json!({"timezone": "Europe/Paris"}),
    ))
    .await;
    app.event(with(
        event("Brunch", "2027-03-14 01:00:00", "2027-03-14 04:00:00"),
        json!({"timezone": "America/New_York", "venue": {"venue": "Diner", "city": "New York"}}),
    ))
    .await;
    app.event(with(
        event("Holiday", "2027-07-14 00:00:00", "2027-07-14 23:59:59"),
        json!({"all_day": true, "timezone": "Europe/Paris"}),
    ))
    .await;
    app.event(event(
        "In UTC",
        "2027-05-05 12:00:00",
        "2027-05-05 13:00:00",
    ))
    .await;

    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/clients/feed_check.py"
            ))
            .arg(&site)
            .arg("start_date=2027-01-01&end_date=2027-12-31")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    server.abort();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains("ok: 5 events"), "{report}");
    assert!(
        report.contains("America/New_York") && report.contains("Europe/Paris"),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_consumers_read_the_feed_sqlite() {
    check_with_consumers(async |s| Some(TestApp::sqlite_with(s).await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_consumers_read_the_feed_postgres() {
    check_with_consumers(TestApp::postgres_with).await;
}
