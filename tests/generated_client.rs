//! A client generated from the live `/doc` by openapi-python-client runs a full
//! workflow against the server on a real socket, on both backends: terms, a venue,
//! an organizer, an event linking them, a filtered list, a read by slug, an update,
//! trash, restore and force delete, with a bearer token, every answer parsed into
//! the generated models with no undeclared field (`tests/clients/openapi_python_client`).
//! `.ci/run` installs the generator (pip); elsewhere the check is skipped, loudly,
//! when it is missing.

mod common;

use common::*;
use serde_json::json;

const WORKFLOW: &str = "tests/clients/openapi_python_client/workflow.py";

async fn generated_client_runs_the_workflow(
    make: impl AsyncFnOnce(calendar_events::config::Settings) -> Option<TestApp>,
) {
    let installed = std::process::Command::new("openapi-python-client")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !tool_installed(installed, "openapi-python-client", "pip") {
        return;
    }
    let Some((app, site, server)) = on_socket(make, |s| s).await else {
        return;
    };
    let token = "generated-client-token-0123456789";
    make_token(&app.store, app.admin.id, token).await;
    let args = vec![
        WORKFLOW.to_string(),
        format!("{site}{API}"),
        token.to_string(),
    ];
    let seen = run_json("python3", args).await;
    server.abort();
    let event = seen["event"].clone();
    assert_eq!(seen["venue"], "Riverside Hall");
    assert_eq!(seen["organizers"], json!(["City Arts Council"]));
    assert_eq!(seen["categories"], json!(["Jazz"]));
    assert_eq!(seen["tags"], json!(["free"]));
    assert_eq!(seen["listed"], json!([event.clone()]));
    assert_eq!(seen["total"], 1);
    assert_eq!(seen["by_slug"], event);
    assert_eq!(seen["updated"], "Winter Jazz Night (moved)");
    assert_eq!(seen["trashed"], "trash");
    assert_eq!(seen["restored"], "publish");
    assert_eq!(seen["deleted"], event);
    assert_eq!(seen["gone"], 400, "deleted for good");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_client_runs_the_workflow_sqlite() {
    generated_client_runs_the_workflow(async |s| Some(TestApp::sqlite_with(s).await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_client_runs_the_workflow_postgres() {
    generated_client_runs_the_workflow(TestApp::postgres_with).await;
}
