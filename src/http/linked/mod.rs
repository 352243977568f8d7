//! Venues and organizers: the posts events link to.
//!
//! Single reads live here, with the representation and the lookup every
//! single-item route shares; lists are in `list.rs`, the reading and checking of
//! a write's fields in `input.rs`, and creates, updates and deletes in `write.rs`.

mod input;
mod list;
mod write;

use crate::api::i18n::Msg;
use axum::http::StatusCode;
use axum::response::Response;

pub use input::{image_ref, normalize_url, read_author, read_changes};
pub use list::{list, statuses_filter};
pub use write::{Retryable, create, delete, detached, update, with_retry};

use super::cache::Freshness;
use super::dispatch::Ctx;
use super::error::ApiError;
use super::json;
use super::views::{OrganizerView, Reveal, VenueView};
use crate::api::args::Args;
use crate::api::table::By;
use crate::domain::post::{Post, PostType};
use crate::store::posts;

fn not_accessible(t: PostType) -> ApiError {
    match t {
        PostType::Venue => ApiError::coded(403, "venue-not-accessible", Msg::VenueNotAccessible),
        _ => ApiError::coded(403, "organizer-not-accessible", Msg::OrganizerNotAccessible),
    }
}

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
    let tz = &ctx.app.settings.timezone;
    match post.post_type {
        Some(PostType::Venue) => {
            LinkedView::Venue(VenueView::new(post, &ctx.urls, tz, reveal, with_json_ld))
        }
        _ => LinkedView::Organizer(OrganizerView::new(
            post,
            &ctx.urls,
            tz,
            reveal,
            with_json_ld,
        )),
    }
}

/// Whether a caller sees a protected post in full: with the right password, or as its editor.
pub fn reveal(ctx: &Ctx, post: &Post, password: Option<&str>) -> Reveal {
    if post.password.is_empty()
        || password == Some(post.password.as_str())
        || ctx.caller.can_edit(post)
    {
        Reveal::Full
    } else {
        Reveal::Blanked
    }
}

/// The post a single-item route names, or the reference's 400 on `id`/`slug`.
async fn find(ctx: &Ctx, t: PostType, by: By, args: &Args) -> Result<Post, ApiError> {
    let mut conn = ctx.app.store.pool.read().await?;
    let (found, param) = match by {
        By::Id => {
            let id = args
                .path_int("id")
                .ok_or_else(|| ApiError::invalid_param("id"))?;
            (posts::get(&mut conn, id).await?, "id")
        }
        By::Slug => {
            let slug = args.path_str("slug").unwrap_or_default();
            (posts::get_by_slug(&mut conn, t, slug).await?, "slug")
        }
    };
    found
        .filter(|p| p.post_type == Some(t))
        .ok_or_else(|| ApiError::invalid_param(param))
}

pub async fn get(ctx: &Ctx, t: PostType, by: By, args: &Args) -> Result<Response, ApiError> {
    let post = find(ctx, t, by, args).await?;
    if !ctx.caller.can_read(&post, ctx.now) {
        return Err(not_accessible(t));
    }
    let reveal = reveal(ctx, &post, args.str("password"));
    let mut resp = json(StatusCode::OK, &view(ctx, &post, reveal, true));
    resp.extensions_mut()
        .insert(Freshness::until_earliest(post.goes_live_at(ctx.now)));
    Ok(resp)
}
