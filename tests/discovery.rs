//! The namespace index, `/doc`, languages and the API reference page: derived
//! from one route table, they must agree with each other and with the router.

mod common;

use std::collections::BTreeSet;
use std::io::Write;

use axum::http::Method;
use calendar_events::api::table::{Location, ROUTES};
use common::*;
use serde_json::{Value, json};

/// `(METHOD, path, parameter)` with paths in `/events/{id}` form.
type Triples = BTreeSet<(String, String, String)>;

fn table_triples() -> Triples {
    let mut out = Triples::new();
    for route in ROUTES {
        let path = if route.path.is_empty() {
            "/".to_string()
        } else {
            route.path.to_string()
        };
        for ep in route.endpoints {
            for m in ep.methods {
                out.insert((m.to_string(), path.clone(), String::new()));
                for a in ep.args {
                    out.insert((m.to_string(), path.clone(), a.name.to_string()));
                }
            }
        }
    }
    out
}

fn index_triples(index: &Value) -> Triples {
    let mut out = Triples::new();
    for (key, route) in index["routes"].as_object().unwrap() {
        let path = key
            .trim_start_matches("/calendar/events/v1")
            .replace(r"(?P<id>\d+)", "{id}")
            .replace("(?P<slug>[^/]+)", "{slug}");
        let path = if path.is_empty() {
            "/".to_string()
        } else {
            path
        };
        for ep in route["endpoints"].as_array().unwrap() {
            for m in ep["methods"].as_array().unwrap() {
                let m = m.as_str().unwrap().to_string();
                out.insert((m.clone(), path.clone(), String::new()));
                for name in ep["args"].as_object().unwrap().keys() {
                    out.insert((m.clone(), path.clone(), name.clone()));
                }
            }
        }
    }
    out
}

fn doc_triples(doc: &Value) -> Triples {
    let mut out = Triples::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let m = method.to_uppercase();
            out.insert((m.clone(), path.clone(), String::new()));
            for p in op["parameters"].as_array().into_iter().flatten() {
                // HTTP's conditional-request headers and the iCalendar switch are
                // this server's own, on top of the reference's arguments (checked in
                // `conditional_requests_and_feeds_are_documented`).
                if p["in"] == "header" || p["name"] == "ical" {
                    continue;
                }
                out.insert((
                    m.clone(),
                    path.clone(),
                    p["name"].as_str().unwrap().to_string(),
                ));
            }
            if let Some(props) =
                op["requestBody"]["content"]["application/json"]["schema"]["properties"].as_object()
            {
                for name in props.keys() {
                    out.insert((m.clone(), path.clone(), name.clone()));
                }
            }
        }
    }
    out
}

both!(
    index_doc_and_table_describe_the_same_routes_and_parameters,
    |app| async move {
        let index = app.get("").await;
        index.assert(200);
        let doc = app.get("doc").await;
        doc.assert(200);
        let table = table_triples();
        assert_eq!(
            index_triples(&index.body),
            table,
            "index and route table differ"
        );
        assert_eq!(doc_triples(&doc.body), table, "/doc and route table differ");
    }
);

both!(
    conditional_requests_and_feeds_are_documented,
    |app| async move {
        let doc = app.get("doc").await;
        doc.assert(200);
        let names = |path: &str, method: &str| -> Vec<String> {
            doc.body["paths"][path][method]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect()
        };
        let list = names("/events", "get");
        assert!(list.contains(&"ical".into()) && list.contains(&"If-None-Match".into()));
        let responses = &doc.body["paths"]["/events/{id}"]["get"]["responses"];
        assert!(responses["200"]["content"]["text/calendar"].is_object());
        assert!(responses["200"]["headers"]["ETag"].is_object());
        assert!(responses["304"].is_object());
        let update = names("/events/{id}", "put");
        assert!(
            update.contains(&"If-Match".into()) && update.contains(&"If-Unmodified-Since".into())
        );
        assert!(doc.body["paths"]["/venues/{id}"]["delete"]["responses"]["412"].is_object());
        assert!(!names("/venues", "get").contains(&"ical".into()));
        // The lists whose searches count up to a limit say how they tell it; terms' do not.
        for list in ["/events", "/venues", "/organizers"] {
            let headers = &doc.body["paths"][list]["get"]["responses"]["200"]["headers"];
            assert!(headers["X-Calendar-Total"].is_object(), "{list}");
        }
        let headers = &doc.body["paths"]["/tags"]["get"]["responses"]["200"]["headers"];
        assert!(headers["X-WP-Total"].is_object() && headers["X-Calendar-Total"].is_null());
    }
);

