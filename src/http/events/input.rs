//! Reading an event write: every field of interface §2.1 and the extensions,
//! checked before any permission check or write.

use crate::api::i18n::Msg;
use chrono::{DateTime, NaiveTime, Utc};
use serde_json::{Map, Value};

pub use super::known::Known;
use crate::api::args::{self, Args, RawArgs};
use crate::api::table::{Op, ROUTES};
use crate::domain::event::{Event, EventChanges, LinkedRef, TermRef, Ticket};
use crate::domain::html::{sanitize_html, strip_tags};
use crate::domain::post::{PostType, Status};
use crate::domain::term::Taxonomy;
use crate::domain::timezone::{EventZone, parse_zone};
use crate::http::dispatch::Ctx;
use crate::http::error::{ApiError, Problems};
use crate::http::linked::{image_ref, normalize_url, read_author, read_changes as read_linked};
use crate::store::{posts, terms};

/// Most organizers, terms or tickets one event may name.
pub(super) const MAX_LINKS: usize = 100;

/// The write's changes, and what was read to check them (see [`Known`]). Every
/// field is checked, and every invalid one is reported in the same 400.
pub async fn read(
    ctx: &Ctx,
    args: &Args,
    existing: Option<&Event>,
) -> Result<(EventChanges, Known), ApiError> {
    let mut p = Problems::new(args);
    let mut c = EventChanges::default();
    let now = DateTime::from_timestamp(ctx.now, 0).unwrap_or_default();
    p.check(read_post_fields(&mut c, args))?;
    p.check(read_author(ctx, args).await.map(|a| c.post.author = a))?;
    let zone = p.check(read_zone(ctx, &mut c, args, existing))?;
    // Dates in an invalid zone are still checked, in the zone they would otherwise use.
    let zone = zone.unwrap_or_else(|| current_zone(ctx, existing));
    p.check(read_publication_date(&mut c, args, &zone, now))?;
    let site = ctx.app.settings.timezone;
    p.check(read_dates(&mut c, args, existing, &zone, site, now))?;
    if let Some(v) = args.raw("image") {
        c.image = p.check(image_ref(ctx, v).await)?;
    }
    if let Some(v) = args.raw("cost") {
        c.cost = p.check(read_cost(v))?;
    }
    if let Some(w) = args.raw("website") {
        let url = scalar(w).and_then(|text| normalize_url(&text));
        c.website = p.check(
            url.map(Some)
                .ok_or_else(|| ApiError::invalid_param("website")),
        )?;
    }
    c.post.show_map = args.bool("show_map");
    c.post.show_map_link = args.bool("show_map_link");
    c.hide_from_listings = args.bool("hide_from_listings");
    c.sticky = args.bool("sticky");
    c.featured = args.bool("featured");
    c.post_parent = p
        .check(read_post_parent(ctx, args, existing).await)?
        .flatten();
    let known = Known::read(ctx, args).await?;
    p.check(read_links(ctx, &known, &mut c, args).await)?;
    if let Some(v) = args.raw("tickets") {
        c.tickets = p.check(read_tickets(v))?;
    }
    p.finish()?;
    Ok((c, known))
}

/// Title, description, excerpt, slug, password and status.
fn read_post_fields(c: &mut EventChanges, args: &Args) -> Result<(), ApiError> {
    let mut p = Problems::default();
    if let Some(t) = args.str("title") {
        let t = strip_tags(t.trim());
        if t.is_empty() {
            p.check::<()>(Err(ApiError::invalid_param("title")))?;
        }
        c.post.title = Some(t);
    }
    c.post.description = args.str("description").map(sanitize_html);
    c.post.excerpt = args.str("excerpt").map(sanitize_html);
    c.post.slug = args.str("slug").map(|s| strip_tags(s.trim()));
    c.post.password = args.str("password").map(str::to_string);
    if let Some(s) = args.str("status") {
        c.post.status =
            p.check(Status::parse(s).ok_or_else(|| ApiError::invalid_param("status")))?;
    }
    p.finish()
}

