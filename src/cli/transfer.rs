//! `export` and `import`: a whole calendar as JSON lines of the API's own
//! representations, and back. Moves between instances (SQLite to PostgreSQL, one
//! host to another) and backups.
//!
//! Import writes through the same argument checks and use cases as the API (a
//! line is the create request its representation stands for, with the IDs it
//! links to translated), as the administrator it is run as: invalid items are
//! reported, never half-written. Where each item came from is kept
//! (`store::imports`): a second run of an export updates what the first created,
//! and an interrupted run resumes.

use std::collections::HashMap;
use std::io::BufRead;

use serde_json::{Map, Value};

use crate::api::args::{self, Args, RawArgs};
use crate::api::table::{By, Endpoint, Op, ROUTES};
use crate::config::{DatabaseArgs, Settings};
use crate::domain::permissions::{Caller, Role, User};
use crate::domain::post::{PostType, Target, untrashed_slug};
use crate::domain::term::Taxonomy;
use crate::http::transfer::KINDS;
use crate::service::{Asking, Error, LinkedDraftArgs, Service};

/// Venue fields a representation and a create share.
const VENUE_FIELDS: &[&str] = &[
    "venue",
    "description",
    "excerpt",
    "status",
    "slug",
    "address",
    "city",
    "country",
    "province",
    "state",
    "zip",
    "phone",
    "stateprovince",
    "website",
    "show_map",
    "show_map_link",
    "geo_lat",
    "geo_lng",
    "date_utc",
];
const ORGANIZER_FIELDS: &[&str] = &[
    "organizer",
    "description",
    "excerpt",
    "status",
    "slug",
    "phone",
    "website",
    "email",
    "date_utc",
];
const EVENT_FIELDS: &[&str] = &[
    "title",
    "description",
    "excerpt",
    "slug",
    "status",
    "date_utc",
    "start_date",
    "end_date",
    "timezone",
    "all_day",
    "show_map",
    "show_map_link",
    "hide_from_listings",
    "sticky",
    "featured",
    "tickets",
];

/// What an import did, per kind (in [`KINDS`] order).
#[derive(Debug, Default)]
pub struct Imported {
    pub created: [u64; 5],
    /// Items an earlier run of the same export created, written again.
    pub updated: [u64; 5],
    /// Each item not imported: its kind, its ID in the export, and why.
    pub failed: Vec<(String, i64, String)>,
}

/// Source ID → new ID, per kind.
#[derive(Default)]
struct Ids(HashMap<(usize, i64), i64>);

impl Ids {
    fn get(&self, kind: usize, old: &Value) -> Option<i64> {
        self.0.get(&(kind, old.as_i64()?)).copied()
    }

    fn list(&self, kind: usize, items: &Value) -> Vec<Value> {
        items
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| self.get(kind, &t["id"]).map(Value::from))
            .collect()
    }
}

fn copy(item: &Value, fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|f| match item.get(*f) {
            None | Some(Value::Null) => None,
            Some(v) => Some((f.to_string(), v.clone())),
        })
        .collect()
}

/// An image is linked by its URL: the file stays where it is.
fn image(item: &Value, body: &mut Map<String, Value>) {
    if let Some(url) = item["image"]["url"].as_str() {
        body.insert("image".into(), Value::from(url));
    }
}

/// The create request a line's representation stands for. A trashed post is
/// created as what it was before the trash, under its own slug, and trashed after
/// ([`is_trashed`]), so that restoring it later gives that status back.
fn request(kind: usize, item: &Value, ids: &Ids) -> (Op, Map<String, Value>) {
    let (op, mut body) = create_request(kind, item, ids);
    if is_trashed(item) {
        let before = item["status_before_trash"].as_str().unwrap_or("draft");
        body.insert("status".into(), Value::from(before));
        if let Some(slug) = item["slug"].as_str().and_then(untrashed_slug) {
            body.insert("slug".into(), Value::from(slug));
        }
    }
    (op, body)
}

fn is_trashed(item: &Value) -> bool {
    item["status"] == "trash"
}