both!(
    every_documented_operation_is_routed_and_nothing_else_is,
    |app| async move {
        let doc = app.get("doc").await.body;
        let all = [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ];
        for (path, item) in doc["paths"].as_object().unwrap() {
            let concrete = path
                .replace("{id}", "999999")
                .replace("{slug}", "no-such-slug");
            let concrete = format!("{API}{}", if concrete == "/" { "" } else { &concrete });
            let documented: Vec<String> = item
                .as_object()
                .unwrap()
                .keys()
                .map(|m| m.to_uppercase())
                .collect();
            for method in &all {
                let r = app
                    .call(
                        method.clone(),
                        &concrete,
                        Some(json!({})),
                        &app.admin.auth(),
                    )
                    .await;
                let routed = r.code() != "rest_no_route";
                assert_eq!(
                    routed,
                    documented.contains(&method.to_string()),
                    "{method} {concrete}: {}",
                    r.text
                );
            }
        }
    }
);

both!(
    doc_is_openapi_3_1_with_the_request_api_root_as_server,
    |app| async move {
        let doc = app.get("doc").await.body;
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(doc["servers"][0]["url"], format!("{SITE}{API}"));
        let fr = app.get(&format!("/fr{API}/doc")).await.body;
        assert_eq!(fr["servers"][0]["url"], format!("{SITE}/fr{API}"));
        for (name, schema) in [
            "Event",
            "Venue",
            "Organizer",
            "Term",
            "Category",
            "Tag",
            "EventList",
            "Error",
        ]
        .iter()
        .map(|n| (n, &doc["components"]["schemas"][n]))
        {
            assert!(schema.is_object(), "missing schema {name}");
        }
        let get_event = &doc["paths"]["/events/{id}"]["get"];
        for status in ["200", "400", "403"] {
            assert!(
                get_event["responses"].get(status).is_some(),
                "GET /events/{{id}} documents {status}"
            );
        }
        let create = &doc["paths"]["/events"]["post"]["requestBody"]["content"];
        assert!(
            create.get("application/json").is_some()
                && create.get("application/x-www-form-urlencoded").is_some()
        );
        assert_eq!(
            create["application/json"]["schema"]["required"],
            json!(["title", "start_date", "end_date"])
        );
        // Array filters are declared the way generated clients send them, and
        // that way they reach the server whole.
        let categories = doc["paths"]["/events"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "categories")
            .unwrap()
            .clone();
        assert_eq!(categories["style"], "form");
        assert_eq!(categories["explode"], true);
        // Credentials: generated clients and Swagger UI's Authorize button read these.
        let schemes = &doc["components"]["securitySchemes"];
        assert_eq!(schemes["applicationPassword"]["scheme"], "basic");
        assert_eq!(schemes["bearerToken"]["scheme"], "bearer");
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                assert!(op["summary"].is_string(), "{method} {path} has no summary");
                let security = op["security"].as_array().unwrap();
                // Reads may be anonymous; writes need credentials.
                assert_eq!(
                    security.contains(&json!({})),
                    method == "get",
                    "{method} {path}"
                );
            }
        }
        validate_with_standard_validator(&doc);
        lint_with_redocly(&doc);
        lint_with_redocly(&app.get("/fr/calendar/events/v1/doc").await.body);
    }
);

