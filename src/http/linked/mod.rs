//! The venue and organizer routes: typed input → use case (`service`) → view.

use axum::http::StatusCode;
use axum::response::Response;

use super::cache::Freshness;
use super::context::{Ctx, Current};
use super::error::ApiError;
use super::json::json;
use super::lists::{self, Layout, Paging};
use super::urls::Urls;
use super::views::{OrganizerView, Reveal, VenueView};
use crate::api::args::Args;
use crate::domain::args::{LinkedDeleteArgs, LinkedListArgs, PostReadArgs};
use crate::domain::changes::Reads;
use crate::domain::post::{Post, PostType, Target, Visibility};
use crate::service::LinkedDraftArgs;

/// A venue or an organizer, as its own representation.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum LinkedView<'a> {
    Venue(VenueView<'a>),
    Organizer(OrganizerView<'a>),
}

/// The representation of a venue or organizer.
pub fn view<'a>(
    ctx: &'a Ctx,
    post: &'a Post,
    reveal: Reveal,
    with_json_ld: bool,
) -> LinkedView<'a> {
    view_of(
        post,
        &ctx.urls,
        ctx.app.settings.timezone,
        reveal,
        with_json_ld,
    )
}

/// [`view`] outside a request (the export).
pub fn view_of<'a>(
    post: &'a Post,
    urls: &'a Urls,
    tz: chrono_tz::Tz,
    reveal: Reveal,
    with_json_ld: bool,
) -> LinkedView<'a> {
    match post.post_type {
        Some(PostType::Venue) => {
            LinkedView::Venue(VenueView::new(post, urls, &tz, reveal, with_json_ld))
        }
        _ => LinkedView::Organizer(OrganizerView::new(post, urls, &tz, reveal, with_json_ld)),
    }
}

/// A write's arguments, typed for its post type.
pub fn draft_args(t: PostType, args: &Args) -> LinkedDraftArgs {
    match t {
        PostType::Venue => LinkedDraftArgs::Venue(Box::new(args.typed())),
        _ => LinkedDraftArgs::Organizer(Box::new(args.typed())),
    }
}

pub async fn list(ctx: &Ctx, t: PostType, args: &Args) -> Result<Response, ApiError> {
    if super::sync::asked(args) {
        return super::sync::linked(ctx, t, args).await;
    }
    let typed: LinkedListArgs = args.typed();
    let page = ctx
        .app
        .service
        .list_linked(ctx.asking(), t, &typed, args.invalid())
        .await?;
    let q = &page.query;
    // Apart from `only_with_upcoming`, which reads the clock itself, only scheduled
    // posts going live change this answer by the clock.
    let freshness = match q.only_with_upcoming {
        true => None,
        false => ctx.until_next_go_live(),
    };
    let mut echo = vec![("per_page".to_string(), q.per_page.to_string())];
    if let Some(e) = q.event {
        echo.push(("event".into(), e.to_string()));
    }
    if let Some(h) = q.has_events {
        echo.push(("has_events".into(), if h { "1" } else { "0" }.into()));
    }
    if q.only_with_upcoming {
        echo.push(("only_with_upcoming".into(), "1".into()));
    }
    if let Some(s) = &q.search {
        echo.push(("search".into(), s.clone()));
    }
    if !q.statuses.is_empty() {
        let names: Vec<&str> = q.statuses.iter().map(|s| s.as_str()).collect();
        echo.push(("status".into(), names.join(",")));
    } else if q.visibility == Visibility::Published {
        echo.push(("status".into(), "publish".into()));
    }
    let base = format!("{}/", ctx.urls.collection(t.collection()));
    let paging = Paging::new(&base, q.page, q.per_page, page.total, &echo, true);
    let views: Vec<LinkedView<'_>> = page
        .posts
        .iter()
        .map(|(p, reveal)| view(ctx, p, *reveal, false))
        .collect();
    let mut resp = lists::respond(t.collection(), &views, &paging, Layout::Posts)?;
    if let Some(freshness) = freshness {
        resp.extensions_mut().insert(freshness);
    }
    // Which venues and organizers have (upcoming) events follows every event write.
    resp.extensions_mut().insert(Reads {
        every_event: true,
        ..Reads::default()
    });
    Ok(resp)
}

pub async fn get(
    ctx: &Ctx,
    t: PostType,
    target: &Target,
    args: &PostReadArgs,
) -> Result<Response, ApiError> {
    let (post, reveal) = ctx
        .app
        .service
        .linked(ctx.asking(), t, target, args.password.as_deref())
        .await?;
    let mut resp = json(StatusCode::OK, &view(ctx, &post, reveal, true));
    resp.extensions_mut()
        .insert(Freshness::until_earliest(post.goes_live_at(ctx.now)));
    // A venue or organizer shows nothing of its events.
    resp.extensions_mut().insert(Reads::default());
    Ok(resp)
}

/// The venue or organizer as a GET by this caller answers it, when the write is
/// conditional.
async fn current(ctx: &Ctx, t: PostType, target: &Target) -> Result<Option<Current>, ApiError> {
    if ctx.preconditions.is_empty() {
        return Ok(None);
    }
    let (post, reveal) = ctx
        .app
        .service
        .linked(ctx.asking(), t, target, None)
        .await?;
    let body = serde_json::to_vec(&view(ctx, &post, reveal, true))
        .map_err(|e| ApiError::Internal(format!("serialising a post: {e}")))?;
    Ok(Some(Current::of_post(body, &post)))
}

pub async fn create(ctx: &Ctx, t: PostType, args: &Args) -> Result<Response, ApiError> {
    let post = ctx
        .app
        .service
        .create_linked(ctx.asking(), &draft_args(t, args), args.invalid())
        .await?;
    Ok(json(
        StatusCode::CREATED,
        &view(ctx, &post, Reveal::Full, false),
    ))
}

pub async fn update(
    ctx: &Ctx,
    t: PostType,
    target: &Target,
    args: &Args,
) -> Result<Response, ApiError> {
    let asking = ctx.asking_if(current(ctx, t, target).await?)?;
    let post = ctx
        .app
        .service
        .update_linked(asking, target, &draft_args(t, args), args.invalid())
        .await?;
    Ok(json(StatusCode::OK, &view(ctx, &post, Reveal::Full, false)))
}

pub async fn delete(
    ctx: &Ctx,
    t: PostType,
    target: &Target,
    args: &LinkedDeleteArgs,
) -> Result<Response, ApiError> {
    let asking = ctx.asking_if(current(ctx, t, target).await?)?;
    let post = ctx
        .app
        .service
        .delete_linked(asking, t, target, args.force)
        .await?;
    Ok(json(StatusCode::OK, &view(ctx, &post, Reveal::Full, false)))
}
