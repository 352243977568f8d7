//! The event routes: typed input → use case (`service`) → view. The
//! representation itself is in `view.rs`.

use crate::domain::event::Total;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value};

use super::cache::Freshness;
use super::context::{Ctx, Current, View};
use super::error::ApiError;
use super::json::json_raw;
use super::lists::{self, Layout, Paging};
use super::views::{EventView, ViewContext};
use crate::api::args::{self, Args, RawArgs};
use crate::api::table::{Op, ROUTES};
use crate::domain::args::{EventDeleteArgs, EventListArgs, EventWriteArgs, PostReadArgs};
use crate::domain::changes::{Reads, Tally};
use crate::domain::event_input::LinkedDraft;
use crate::domain::event_list::WindowClock;
use crate::domain::linked_input::LinkedContext;
use crate::domain::post::{PostType, Target};
use crate::domain::validation::Problems;
use crate::service::EventPage;
use crate::service::ShownEvent;

mod feed;

fn view_context(ctx: &Ctx) -> ViewContext<'_> {
    ViewContext {
        urls: &ctx.urls,
        site_zone: ctx.app.settings.timezone,
        caller: &ctx.caller,
    }
}

/// The JSON of one event.
fn to_json(ctx: &Ctx, shown: &ShownEvent, with_json_ld: bool) -> Result<Vec<u8>, ApiError> {
    let view = EventView::new(
        &shown.event,
        &shown.links,
        &view_context(ctx),
        shown.reveal,
        with_json_ld,
    );
    serde_json::to_vec(&view)
        .map_err(|err| ApiError::Internal(format!("serialising an event: {err}")))
}

pub async fn list(ctx: &Ctx, args: &Args) -> Result<Response, ApiError> {
    if super::sync::asked(args) {
        return super::sync::events(ctx, args).await;
    }
    if let View::Calendar { outlook } = ctx.view {
        return feed::list(ctx, args, outlook).await;
    }
    let typed: EventListArgs = args.typed();
    let page = ctx
        .app
        .service
        .list_events(ctx.asking(), &typed, args.invalid())
        .await?;
    let q = &page.query;
    let cx = view_context(ctx);
    let views: Vec<EventView<'_>> = page
        .events
        .iter()
        .map(|s| EventView::new(&s.event, &s.links, &cx, s.reveal, false))
        .collect();
    let base = format!("{}/", ctx.urls.collection("events"));
    let mut paging = Paging::new(
        &base,
        q.page,
        q.per_page,
        Total {
            count: page.total,
            at_least: page.total_at_least,
        },
        &q.echo,
        true,
    );
    if page.at_search_depth {
        paging.next = None;
    }
    let mut resp = lists::respond("events", &views, &paging, Layout::Posts)?;
    list_cache_rules(ctx, &page, page.tally.clone(), &mut resp);
    Ok(resp)
}

/// How long a list stays true: until a write, or until its window moves with the
/// clock, or a scheduled post goes live.
fn list_freshness(ctx: &Ctx, page: &EventPage) -> Option<Freshness> {
    let window = match page.query.window {
        WindowClock::Fixed => Some(Freshness::UntilWrite),
        WindowClock::Until(t) => Some(Freshness::Until(t)),
        WindowClock::EverySecond => None,
    };
    window.and_then(|window| {
        let go_live = ctx.until_next_go_live()?;
        Some(Freshness::until_earliest(
            [window.changes_at(), go_live.changes_at()]
                .into_iter()
                .flatten(),
        ))
    })
}

/// What the response cache needs to know of a list: how long it stays true, which
/// writes can change it, and, when its body holds its totals as `lists::respond`
/// writes them, which writes move only those (`tally`).
fn list_cache_rules(ctx: &Ctx, page: &EventPage, tally: Option<Tally>, resp: &mut Response) {
    if let Some(freshness) = list_freshness(ctx, page) {
        resp.extensions_mut().insert(freshness);
    }
    resp.extensions_mut().insert(Reads {
        list: Some(page.reach.clone()),
        tally,
        ..shown_reads(&page.events)
    });
}

