//! `export` and `import`: a calendar written out as JSON lines of the API's
//! representations and read back into another instance (SQLite → SQLite and
//! PostgreSQL → PostgreSQL here; the format is the same for both), every item and
//! link as it was; an item the target refuses is reported, the rest imported.

mod common;

use calendar_events::domain::permissions::{Role, User};
use calendar_events::service::Service;
use common::*;
use serde_json::{Value, json};

/// The calendar as `export` writes it.
async fn exported(app: &TestApp) -> Vec<Value> {
    let service = Service::configured(app.store.clone(), &settings());
    let mut out = Vec::new();
    calendar_events::http::transfer::export(&service, &settings(), &mut out)
        .await
        .unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The app's use cases, and its administrator as an import runs as them.
fn importer(app: &TestApp) -> (Service, User) {
    let service = Service::configured(app.store.clone(), &settings());
    let user = User {
        id: app.admin.id,
        login: app.admin.login.clone(),
        role: Role::Administrator,
    };
    (service, user)
}

async fn import(app: &TestApp, lines: &str) -> calendar_events::cli::transfer::Imported {
    let (service, user) = importer(app);
    calendar_events::cli::transfer::import_lines(&service, user, lines)
        .await
        .unwrap()
}

/// What must survive a move: everything but IDs, URLs, modification times and
/// the author (the importing administrator).
fn comparable(v: &Value) -> Value {
    const MOVED: &[&str] = &[
        "id",
        "url",
        "rest_url",
        "global_id",
        "global_id_lineage",
        "urls",
        "modified",
        "modified_utc",
        "author",
        "parent",
        "json_ld",
        "website",
    ];
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !MOVED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), comparable(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

async fn calendar(app: &TestApp) {
    let music = app
        .post(
            "categories",
            json!({"name": "Music", "description": "Live"}),
        )
        .await
        .id();
    let jazz = app
        .post("categories", json!({"name": "Jazz", "parent": music}))
        .await
        .id();
    app.event(with(
        event("Jazz night", "2027-05-01 20:00:00", "2027-05-01 23:00:00"),
        json!({
            "timezone": "Europe/Paris",
            "date_utc": "2026-01-02 03:04:05",
            "categories": [jazz],
            "tags": [{"name": "free"}],
            "venue": {"venue": "Hall", "city": "Lyon", "show_map": "false"},
            "organizer": [{"organizer": "Org", "email": "o@example.org"}],
            "cost": "15",
            "featured": true,
            "website": "https://jazz.example.org/",
            "tickets": [{"name": "Door", "url": "https://t.example/1", "price": "15", "currency": "EUR"}],
        }),
    ))
    .await;
    app.event(with(
        event("Draft fair", "2027-06-01", "2027-06-02"),
        json!({"all_day": true, "status": "draft"}),
    ))
    .await;
    let gone = app
        .event(event(
            "Trashed",
            "2027-07-01 10:00:00",
            "2027-07-01 11:00:00",
        ))
        .await;
    app.delete(&format!("events/{gone}")).await.assert(200);
}

both!(
    a_calendar_moves_whole_to_another_instance,
    |app| async move {
        calendar(&app).await;
        let lines = exported(&app).await;
        let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "category",
                "category",
                "tag",
                "venue",
                "organizer",
                "event",
                "event",
                "event"
            ],
            "parents and linked posts first"
        );
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();

        let target = app.another(settings()).await;
        let done = import(&target, &text).await;
        assert!(done.failed.is_empty(), "{:?}", done.failed);
        assert_eq!(done.created, [2, 1, 1, 1, 3]);

        let moved = exported(&target).await;
        assert_eq!(moved.len(), lines.len());
        for (a, b) in lines.iter().zip(&moved) {
            assert_eq!(comparable(a), comparable(b), "{} differs", a["kind"]);
        }
        // The links point at the new IDs.
        let jazz = &moved[1]["item"];
        assert_eq!(jazz["parent"], moved[0]["item"]["id"]);
        let night = &moved[5]["item"];
        assert_eq!(night["venue"]["id"], moved[3]["item"]["id"]);
        assert_eq!(night["organizer"][0]["id"], moved[4]["item"]["id"]);
        assert_eq!(night["categories"][0]["id"], jazz["id"]);
        assert_eq!(night["website"], "https://jazz.example.org/");
        assert_eq!(night["date_utc"], "2026-01-02 03:04:05");
        // The importer is the author.
        assert_eq!(night["author"], target.admin.id.to_string());
    }
);

