//! `calendar-events export`: every category, tag, venue, organizer and event, of
//! every status, as JSON lines of the API's own representations (as an
//! administrator reads them), parents before their children and linked posts
//! before the events that link them, so that `import` can read them back in order.
//!
//! It walks the sync use cases from `cursor=0` (docs/sync.md): each page costs the
//! same however large the calendar, and nothing is missed while others write.
//! `export --format ics` writes the same events as one iCalendar file instead.

use std::collections::HashMap;
use std::io::Write;

use serde_json::{Value, json};

use super::linked::{LinkedView, view_of};
use super::urls::Urls;
use super::views::ical::{CalendarMeta, calendar};
use super::views::{EventView, TermView, ViewContext};
use crate::api::table::NAMESPACE;
use crate::config::Settings;
use crate::domain::args::SyncArgs;
use crate::domain::permissions::{Caller, Role, User};
use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;
use crate::service::{Asking, Service, ShownEvent, SyncPage, Synced};

/// The kinds a line carries, in the order lines are written and read.
pub const KINDS: [&str; 5] = ["category", "tag", "venue", "organizer", "event"];

/// How many of each kind were written.
#[derive(Debug, Default)]
pub struct Exported {
    pub counts: [u64; 5],
}

fn sync_args(cursor: &str) -> SyncArgs {
    SyncArgs {
        page: 1,
        per_page: 50,
        modified_after: None,
        cursor: Some(cursor.to_string()),
    }
}

/// Every page of one list's changes from the start; the items, without tombstones.
async fn walk<T, F, Fut>(mut page: F) -> Result<Vec<T>, String>
where
    F: FnMut(SyncArgs) -> Fut,
    Fut: std::future::Future<Output = Result<SyncPage<T>, crate::service::Error>>,
{
    let mut cursor = "0".to_string();
    let mut items = Vec::new();
    let mut waiting = 0;
    loop {
        let p = page(sync_args(&cursor)).await.map_err(|e| e.to_string())?;
        cursor = p.cursor.to_string();
        // An empty page that says more may follow waits on a transaction running
        // elsewhere in the PostgreSQL cluster (each such read waits half a second).
        waiting = if p.items.is_empty() { waiting + 1 } else { 0 };
        if waiting > UNSETTLED_PAGES {
            return Err(UNSETTLED.into());
        }
        items.extend(p.items.into_iter().filter_map(|s| match s {
            Synced::Item(t) => Some(t),
            Synced::Deleted { .. } => None,
        }));
        if !p.more {
            return Ok(items);
        }
    }
}

/// How many empty pages in a row a walk reads while a transaction elsewhere
/// holds the changes back (about a minute), before it gives up.
pub const UNSETTLED_PAGES: u32 = 120;

/// Why a walk gave up: it could not be sure to hold every change.
pub const UNSETTLED: &str = "a transaction elsewhere in the PostgreSQL cluster has run for over \
     a minute, so changes made before it may not be readable yet; end it (see \
     pg_stat_activity) and try again";

fn line(out: &mut impl Write, kind: &str, item: Value) -> Result<(), String> {
    let text = json!({"kind": kind, "item": item}).to_string();
    writeln!(out, "{text}").map_err(|e| format!("writing the export: {e}"))
}

/// Writes every event but those in the trash as one iCalendar file (the feeds' view),
/// for calendar applications; `import` reads the JSON lines, not this.
pub async fn export_ics(
    service: &Service,
    settings: &Settings,
    out: &mut impl Write,
) -> Result<u64, String> {
    let caller = exporter();
    let asking = reading_as(&caller);
    let urls = Urls::new(settings, "", NAMESPACE);
    let mut events = every_event(service, asking).await?;
    // A calendar application has no trash: what is in it stays out.
    events.retain(|s| s.event.post.status() != Some(crate::domain::post::Status::Trash));
    events.sort_by_key(|s| (s.event.start_utc, s.event.post.id));
    let cx = ViewContext {
        urls: &urls,
        site_zone: settings.timezone,
        caller: &caller,
    };
    let meta = CalendarMeta {
        name: &settings.site_title,
        description: &settings.site_description,
        with_name: true,
        cut: None,
    };
    out.write_all(calendar(&events, &cx, &meta).as_bytes())
        .map_err(|e| format!("writing the export: {e}"))?;
    Ok(events.len() as u64)
}

