//! `GET /venues` and `GET /organizers`, and the `status` filter post lists share.

use crate::api::i18n::Msg;
use axum::response::Response;

use super::{LinkedView, reveal, view};
use crate::api::args::Args;
use crate::domain::post::{LinkedPostQuery, PostType, Status};
use crate::http::dispatch::Ctx;
use crate::http::error::{ApiError, Problems};
use crate::http::lists::{self, Layout, Paging};
use crate::store::posts;

fn page_not_found(t: PostType) -> ApiError {
    match t {
        PostType::Venue => ApiError::coded(
            404,
            "venue-archive-page-not-found",
            Msg::VenueArchivePageNotFound,
        ),
        _ => ApiError::coded(
            404,
            "organizer-archive-page-not-found",
            Msg::OrganizerArchivePageNotFound,
        ),
    }
}

pub async fn list(ctx: &Ctx, t: PostType, args: &Args) -> Result<Response, ApiError> {
    let mut p = Problems::new(args);
    let paging = p.check(lists::page_and_size(args, ctx.app.settings.per_page_max))?;
    let search = match args.str("search") {
        Some(s) if s.trim().is_empty() => p.check(Err(ApiError::invalid_param("search")))?,
        s => s.map(|s| s.trim().to_string()),
    };
    let statuses = p.check(statuses_filter(ctx, args))?.unwrap_or_default();
    let event = p.check(visible_event(ctx, args).await)?.flatten();
    p.finish()?;
    let Some((page, per_page)) = paging else {
        return Err(ApiError::Internal("a checked argument has no value".into()));
    };
    let mut conn = ctx.app.store.pool.read().await?;
    let query = LinkedPostQuery {
        post_type: t,
        page,
        per_page,
        search,
        event,
        has_events: args.bool("has_events"),
        only_with_upcoming: args.bool("only_with_upcoming").unwrap_or(false),
        statuses: statuses.clone(),
        visibility: ctx.caller.visibility(),
        now_utc: ctx.now,
    };
    let (items, total) = posts::list_linked(&mut conn, &query).await?;
    // Apart from `only_with_upcoming`, which reads the clock itself, only scheduled
    // posts going live change this answer by the clock.
    let freshness = match query.only_with_upcoming {
        true => None,
        false => ctx.until_next_go_live(),
    };
    drop(conn);
    if items.is_empty() && page > 1 {
        return Err(page_not_found(t));
    }
    let mut echo = vec![("per_page".to_string(), per_page.to_string())];
    if let Some(e) = query.event {
        echo.push(("event".into(), e.to_string()));
    }
    if let Some(h) = query.has_events {
        echo.push(("has_events".into(), if h { "1" } else { "0" }.into()));
    }
    if query.only_with_upcoming {
        echo.push(("only_with_upcoming".into(), "1".into()));
    }
    if let Some(s) = &query.search {
        echo.push(("search".into(), s.clone()));
    }
    if !statuses.is_empty() {
        let names: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
        echo.push(("status".into(), names.join(",")));
    } else if ctx.caller.visibility() == crate::domain::post::Visibility::Published {
        echo.push(("status".into(), "publish".into()));
    }
    let base = format!("{}/", ctx.urls.collection(t.collection()));
    let paging = Paging::new(&base, page, per_page, total, &echo, true);
    let views: Vec<LinkedView<'_>> = items
        .iter()
        .map(|p| view(ctx, p, reveal(ctx, p, None), false))
        .collect();
    let mut resp = lists::respond(t.collection(), &views, &paging, Layout::Posts)?;
    if let Some(freshness) = freshness {
        resp.extensions_mut().insert(freshness);
    }
    Ok(resp)
}

/// The event whose venue or organizers are listed. One the caller may not read in
/// full (hidden, or behind a password) answers as an unknown ID does: its links
/// would tell what its own representation does not.
async fn visible_event(ctx: &Ctx, args: &Args) -> Result<Option<i64>, ApiError> {
    let Some(id) = args.int("event") else {
        return Ok(None);
    };
    let mut conn = ctx.app.store.pool.read().await?;
    let visible = posts::get(&mut conn, id)
        .await?
        .filter(|p| p.post_type == Some(PostType::Event))
        .is_some_and(|p| ctx.caller.can_read_in_full(&p, ctx.now));
    if visible {
        Ok(Some(id))
    } else {
        Err(ApiError::invalid_param("event"))
    }
}

/// The `status` filter of a post list: callers who may not edit may ask only for
/// `publish`; others for any registered status.
pub fn statuses_filter(ctx: &Ctx, args: &Args) -> Result<Vec<Status>, ApiError> {
    let Some(items) = args.list("status") else {
        return Ok(Vec::new());
    };
    if items.is_empty() {
        return Err(ApiError::invalid_param("status"));
    }
    let mut out = Vec::new();
    for item in items {
        if item == "any" {
            continue;
        }
        let s = Status::parse(item).ok_or_else(|| ApiError::invalid_param("status"))?;
        if s != Status::Publish && !ctx.caller.can_create_posts() {
            return Err(ApiError::invalid_param("status"));
        }
        out.push(s);
    }
    Ok(out)
}
