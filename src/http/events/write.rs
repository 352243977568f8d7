//! Creating and updating events, each in one transaction that also creates the
//! terms, venue and organizers it names and keeps term counts right.

use std::collections::HashMap;

use axum::http::StatusCode;
use axum::response::Response;

use super::input::{self, counts, resolve_terms};
use super::{find, links_of, render_written, to_json};
use crate::api::args::Args;
use crate::api::table::By;
use crate::domain::event::{Event, EventChanges, LinkedRef, TermRef};
use crate::domain::permissions::Caller;
use crate::domain::post::{ImageRef, PostType, Status, Visibility, trashed_slug};
use crate::domain::slug;
use crate::domain::term::Taxonomy;
use crate::http::dispatch::Ctx;
use crate::http::error::ApiError;
use crate::http::json_raw;
use crate::http::linked::{Retryable, detached, with_retry};
use crate::http::views::Reveal;
use crate::store::event_batch::{BatchError, NewEvent};
use crate::store::events::{self, EventRow};
use crate::store::{Conn, StoreError, posts};

/// Why a write could not complete, beyond database errors.
enum WriteError {
    Store(StoreError),
    Invalid(&'static str),
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> Self {
        WriteError::Store(e)
    }
}

impl From<WriteError> for ApiError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Store(s) => s.into(),
            WriteError::Invalid(param) => ApiError::invalid_param(param),
        }
    }
}

/// Who writes: new posts are theirs, and what they name by value is looked up
/// among the posts they may read.
struct Writer {
    id: i64,
    visible: Visibility,
}

impl Writer {
    fn of(caller: &Caller) -> Writer {
        Writer {
            id: caller.0.as_ref().map_or(0, |u| u.id),
            visible: caller.visibility(),
        }
    }
}

async fn linked_id(
    tx: &mut Conn,
    t: PostType,
    r: &LinkedRef,
    writer: &Writer,
    now: i64,
) -> Result<i64, WriteError> {
    let author = writer.id;
    match r {
        LinkedRef::Existing(id) => Ok(*id),
        LinkedRef::New(changes, image) => {
            let mut changes = (**changes).clone();
            changes.author.get_or_insert(author);
            changes.status.get_or_insert(Status::Publish);
            let param = if t == PostType::Venue {
                "venue"
            } else {
                "organizer"
            };
            let caller = (author, &writer.visible);
            posts::find_or_create(tx, t, &changes, image.as_ref(), caller, now)
                .await?
                .map_err(|()| WriteError::Invalid(param))
        }
    }
}

/// The venue, organizers and terms a write names, resolved to IDs; new ones are
/// created in the same transaction. `None` leaves a link as it is.
struct Links {
    venue_id: Option<Option<i64>>,
    organizers: Option<Vec<i64>>,
    categories: Option<Vec<i64>>,
    tags: Option<Vec<i64>>,
}

impl Links {
    fn relations(&self) -> events::Relations<'_> {
        events::Relations {
            organizers: self.organizers.as_deref(),
            categories: self.categories.as_deref(),
            tags: self.tags.as_deref(),
        }
    }
}

async fn resolve_links(
    tx: &mut Conn,
    c: &EventChanges,
    writer: &Writer,
    now: i64,
) -> Result<Links, WriteError> {
    let venue_id = match &c.venue {
        Some(Some(r)) => Some(Some(linked_id(tx, PostType::Venue, r, writer, now).await?)),
        Some(None) => Some(None),
        None => None,
    };
    let organizers = match &c.organizers {
        Some(refs) => {
            let mut ids = Vec::with_capacity(refs.len());
            for r in refs {
                ids.push(linked_id(tx, PostType::Organizer, r, writer, now).await?);
            }
            Some(ids)
        }
        None => None,
    };
    let mut terms = [None, None];
    for (slot, (refs, taxonomy)) in terms.iter_mut().zip([
        (&c.categories, Taxonomy::Category),
        (&c.tags, Taxonomy::Tag),
    ]) {
        if let Some(refs) = refs {
            *slot = Some(resolve_terms(tx, taxonomy, refs).await?);
        }
    }
    let [categories, tags] = terms;
    Ok(Links {
        venue_id,
        organizers,
        categories,
        tags,
    })
}

