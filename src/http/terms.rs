//! Categories and tags.

use crate::api::i18n::Msg;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::cache::Freshness;
use super::dispatch::Ctx;
use super::error::{ApiError, Problems};
use super::json;
use super::linked::detached;
use super::lists::{self, Layout, Paging};
use super::views::TermView;
use crate::api::args::Args;
use crate::domain::html::strip_tags;
use crate::domain::post::PostType;
use crate::domain::slug::slugify;
use crate::domain::term::{Taxonomy, Term, TermChanges, TermOrderBy, TermQuery};
use crate::store::{StoreError, posts, terms};

async fn find(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Term, ApiError> {
    let id = args
        .path_int("id")
        .ok_or_else(|| ApiError::invalid_param("id"))?;
    let mut conn = ctx.app.store.pool.read().await?;
    terms::get(&mut conn, id)
        .await?
        .filter(|t| t.taxonomy == tax)
        .ok_or_else(|| ApiError::invalid_param("id"))
}

pub async fn get(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let term = find(ctx, tax, args).await?;
    let mut resp = json(StatusCode::OK, &TermView::new(&term, &ctx.urls));
    resp.extensions_mut().insert(Freshness::UntilWrite);
    Ok(resp)
}

/// A non-empty trimmed string argument; `""` is a 400, as in the reference.
fn nonempty<'a>(args: &'a Args, name: &str) -> Result<Option<&'a str>, ApiError> {
    match args.str(name).map(str::trim) {
        Some("") => Err(ApiError::invalid_param(name)),
        other => Ok(other),
    }
}

/// IDs of a list argument, each an existing term of `tax`.
async fn existing_ids(
    ctx: &Ctx,
    tax: Taxonomy,
    args: &Args,
    name: &str,
) -> Result<Vec<i64>, ApiError> {
    let Some(items) = args.list(name) else {
        return Ok(Vec::new());
    };
    let mut conn = ctx.app.store.pool.read().await?;
    let mut ids = Vec::with_capacity(items.len());
    for item in items {
        let id = item
            .parse::<i64>()
            .map_err(|_| ApiError::invalid_param(name))?;
        match terms::get(&mut conn, id).await? {
            Some(t) if t.taxonomy == tax => ids.push(id),
            _ => return Err(ApiError::invalid_param(name)),
        }
    }
    Ok(ids)
}

