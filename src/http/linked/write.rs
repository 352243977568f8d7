//! Creating, updating and deleting venues and organizers, each in one detached
//! transaction, and the write helpers the other resources share (`detached`,
//! `with_retry`).

use crate::api::i18n::Msg;
use axum::http::StatusCode;
use axum::response::Response;

use super::input::read_changes;
use super::{find, view};
use crate::api::args::Args;
use crate::api::table::By;
use crate::domain::post::{Post, PostType, Status};
use crate::http::dispatch::Ctx;
use crate::http::error::ApiError;
use crate::http::json;
use crate::http::views::Reveal;
use crate::store::{StoreError, posts};

fn in_trash(t: PostType) -> ApiError {
    match t {
        PostType::Venue => ApiError::coded(410, "venue-is-in-trash", Msg::VenueIsInTrash),
        _ => ApiError::coded(410, "organizer-is-in-trash", Msg::OrganizerIsInTrash),
    }
}

/// Runs a write to completion even if the client goes away, so a change is
/// never half-applied and its outcome is always logged.
pub async fn detached<T: Send + 'static>(
    fut: impl std::future::Future<Output = Result<T, ApiError>> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::spawn(fut)
        .await
        .map_err(|e| ApiError::Internal(format!("write task failed: {e}")))?
}

/// Errors that say a write lost a uniqueness race with a concurrent writer.
pub trait Retryable {
    fn is_conflict(&self) -> bool;
}

impl Retryable for StoreError {
    fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Conflict(_))
    }
}

/// Retries a write whose unique slug or term lost a race with a concurrent writer.
pub async fn with_retry<T, E, F, Fut>(mut attempt: F) -> Result<T, ApiError>
where
    E: Retryable + Into<ApiError>,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(e) if e.is_conflict() && tries < 4 => tries += 1,
            other => return other.map_err(Into::into),
        }
    }
}

/// A post as the caller's write left it, read in its transaction (read after the
/// commit, a concurrent delete could have removed it already). `None` when a
/// concurrent delete removed it before the write: the route's ID names nothing.
async fn written(tx: &mut crate::store::Conn, id: i64) -> Result<Option<Post>, StoreError> {
    posts::get(tx, id).await
}

/// The answer for a post deleted concurrently, before this write: the route's
/// `id` or `slug` names nothing, as it would for a request that came after.
fn gone(by: By) -> ApiError {
    ApiError::invalid_param(match by {
        By::Id => "id",
        By::Slug => "slug",
    })
}

pub async fn create(ctx: &Ctx, t: PostType, args: &Args) -> Result<Response, ApiError> {
    let (mut changes, image) = read_changes(ctx, t, args, true).await?;
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
    if changes.author.is_some_and(|a| a != user.id) && !ctx.caller.is_editor() {
        return Err(ApiError::Forbidden { anonymous: false });
    }
    changes.author.get_or_insert(user.id);
    changes.status = Some(ctx.caller.scale_back(changes.status));
    let app = ctx.app.clone();
    let now = ctx.now;
    let visible = ctx.caller.visibility();
    let post = detached(async move {
        with_retry::<_, StoreError, _, _>(|| async {
            let mut tx = app.store.pool.write().await?;
            let caller = (user.id, &visible);
            let Ok(id) =
                posts::find_or_create(&mut tx, t, &changes, image.as_ref(), caller, now).await?
            else {
                return Ok(Err(()));
            };
            let post = written(&mut tx, id)
                .await?
                .ok_or_else(|| StoreError::Internal(format!("post {id} vanished in its create")))?;
            tx.commit().await?;
            Ok(Ok(post))
        })
        .await?
        .map_err(|()| ApiError::invalid_param("image"))
    })
    .await?;
    Ok(json(
        StatusCode::CREATED,
        &view(ctx, &post, Reveal::Full, false),
    ))
}

pub async fn update(ctx: &Ctx, t: PostType, by: By, args: &Args) -> Result<Response, ApiError> {
    let post = find(ctx, t, by, args).await?;
    let (mut changes, image) = read_changes(ctx, t, args, false).await?;
    if !ctx.caller.can_edit(&post) {
        return Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        });
    }
    if changes.author.is_some_and(|a| a != post.author) && !ctx.caller.is_editor() {
        return Err(ApiError::Forbidden { anonymous: false });
    }
    if changes.status.is_some() {
        changes.status = Some(ctx.caller.scale_back(changes.status));
    }
    let app = ctx.app.clone();
    let now = ctx.now;
    let author = ctx.caller.0.as_ref().map_or(0, |u| u.id);
    let target = post.clone();
    let post = detached(async move {
        with_retry::<_, StoreError, _, _>(|| async {
            let mut tx = app.store.pool.write().await?;
            let image_id = match &image {
                Some(img) => match posts::resolve_image(&mut tx, img, author, now).await? {
                    Ok(id) => Some(id),
                    Err(()) => return Ok(Err(())),
                },
                None => None,
            };
            posts::update(&mut tx, &target, &changes, image_id, now).await?;
            let post = written(&mut tx, target.id).await?;
            tx.commit().await?;
            Ok(Ok(post))
        })
        .await?
        .map_err(|()| ApiError::invalid_param("image"))
    })
    .await?
    .ok_or_else(|| gone(by))?;
    Ok(json(StatusCode::OK, &view(ctx, &post, Reveal::Full, false)))
}

pub async fn delete(ctx: &Ctx, t: PostType, by: By, args: &Args) -> Result<Response, ApiError> {
    let post = find(ctx, t, by, args).await?;
    let force = args.bool("force").unwrap_or(false);
    if !ctx.caller.can_delete(&post) || (force && !ctx.caller.is_editor()) {
        return Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        });
    }
    if post.status() == Some(Status::Trash) && !force {
        return Err(in_trash(t));
    }
    let app = ctx.app.clone();
    let now = ctx.now;
    let target = post.clone();
    let trashed = detached(async move {
        let mut tx = app.store.pool.write().await?;
        let trashed = if force {
            posts::delete(&mut tx, &target).await?;
            None
        } else {
            posts::trash(&mut tx, &target, now).await?;
            Some(written(&mut tx, target.id).await?)
        };
        tx.commit().await?;
        Ok(trashed)
    })
    .await?;
    // Shown as it was when it is deleted for good.
    let shown = match trashed {
        None => post,
        Some(trashed) => trashed.ok_or_else(|| gone(by))?,
    };
    Ok(json(
        StatusCode::OK,
        &view(ctx, &shown, Reveal::Full, false),
    ))
}