pub async fn get(ctx: &Ctx, target: &Target, args: &PostReadArgs) -> Result<Response, ApiError> {
    let shown = ctx
        .app
        .service
        .event(ctx.asking(), target, args.password.as_deref())
        .await?;
    let mut resp = match ctx.view {
        View::Json => json_raw(StatusCode::OK, to_json(ctx, &shown, true)?),
        View::Calendar { outlook } => feed::one(ctx, &shown, outlook),
    };
    resp.extensions_mut()
        .insert(Freshness::until_earliest(shown.changes_at));
    resp.extensions_mut()
        .insert(shown_reads(std::slice::from_ref(&shown)));
    Ok(resp)
}

/// What showing these events reads: the events. (Their terms' counts are filled in
/// as the cache serves them; venues, organizers and terms change by writes of their
/// own, which drop every cached answer.)
fn shown_reads(shown: &[ShownEvent]) -> Reads {
    Reads {
        events: shown.iter().map(|s| s.event.post.id).collect(),
        ..Reads::default()
    }
}

/// Reads an inline venue or organizer exactly as its own create route would.
fn inline_linked(ctx: &Ctx, t: PostType, fields: &Map<String, Value>) -> Result<LinkedDraft, ()> {
    let endpoint = ROUTES
        .iter()
        .flat_map(|r| r.endpoints.iter())
        .find(|e| e.op == Op::LinkedCreate(t))
        .ok_or(())?;
    let raw = RawArgs {
        path: Default::default(),
        params: fields.clone(),
    };
    let checked = args::check(endpoint, raw, &ctx.app.settings.limits).map_err(drop)?;
    let cx = LinkedContext {
        now: ctx.now,
        site: ctx.app.settings.timezone,
        creating: true,
    };
    let mut p = Problems::default();
    let draft = super::linked::draft_args(t, &checked)
        .read(cx, &mut p)
        .map_err(drop)?;
    p.is_empty().then_some(draft).ok_or(())
}

pub async fn create(ctx: &Ctx, args: &Args) -> Result<Response, ApiError> {
    let typed: EventWriteArgs = args.typed();
    let inline = |t: PostType, fields: &Map<String, Value>| inline_linked(ctx, t, fields);
    let shown = ctx
        .app
        .service
        .create_event(ctx.asking(), &typed, args.invalid(), &inline)
        .await?;
    Ok(json_raw(StatusCode::CREATED, to_json(ctx, &shown, false)?))
}

/// The event as a GET by this caller answers it, when the write is conditional.
async fn current(ctx: &Ctx, target: &Target) -> Result<Option<Current>, ApiError> {
    if ctx.preconditions.is_empty() {
        return Ok(None);
    }
    let shown = ctx.app.service.event(ctx.asking(), target, None).await?;
    let body = to_json(ctx, &shown, true)?;
    Ok(Some(Current::of_post(body, &shown.event.post)))
}

pub async fn update(ctx: &Ctx, target: &Target, args: &Args) -> Result<Response, ApiError> {
    let typed: EventWriteArgs = args.typed();
    let inline = |t: PostType, fields: &Map<String, Value>| inline_linked(ctx, t, fields);
    let asking = ctx.asking_if(current(ctx, target).await?)?;
    let shown = ctx
        .app
        .service
        .update_event(asking, target, &typed, args.invalid(), &inline)
        .await?;
    Ok(json_raw(StatusCode::OK, to_json(ctx, &shown, false)?))
}

pub async fn delete(
    ctx: &Ctx,
    target: &Target,
    args: &EventDeleteArgs,
) -> Result<Response, ApiError> {
    let asking = ctx.asking_if(current(ctx, target).await?)?;
    let shown = ctx
        .app
        .service
        .delete_event(asking, target, args.force)
        .await?;
    Ok(json_raw(StatusCode::OK, to_json(ctx, &shown, false)?))
}