fn create_request(kind: usize, item: &Value, ids: &Ids) -> (Op, Map<String, Value>) {
    match KINDS[kind] {
        "category" | "tag" => {
            let mut body = copy(item, &["name", "description", "slug"]);
            // An empty description is refused on a term create, as in the reference.
            body.retain(|_, v| v.as_str() != Some(""));
            if let Some(parent) = ids.get(0, &item["parent"]) {
                body.insert("parent".into(), parent.into());
            }
            let tax = if kind == 0 {
                Taxonomy::Category
            } else {
                Taxonomy::Tag
            };
            (Op::TermCreate(tax), body)
        }
        "venue" | "organizer" => {
            let (t, fields) = match kind {
                2 => (PostType::Venue, VENUE_FIELDS),
                _ => (PostType::Organizer, ORGANIZER_FIELDS),
            };
            let mut body = copy(item, fields);
            // A venue's map flags are shown as booleans and written as text.
            for flag in ["show_map", "show_map_link"] {
                if t == PostType::Venue
                    && let Some(Value::Bool(b)) = body.get(flag)
                {
                    let text = if *b { "true" } else { "false" };
                    body.insert(flag.into(), Value::from(text));
                }
            }
            image(item, &mut body);
            (Op::LinkedCreate(t), body)
        }
        _ => (Op::EventCreate, event_request(item, ids)),
    }
}

fn event_request(item: &Value, ids: &Ids) -> Map<String, Value> {
    let mut body = copy(item, EVENT_FIELDS);
    // A representation shows the event's own page as its website when it has none.
    if item["website"] == item["url"] {
        body.remove("website");
    } else if let Some(w) = item.get("website") {
        body.insert("website".into(), w.clone());
    }
    let costs = &item["cost_details"]["values"];
    if costs.as_array().is_some_and(|v| !v.is_empty()) {
        body.insert("cost".into(), costs.clone());
    }
    body.insert("categories".into(), ids.list(0, &item["categories"]).into());
    body.insert("tags".into(), ids.list(1, &item["tags"]).into());
    if let Some(venue) = ids.get(2, &item["venue"]["id"]) {
        body.insert("venue".into(), venue.into());
    }
    body.insert("organizer".into(), ids.list(3, &item["organizer"]).into());
    if let Some(parent) = ids.get(4, &item["post_parent"]) {
        body.insert("post_parent".into(), parent.into());
    }
    image(item, &mut body);
    body
}

fn endpoint(op: Op) -> Result<&'static Endpoint, String> {
    ROUTES
        .iter()
        .flat_map(|r| r.endpoints.iter())
        .find(|e| e.op == op)
        .ok_or_else(|| format!("no route for {op:?}"))
}

/// Checks a request's arguments as its route declares them.
fn checked(
    op: Op,
    path: Option<i64>,
    body: Map<String, Value>,
    limits: &args::Limits,
) -> Result<Args, String> {
    let mut raw = RawArgs {
        path: Default::default(),
        params: body,
    };
    if let Some(id) = path {
        raw.path.insert("id", id.to_string());
    }
    args::check(endpoint(op)?, raw, limits).map_err(|e| format!("{e:?}"))
}

/// Creates one item; its new ID.
async fn create(
    service: &Service,
    asking: Asking<'_>,
    op: Op,
    body: Map<String, Value>,
    limits: &args::Limits,
) -> Result<i64, String> {
    let args = checked(op, None, body, limits)?;
    let shown = |e: Error| format!("{e:?}");
    match op {
        Op::TermCreate(tax) => {
            let typed = term_args(tax, &args);
            let term = service
                .create_term(asking, tax, &typed, args.invalid())
                .await;
            Ok(term.map_err(shown)?.id)
        }
        Op::LinkedCreate(t) => {
            let typed = linked_args(t, &args);
            let post = service.create_linked(asking, &typed, args.invalid()).await;
            Ok(post.map_err(shown)?.id)
        }
        _ => {
            let typed = args.typed();
            let event = service
                .create_event(asking, &typed, args.invalid(), &inline)
                .await;
            Ok(event.map_err(shown)?.event.post.id)
        }
    }
}

/// Writes an item over the one an earlier run created. `Ok(false)`: that one is
/// gone (deleted since), and the item is to be created again.
async fn update(
    service: &Service,
    asking: Asking<'_>,
    op: Op,
    local: i64,
    body: Map<String, Value>,
    limits: &args::Limits,
) -> Result<bool, String> {
    let (update_op, target) = match op {
        Op::TermCreate(tax) => (Op::TermUpdate(tax), Target::Id(local)),
        Op::LinkedCreate(t) => (Op::LinkedUpdate(t, By::Id), Target::Id(local)),
        _ => (Op::EventUpdate(By::Id), Target::Id(local)),
    };
    let args = checked(update_op, Some(local), body, limits)?;
    let written = match op {
        Op::TermCreate(tax) => service
            .update_term(asking, tax, local, &term_args(tax, &args), args.invalid())
            .await
            .map(drop),
        Op::LinkedCreate(t) => service
            .update_linked(asking, &target, &linked_args(t, &args), args.invalid())
            .await
            .map(drop),
        _ => service
            .update_event(asking, &target, &args.typed(), args.invalid(), &inline)
            .await
            .map(drop),
    };
    match written {
        Ok(()) => Ok(true),
        Err(Error::Invalid(list)) if list.iter().any(|i| i.name == "id") => Ok(false),
        Err(e) => Err(format!("{e:?}")),
    }
}

