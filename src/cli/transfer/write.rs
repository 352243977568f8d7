//! Writing what an import reads: each item, as the API represents it, becomes
//! the create request it stands for. Import writes through the same argument checks and use cases as the API (a
//! line is the create request its representation stands for, with the IDs it
//! links to translated), as the administrator it is run as: invalid items are
//! reported, never half-written. Where each item came from is kept
//! (`store::imports`): a second run of an export updates what the first created,
//! and an interrupted run resumes.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::api::args::{self, Args, RawArgs};
use crate::api::table::{By, Endpoint, Op, ROUTES};
use crate::config::Settings;
use crate::domain::permissions::{Caller, User};
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
    "password",
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
    "password",
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
    "password",
];

/// What an import did, per kind (in [`KINDS`] order).
#[derive(Debug, Default)]
pub struct Imported {
    pub created: [u64; 5],
    /// Items an earlier run of the same export created, written again.
    pub updated: [u64; 5],
    /// Each item not imported: its kind, its ID in the export, and why.
    pub failed: Vec<(String, i64, String)>,
    /// Whether the items kept their source's IDs (`None`: they have none).
    pub kept_ids: Option<bool>,
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
            // A category at the top stays there or goes back there on a second run.
            let parent = match item["parent"].as_i64() {
                Some(0) => Some(0),
                _ => ids.get(0, &item["parent"]),
            };
            if let Some(parent) = parent {
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
pub fn source_of(kind: usize, item: &Value) -> Option<&str> {
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
    /// The ID to create it under (its source's, kept).
    as_id: Option<i64>,
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
    let creating = Asking {
        as_id: w.as_id,
        ..asking
    };
    let written = match earlier {
        Some(local) => match update(service, asking, w.op, local, w.body.clone(), limits).await {
            Ok(true) => Ok((local, false)),
            Ok(false) => create(service, creating, w.op, w.body, limits)
                .await
                .map(|n| (n, true)),
            Err(why) => Err(why),
        },
        None => create(service, creating, w.op, w.body, limits)
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

/// Writes items one after another, each linked by the IDs the earlier ones became,
/// as an administrator.
pub struct Importer<'a> {
    service: &'a Service,
    caller: Caller,
    limits: args::Limits,
    ids: Ids,
    /// Whether each item is created under its source's ID (an import into an
    /// empty calendar: links to `/events/{id}` stay valid).
    keep_ids: bool,
    pub done: Imported,
}

impl<'a> Importer<'a> {
    pub fn new(service: &'a Service, user: User, keep_ids: bool) -> Importer<'a> {
        Importer {
            service,
            caller: Caller(Some(user)),
            limits: defaults().limits,
            ids: Ids::default(),
            keep_ids,
            done: Imported::default(),
        }
    }

    fn asking(&self) -> Asking<'_> {
        Asking::of(&self.caller, chrono::Utc::now().timestamp())
    }

    /// Writes one item of `KINDS[kind]`, given as the API represents it. The error
    /// stops the import (the database failed); an item that cannot be written is
    /// counted in `done.failed`.
    pub async fn add(&mut self, kind: usize, item: &Value) -> Result<(), String> {
        let old = item["id"].as_i64().unwrap_or(0);
        let (op, body) = request(kind, item, &self.ids);
        let w = ItemWrite {
            kind: KINDS[kind],
            source: source_of(kind, item),
            op,
            body,
            trashed: is_trashed(item),
            as_id: (self.keep_ids && old > 0).then_some(old),
        };
        let written = write(self.service, self.asking(), w, &self.limits).await?;
        if let Ok((new, _)) = written {
            self.ids.0.insert((kind, old), new);
        }
        self.tally(kind, old, written);
        Ok(())
    }

    /// Writes one event of an iCalendar file: `source` names it (`ics:<UID>`), `n`
    /// is its position in the file, by which a failure is reported.
    pub async fn add_ics_event(
        &mut self,
        source: Option<&str>,
        body: Map<String, Value>,
        n: usize,
    ) -> Result<(), String> {
        let w = ItemWrite {
            kind: "event",
            source,
            op: Op::EventCreate,
            body,
            trashed: false,
            as_id: None,
        };
        let written = write(self.service, self.asking(), w, &self.limits).await?;
        self.tally(4, n as i64, written);
        Ok(())
    }

    fn tally(&mut self, kind: usize, old: i64, written: Result<(i64, bool), String>) {
        match written {
            Ok((_, true)) => self.done.created[kind] += 1,
            Ok((_, false)) => self.done.updated[kind] += 1,
            Err(why) => self.done.failed.push((KINDS[kind].to_string(), old, why)),
        }
    }
}

/// The largest post and term IDs among these items (and the images they show):
/// what an import keeping its source's IDs numbers everything else after.
pub fn largest_ids<'v>(items: impl IntoIterator<Item = (usize, &'v Value)>) -> (i64, i64) {
    let (mut posts, mut terms) = (0, 0);
    for (kind, item) in items {
        let id = item["id"].as_i64().unwrap_or(0);
        if kind < 2 {
            terms = terms.max(id);
        } else {
            let image = item["image"]["id"].as_i64().unwrap_or(0);
            posts = posts.max(id).max(image);
        }
    }
    (posts, terms)
}

/// Reads the JSON lines of an export: each line's kind (a [`KINDS`] index) and item.
pub fn parse_lines(text: &str) -> Result<Vec<(usize, Value)>, String> {
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let Some(kind) = KINDS.iter().position(|k| parsed["kind"] == *k) else {
            return Err(format!("line {}: unknown kind {}", n + 1, parsed["kind"]));
        };
        items.push((kind, parsed.get("item").cloned().unwrap_or(Value::Null)));
    }
    Ok(items)
}

/// Orders items so that each comes after the one its `key` field names (a
/// category's parent, an event's `post_parent`), otherwise keeping their order.
pub fn parents_first(items: &mut [Value], key: &str) {
    let parents: HashMap<i64, i64> = items
        .iter()
        .map(|i| (i["id"].as_i64().unwrap_or(0), i[key].as_i64().unwrap_or(0)))
        .collect();
    let depth = |item: &Value| {
        let mut d = 0usize;
        let mut at = item[key].as_i64().unwrap_or(0);
        // Bounded: a cycle in a source's data must not hang the import.
        while at != 0 && d < 64 {
            d += 1;
            at = parents.get(&at).copied().unwrap_or(0);
        }
        d
    };
    items.sort_by_cached_key(depth);
}