both!(items_the_target_refuses_are_reported, |app| async move {
    let lines = [
        json!({"kind": "tag", "item": {"id": 7, "name": "free"}}),
        json!({"kind": "event", "item": {"id": 8, "title": "No dates"}}),
        json!({"kind": "event", "item": {"id": 9, "title": "Fine", "start_date": "2027-01-01 10:00:00", "end_date": "2027-01-01 11:00:00", "tags": [{"id": 7}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let done = import(&app, &text).await;
    assert_eq!(done.created, [0, 1, 0, 0, 1]);
    assert_eq!(done.failed.len(), 1, "{:?}", done.failed);
    assert_eq!((done.failed[0].0.as_str(), done.failed[0].1), ("event", 8));
    let r = app
        .get("events?start_date=2027-01-01&end_date=2027-01-31")
        .await;
    assert_eq!(titles(&r), ["Fine"]);
    assert_eq!(r.body["events"][0]["tags"][0]["name"], "free");
});

both!(
    importing_again_updates_instead_of_duplicating,
    |app| async move {
        calendar(&app).await;
        let mut lines = exported(&app).await;
        let text = |lines: &[Value]| -> String { lines.iter().map(|l| format!("{l}\n")).collect() };
        let target = app.another(settings()).await;
        // An interrupted first run (the first four lines), then the whole file: each
        // item once.
        let first = import(&target, &text(&lines[..4])).await;
        assert_eq!(first.created, [2, 1, 1, 0, 0]);
        let resumed = import(&target, &text(&lines)).await;
        assert!(resumed.failed.is_empty(), "{:?}", resumed.failed);
        assert_eq!(resumed.created, [0, 0, 0, 1, 3]);
        assert_eq!(resumed.updated, [2, 1, 1, 0, 0]);
        // The source changed an event; the same export, run again, carries the change.
        lines[5]["item"]["title"] = json!("Jazz night (moved)");
        let again = import(&target, &text(&lines)).await;
        assert!(again.failed.is_empty(), "{:?}", again.failed);
        assert_eq!(again.created, [0, 0, 0, 0, 0]);
        assert_eq!(again.updated, [2, 1, 1, 1, 3]);
        let moved = exported(&target).await;
        assert_eq!(moved.len(), lines.len(), "nothing created twice");
        assert_eq!(moved[5]["item"]["title"], "Jazz night (moved)");
        assert_eq!(moved[7]["item"]["status"], "trash", "still in the trash");
        // What was deleted here since is created again.
        let gone = moved[6]["item"]["id"].as_i64().unwrap();
        target
            .delete(&format!("events/{gone}?force=true"))
            .await
            .assert(200);
        let restored = import(&target, &text(&lines)).await;
        assert_eq!(restored.created, [0, 0, 0, 0, 1]);
        assert_eq!(exported(&target).await.len(), lines.len());
    }
);

const ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\
BEGIN:VEVENT\r\nUID:night@elsewhere\r\nSUMMARY:Nuit blanche\r\n\
DTSTART;TZID=Europe/Paris:20270327T230000\r\nDTEND;TZID=Europe/Paris:20270328T040000\r\n\
LOCATION:Hôtel de Ville\r\nORGANIZER;CN=\"Ville de Paris\":mailto:nuit@paris.example\r\n\
CATEGORIES:Art,Nuit\r\nURL:https://paris.example/nuit\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:fair@elsewhere\r\nSUMMARY:Fair\r\nDTSTART;VALUE=DATE:20270601\r\n\
DTEND;VALUE=DATE:20270603\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

async fn import_ics(app: &TestApp, text: &str) -> calendar_events::cli::transfer::Imported {
    let (service, user) = importer(app);
    calendar_events::cli::transfer::import_ics(&service, user, text)
        .await
        .unwrap()
}

both!(
    an_icalendar_file_imports_and_reimports_by_uid,
    |app| async move {
        let done = import_ics(&app, ICS).await;
        assert!(done.failed.is_empty(), "{:?}", done.failed);
        assert_eq!(done.created[4], 2);
        let r = app
            .get("events?start_date=2027-01-01&end_date=2027-12-31")
            .await;
        assert_eq!(titles(&r), ["Nuit blanche", "Fair"]);
        let night = &r.body["events"][0];
        assert_eq!(night["timezone"], "Europe/Paris");
        assert_eq!(night["start_date"], "2027-03-27 23:00:00");
        // Across the night the clocks go forward: five hours of wall time are four.
        assert_eq!(night["utc_start_date"], "2027-03-27 22:00:00");
        assert_eq!(night["utc_end_date"], "2027-03-28 02:00:00");
        assert_eq!(night["venue"]["venue"], "Hôtel de Ville");
        assert_eq!(night["organizer"][0]["organizer"], "Ville de Paris");
        assert_eq!(night["organizer"][0]["email"], "nuit@paris.example");
        let cats: Vec<&str> = night["categories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(cats, ["Art", "Nuit"]);
        assert_eq!(night["website"], "https://paris.example/nuit");
        let fair = &r.body["events"][1];
        assert_eq!(fair["all_day"], true);
        assert_eq!(fair["end_date"], "2027-06-02 23:59:59");
        // The same file again (the night renamed): updated by UID, nothing twice.
        let renamed = ICS.replace("SUMMARY:Nuit blanche", "SUMMARY:Nuit blanche 2027");
        let again = import_ics(&app, &renamed).await;
        assert_eq!((again.created[4], again.updated[4]), (0, 2));
        let r = app
            .get("events?start_date=2027-01-01&end_date=2027-12-31")
            .await;
        assert_eq!(titles(&r), ["Nuit blanche 2027", "Fair"]);
        assert_eq!(app.get("venues").await.body["total"], 1, "the venue reused");
    }
);

both!(
    an_icalendar_export_imports_into_another_instance,
    |app| async move {
        calendar(&app).await;
        let service = Service::configured(app.store.clone(), &settings());
        let mut ics = Vec::new();
        calendar_events::http::transfer::export_ics(&service, &settings(), &mut ics)
            .await
            .unwrap();
        let target = app.another(settings()).await;
        let done = import_ics(&target, &String::from_utf8(ics).unwrap()).await;
        assert!(done.failed.is_empty(), "{:?}", done.failed);
        let window =
            "events?start_date=2027-01-01&end_date=2027-12-31&status=publish,draft,private";
        let (a, b) = (
            app.get_as(window, &app.admin.auth()).await,
            target.get_as(window, &target.admin.auth()).await,
        );
        let key = |r: &Resp| -> Vec<(String, String, String, String)> {
            r.body["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
                    (
                        s("title"),
                        s("utc_start_date"),
                        s("utc_end_date"),
                        s("timezone"),
                    )
                })
                .collect()
        };
        assert_eq!(key(&a), key(&b));
    }
);

both!(
    passwords_and_ids_survive_a_move_into_an_empty_calendar,
    |app| async move {
        let venue = app
            .post(
                "venues",
                json!({"venue": "Back room", "address": "1 Cellar St", "password": "knock"}),
            )
            .await
            .id();
        let secret = app
            .event(with(
                event("Tasting", "2027-02-01 18:00:00", "2027-02-01 20:00:00"),
                json!({"password": "vintage", "description": "<p>Grand cru</p>", "venue": venue}),
            ))
            .await;
        let lines = exported(&app).await;
        let line = lines.iter().find(|l| l["item"]["id"] == secret).unwrap();
        assert_eq!(line["item"]["password"], "vintage");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let target = app.another(settings()).await;
        let done = import(&target, &text).await;
        assert!(done.failed.is_empty(), "{:?}", done.failed);
        // Kept under its ID, and still protected.
        target
            .get(&format!("events/{secret}"))
            .await
            .assert_error(403, "event-password-protected");
        let open = target
            .get(&format!("events/{secret}?password=vintage"))
            .await;
        open.assert(200);
        assert_eq!(open.body["description"], "<p>Grand cru</p>");
        assert_eq!(open.body["venue"]["id"], venue);
        let shown = target.get(&format!("venues/{venue}")).await;
        assert_eq!(
            shown.body["address"], "",
            "the venue's password is kept too"
        );
        // What is created next follows the imported IDs.
        let next = target
            .event(event("Next", "2027-03-01 18:00:00", "2027-03-01 20:00:00"))
            .await;
        assert!(next > secret, "{next} after {secret}");
    }
);

both!(
    an_import_that_moves_a_category_returns_with_its_events_keyed_in_place,
    |app| async move {
        calendar(&app).await;
        let jazz = app.get("categories?slug=jazz").await.body["categories"][0]["id"]
            .as_i64()
            .unwrap();
        app.event(with(
            event("Jazz again", "2027-05-02 20:00:00", "2027-05-02 23:00:00"),
            json!({ "categories": [jazz] }),
        ))
        .await;
        let mut lines = exported(&app).await;
        let text = |lines: &[Value]| -> String { lines.iter().map(|l| format!("{l}\n")).collect() };
        let target = app.another(settings()).await;
        import(&target, &text(&lines)).await;
        let music =
            target.get("categories?slug=music&hide_empty=0").await.body["categories"][0]["id"]
                .as_i64()
                .unwrap();
        let listed = |r: &Resp| titles(r).len();
        let under_music =
            format!("events?start_date=2027-01-01&end_date=2027-12-31&categories={music}");
        assert_eq!(listed(&target.get(&under_music).await), 2);
        // The source moved Jazz to the top; in batches of one event, the import moves
        // it in steps, and returns once its events' keys have followed.
        let line = lines
            .iter()
            .position(|l| l["item"]["slug"] == "jazz")
            .unwrap();
        lines[line]["item"]["parent"] = json!(0);
        let service = Service::configured(
            target.store.clone(),
            &calendar_events::config::Settings {
                step_batch: 1,
                ..settings()
            },
        );
        let (_, user) = importer(&target);
        let done = calendar_events::cli::transfer::import_lines(&service, user, &text(&lines))
            .await
            .unwrap();
        assert!(done.failed.is_empty(), "{:?}", done.failed);
        let mut conn = target.store.pool.read().await.unwrap();
        let queued = calendar_events::store::category_moves::any_queued(&mut conn)
            .await
            .unwrap();
        drop(conn);
        assert!(!queued, "the move's batches are done");
        assert_summaries_hold(&target, "a category moved by an import").await;
        let jazz_there = target.get("categories?slug=jazz").await;
        assert_eq!(jazz_there.body["categories"][0]["parent"], 0);
        assert_eq!(listed(&target.get(&under_music).await), 0);
    }
);
