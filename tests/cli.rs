//! The command line as an operator types it: options in either position, and a
//! PostgreSQL database that does not exist yet.

mod common;
mod process;

use std::process::Command;

use process::BIN;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("CALENDAR_DATABASE_URL")
        .output()
        .expect("run the binary");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Makes `root` an administrator of the calendar at `url`.
fn create_administrator(url: &str) {
    let (ok, _, err) = run(&[
        "user",
        "create",
        "root",
        "--role",
        "administrator",
        "--database-url",
        url,
    ]);
    assert!(ok, "{err}");
}

fn logins(url: &str) -> Vec<String> {
    let (ok, stdout, stderr) = run(&["user", "list", "--database-url", url]);
    assert!(ok, "user list: {stderr}");
    stdout
        .lines()
        .filter_map(|l| l.split('\t').nth(1).map(str::to_string))
        .collect()
}

#[test]
fn the_database_url_works_before_or_after_the_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let before = format!("sqlite://{}", dir.path().join("before.db").display());
    let after = format!("sqlite://{}", dir.path().join("after.db").display());
    let (ok, _, err) = run(&[
        "--database-url",
        &before,
        "user",
        "create",
        "ann",
        "--role",
        "editor",
    ]);
    assert!(ok, "{err}");
    let (ok, _, err) = run(&[
        "user",
        "create",
        "bob",
        "--role",
        "author",
        "--database-url",
        &after,
    ]);
    assert!(ok, "{err}");
    let (ok, _, err) = run(&["--database-url", &before, "token", "create", "ann"]);
    assert!(ok, "{err}");
    let (ok, out, err) = run(&["--database-url", &after, "migrate"]);
    assert!(ok && out.contains("up to date"), "{err}");
    assert_eq!(logins(&before), ["ann"]);
    assert_eq!(logins(&after), ["bob"]);
}

#[test]
fn serve_options_before_another_subcommand_are_refused_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("c.db").display());
    let (ok, _, err) = run(&[
        "--bind",
        "127.0.0.1:1",
        "--database-url",
        &url,
        "user",
        "list",
    ]);
    assert!(!ok);
    assert!(err.contains("--bind applies to `serve` only"), "{err}");
    let (ok, _, err) = run(&[
        "--timezone",
        "Europe/Paris",
        "serve",
        "--database-url",
        &url,
    ]);
    assert!(!ok);
    assert!(err.contains("--timezone goes after `serve`"), "{err}");
    assert!(
        !dir.path().join("c.db").exists(),
        "nothing ran: the database was not even created"
    );
}