/// The event's own columns a write sets.
fn event_columns(c: &EventChanges, venue_id: Option<Option<i64>>) -> EventRow<'_> {
    EventRow {
        website: c.website.as_ref().map(|w| w.as_deref()),
        start_utc: c.start_utc,
        end_utc: c.end_utc,
        timezone: c.timezone.as_deref(),
        all_day: c.all_day,
        cost: c.cost.as_deref(),
        hide_from_listings: c.hide_from_listings,
        sticky: c.sticky,
        featured: c.featured,
        post_parent: c.post_parent,
        venue_id,
        tickets: c.tickets.as_deref(),
    }
}

impl Retryable for WriteError {
    fn is_conflict(&self) -> bool {
        matches!(self, WriteError::Store(e) if e.is_conflict())
    }
}

/// The path parameter that names the event: an unknown one is a 400 on it.
pub(super) fn id_param(by: By) -> &'static str {
    match by {
        By::Id => "id",
        By::Slug => "slug",
    }
}

pub async fn create(ctx: &Ctx, args: &Args) -> Result<Response, ApiError> {
    let (mut c, known) = input::read(ctx, args, None).await?;
    let Some(user) = ctx
        .caller
        .0
        .clone()
        .filter(|_| ctx.caller.can_create_posts())
    else {
        return Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        });
    };
    if c.post.author.is_some_and(|a| a != user.id) && !ctx.caller.is_editor() {
        return Err(ApiError::Forbidden { anonymous: false });
    }
    c.post.author.get_or_insert(user.id);
    c.post.status = Some(ctx.caller.scale_back(c.post.status));
    // Presentation flags omitted on create are false, as the running reference reports.
    c.post.show_map.get_or_insert(false);
    c.post.show_map_link.get_or_insert(false);
    for flag in [&mut c.hide_from_listings, &mut c.sticky, &mut c.featured] {
        flag.get_or_insert(false);
    }
    let (event, counts) = match plain_create(&c, ctx.now) {
        Some(new) => match ctx.app.creates.create(new).await {
            Ok(created) => (created.event, created.counts),
            Err(BatchError::NotWritten) => create_alone(ctx, &c).await?,
            Err(BatchError::Failed(reason)) => return Err(StoreError::Unavailable(reason).into()),
        },
        None => create_alone(ctx, &c).await?,
    };
    let links = match known.links_of_new(&c, &counts) {
        Some(links) => links,
        // Links created or found by name in the write: read them as stored.
        None => links_of(ctx, &event).await?,
    };
    Ok(json_raw(
        StatusCode::CREATED,
        to_json(ctx, &event, &links, Reveal::Full, false)?,
    ))
}

/// The create as a batch can write it: one that links only to what exists and
/// names no image. `None` for the others, which create what they name.
fn plain_create(c: &EventChanges, now: i64) -> Option<NewEvent> {
    let existing = |r: &LinkedRef| match r {
        LinkedRef::Existing(id) => Some(*id),
        LinkedRef::New(..) => None,
    };
    let term_ids = |refs: &Option<Vec<TermRef>>| -> Option<Vec<i64>> {
        refs.iter()
            .flatten()
            .map(|r| match r {
                TermRef::Existing(id) => Some(*id),
                TermRef::New(_) => None,
            })
            .collect()
    };
    if c.image.as_ref().is_some_and(|i| *i != ImageRef::None) {
        return None;
    }
    let venue_id = match &c.venue {
        Some(Some(r)) => Some(Some(existing(r)?)),
        Some(None) => Some(None),
        None => None,
    };
    let organizers = c
        .organizers
        .iter()
        .flatten()
        .map(existing)
        .collect::<Option<Vec<i64>>>()?;
    let (categories, tags) = (term_ids(&c.categories)?, term_ids(&c.tags)?);
    let terms = events::distinct_terms(&events::Relations {
        organizers: None,
        categories: Some(&categories),
        tags: Some(&tags),
    });
    let status = c.post.status.unwrap_or(Status::Draft);
    Some(NewEvent {
        post: c.post.clone(),
        columns: event_columns(c, venue_id).values(),
        organizers,
        terms,
        counted: counts(status.as_str(), c.post.date_utc.unwrap_or(now), now),
        now,
    })
}