fn term_args(tax: Taxonomy, args: &Args) -> crate::domain::args::CategoryWriteArgs {
    match tax {
        Taxonomy::Category => args.typed(),
        Taxonomy::Tag => args.typed::<crate::domain::args::TagWriteArgs>().into(),
    }
}

fn linked_args(t: PostType, args: &Args) -> LinkedDraftArgs {
    match t {
        PostType::Venue => LinkedDraftArgs::Venue(Box::new(args.typed())),
        _ => LinkedDraftArgs::Organizer(Box::new(args.typed())),
    }
}

/// A venue or organizer given inline (an iCalendar `LOCATION` or `ORGANIZER`),
/// read as its own create route reads it; an existing identical one is reused.
fn inline(
    t: PostType,
    fields: &Map<String, Value>,
) -> Result<crate::domain::event_input::LinkedDraft, ()> {
    let args = checked(
        Op::LinkedCreate(t),
        None,
        fields.clone(),
        &defaults().limits,
    )
    .map_err(drop)?;
    let cx = crate::domain::linked_input::LinkedContext {
        now: chrono::Utc::now().timestamp(),
        site: defaults().timezone,
        creating: true,
    };
    let mut p = crate::domain::validation::Problems::default();
    let draft = linked_args(t, &args).read(cx, &mut p).map_err(drop)?;
    p.is_empty().then_some(draft).ok_or(())
}

/// The server's settings as `serve` reads them (flags aside): the argument limits
/// and site zone an import checks against, read once.
fn defaults() -> &'static Settings {
    static DEFAULTS: std::sync::OnceLock<Settings> = std::sync::OnceLock::new();
    DEFAULTS.get_or_init(Settings::default)
}

/// What identifies an item across runs: a post's `global_id` (its site and ID), a
/// term's own API URL.
fn source_of(kind: usize, item: &Value) -> Option<&str> {
    match kind {
        0 | 1 => item["urls"]["self"].as_str(),
        _ => item["global_id"].as_str(),
    }
}

/// Moves a post just created to the trash.
async fn trash(service: &Service, asking: Asking<'_>, op: Op, id: i64) -> Result<(), String> {
    let target = Target::Id(id);
    let done = match op {
        Op::EventCreate => service.delete_event(asking, &target, false).await.map(drop),
        Op::LinkedCreate(t) => service
            .delete_linked(asking, t, &target, false)
            .await
            .map(drop),
        _ => Ok(()),
    };
    done.map_err(|e| format!("{e:?}"))
}

/// One item to write: where it came from, and the create request it stands for.
struct ItemWrite<'a> {
    kind: &'static str,
    source: Option<&'a str>,
    op: Op,
    body: Map<String, Value>,
    /// Created (or written) as what it was before the trash, then trashed.
    trashed: bool,
}

