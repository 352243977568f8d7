//! The category and tag routes: typed input → use case (`service`) → view.

use crate::domain::event::Total;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::cache::Freshness;
use super::context::{Ctx, Current};
use super::error::ApiError;
use super::json::json;
use super::lists::{self, Layout, Paging};
use super::views::TermView;
use crate::api::args::Args;
use crate::domain::args::{CategoryListArgs, CategoryWriteArgs, TagListArgs, TagWriteArgs};
use crate::domain::changes::Reads;
use crate::domain::term::Taxonomy;

/// The list arguments; a tag list has no `parent`.
fn list_args(tax: Taxonomy, args: &Args) -> CategoryListArgs {
    match tax {
        Taxonomy::Category => args.typed(),
        Taxonomy::Tag => args.typed::<TagListArgs>().into(),
    }
}

/// The write arguments; a tag has no `parent`.
fn write_args(tax: Taxonomy, args: &Args) -> CategoryWriteArgs {
    match tax {
        Taxonomy::Category => args.typed(),
        Taxonomy::Tag => args.typed::<TagWriteArgs>().into(),
    }
}

pub async fn get(ctx: &Ctx, tax: Taxonomy, id: i64) -> Result<Response, ApiError> {
    let term = ctx.app.service.term(tax, id).await?;
    let mut resp = json(StatusCode::OK, &TermView::new(&term, &ctx.urls));
    resp.extensions_mut().insert(Freshness::UntilWrite);
    // Its count is filled in as the cache serves it; anything else changes by a
    // write of terms, which drops every cached answer.
    resp.extensions_mut().insert(Reads::default());
    Ok(resp)
}

pub async fn list(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    if super::sync::asked(args) {
        return super::sync::terms(ctx, tax, args).await;
    }
    let typed = list_args(tax, args);
    let page = ctx
        .app
        .service
        .list_terms(ctx.asking(), tax, &typed, args.invalid())
        .await?;
    let q = &page.query;
    let mut echo: Vec<(String, String)> = Vec::new();
    if q.per_page != ctx.app.settings.per_page_default {
        echo.push(("per_page".into(), q.per_page.to_string()));
    }
    let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    for (k, v) in [
        ("search", q.search.clone()),
        ("slug", q.slug.clone()),
        ("include", (!q.include.is_empty()).then(|| join(&q.include))),
        ("exclude", (!q.exclude.is_empty()).then(|| join(&q.exclude))),
        ("order", typed.order.clone()),
        ("orderby", typed.orderby.clone()),
        ("hide_empty", (!q.hide_empty).then(|| "0".to_string())),
        ("parent", q.parent.map(|p| p.to_string())),
        ("post", q.post.map(|p| p.to_string())),
    ] {
        if let Some(v) = v {
            echo.push((k.to_string(), v));
        }
    }
    let base = format!("{}/", ctx.urls.collection(tax.collection()));
    let paging = Paging::new(
        &base,
        q.page,
        q.per_page,
        Total::exact(page.total),
        &echo,
        false,
    );
    let views: Vec<TermView> = page
        .terms
        .iter()
        .map(|t| TermView::new(t, &ctx.urls))
        .collect();
    let mut resp = lists::respond(tax.collection(), &views, &paging, Layout::Terms)?;
    // Terms and their counts change only by writes.
    resp.extensions_mut().insert(Freshness::UntilWrite);
    // Counts decide the order and which terms are empty; `post` names the event.
    resp.extensions_mut().insert(Reads {
        every_term: true,
        events: q.post.into_iter().collect(),
        ..Reads::default()
    });
    Ok(resp)
}

pub async fn create(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let term = ctx
        .app
        .service
        .create_term(ctx.asking(), tax, &write_args(tax, args), args.invalid())
        .await?;
    let mut resp = json(StatusCode::CREATED, &TermView::new(&term, &ctx.urls));
    if let Ok(v) = HeaderValue::from_str(&ctx.urls.item(tax.collection(), term.id)) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// The term as a GET answers it, when the write is conditional. Terms record no
/// modification time nor revision: the check is against their body alone.
async fn current(ctx: &Ctx, tax: Taxonomy, id: i64) -> Result<Option<Current>, ApiError> {
    if ctx.preconditions.is_empty() {
        return Ok(None);
    }
    let term = ctx.app.service.term(tax, id).await?;
    let body = serde_json::to_vec(&TermView::new(&term, &ctx.urls))
        .map_err(|e| ApiError::Internal(format!("serialising a term: {e}")))?;
    Ok(Some(Current {
        body,
        modified_utc: None,
        revision: None,
    }))
}

pub async fn update(ctx: &Ctx, tax: Taxonomy, id: i64, args: &Args) -> Result<Response, ApiError> {
    let asking = ctx.asking_if(current(ctx, tax, id).await?)?;
    let term = ctx
        .app
        .service
        .update_term(asking, tax, id, &write_args(tax, args), args.invalid())
        .await?;
    Ok(json(StatusCode::OK, &TermView::new(&term, &ctx.urls)))
}

pub async fn delete(ctx: &Ctx, tax: Taxonomy, id: i64) -> Result<Response, ApiError> {
    let asking = ctx.asking_if(current(ctx, tax, id).await?)?;
    let term = ctx.app.service.delete_term(asking, tax, id).await?;
    Ok(json(StatusCode::OK, &TermView::new(&term, &ctx.urls)))
}