/// The zone the event's dates are read in: the new one, the event's, or the site's.
fn read_zone(
    ctx: &Ctx,
    c: &mut EventChanges,
    args: &Args,
    existing: Option<&Event>,
) -> Result<EventZone, ApiError> {
    let site = ctx.app.settings.timezone;
    let zone = match args.str("timezone").map(str::trim) {
        Some("") => EventZone::Named(site),
        Some(name) => parse_zone(name).ok_or_else(|| ApiError::invalid_param("timezone"))?,
        None => {
            let z = current_zone(ctx, existing);
            if existing.is_none() {
                c.timezone = Some(z.name());
            }
            return Ok(z);
        }
    };
    c.timezone = Some(zone.name());
    Ok(zone)
}

/// The zone an event has before this write: its own, or the site's for a new one.
fn current_zone(ctx: &Ctx, existing: Option<&Event>) -> EventZone {
    let site = ctx.app.settings.timezone;
    existing.map_or(EventZone::Named(site), |e| super::view::zone_of(e, site))
}

/// `date` is wall time in the event's zone; `date_utc` is UTC. `date` wins when both are given.
fn read_publication_date(
    c: &mut EventChanges,
    args: &Args,
    zone: &EventZone,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let mut p = Problems::default();
    if let Some(d) = args.str("date_utc") {
        let parsed = crate::domain::dates::parse_instant(d, &Utc, now);
        c.post.date_utc = p.check(
            parsed
                .map(|d| d.timestamp())
                .ok_or_else(|| ApiError::invalid_param("date_utc")),
        )?;
    }
    if let Some(d) = args.str("date") {
        let parsed = parse_in_zone(d, zone, now);
        if let Some(date) = p.check(
            parsed
                .map(|d| d.timestamp())
                .ok_or_else(|| ApiError::invalid_param("date")),
        )? {
            c.post.date_utc = Some(date);
        }
    }
    p.finish()
}

/// The parent event a write names: `0` unlinks; the event itself cannot be it.
async fn read_post_parent(
    ctx: &Ctx,
    args: &Args,
    existing: Option<&Event>,
) -> Result<Option<i64>, ApiError> {
    let Some(parent) = args.int("post_parent") else {
        return Ok(None);
    };
    if parent != 0 {
        let mut conn = ctx.app.store.pool.read().await?;
        let is_event = posts::type_of(&mut conn, parent).await? == Some(PostType::Event);
        if !is_event || existing.is_some_and(|e| e.post.id == parent) {
            return Err(ApiError::invalid_param("post_parent"));
        }
    }
    Ok(Some(parent.max(0)))
}

/// Categories, tags, venue and organizers.
async fn read_links(
    ctx: &Ctx,
    known: &Known,
    c: &mut EventChanges,
    args: &Args,
) -> Result<(), ApiError> {
    let mut p = Problems::default();
    if let Some(v) = args.raw("categories") {
        c.categories =
            p.check(read_terms(ctx, known, v, Taxonomy::Category, "categories").await)?;
    }
    if let Some(v) = args.raw("tags") {
        c.tags = p.check(read_terms(ctx, known, v, Taxonomy::Tag, "tags").await)?;
    }
    if let Some(v) = args.raw("venue") {
        c.venue = p.check(read_venue(ctx, known, v).await)?;
    }
    if let Some(v) = args.raw("organizer") {
        c.organizers = p.check(read_organizers(ctx, known, v).await)?;
    }
    p.finish()
}

fn parse_in_zone(input: &str, zone: &EventZone, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match zone {
        EventZone::Named(tz) => crate::domain::dates::parse_instant(input, tz, now),
        EventZone::Fixed { offset_seconds, .. } => {
            let fixed = chrono::FixedOffset::east_opt(*offset_seconds)?;
            crate::domain::dates::parse_instant(input, &fixed, now)
        }
    }
}