#[test]
fn a_missing_postgresql_database_is_created_or_explained() {
    let Some(admin) = common::pg_reachable() else {
        return;
    };
    let pid = std::process::id();
    let (db, role) = (
        format!("cal_test_cli_{pid}"),
        format!("cal_test_role_{pid}"),
    );
    let cleanup = || {
        let _ = common::pg_admin(format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
        let _ = common::pg_admin(format!("DROP DATABASE IF EXISTS {db}_x WITH (FORCE)"));
        let _ = common::pg_admin(format!("DROP ROLE IF EXISTS {role}"));
    };
    cleanup();
    let url = common::pg_url_for(&db);
    let (ok, _, err) = run(&[
        "--database-url",
        &url,
        "user",
        "create",
        "ann",
        "--role",
        "editor",
    ]);
    assert!(ok, "a fresh database is created: {err}");
    assert_eq!(logins(&url), ["ann"]);

    common::pg_admin(format!("CREATE ROLE {role} LOGIN")).unwrap();
    let as_role = common::pg_url_as(&admin, &role);
    let url = format!("{}/{db}_x", &as_role[..as_role.rfind('/').unwrap()]);
    let (ok, _, err) = run(&["migrate", "--database-url", &url]);
    cleanup();
    assert!(!ok);
    assert!(
        err.contains(&format!("role \"{role}\" may not create databases"))
            && err.contains("CREATE DATABASE"),
        "{err}"
    );
}

#[test]
fn export_and_import_move_a_calendar_between_databases() {
    let dir = tempfile::tempdir().unwrap();
    let from = format!("sqlite://{}", dir.path().join("from.db").display());
    let to = format!("sqlite://{}", dir.path().join("to.db").display());
    let file = dir.path().join("calendar.jsonl");
    let file = file.to_str().unwrap();
    // An empty calendar exports nothing, and an import needs an administrator.
    let (ok, _, err) = run(&["export", "--output", file, "--database-url", &from]);
    assert!(ok, "{err}");
    assert!(err.contains("event: 0 exported"), "{err}");
    let (ok, _, err) = run(&["import", file, "--database-url", &to]);
    assert!(!ok && err.contains("administrator"), "{err}");
    create_administrator(&to);
    std::fs::write(
        file,
        concat!(
            r#"{"kind":"category","item":{"id":5,"name":"Music","description":"","slug":"music","parent":0}}"#,
            "\n",
            r#"{"kind":"event","item":{"id":9,"title":"Jazz","status":"publish","start_date":"2027-01-01 20:00:00","end_date":"2027-01-01 22:00:00","timezone":"UTC","categories":[{"id":5}]}}"#,
            "\n",
            r#"{"kind":"event","item":{"id":10,"title":"Broken"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let (ok, out, err) = run(&["import", file, "--database-url", &to]);
    assert!(!ok, "a refused item fails the import");
    assert!(
        out.contains("category: 1 imported, 0 updated, 0 not"),
        "{out}"
    );
    assert!(out.contains("event: 1 imported, 0 updated, 1 not"), "{out}");
    assert!(err.contains("not imported: event 10"), "{err}");
    let (ok, _, err) = run(&[
        "export",
        "--output",
        file,
        "--site",
        "https://events.example.org",
        "--database-url",
        &to,
    ]);
    assert!(ok && err.contains("event: 1 exported"), "{err}");
    let written = std::fs::read_to_string(file).unwrap();
    assert!(written.contains(r#""title":"Jazz""#) && written.contains(r#""name":"Music""#));
    // The site names the posts: what an import recognises them by.
    assert!(
        written.contains(r#""global_id":"events.example.org?id="#),
        "{written}"
    );
    // The events as one iCalendar file, for calendar applications.
    let (ok, ics, err) = run(&["export", "--format", "ics", "--database-url", &to]);
    assert!(ok && err.contains("event: 1 exported"), "{err}");
    assert!(ics.starts_with("BEGIN:VCALENDAR\r\n"), "{ics}");
    assert!(
        ics.contains("SUMMARY:Jazz\r\n") && ics.contains("CATEGORIES:Music\r\n"),
        "{ics}"
    );
    assert!(ics.trim_end().ends_with("END:VCALENDAR"), "{ics}");
}

#[test]
fn import_names_its_source_checks_with_a_dry_run_and_reads_icalendar() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("calendar.db").display());
    let (ok, _, err) = run(&["import", "--database-url", &url]);
    assert!(!ok && err.contains("name what to import"), "{err}");
    create_administrator(&url);
    let file = dir.path().join("feed.ics");
    std::fs::write(
        &file,
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a@t\r\n\
         SUMMARY:Picnic\r\nDTSTART:20270601T100000Z\r\nDTEND:20270601T120000Z\r\nEND:VEVENT\r\n\
         END:VCALENDAR\r\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    // A dry run checks the file and says what it would do, writing nothing.
    let (ok, out, err) = run(&["import", "ics", file, "--dry-run", "--database-url", &url]);
    assert!(ok, "{err}");
    assert!(
        out.contains("event: 1 would be imported, 0 would be updated, 0 not"),
        "{out}"
    );
    let (ok, out, err) = run(&["export", "--database-url", &url]);
    assert!(ok && out.is_empty(), "{out}{err}");
    let (ok, out, err) = run(&["import", "ics", file, "--database-url", &url]);
    assert!(
        ok && out.contains("event: 1 imported, 0 updated, 0 not"),
        "{out}{err}"
    );
    // Run again, the same file updates what the first run created.
    let (ok, out, err) = run(&["import", "ics", file, "--dry-run", "--database-url", &url]);
    assert!(
        ok && out.contains("event: 0 would be imported, 1 would be updated"),
        "{out}{err}"
    );
    let (ok, out, err) = run(&["import", "ics", file, "--database-url", &url]);
    assert!(
        ok && out.contains("event: 0 imported, 1 updated, 0 not"),
        "{out}{err}"
    );
    // A site that is not there is named in the error.
    let (ok, _, err) = run(&[
        "import",
        "tec",
        "ftp://nowhere.invalid",
        "--database-url",
        &url,
    ]);
    assert!(
        !ok && err.contains("no Events Calendar API found at ftp://nowhere.invalid"),
        "{err}"
    );
}