/// The administrator an export reads as: it sees every post, in full.
fn exporter() -> Caller {
    Caller(Some(User {
        id: 0,
        login: "export".into(),
        role: Role::Administrator,
    }))
}

fn reading_as(caller: &Caller) -> Asking<'_> {
    Asking::of(caller, chrono::Utc::now().timestamp())
}

/// Every event the exporter reads, of every status.
async fn every_event(service: &Service, asking: Asking<'_>) -> Result<Vec<ShownEvent>, String> {
    walk(|a| async move { service.sync_events(asking, &a, &[], &[]).await }).await
}

/// A post's password, which no representation shows, kept in its line: a backup
/// that dropped it would bring the post back unprotected.
fn with_password(mut item: Value, password: &str) -> Value {
    if !password.is_empty()
        && let Some(fields) = item.as_object_mut()
    {
        fields.insert("password".into(), Value::from(password));
    }
    item
}

/// Writes the whole calendar to `out`.
pub async fn export(
    service: &Service,
    settings: &Settings,
    out: &mut impl Write,
) -> Result<Exported, String> {
    let caller = exporter();
    let asking = reading_as(&caller);
    let urls = Urls::new(settings, "", NAMESPACE);
    let mut done = Exported::default();
    for (i, tax) in [Taxonomy::Category, Taxonomy::Tag].into_iter().enumerate() {
        let mut terms =
            walk(|a| async move { service.sync_terms(asking, tax, &a, &[], &[]).await }).await?;
        // Parents first: a term's depth orders it after every ancestor.
        let parents: HashMap<i64, i64> = terms.iter().map(|t| (t.id, t.parent)).collect();
        let depth = |id: i64| {
            let mut d = 0usize;
            let mut at = parents.get(&id).copied().unwrap_or(0);
            while at != 0 && d < 64 {
                d += 1;
                at = parents.get(&at).copied().unwrap_or(0);
            }
            d
        };
        terms.sort_by_cached_key(|t| (depth(t.id), t.id));
        for t in &terms {
            let item = serde_json::to_value(TermView::new(t, &urls)).map_err(|e| e.to_string())?;
            line(out, KINDS[i], item)?;
            done.counts[i] += 1;
        }
    }
    for (i, t) in [(2, PostType::Venue), (3, PostType::Organizer)] {
        let mut posts =
            walk(|a| async move { service.sync_linked(asking, t, &a, &[], &[]).await }).await?;
        posts.sort_by_key(|(p, _)| p.id);
        for (post, reveal) in &posts {
            let view: LinkedView<'_> = view_of(post, &urls, settings.timezone, *reveal, false);
            let item = serde_json::to_value(view).map_err(|e| e.to_string())?;
            line(out, KINDS[i], with_password(item, &post.password))?;
            done.counts[i] += 1;
        }
    }
    let mut events = every_event(service, asking).await?;
    // By ID, so that an event's parent (`post_parent`) comes before it.
    events.sort_by_key(|s| s.event.post.id);
    let cx = ViewContext {
        urls: &urls,
        site_zone: settings.timezone,
        caller: &caller,
    };
    for s in &events {
        let view = EventView::new(&s.event, &s.links, &cx, s.reveal, false);
        let item = serde_json::to_value(view).map_err(|e| e.to_string())?;
        line(out, KINDS[4], with_password(item, &s.event.post.password))?;
        done.counts[4] += 1;
    }
    Ok(done)
}