/// Start and end: parsed in the event's zone, widened for all-day events, and in order.
fn read_dates(
    c: &mut EventChanges,
    args: &Args,
    existing: Option<&Event>,
    zone: &EventZone,
    site: chrono_tz::Tz,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let mut p = Problems::default();
    let mut date = |name: &str| -> Result<Option<i64>, ApiError> {
        let Some(s) = args.str(name) else {
            return Ok(None);
        };
        let parsed = parse_in_zone(s, zone, now).map(|d| d.timestamp());
        p.check(parsed.ok_or_else(|| ApiError::invalid_param(name)))
    };
    let (mut start, mut end) = (date("start_date")?, date("end_date")?);
    if !p.is_empty() || args.invalid().iter().any(|i| i.name.ends_with("_date")) {
        // No order to check between dates that are not both valid.
        return p.finish();
    }
    if let Some(e) = existing {
        // A new zone without new dates keeps the wall-clock times, as the reference stores them.
        if c.timezone.is_some() {
            let old_zone = super::view::zone_of(e, site);
            if start.is_none() {
                start = zone
                    .to_utc(old_zone.local(e.start_utc))
                    .map(|d| d.timestamp());
            }
            if end.is_none() {
                end = zone
                    .to_utc(old_zone.local(e.end_utc))
                    .map(|d| d.timestamp());
            }
        }
    }
    // Omitted on update keeps the stored value (the reference resets it to false).
    c.all_day = if args.was_given("all_day") || existing.is_none() {
        Some(args.bool("all_day").unwrap_or(false))
    } else {
        None
    };
    let widen = c.all_day.or(existing.map(|e| e.all_day)).unwrap_or(false);
    if widen {
        let base_start = start.or(existing.map(|e| e.start_utc));
        let base_end = end.or(existing.map(|e| e.end_utc));
        if let Some(s) = base_start {
            start = zone
                .to_utc(zone.local(s).date().and_time(NaiveTime::MIN))
                .map(|d| d.timestamp());
        }
        if let Some(e) = base_end {
            let last = NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN);
            end = zone
                .to_utc(zone.local(e).date().and_time(last))
                .map(|d| d.timestamp());
        }
    }
    let final_start = start.or(existing.map(|e| e.start_utc));
    let final_end = end.or(existing.map(|e| e.end_utc));
    if let (Some(s), Some(e)) = (final_start, final_end)
        && e < s
    {
        return Err(ApiError::invalid_because(
            "end_date",
            "rest_invalid_date_range",
            Msg::EndBeforeStart,
        ));
    }
    c.start_utc = start;
    c.end_utc = end;
    Ok(())
}

pub(super) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_cost(v: &Value) -> Result<Vec<String>, ApiError> {
    let bad = || ApiError::invalid_param("cost");
    let items: Vec<String> = match v {
        Value::Array(a) => a
            .iter()
            .map(scalar)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?,
        Value::Bool(false) => Vec::new(),
        other => vec![scalar(other).ok_or_else(bad)?],
    };
    Ok(items
        .into_iter()
        .map(|s| strip_tags(s.trim()))
        .filter(|s| !s.is_empty())
        .collect())
}

/// Items of a list-like value: a JSON array, a CSV string, or one scalar.
pub(super) fn items(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        // Form bodies can only say `venue=0` as text; it unlinks like the number does.
        Value::String(s) if s.trim().is_empty() || s.trim() == "0" => Vec::new(),
        Value::String(s) => s
            .split(',')
            .map(|p| Value::String(p.trim().to_string()))
            .filter(|p| p != "")
            .collect(),
        Value::Number(n) if n.as_i64() == Some(0) => Vec::new(),
        Value::Bool(false) => Vec::new(),
        other => vec![other.clone()],
    }
}

/// What names a term in a list: an ID, a slug or a name.
pub(super) fn term_key(item: &Value) -> Option<String> {
    match item {
        Value::Object(o) => o.get("id").or(o.get("name")).and_then(scalar),
        other => scalar(other),
    }
}

/// The entries of a venue or organizer field.
pub(super) fn linked_items(v: &Value) -> Vec<Value> {
    match v {
        Value::Object(_) => vec![v.clone()],
        other => items(other),
    }
}