/// Creates an event in a transaction of its own, with whatever it names that does
/// not exist yet; returns it and the counts of its terms.
async fn create_alone(
    ctx: &Ctx,
    c: &EventChanges,
) -> Result<(Event, std::sync::Arc<HashMap<i64, i64>>), ApiError> {
    let Some(user) = ctx.caller.0.clone() else {
        return Err(ApiError::Forbidden { anonymous: true });
    };
    let app = ctx.app.clone();
    let now = ctx.now;
    let c = std::sync::Arc::new(c.clone());
    let writer = Writer::of(&ctx.caller);
    let (event, counts) = detached(async move {
        with_retry::<_, WriteError, _, _>(|| async {
            let mut tx = app.store.pool.write().await?;
            let image_id = match &c.image {
                Some(img) => posts::resolve_image(&mut tx, img, user.id, now)
                    .await?
                    .map_err(|()| WriteError::Invalid("image"))?,
                None => None,
            };
            let links = resolve_links(&mut tx, &c, &writer, now).await?;
            let columns = event_columns(&c, links.venue_id).values();
            let event = events::insert(&mut tx, &c.post, image_id, columns, now).await?;
            let relations = links.relations();
            let stmts =
                events::relation_statements(event.post.id, &relations, events::Existing::New);
            let status = c.post.status.unwrap_or(Status::Draft);
            let counted = if counts(status.as_str(), c.post.date_utc.unwrap_or(now), now) {
                events::distinct_terms(&relations)
            } else {
                Vec::new()
            };
            let gained = counted.into_iter().map(|id| (id, 1)).collect();
            let increments = events::add_to_counts(&gained);
            if !increments.is_empty() {
                events::lock_counts(&mut tx).await?;
            }
            let counts = tx
                .commit_after(&stmts, &increments, events::count_from_row)
                .await
                .map_err(StoreError::from)?;
            Ok((event, counts.into_iter().collect::<HashMap<_, _>>()))
        })
        .await
    })
    .await?;
    Ok((event, std::sync::Arc::new(counts)))
}

pub async fn update(ctx: &Ctx, by: By, args: &Args) -> Result<Response, ApiError> {
    let existing = find(ctx, by, args).await?;
    let (mut c, _) = input::read(ctx, args, Some(&existing)).await?;
    if !ctx.caller.can_edit(&existing.post) {
        return Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        });
    }
    if c.post.author.is_some_and(|a| a != existing.post.author) && !ctx.caller.is_editor() {
        return Err(ApiError::Forbidden { anonymous: false });
    }
    if c.post.status.is_some() {
        c.post.status = Some(ctx.caller.scale_back(c.post.status));
    }
    // An event in the trash frees its slug, whether DELETE or an update put it there;
    // editing a trashed event without naming a status leaves it in the trash.
    let was_trashed = existing.post.status() == Some(Status::Trash);
    let in_trash = c.post.status.map_or(was_trashed, |s| s == Status::Trash);
    if in_trash && (c.post.slug.is_some() || !was_trashed) {
        let base = c
            .post
            .slug
            .take()
            .map(|s| slug::slugify(&s))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| existing.post.slug.clone());
        c.post.slug = Some(trashed_slug(&base));
    }
    let app = ctx.app.clone();
    let now = ctx.now;
    let writer = Writer::of(&ctx.caller);
    let author = writer.id;
    let target = existing.clone();
    let param = id_param(by);
    detached(async move {
        with_retry::<_, WriteError, _, _>(|| async {
            let mut tx = app.store.pool.write().await?;
            let image_id = match &c.image {
                Some(img) => Some(
                    posts::resolve_image(&mut tx, img, author, now)
                        .await?
                        .map_err(|()| WriteError::Invalid("image"))?,
                ),
                None => None,
            };
            // Counts move from the stored state, which a concurrent write may have changed.
            let Some((status_before, date_before)) =
                events::lock_state(&mut tx, target.post.id).await?
            else {
                return Err(WriteError::Invalid(param));
            };
            let before_terms = events::term_ids(&mut tx, target.post.id).await?;
            let was = counts(&status_before, date_before, now);
            posts::update(&mut tx, &target.post, &c.post, image_id, now).await?;
            let status = c
                .post
                .status
                .map_or(status_before, |s| s.as_str().to_string());
            let published = counts(&status, c.post.date_utc.unwrap_or(date_before), now);
            let links = resolve_links(&mut tx, &c, &writer, now).await?;
            let id = target.post.id;
            events::write_columns(&mut tx, id, &event_columns(&c, links.venue_id)).await?;
            let relations = links.relations();
            events::set_relations(&mut tx, id, &relations, events::Existing::Replace).await?;
            let after = if relations.categories.is_some() && relations.tags.is_some() {
                events::distinct_terms(&relations)
            } else {
                events::term_ids(&mut tx, id).await?
            };
            events::adjust_counts(&mut tx, (&before_terms, was), (&after, published)).await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    })
    .await?;
    Ok(json_raw(
        StatusCode::OK,
        render_written(ctx, existing.post.id, param).await?,
    ))
}
