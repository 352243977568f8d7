//! The event resource: single reads and deletes here; lists in `list.rs`,
//! creates and updates in `write.rs`, the representation in `view.rs`.

mod input;
mod known;
mod list;
mod view;
mod write;

use crate::api::i18n::Msg;
use axum::http::StatusCode;
use axum::response::Response;

pub use list::list;
pub use view::{EventList, EventView};
pub use write::{create, update};

use super::cache::Freshness;
use super::dispatch::Ctx;
use super::error::ApiError;
use super::json_raw;
use super::linked::detached;
use super::views::Reveal;
use crate::api::args::Args;
use crate::api::table::By;
use crate::domain::event::{Event, EventLinks};
use crate::domain::post::Status;
use crate::store::{events, posts};
use view::ViewContext;

/// The event a single-item route names, or the reference's 400 on `id`/`slug`.
async fn find(ctx: &Ctx, by: By, args: &Args) -> Result<Event, ApiError> {
    let mut conn = ctx.app.store.pool.read().await?;
    match by {
        By::Id => {
            let id = args
                .path_int("id")
                .ok_or_else(|| ApiError::invalid_param("id"))?;
            events::get(&mut conn, id)
                .await?
                .ok_or_else(|| ApiError::invalid_param("id"))
        }
        By::Slug => {
            let slug = args.path_str("slug").unwrap_or_default();
            events::get_by_slug(&mut conn, slug)
                .await?
                .ok_or_else(|| ApiError::invalid_param("slug"))
        }
    }
}

fn view_context(ctx: &Ctx) -> ViewContext<'_> {
    ViewContext {
        urls: &ctx.urls,
        site_zone: ctx.app.settings.timezone,
        caller: &ctx.caller,
        now: ctx.now,
    }
}

/// Whether the caller sees a password-protected event in full.
fn reveal(ctx: &Ctx, e: &Event, password: Option<&str>) -> Reveal {
    super::linked::reveal(ctx, &e.post, password)
}

/// The JSON of one event with its links (loaded in two statements).
async fn render(
    ctx: &Ctx,
    e: &Event,
    reveal: Reveal,
    with_json_ld: bool,
) -> Result<Vec<u8>, ApiError> {
    let links = links_of(ctx, e).await?;
    to_json(ctx, e, &links, reveal, with_json_ld)
}

/// An event's terms, venue and organizers, in two statements.
async fn links_of(ctx: &Ctx, e: &Event) -> Result<EventLinks, ApiError> {
    let mut conn = ctx.app.store.pool.read().await?;
    let mut links = events::load_links(&mut conn, std::slice::from_ref(e)).await?;
    Ok(links.remove(&e.post.id).unwrap_or_default())
}

/// The JSON of an event just written, read back with one connection.
/// The event a write just committed, with its links. One deleted by a concurrent
/// request since is answered as its `param` would be now: it names nothing.
async fn render_written(ctx: &Ctx, id: i64, param: &'static str) -> Result<Vec<u8>, ApiError> {
    let mut conn = ctx.app.store.pool.read().await?;
    let e = events::get(&mut conn, id)
        .await?
        .ok_or_else(|| ApiError::invalid_param(param))?;
    let mut links = events::load_links(&mut conn, std::slice::from_ref(&e)).await?;
    drop(conn);
    let links = links.remove(&id).unwrap_or_default();
    to_json(ctx, &e, &links, Reveal::Full, false)
}

fn to_json(
    ctx: &Ctx,
    e: &Event,
    links: &EventLinks,
    reveal: Reveal,
    with_json_ld: bool,
) -> Result<Vec<u8>, ApiError> {
    let view = EventView::new(e, links, &view_context(ctx), reveal, with_json_ld);
    serde_json::to_vec(&view)
        .map_err(|err| ApiError::Internal(format!("serialising an event: {err}")))
}

pub async fn get(ctx: &Ctx, by: By, args: &Args) -> Result<Response, ApiError> {
    let e = find(ctx, by, args).await?;
    let can_edit = ctx.caller.can_edit(&e.post);
    if e.post.status() == Some(Status::Trash) {
        if !can_edit {
            return Err(ApiError::coded(
                403,
                "event-no-longer-available",
                Msg::EventNoLongerAvailable,
            ));
        }
    } else if !ctx.caller.can_read(&e.post, ctx.now) {
        return Err(ApiError::coded(
            403,
            "event-not-accessible",
            Msg::EventNotAccessible,
        ));
    }
    let reveal = reveal(ctx, &e, args.str("password"));
    if reveal == Reveal::Blanked {
        return Err(ApiError::coded(
            403,
            "event-password-protected",
            Msg::EventPasswordProtected,
        ));
    }
    let links = links_of(ctx, &e).await?;
    let mut resp = json_raw(StatusCode::OK, to_json(ctx, &e, &links, reveal, true)?);
    // Only scheduled posts change by the clock: the event itself (were it not due, it
    // would not be shown) and its venue and organizers, left out until they go live.
    let linked = links.venue.iter().chain(&links.organizers);
    resp.extensions_mut().insert(Freshness::until_earliest(
        std::iter::once(&e.post)
            .chain(linked)
            .filter_map(|p| p.goes_live_at(ctx.now)),
    ));
    Ok(resp)
}

fn in_trash() -> ApiError {
    ApiError::coded(410, "event-is-in-trash", Msg::EventIsInTrash)
}

pub async fn delete(ctx: &Ctx, by: By, args: &Args) -> Result<Response, ApiError> {
    let e = find(ctx, by, args).await?;
    let force = args.bool("force").unwrap_or(false);
    if !ctx.caller.can_delete(&e.post) || (force && !ctx.caller.is_editor()) {
        return Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        });
    }
    if e.post.status() == Some(Status::Trash) && !force {
        return Err(in_trash());
    }
    // Shown as it was, with its links, when it is deleted for good.
    let before = render(ctx, &e, Reveal::Full, false).await?;
    let app = ctx.app.clone();
    let now = ctx.now;
    let target = e.clone();
    let param = write::id_param(by);
    detached(async move {
        let mut tx = app.store.pool.write().await?;
        // Checked again under the row lock: a concurrent delete may have won the race.
        let Some((status, date_utc)) = events::lock_state(&mut tx, target.post.id).await? else {
            return Err(ApiError::invalid_param(param));
        };
        if status == Status::Trash.as_str() && !force {
            return Err(in_trash());
        }
        let terms = events::term_ids(&mut tx, target.post.id).await?;
        let counted = input::counts(&status, date_utc, now);
        events::adjust_counts(&mut tx, (&terms, counted), (&[], false)).await?;
        if force {
            posts::delete(&mut tx, &target.post).await?;
        } else {
            posts::trash(&mut tx, &target.post, now).await?;
        }
        tx.commit().await?;
        Ok(())
    })
    .await?;
    if force {
        return Ok(json_raw(StatusCode::OK, before));
    }
    let mut conn = ctx.app.store.pool.read().await?;
    let trashed = events::get(&mut conn, e.post.id)
        .await?
        .ok_or_else(|| ApiError::invalid_param(param))?;
    drop(conn);
    Ok(json_raw(
        StatusCode::OK,
        render(ctx, &trashed, Reveal::Full, false).await?,
    ))
}