async fn read_terms(
    ctx: &Ctx,
    known: &Known,
    v: &Value,
    taxonomy: Taxonomy,
    param: &str,
) -> Result<Vec<TermRef>, ApiError> {
    let list = items(v);
    if list.len() > MAX_LINKS {
        return Err(ApiError::invalid_param(param));
    }
    let mut conn = None;
    let mut out = Vec::with_capacity(list.len());
    for item in list {
        let key = term_key(&item).ok_or_else(|| ApiError::invalid_param(param))?;
        let key = key.trim();
        if key.is_empty() {
            continue;
        }
        let by_id = key
            .parse::<i64>()
            .ok()
            .and_then(|id| known.terms.get(&id))
            .filter(|t| t.taxonomy == taxonomy);
        if let Some(t) = by_id {
            out.push(TermRef::Existing(t.id));
            continue;
        }
        // Not one of the IDs read up front: a slug, a name, or a number that is one.
        let conn = match &mut conn {
            Some(c) => c,
            None => conn.insert(ctx.app.store.pool.read().await?),
        };
        match terms::find(conn, taxonomy, key).await? {
            Some(t) => out.push(TermRef::Existing(t.id)),
            // Unknown numeric IDs are an error; unknown names create terms.
            None if key.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(ApiError::invalid_param(param));
            }
            // As in WordPress, anyone who may write an event may add a tag by naming
            // it; a new category needs the right to manage categories.
            None if taxonomy == Taxonomy::Category && !ctx.caller.can_manage_terms() => {
                return Err(ApiError::invalid_because(
                    param,
                    "rest_cannot_create_term",
                    Msg::CannotCreateCategory,
                ));
            }
            None => {
                let name = strip_tags(key);
                if name.is_empty() || name.len() > 200 {
                    return Err(ApiError::invalid_param(param));
                }
                out.push(TermRef::New(name));
            }
        }
    }
    Ok(out)
}

/// A linked post given by ID (`5`, `"5"`, `{"id": 5}`) or by fields (`{"venue": "Hall", …}`).
async fn read_linked_ref(
    ctx: &Ctx,
    known: &Known,
    item: &Value,
    t: PostType,
    param: &str,
) -> Result<LinkedRef, ApiError> {
    let bad = || ApiError::invalid_param(param);
    let id = match item {
        Value::Number(n) => Some(n.as_i64().ok_or_else(bad)?),
        Value::String(s) => Some(s.trim().parse::<i64>().map_err(|_| bad())?),
        Value::Object(o) => match o.get("id") {
            Some(id) => Some(
                scalar(id)
                    .and_then(|s| s.trim().parse::<i64>().ok())
                    .ok_or_else(bad)?,
            ),
            None => None,
        },
        _ => return Err(bad()),
    };
    if let Some(id) = id {
        // Every ID named was read up front: one missing there does not exist. One the
        // caller may not read answers alike, or linking would probe for hidden posts.
        let post = known.posts.get(&id).ok_or_else(bad)?;
        if post.post_type != Some(t)
            || post.status() == Some(Status::Trash)
            || !ctx.caller.can_read(post, ctx.now)
        {
            return Err(bad());
        }
        return Ok(LinkedRef::Existing(id));
    }
    let Value::Object(fields) = item else {
        return Err(bad());
    };
    let (mut changes, image) =
        Box::pin(inline_fields(ctx, t, fields))
            .await
            .map_err(|e| match e {
                ApiError::Missing(_) | ApiError::Invalid(_) => bad(),
                other => other,
            })?;
    // An inline venue or organizer is created with the rights its own create route
    // would grant: only editors name another author, and contributors cannot publish.
    let caller_id = ctx.caller.0.as_ref().map(|u| u.id);
    if changes.author.is_some_and(|a| Some(a) != caller_id) && !ctx.caller.is_editor() {
        return Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        });
    }
    changes.status = Some(ctx.caller.scale_back(changes.status));
    Ok(LinkedRef::New(Box::new(changes), image))
}