/// Writes an item: over what an earlier import of the same source created, or as
/// a new one (also when that one is gone), then records where it came from. The
/// outer error stops the import (the database failed); the inner one is the
/// item's, reported.
async fn write(
    service: &Service,
    asking: Asking<'_>,
    w: ItemWrite<'_>,
    limits: &args::Limits,
) -> Result<Result<(i64, bool), String>, String> {
    let earlier = match w.source {
        Some(src) => service
            .imported_as(w.kind, src)
            .await
            .map_err(|e| e.to_string())?,
        None => None,
    };
    let written = match earlier {
        Some(local) => match update(service, asking, w.op, local, w.body.clone(), limits).await {
            Ok(true) => Ok((local, false)),
            Ok(false) => create(service, asking, w.op, w.body, limits)
                .await
                .map(|n| (n, true)),
            Err(why) => Err(why),
        },
        None => create(service, asking, w.op, w.body, limits)
            .await
            .map(|n| (n, true)),
    };
    let written = match written {
        Ok((new, created)) if w.trashed => trash(service, asking, w.op, new)
            .await
            .map(|()| (new, created)),
        other => other,
    };
    if let (Ok((new, _)), Some(src)) = (&written, w.source) {
        service
            .record_import(w.kind, src, *new)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(written)
}

/// Reads an export and creates everything in it, as `user` (an administrator).
pub async fn import_lines(
    service: &Service,
    user: User,
    lines: impl BufRead,
) -> Result<Imported, String> {
    let caller = Caller(Some(user));
    let limits = defaults().limits;
    let mut ids = Ids::default();
    let mut done = Imported::default();
    for (n, line) in lines.lines().enumerate() {
        let line = line.map_err(|e| format!("reading line {}: {e}", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Value =
            serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let Some(kind) = KINDS.iter().position(|k| parsed["kind"] == *k) else {
            return Err(format!("line {}: unknown kind {}", n + 1, parsed["kind"]));
        };
        let item = &parsed["item"];
        let old = item["id"].as_i64().unwrap_or(0);
        let (op, body) = request(kind, item, &ids);
        let asking = Asking {
            caller: &caller,
            now: chrono::Utc::now().timestamp(),
            condition: Default::default(),
        };
        let source = source_of(kind, item);
        let item_write = ItemWrite {
            kind: KINDS[kind],
            source,
            op,
            body,
            trashed: is_trashed(item),
        };
        let written = write(service, asking, item_write, &limits).await?;
        match written {
            Ok((new, created)) => {
                ids.0.insert((kind, old), new);
                match created {
                    true => done.created[kind] += 1,
                    false => done.updated[kind] += 1,
                }
            }
            Err(why) => done.failed.push((KINDS[kind].to_string(), old, why)),
        }
    }
    Ok(done)
}

/// Reads an iCalendar file and creates (or, for a `UID` imported before, updates)
/// each of its events, as `user` (an administrator).
pub async fn import_ics(service: &Service, user: User, text: &str) -> Result<Imported, String> {
    let caller = Caller(Some(user));
    let limits = defaults().limits;
    let mut done = Imported::default();
    let events = crate::domain::ics_import::events_of(text)?;
    for (n, e) in events.into_iter().enumerate() {
        let asking = Asking {
            caller: &caller,
            now: chrono::Utc::now().timestamp(),
            condition: Default::default(),
        };
        let source = e.uid.as_ref().map(|u| format!("ics:{u}"));
        let event_write = ItemWrite {
            kind: "event",
            source: source.as_deref(),
            op: Op::EventCreate,
            body: e.body,
            trashed: false,
        };
        let written = write(service, asking, event_write, &limits).await?;
        match written {
            Ok((_, created)) => match created {
                true => done.created[4] += 1,
                false => done.updated[4] += 1,
            },
            // Events of a file have no ID of their own: the position says which.
            Err(why) => done.failed.push(("event".into(), n as i64 + 1, why)),
        }
    }
    Ok(done)
}

async fn open(db: &DatabaseArgs) -> Result<Service, String> {
    Service::open_for_admin(&db.database_url)
        .await
        .map_err(|e| e.to_string())
}

/// `calendar-events export [--output FILE] [--site URL] [--format jsonl|ics]`.
pub async fn export(
    db: &DatabaseArgs,
    output: Option<std::path::PathBuf>,
    site: Option<String>,
    format: &str,
) -> Result<(), String> {
    let service = open(db).await?;
    let settings = match site {
        Some(url) => Settings::for_site(&url),
        None => Settings::default(),
    };
    let mut out: Box<dyn std::io::Write> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    if format == "ics" {
        let n = crate::http::transfer::export_ics(&service, &settings, &mut out).await?;
        eprintln!("event: {n} exported");
    } else {
        let done = crate::http::transfer::export(&service, &settings, &mut out).await?;
        for (kind, n) in KINDS.iter().zip(done.counts) {
            eprintln!("{kind}: {n} exported");
        }
    }
    out.flush().map_err(|e| format!("writing the export: {e}"))
}

/// `calendar-events import FILE [--as LOGIN]`.
pub async fn import(
    db: &DatabaseArgs,
    file: std::path::PathBuf,
    login: Option<String>,
) -> Result<(), String> {
    let service = open(db).await?;
    let users = service.users().await.map_err(|e| e.to_string())?;
    let user = users
        .into_iter()
        .find(|u| match &login {
            Some(l) => &u.login == l,
            None => u.role == Role::Administrator,
        })
        .ok_or("no such administrator: create one with `user create LOGIN --role administrator`")?;
    if user.role != Role::Administrator {
        return Err(format!("{} is not an administrator", user.login));
    }
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    // An iCalendar file, or the JSON lines of an export.
    let done = match text.trim_start().starts_with("BEGIN:VCALENDAR") {
        true => import_ics(&service, user, &text).await?,
        false => import_lines(&service, user, text.as_bytes()).await?,
    };
    for (i, kind) in KINDS.iter().enumerate() {
        let failed = done.failed.iter().filter(|f| f.0 == *kind).count();
        let (created, updated) = (done.created[i], done.updated[i]);
        println!("{kind}: {created} imported, {updated} updated, {failed} not");
    }
    for (kind, id, why) in &done.failed {
        eprintln!("not imported: {kind} {id}: {why}");
    }
    match done.failed.is_empty() {
        true => Ok(()),
        false => Err(format!("{} items not imported", done.failed.len())),
    }
}