/// The `parent` filter: `0` (top level) or an existing term of the taxonomy.
async fn parent_filter(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Option<i64>, ApiError> {
    match args.int("parent") {
        Some(0) => Ok(Some(0)),
        Some(p) => {
            let mut conn = ctx.app.store.pool.read().await?;
            match terms::get(&mut conn, p).await? {
                Some(t) if t.taxonomy == tax => Ok(Some(p)),
                _ => Err(ApiError::invalid_param("parent")),
            }
        }
        None => Ok(None),
    }
}

/// The event a term list is filtered by. One the caller may not read in full
/// (hidden, or behind a password) answers as an unknown ID does: its terms would
/// tell what its own representation does not.
async fn visible_event(ctx: &Ctx, args: &Args, param: &str) -> Result<Option<i64>, ApiError> {
    let Some(id) = args.int(param) else {
        return Ok(None);
    };
    let mut conn = ctx.app.store.pool.read().await?;
    let post = posts::get(&mut conn, id)
        .await?
        .filter(|p| p.post_type == Some(PostType::Event))
        .filter(|p| ctx.caller.can_read_in_full(p, ctx.now));
    match post {
        Some(_) => Ok(Some(id)),
        None => Err(ApiError::invalid_param(param)),
    }
}

pub async fn list(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let mut p = Problems::new(args);
    let paging = p.check(lists::page_and_size(args, ctx.app.settings.per_page_max))?;
    let search = p
        .check(nonempty(args, "search"))?
        .flatten()
        .map(str::to_string);
    let slug = p
        .check(nonempty(args, "slug"))?
        .flatten()
        .map(str::to_string);
    let include = p.check(existing_ids(ctx, tax, args, "include").await)?;
    let exclude = p.check(existing_ids(ctx, tax, args, "exclude").await)?;
    let parent = p.check(parent_filter(ctx, tax, args).await)?.flatten();
    // `event` is an alias of `post` and wins when both are given.
    let post_param = if args.has("event") { "event" } else { "post" };
    let post = p
        .check(visible_event(ctx, args, post_param).await)?
        .flatten();
    p.finish()?;
    let (Some((page, per_page)), Some(include), Some(exclude)) = (paging, include, exclude) else {
        return Err(ApiError::Internal("a checked argument has no value".into()));
    };
    let order_desc = args.str("order") == Some("desc");
    let orderby = args
        .str("orderby")
        .and_then(TermOrderBy::parse)
        .unwrap_or(TermOrderBy::Name);
    let mut conn = ctx.app.store.pool.read().await?;
    let query = TermQuery {
        taxonomy: tax,
        page,
        per_page,
        search,
        include,
        exclude,
        order_desc,
        orderby,
        hide_empty: args.bool("hide_empty").unwrap_or(true),
        parent,
        post,
        slug,
    };
    let (items, total) = terms::list(&mut conn, &query).await?;
    drop(conn);
    let mut echo: Vec<(String, String)> = Vec::new();
    if per_page != ctx.app.settings.per_page_default {
        echo.push(("per_page".into(), per_page.to_string()));
    }
    let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    for (k, v) in [
        ("search", query.search.clone()),
        ("slug", query.slug.clone()),
        (
            "include",
            (!query.include.is_empty()).then(|| join(&query.include)),
        ),
        (
            "exclude",
            (!query.exclude.is_empty()).then(|| join(&query.exclude)),
        ),
        ("order", args.str("order").map(str::to_string)),
        ("orderby", args.str("orderby").map(str::to_string)),
        ("hide_empty", (!query.hide_empty).then(|| "0".to_string())),
        ("parent", query.parent.map(|p| p.to_string())),
        ("post", query.post.map(|p| p.to_string())),
    ] {
        if let Some(v) = v {
            echo.push((k.to_string(), v));
        }
    }
    let base = format!("{}/", ctx.urls.collection(tax.collection()));
    let paging = Paging::new(&base, page, per_page, total, &echo, false);
    let views: Vec<TermView> = items.iter().map(|t| TermView::new(t, &ctx.urls)).collect();
    let mut resp = lists::respond(tax.collection(), &views, &paging, Layout::Terms)?;
    // Terms and their counts change only by writes.
    resp.extensions_mut().insert(Freshness::UntilWrite);
    Ok(resp)
}

/// Reads and checks a term create/update; every 400 comes before permission, and
/// every invalid field is reported in the same 400.
async fn read_changes(
    ctx: &Ctx,
    tax: Taxonomy,
    args: &Args,
    existing: Option<&Term>,
) -> Result<TermChanges, ApiError> {
    let mut p = Problems::new(args);
    let mut c = TermChanges {
        name: p.check(nonempty(args, "name"))?.flatten().map(strip_tags),
        ..TermChanges::default()
    };
    if c.name.as_deref() == Some("") {
        p.check::<()>(Err(ApiError::invalid_param("name")))?;
    }
    c.description = p
        .check(nonempty(args, "description"))?
        .flatten()
        .map(str::to_string);
    if let Some(s) = p.check(nonempty(args, "slug"))?.flatten() {
        let s = slugify(s);
        if s.is_empty() {
            p.check::<()>(Err(ApiError::invalid_param("slug")))?;
        }
        c.slug = Some(s);
    }
    if tax.hierarchical() {
        c.parent = p
            .check(parent_of(ctx, tax, args, existing).await)?
            .flatten();
    }
    if let Some(s) = &c.slug
        && !s.is_empty()
    {
        p.check(slug_free(ctx, tax, s, existing).await)?;
    }
    p.finish()?;
    let name = c.name.as_deref().or(existing.map(|t| t.name.as_str()));
    let parent = c.parent.or(existing.map(|t| t.parent)).unwrap_or(0);
    if let Some(name) = name {
        let mut conn = ctx.app.store.pool.read().await?;
        if let Some(term_id) =
            terms::name_taken(&mut conn, tax, name, parent, existing.map(|t| t.id)).await?
        {
            return Err(ApiError::TermExists { term_id });
        }
    }
    Ok(c)
}

/// A new parent: none (`0`), or a term of the taxonomy that is not the term itself
/// nor one of its descendants.
async fn parent_of(
    ctx: &Ctx,
    tax: Taxonomy,
    args: &Args,
    existing: Option<&Term>,
) -> Result<Option<i64>, ApiError> {
    let Some(p) = args.int("parent") else {
        return Ok(None);
    };
    if p == 0 {
        return Ok(Some(0));
    }
    let mut conn = ctx.app.store.pool.read().await?;
    let parent_ok = terms::get(&mut conn, p)
        .await?
        .is_some_and(|t| t.taxonomy == tax);
    if !parent_ok {
        return Err(ApiError::invalid_because(
            "parent",
            "rest_term_invalid",
            Msg::ParentMissing,
        ));
    }
    if let Some(term) = existing
        && terms::would_cycle(&mut conn, term.id, p).await?
    {
        return Err(ApiError::invalid_because(
            "parent",
            "rest_term_invalid",
            Msg::ParentCycle,
        ));
    }
    Ok(Some(p))
}

async fn slug_free(
    ctx: &Ctx,
    tax: Taxonomy,
    slug: &str,
    existing: Option<&Term>,
) -> Result<(), ApiError> {
    let mut conn = ctx.app.store.pool.read().await?;
    if terms::slug_taken(&mut conn, tax, slug, existing.map(|t| t.id)).await? {
        return Err(ApiError::invalid_because(
            "slug",
            "duplicate_term_slug",
            Msg::DuplicateTermSlug,
        ));
    }
    Ok(())
}

fn check_permission(ctx: &Ctx) -> Result<(), ApiError> {
    if ctx.caller.can_manage_terms() {
        Ok(())
    } else {
        Err(ApiError::Forbidden {
            anonymous: ctx.caller.is_anonymous(),
        })
    }
}

/// A unique violation here means a concurrent writer took the name or slug first.
fn conflict_to_exists(e: StoreError) -> ApiError {
    match e {
        StoreError::Conflict(_) => {
            ApiError::invalid_because("slug", "duplicate_term_slug", Msg::DuplicateTermSlug)
        }
        other => other.into(),
    }
}

/// A term as the caller's write left it, read in its transaction (read after the
/// commit, a concurrent delete could have removed it already). A term deleted
/// concurrently, before the write, is answered as its ID would be now: it names
/// nothing.
async fn written(tx: &mut crate::store::Conn, id: i64) -> Result<Term, ApiError> {
    terms::get(tx, id)
        .await?
        .ok_or_else(|| ApiError::invalid_param("id"))
}

pub async fn create(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let changes = read_changes(ctx, tax, args, None).await?;
    check_permission(ctx)?;
    let app = ctx.app.clone();
    let term = detached(async move {
        let mut tx = app.store.pool.write().await?;
        let id = terms::insert(&mut tx, tax, &changes)
            .await
            .map_err(conflict_to_exists)?;
        let term = written(&mut tx, id).await?;
        tx.commit().await?;
        Ok(term)
    })
    .await?;
    let id = term.id;
    let mut resp = json(StatusCode::CREATED, &TermView::new(&term, &ctx.urls));
    if let Ok(v) = HeaderValue::from_str(&ctx.urls.item(tax.collection(), id)) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

pub async fn update(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let term = find(ctx, tax, args).await?;
    let changes = read_changes(ctx, tax, args, Some(&term)).await?;
    check_permission(ctx)?;
    let app = ctx.app.clone();
    let target = term.clone();
    let term = detached(async move {
        let mut tx = app.store.pool.write().await?;
        terms::update(&mut tx, &target, &changes)
            .await
            .map_err(conflict_to_exists)?;
        let term = written(&mut tx, target.id).await?;
        tx.commit().await?;
        Ok(term)
    })
    .await?;
    Ok(json(StatusCode::OK, &TermView::new(&term, &ctx.urls)))
}

pub async fn delete(ctx: &Ctx, tax: Taxonomy, args: &Args) -> Result<Response, ApiError> {
    let term = find(ctx, tax, args).await?;
    check_permission(ctx)?;
    let app = ctx.app.clone();
    let target = term.clone();
    detached(async move {
        let mut tx = app.store.pool.write().await?;
        terms::delete(&mut tx, &target).await?;
        tx.commit().await?;
        Ok(())
    })
    .await?;
    Ok(json(StatusCode::OK, &TermView::new(&term, &ctx.urls)))
}