/// Runs the `openapi-spec-validator` Python package on the document. `.ci/run`
/// installs it; elsewhere the check is skipped, loudly, when it is missing.
fn validate_with_standard_validator(doc: &Value) {
    let probe = std::process::Command::new("python3")
        .args(["-c", "import openapi_spec_validator"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var("CI").is_err(),
            "CI must install openapi-spec-validator"
        );
        let _ = writeln!(
            std::io::stderr(),
            "NOTE: openapi-spec-validator not installed; /doc validation SKIPPED"
        );
        return;
    }
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(serde_json::to_string(doc).unwrap().as_bytes())
        .unwrap();
    let out = std::process::Command::new("python3")
        .args(["-m", "openapi_spec_validator"])
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openapi-spec-validator rejected /doc: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs Redocly CLI's recommended rules on the document (`tests/clients/redocly`):
/// no error and no warning. `.ci/run` installs it (`npm ci`); elsewhere the check is
/// skipped, loudly, when it is missing.
fn lint_with_redocly(doc: &Value) {
    let dir = std::path::Path::new("tests/clients/redocly");
    let cli = dir.join("node_modules/@redocly/cli/bin/cli.js");
    if !cli.exists() {
        assert!(
            std::env::var("CI").is_err(),
            "CI must install Redocly CLI (npm ci --prefix tests/clients/redocly)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "NOTE: Redocly CLI not installed; the /doc lint is SKIPPED"
        );
        return;
    }
    let mut file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    file.write_all(serde_json::to_string(doc).unwrap().as_bytes())
        .unwrap();
    let out = std::process::Command::new("node")
        .arg(&cli)
        .args(["lint", "--format=json", "--config"])
        .arg(dir.join("redocly.yaml"))
        .arg(file.path())
        .env("REDOCLY_TELEMETRY", "off")
        .env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "redocly printed no report: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        (&report["totals"]["errors"], &report["totals"]["warnings"]),
        (&json!(0), &json!(0)),
        "redocly lint: {:#}",
        report["problems"]
    );
}

/// The index or document with its descriptions and summaries (and clock-dependent defaults)
/// removed, for comparing languages.
fn without_descriptions(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, v)| {
                    // `start_date`/`end_date` defaults show the time of the request.
                    let clock = k.as_str() == "default"
                        && v.as_str()
                            .is_some_and(|s| s.len() == 19 && s.as_bytes()[4] == b'-');
                    !matches!(k.as_str(), "description" | "summary") && !clock
                })
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_descriptions).collect()),
        Value::String(s) => Value::String(
            s.replace("/fr/", "/")
                .replace("/de/", "/")
                .replace("/es/", "/"),
        ),
        other => other.clone(),
    }
}

fn descriptions(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                if k == "description" {
                    if let Some(s) = v.as_str() {
                        out.push(s.to_string());
                    }
                } else {
                    descriptions(v, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| descriptions(x, out)),
        _ => {}
    }
}

both!(languages_differ_only_in_descriptions, |app| async move {
    let en_index = app.get("").await.body;
    let en_doc = app.get("doc").await.body;
    let mut en_texts = Vec::new();
    descriptions(&en_index, &mut en_texts);
    for lang in ["fr", "de", "es"] {
        let index = app.get(&format!("/{lang}{API}")).await;
        index.assert(200);
        assert_eq!(
            without_descriptions(&index.body),
            without_descriptions(&en_index),
            "{lang} index shape"
        );
        let doc = app.get(&format!("/{lang}{API}/doc")).await.body;
        let mut shape = without_descriptions(&doc);
        shape["info"] = Value::Null;
        let mut en_shape = without_descriptions(&en_doc);
        en_shape["info"] = Value::Null;
        assert_eq!(shape, en_shape, "{lang} doc shape");
        let mut texts = Vec::new();
        descriptions(&index.body, &mut texts);
        assert_eq!(texts.len(), en_texts.len());
        let translated = texts.iter().zip(&en_texts).filter(|(a, b)| a != b).count();
        assert_eq!(
            translated,
            texts.len(),
            "{lang}: every description is translated"
        );
    }
});

