//! The event list and a single event as iCalendar: the same use cases as the JSON
//! routes, another view (docs/feeds.md).

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::{Ctx, list_cache_rules, view_context};
use crate::api::args::Args;
use crate::domain::args::EventListArgs;
use crate::http::error::ApiError;
use crate::http::views::ical::{CalendarMeta, Cut, calendar};
use crate::service::ShownEvent;

/// The whole window of a list request, not one page of it: up to the configured
/// most events, the earliest first, and a note in the calendar when it is cut.
pub async fn list(ctx: &Ctx, args: &Args, outlook: bool) -> Result<Response, ApiError> {
    let max = ctx.app.settings.feed_max_events;
    let mut typed: EventListArgs = args.typed();
    typed.page = 1;
    typed.per_page = i64::try_from(max).unwrap_or(i64::MAX);
    let page = ctx
        .app
        .service
        .list_events_up_to(ctx.asking(), &typed, args.invalid(), max)
        .await?;
    let shown = page.events.len();
    let cut = (page.total_at_least || page.total > shown as u64).then_some(Cut {
        shown,
        total: page.total,
        at_least: page.total_at_least,
    });
    let mut resp = respond(ctx, &page.events, outlook, cut, "events.ics");
    let total = HeaderValue::from(page.total);
    let h = resp.headers_mut();
    h.insert(HeaderName::from_static("x-wp-total"), total.clone());
    h.insert(HeaderName::from_static("x-tec-total"), total);
    if page.total_at_least {
        let (name, value) = crate::http::lists::TOTAL_IS_FLOOR;
        h.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    list_cache_rules(ctx, &page, None, &mut resp);
    Ok(resp)
}

/// One event as a calendar of one.
pub fn one(ctx: &Ctx, shown: &ShownEvent, outlook: bool) -> Response {
    let name = format!("{}.ics", file_name(&shown.event.post.slug));
    respond(ctx, std::slice::from_ref(shown), outlook, None, &name)
}

fn respond(
    ctx: &Ctx,
    shown: &[ShownEvent],
    outlook: bool,
    cut: Option<Cut>,
    file: &str,
) -> Response {
    let settings = &ctx.app.settings;
    let meta = CalendarMeta {
        name: &settings.site_title,
        description: &settings.site_description,
        with_name: !outlook,
        cut,
    };
    let body = calendar(shown, &view_context(ctx), &meta);
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/calendar; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{file}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

/// A slug as a file name: letters, digits, `-` and `_` only.
fn file_name(slug: &str) -> String {
    let name: String = slug
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(100)
        .collect();
    if name.is_empty() {
        "event".into()
    } else {
        name
    }
}
