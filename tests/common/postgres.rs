//! The PostgreSQL server the tests run on: its URLs, admin statements, and the
//! migrated template database each test copies.

use std::io::Write;
use std::sync::{Once, OnceLock};

use calendar_events::store::Store;

/// The administrator's PostgreSQL URL when the server is reachable; `None` (with the
/// usual notice) when it is not, outside CI.
pub fn pg_reachable() -> Option<String> {
    pg_template().map(|_| pg_admin_url())
}

/// `url` with its user replaced by `user` (and no password).
pub fn pg_url_as(url: &str, user: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    format!("{scheme}://{user}@{host}")
}

fn pg_admin_url() -> String {
    std::env::var("CALENDAR_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

pub fn pg_url_for(db: &str) -> String {
    let admin = pg_admin_url();
    match admin.rfind('/') {
        Some(i) if i > admin.find("://").map_or(0, |s| s + 2) => format!("{}/{db}", &admin[..i]),
        _ => format!("{admin}/{db}"),
    }
}

pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Runs `work` on an admin connection of its own, on a thread and runtime of its
/// own (outside any test's runtime, which may be single-threaded or ending).
fn with_admin<T: Send + 'static>(
    work: impl AsyncFnOnce(&tokio_postgres::Client) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async move {
            let mut cfg: tokio_postgres::Config =
                pg_admin_url().parse().map_err(|e| format!("{e}"))?;
            cfg.connect_timeout(std::time::Duration::from_secs(3));
            let (client, conn) = cfg
                .connect(tokio_postgres::NoTls)
                .await
                .map_err(|e| e.to_string())?;
            let handle = tokio::spawn(conn);
            let result = work(&client).await;
            drop(client);
            let _ = handle.await;
            result
        })
    })
    .join()
    .map_err(|_| "admin thread panicked".to_string())?
}

/// Runs admin statements, one at a time: CREATE/DROP DATABASE refuse implicit
/// transactions.
pub fn pg_admin(sql: String) -> Result<(), String> {
    with_admin(async move |client: &tokio_postgres::Client| {
        for stmt in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            client.batch_execute(stmt).await.map_err(|e| {
                e.as_db_error()
                    .map_or_else(|| e.to_string(), |d| d.message().to_string())
            })?;
        }
        Ok(())
    })
}

/// Drops test databases left by test processes that no longer run (a killed
/// `cargo test` cannot clean up after itself).
fn drop_stale_databases() {
    let Ok(names) =
        pg_admin_names("SELECT datname FROM pg_database WHERE datname LIKE 'cal\\_test\\_%'")
    else {
        return;
    };
    for name in names {
        // Names are cal_test_<pid>_<n>, cal_test_tmpl_<pid> and cal_test_crash_<pid>.
        let rest = name.trim_start_matches("cal_test_");
        let rest = rest
            .strip_prefix("tmpl_")
            .or_else(|| rest.strip_prefix("crash_"))
            .unwrap_or(rest);
        let pid = rest.split('_').next().and_then(|p| p.parse::<u32>().ok());
        let owner_alive = pid.is_some_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists());
        if pid.is_some() && !owner_alive {
            let _ = pg_admin(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}

/// Runs a query on the admin connection and returns its first column.
fn pg_admin_names(sql: &'static str) -> Result<Vec<String>, String> {
    with_admin(async move |client: &tokio_postgres::Client| {
        let rows = client.query(sql, &[]).await.map_err(|e| e.to_string())?;
        Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
    })
}

/// A migrated template database, made once per test process; each test copies it.
pub(super) fn pg_template() -> Option<&'static str> {
    static TEMPLATE: OnceLock<Option<String>> = OnceLock::new();
    TEMPLATE
        .get_or_init(|| {
            let name = format!("cal_test_tmpl_{}", std::process::id());
            drop_stale_databases();
            if let Err(e) = pg_admin(format!("DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}")) {
                if ci() {
                    panic!("CI=true but PostgreSQL is not reachable at {}: {e}", pg_admin_url());
                }
                static NOTICE: Once = Once::new();
                NOTICE.call_once(|| {
                    // Written past the test harness's capture so it is always seen.
                    let _ = writeln!(
                        std::io::stderr(),
                        "\nNOTE: PostgreSQL is not reachable at {} ({e}); the PostgreSQL half of the suite is SKIPPED. \
                         Set CALENDAR_TEST_PG_URL, or run .ci/run, to test both backends.\n",
                        pg_admin_url()
                    );
                });
                return None;
            }
            let url = pg_url_for(&name);
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                rt.block_on(async {
                    let store = Store::open(&url).await.expect("migrating the template database");
                    drop(store);
                });
            })
            .join()
            .expect("template migration thread");
            Some(name)
        })
        .as_deref()
}
