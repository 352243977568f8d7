//! Incremental sync answers (`modified_after`, `cursor` on any list): the changes
//! in order, each an item as the list shows it or a tombstone, with the cursor to
//! go on from in the body, in `X-Calendar-Events-Cursor`, and in the next page's
//! URL (`next_rest_url`, `Link: rel="next"`). No freshness rule of their own: the
//! response cache keeps an answer for the second and data version it was computed in.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Serialize;

use super::context::Ctx;
use super::error::ApiError;
use super::json::json;
use super::linked::{LinkedView, view as linked_view};
use super::urls::with_query;
use super::views::{EventView, TermView, ViewContext};
use crate::api::args::Args;
use crate::domain::args::SyncArgs;
use crate::domain::dates::format_utc;
use crate::domain::post::PostType;
use crate::domain::sync::{SyncStart, is_sync};
use crate::domain::term::Taxonomy;
use crate::service::{SyncPage, Synced};

/// The response header carrying the cursor to go on from.
pub const CURSOR_HEADER: &str = "x-calendar-events-cursor";

/// Whether a list request asks for changes.
pub fn asked(args: &Args) -> bool {
    is_sync(&args.typed::<SyncArgs>())
}

/// A deleted item, or one the caller may no longer read.
#[derive(Serialize)]
struct Tombstone {
    id: i64,
    status: &'static str,
    modified_utc: String,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Entry<V> {
    Item(V),
    Deleted(Tombstone),
}

#[derive(Serialize)]
struct Envelope<'a, V> {
    #[serde(flatten)]
    items: Collection<'a, V>,
    rest_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_rest_url: Option<String>,
    cursor: String,
}

/// `{"<collection>": [...]}` under the collection's own name.
struct Collection<'a, V> {
    name: &'a str,
    entries: Vec<Entry<V>>,
}

impl<V: Serialize> Serialize for Collection<'_, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.name, &self.entries)?;
        m.end()
    }
}

fn respond<'a, T, V: Serialize>(
    ctx: &Ctx,
    collection: &str,
    page: &'a SyncPage<T>,
    item: impl Fn(&'a T) -> V,
) -> Response {
    let base = format!("{}/", ctx.urls.collection(collection));
    let per_page = ("per_page".to_string(), page.query.per_page.to_string());
    let asked = match page.query.start {
        SyncStart::Cursor(c) => ("cursor".to_string(), c.to_string()),
        SyncStart::Since(t) => ("modified_after".to_string(), format_utc(t)),
    };
    let cursor = page.cursor.to_string();
    let next = page.more.then(|| {
        with_query(
            &base,
            &[("cursor".to_string(), cursor.clone()), per_page.clone()],
        )
    });
    let entries = page
        .items
        .iter()
        .map(|s| match s {
            Synced::Item(t) => Entry::Item(item(t)),
            Synced::Deleted { id, modified_utc } => Entry::Deleted(Tombstone {
                id: *id,
                status: "deleted",
                modified_utc: format_utc(*modified_utc),
            }),
        })
        .collect();
    let body = Envelope {
        items: Collection {
            name: collection,
            entries,
        },
        rest_url: with_query(&base, &[asked, per_page]),
        next_rest_url: next.clone(),
        cursor: cursor.clone(),
    };
    let mut resp = json(StatusCode::OK, &body);
    let headers = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&cursor) {
        headers.insert(HeaderName::from_static(CURSOR_HEADER), v);
    }
    if let Some(next) = next
        && let Ok(v) = HeaderValue::from_str(&format!("<{next}>; rel=\"next\""))
    {
        headers.insert(header::LINK, v);
    }
    resp
}

pub async fn events(ctx: &Ctx, args: &Args) -> Result<Response, ApiError> {
    let page = ctx
        .app
        .service
        .sync_events(ctx.asking(), &args.typed(), args.given(), args.invalid())
        .await?;
    let cx = ViewContext {
        urls: &ctx.urls,
        site_zone: ctx.app.settings.timezone,
        caller: &ctx.caller,
    };
    Ok(respond(ctx, "events", &page, |s| {
        EventView::new(&s.event, &s.links, &cx, s.reveal, false)
    }))
}

pub async fn linked(ctx: &Ctx, t: PostType, args: &Args) -> Result<Response, ApiError> {
    let page = ctx
        .app
        .service
        .sync_linked(ctx.asking(), t, &args.typed(), args.given(), args.invalid())
        .await?;
    Ok(respond(
        ctx,
        t.collection(),
        &page,
        |(post, reveal)| -> LinkedView<'_> { linked_view(ctx, post, *reveal, false) },
    ))
}

pub async fn terms(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let page = ctx
        .app
        .service
        .sync_terms(
            ctx.asking(),
            tax,
            &args.typed(),
            args.given(),
            args.invalid(),
        )
        .await?;
    Ok(respond(ctx, tax.collection(), &page, |t| {
        TermView::new(t, &ctx.urls)
    }))
}