/// Checks inline venue/organizer fields exactly as their own create route would.
async fn inline_fields(
    ctx: &Ctx,
    t: PostType,
    fields: &Map<String, Value>,
) -> Result<
    (
        crate::domain::post::PostChanges,
        Option<crate::domain::post::ImageRef>,
    ),
    ApiError,
> {
    let endpoint = ROUTES
        .iter()
        .flat_map(|r| r.endpoints.iter())
        .find(|e| e.op == Op::LinkedCreate(t))
        .ok_or_else(|| ApiError::Internal("no create route for linked type".into()))?;
    let raw = RawArgs {
        path: Default::default(),
        params: fields.clone(),
    };
    let inline_args = args::check(endpoint, raw, &ctx.app.settings.limits)?;
    read_linked(ctx, t, &inline_args, true).await
}

async fn read_venue(ctx: &Ctx, known: &Known, v: &Value) -> Result<Option<LinkedRef>, ApiError> {
    let list = linked_items(v);
    match list.len() {
        0 => Ok(None),
        // One venue per event in v1: more is an error, not a silent truncation.
        1 => Ok(Some(
            read_linked_ref(ctx, known, &list[0], PostType::Venue, "venue").await?,
        )),
        _ => Err(ApiError::invalid_because(
            "venue",
            "rest_too_many_venues",
            Msg::TooManyVenues,
        )),
    }
}

async fn read_organizers(ctx: &Ctx, known: &Known, v: &Value) -> Result<Vec<LinkedRef>, ApiError> {
    let list = linked_items(v);
    if list.len() > MAX_LINKS {
        return Err(ApiError::invalid_param("organizer"));
    }
    let mut out = Vec::with_capacity(list.len());
    for item in &list {
        out.push(read_linked_ref(ctx, known, item, PostType::Organizer, "organizer").await?);
    }
    Ok(out)
}

fn read_tickets(v: &Value) -> Result<Vec<Ticket>, ApiError> {
    let bad = || ApiError::invalid_param("tickets");
    let list = match v {
        Value::Array(a) => a.clone(),
        Value::Object(_) => vec![v.clone()],
        Value::String(s) if s.trim().is_empty() => Vec::new(),
        _ => return Err(bad()),
    };
    if list.len() > MAX_LINKS {
        return Err(bad());
    }
    list.iter()
        .map(|item| {
            let Value::Object(o) = item else {
                return Err(bad());
            };
            let field = |k: &str| -> Result<String, ApiError> {
                match o.get(k) {
                    None | Some(Value::Null) => Ok(String::new()),
                    Some(v) => scalar(v).map(|s| strip_tags(s.trim())).ok_or_else(bad),
                }
            };
            let url = field("url")?;
            let url = normalize_url(&url).ok_or_else(bad)?;
            let currency = field("currency")?;
            if currency.len() > 10 {
                return Err(bad());
            }
            Ok(Ticket {
                name: field("name")?,
                url,
                price: field("price")?,
                currency,
            })
        })
        .collect()
}

/// The term IDs of a resolved term list, creating the new ones.
pub async fn resolve_terms(
    conn: &mut crate::store::Conn,
    taxonomy: Taxonomy,
    refs: &[TermRef],
) -> Result<Vec<i64>, crate::store::StoreError> {
    let mut ids = Vec::with_capacity(refs.len());
    for r in refs {
        match r {
            TermRef::Existing(id) => ids.push(*id),
            TermRef::New(name) => {
                // A concurrent writer may have created it since the request was read.
                conn.lock_key(&format!(
                    "term:{}:{}",
                    taxonomy.as_str(),
                    name.to_lowercase()
                ))
                .await?;
                let id = match terms::find(conn, taxonomy, name).await? {
                    Some(t) => t.id,
                    None => {
                        let changes = crate::domain::term::TermChanges {
                            name: Some(name.clone()),
                            ..Default::default()
                        };
                        terms::insert(conn, taxonomy, &changes).await?
                    }
                };
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// Whether an event counts as published for term counts.
pub fn counts(status: &str, date_utc: i64, now: i64) -> bool {
    status == Status::Publish.as_str() || (status == Status::Future.as_str() && date_utc <= now)
}
