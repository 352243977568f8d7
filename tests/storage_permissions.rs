//! A SQLite file the server may not write: writes are refused with 503 while reads
//! go on, and they resume, without a restart, once the file is writable again.

mod process;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use process::{Http, Server, create_admin};
use serde_json::json;

/// The user the server runs as: this one, or `nobody` when this one is root,
/// whom file permissions do not stop.
fn service_user() -> Option<(u32, u32)> {
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find(|l| l.starts_with("Uid:"))?
        .split_whitespace()
        .nth(1)
        == Some("0");
    root.then_some((65534, 65534))
}

#[tokio::test]
async fn writes_resume_without_a_restart_once_the_file_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calendar.db");
    let url = format!("sqlite://{}", path.display());
    let password = create_admin(&url, "admin");
    let user = service_user();
    if let Some((uid, gid)) = user {
        for p in [dir.path(), &path] {
            std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
        }
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let server = match user {
        Some(ids) => Server::start_as(&url, ids),
        None => Server::start(&url),
    };
    let http = Http::new("admin", &password);
    let venues = server.url("/calendar/events/v1/venues");
    let create = |name: &str| {
        let (http, venues, name) = (http.clone(), venues.clone(), name.to_string());
        async move {
            http.send("POST", &venues, Some(&json!({"venue": name})))
                .await
                .unwrap()
        }
    };
    let (status, body) = create("Refused").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (503, Some("rest_unavailable")),
        "{body}"
    );
    let (status, _) = http.send("GET", &venues, None).await.unwrap();
    assert_eq!(status, 200, "reads go on");

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let id = loop {
        let (status, body) = create("Accepted").await;
        if status == 201 {
            break body["id"].as_i64().unwrap();
        }
        assert_eq!(status, 503, "{body}");
        assert!(Instant::now() < deadline, "writes did not resume: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let (status, body) = http
        .send("GET", &format!("{venues}/{id}"), None)
        .await
        .unwrap();
    assert_eq!((status, body["venue"].as_str()), (200, Some("Accepted")));
    for i in 0..5 {
        let (status, body) = create(&format!("More {i}")).await;
        assert_eq!(status, 201, "{body}");
    }
    drop(server);
}