both!(errors_are_translated_but_codes_are_not, |app| async move {
    let en = app.get("events/999999").await;
    for lang in ["fr", "de", "es"] {
        let r = app.get(&format!("/{lang}{API}/events/999999")).await;
        r.assert_error(400, "rest_invalid_param");
        assert_ne!(r.body["message"], en.body["message"], "{lang}");
        assert_eq!(
            r.body["data"]["params"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["id"]
        );
        let none = app.get(&format!("/{lang}{API}/nowhere")).await;
        none.assert_error(404, "rest_no_route");
        assert_ne!(
            none.body["message"], "No route was found matching the URL and request method.",
            "{lang}"
        );
    }
});

both!(
    language_segment_is_kept_in_response_urls,
    |app| async move {
        let r = app
            .call(
                Method::POST,
                &format!("/de{API}/venues"),
                Some(json!({"venue": "Halle"})),
                &app.admin.auth(),
            )
            .await;
        r.assert(201);
        let id = r.id();
        let index = app.get(&format!("/de{API}")).await.body;
        assert_eq!(index["_links"]["up"][0]["href"], format!("{SITE}/de/"));
        let cat = app
            .call(
                Method::POST,
                &format!("/es{API}/categories"),
                Some(json!({"name": "Música"})),
                &app.admin.auth(),
            )
            .await;
        assert!(
            cat.body["urls"]["self"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{SITE}/es{API}/categories/"))
        );
        let list = app.get(&format!("/de{API}/venues?per_page=1")).await.body;
        assert!(
            list["rest_url"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{SITE}/de{API}/venues/"))
        );
        let _ = id;
    }
);

both!(
    api_reference_page_is_served_with_local_assets,
    |app| async move {
        for (path, lang) in [("/api-docs", "en"), ("/fr/api-docs", "fr")] {
            let r = app.get(path).await;
            r.assert(200);
            assert!(r.header("content-type").unwrap().starts_with("text/html"));
            assert!(r.text.contains(&format!("lang=\"{lang}\"")));
            assert!(r.text.contains("/api-docs/swagger-ui-bundle.js"));
            assert!(!r.text.contains("http"), "no external assets: {}", r.text);
        }
        let page = app.get("/de/api-docs").await;
        assert!(
            page.text
                .contains(&format!("data-spec-url=\"/de{API}/doc\""))
        );
        for (asset, kind) in [
            ("/api-docs/swagger-ui-bundle.js", "text/javascript"),
            ("/api-docs/swagger-ui.css", "text/css"),
            ("/api-docs/init.js", "text/javascript"),
        ] {
            let r = app.get(asset).await;
            r.assert(200);
            assert!(
                r.header("content-type").unwrap().starts_with(kind),
                "{asset}"
            );
            assert!(r.text.len() > 100, "{asset} has content");
        }
        assert!(
            app.get("/api-docs/swagger-ui-bundle.js")
                .await
                .text
                .contains("SwaggerUIBundle")
        );
    }
);

both!(index_shape_matches_the_reference, |app| async move {
    let r = app.get("").await.body;
    // The Events Calendar's own namespace index, as its running server answers it.
    let reference: Value =
        serde_json::from_str(include_str!("fixtures/reference/namespace_index.json")).unwrap();
    let ours = &r["routes"]["/calendar/events/v1/events"]["endpoints"][0]["args"];
    assert_eq!(ours["page"]["type"], "integer");
    assert_eq!(ours["page"]["default"], 1);
    assert_eq!(ours["page"]["required"], false);
    assert_eq!(ours["categories"]["items"], json!({"type": "integer"}));
    assert_eq!(ours["geoloc_lat"]["format"], "double");
    let theirs = reference["routes"]["/tribe/events/v1/events"]["endpoints"][0]["args"]
        .as_object()
        .expect("the reference lists the event list's arguments");
    for name in theirs.keys() {
        assert!(
            ours.get(name).is_some(),
            "reference argument {name} is missing"
        );
    }
    let create = &r["routes"]["/calendar/events/v1/events"]["endpoints"][1];
    assert_eq!(create["methods"], json!(["POST"]));
    assert_eq!(create["args"]["title"]["required"], true);
});

#[test]
fn every_path_argument_is_in_the_route() {
    for route in ROUTES {
        for ep in route.endpoints {
            for a in ep.args.iter().filter(|a| a.location == Location::Path) {
                assert!(route.path.contains(&format!("{{{}}}", a.name)));
            }
        }
    }
}

both!(
    every_example_body_in_the_document_is_accepted,
    |app| async move {
        let doc = app.get("doc").await.body;
        let example = |path: &str, method: &str| -> Value {
            doc["paths"][path][method]["requestBody"]["content"]["application/json"]["example"]
                .clone()
        };
        for collection in ["events", "venues", "organizers", "categories", "tags"] {
            let create = example(&format!("/{collection}"), "post");
            assert!(create.is_object(), "{collection}: no create example");
            let made = app.post(collection, create).await;
            made.assert(201);
            let update = example(&format!("/{collection}/{{id}}"), "post");
            assert!(update.is_object(), "{collection}: no update example");
            for method in ["put", "patch"] {
                assert_eq!(example(&format!("/{collection}/{{id}}"), method), update);
            }
            app.post(&format!("{collection}/{}", made.id()), update)
                .await
                .assert(200);
        }
    }
);
