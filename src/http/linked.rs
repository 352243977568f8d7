//! Venues and organizers: the posts events link to.

use crate::api::i18n::Msg;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use super::cache::Freshness;
use super::dispatch::Ctx;
use super::error::ApiError;
use super::json;
use super::lists::{self, Layout, Paging};
use super::views::{OrganizerView, Reveal, VenueView};
use crate::api::args::{self, Args};
use crate::api::table::By;
use crate::domain::dates::parse_instant;
use crate::domain::html::strip_tags;
use crate::domain::post::{ImageRef, LinkedPostQuery, Post, PostChanges, PostType, Status};
use crate::store::{StoreError, posts, users};

/// The name field of each type: `venue` or `organizer`.
fn name_field(t: PostType) -> &'static str {
    match t {
        PostType::Venue => "venue",
        _ => "organizer",
    }
}

fn not_accessible(t: PostType) -> ApiError {
    match t {
        PostType::Venue => ApiError::coded(403, "venue-not-accessible", Msg::VenueNotAccessible),
        _ => ApiError::coded(403, "organizer-not-accessible", Msg::OrganizerNotAccessible),
    }
}

fn in_trash(t: PostType) -> ApiError {
    match t {
        PostType::Venue => ApiError::coded(410, "venue-is-in-trash", Msg::VenueIsInTrash),
        _ => ApiError::coded(410, "organizer-is-in-trash", Msg::OrganizerIsInTrash),
    }
}

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

pub async fn list(ctx: &Ctx, t: PostType, args: &Args) -> Result<Response, ApiError> {
    let (page, per_page) = lists::page_and_size(args, ctx.app.settings.per_page_max)?;
    let search = match args.str("search") {
        Some(s) if s.trim().is_empty() => return Err(ApiError::invalid_param("search")),
        s => s.map(|s| s.trim().to_string()),
    };
    let statuses = statuses_filter(ctx, args)?;
    let mut conn = ctx.app.store.pool.read().await?;
    if let Some(event) = args.int("event")
        && posts::type_of(&mut conn, event).await? != Some(PostType::Event)
    {
        return Err(ApiError::invalid_param("event"));
    }
    let query = LinkedPostQuery {
        post_type: t,
        page,
        per_page,
        search,
        event: args.int("event"),
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

/// Reads and checks the fields of a create or update. Checks that need the
/// database (author, image) run here too, so every 400 comes before permission.
pub async fn read_changes(
    ctx: &Ctx,
    t: PostType,
    args: &Args,
    creating: bool,
) -> Result<(PostChanges, Option<ImageRef>), ApiError> {
    let mut c = PostChanges::default();
    let text = |name: &str| args.str(name).map(|s| strip_tags(s.trim()));

    let name_key = name_field(t);
    if let Some(name) = text(name_key) {
        if name.is_empty() {
            return Err(ApiError::invalid_param(name_key));
        }
        c.title = Some(name);
    } else if creating {
        return Err(ApiError::Missing(vec![name_key]));
    }
    c.description = args.str("description").map(|s| s.trim().to_string());
    c.excerpt = args.str("excerpt").map(|s| s.trim().to_string());
    c.slug = text("slug");
    c.password = args
        .str("password")
        .map(str::to_string)
        .filter(|_| args.has("password"));
    for (field, slot) in [
        ("address", &mut c.address),
        ("city", &mut c.city),
        ("country", &mut c.country),
        ("province", &mut c.province),
        ("state", &mut c.state),
        ("zip", &mut c.zip),
        ("phone", &mut c.phone),
        ("stateprovince", &mut c.stateprovince),
    ] {
        if t == PostType::Venue || field == "phone" {
            *slot = text(field);
        }
    }
    if let Some(w) = text("website") {
        c.website = Some(normalize_url(&w).ok_or_else(|| ApiError::invalid_param("website"))?);
    }
    if t == PostType::Organizer
        && let Some(e) = text("email")
    {
        if !e.is_empty() && !looks_like_email(&e) {
            return Err(ApiError::invalid_param("email"));
        }
        c.email = Some(e);
    }
    if t == PostType::Venue {
        for (field, slot) in [
            ("show_map", &mut c.show_map),
            ("show_map_link", &mut c.show_map_link),
        ] {
            if let Some(s) = args.str(field) {
                // Typed string in the reference: any truthy text shows the map.
                *slot = Some(
                    args::parse_bool(&Value::String(s.to_string())).unwrap_or(!s.trim().is_empty()),
                );
            }
        }
        for (field, slot) in [("geo_lat", &mut c.geo_lat), ("geo_lng", &mut c.geo_lng)] {
            if let Some(v) = args.num(field) {
                let limit = if field == "geo_lat" { 90.0 } else { 180.0 };
                if v.abs() > limit {
                    return Err(ApiError::invalid_param(field));
                }
                *slot = Some(Some(v));
            }
        }
    }
    if let Some(list) = args.str("status") {
        c.status = Some(Status::parse(list).ok_or_else(|| ApiError::invalid_param("status"))?);
    }
    let tz = ctx.app.settings.timezone;
    let now = chrono::DateTime::from_timestamp(ctx.now, 0).unwrap_or_default();
    if let Some(d) = args.str("date_utc") {
        c.date_utc = Some(
            parse_instant(d, &chrono_tz::Tz::UTC, now)
                .ok_or_else(|| ApiError::invalid_param("date_utc"))?
                .timestamp(),
        );
    }
    if let Some(d) = args.str("date") {
        c.date_utc = Some(
            parse_instant(d, &tz, now)
                .ok_or_else(|| ApiError::invalid_param("date"))?
                .timestamp(),
        );
    }
    if let Some(author) = args.int("author") {
        let mut conn = ctx.app.store.pool.read().await?;
        if author <= 0 || !users::exists(&mut conn, author).await? {
            return Err(ApiError::invalid_param("author"));
        }
        c.author = Some(author);
    } else if args.has("author") {
        return Err(ApiError::invalid_param("author"));
    }
    let image = match args.raw("image") {
        None => None,
        Some(v) => Some(image_ref(ctx, v).await?),
    };
    Ok((c, image))
}

/// Interprets an `image` argument: a media ID, an image URL, or empty to clear.
pub async fn image_ref(ctx: &Ctx, v: &Value) -> Result<ImageRef, ApiError> {
    let bad = || ApiError::invalid_param("image");
    match v {
        Value::Null => Ok(ImageRef::None),
        Value::Bool(false) => Ok(ImageRef::None),
        Value::Number(n) => {
            let id = n.as_i64().filter(|i| *i > 0).ok_or_else(bad)?;
            check_media(ctx, id).await.map(|_| ImageRef::Id(id))
        }
        Value::String(s) => {
            let s = s.trim();
            if s.is_empty() || s == "0" {
                return Ok(ImageRef::None);
            }
            if let Ok(id) = s.parse::<i64>() {
                return check_media(ctx, id).await.map(|_| ImageRef::Id(id));
            }
            if !is_image_url(s) {
                return Err(bad());
            }
            if !ctx.caller.can_upload() {
                return Err(ApiError::invalid_because(
                    "image",
                    "rest_cannot_upload",
                    Msg::CannotUpload,
                ));
            }
            Ok(ImageRef::Url(s.to_string()))
        }
        Value::Object(o) => match o.get("id") {
            Some(id) => Box::pin(image_ref(ctx, id)).await,
            None => Err(bad()),
        },
        _ => Err(bad()),
    }
}

async fn check_media(ctx: &Ctx, id: i64) -> Result<(), ApiError> {
    let mut conn = ctx.app.store.pool.read().await?;
    match posts::type_of(&mut conn, id).await? {
        Some(PostType::Attachment) => Ok(()),
        _ => Err(ApiError::invalid_param("image")),
    }
}

const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "avif", "svg", "bmp", "ico", "tif", "tiff", "heic",
];

/// An `http(s)` URL whose path ends in an image extension. The server never fetches it.
pub fn is_image_url(s: &str) -> bool {
    let Some(rest) = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
    else {
        return false;
    };
    if rest.is_empty() || rest.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let path = rest.split(['?', '#']).next().unwrap_or("");
    path.rsplit_once('.')
        .is_some_and(|(_, ext)| IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

/// A website value: empty clears; `http(s)` URLs pass; a bare host gets `http://`.
pub fn normalize_url(s: &str) -> Option<String> {
    let s = s.trim();
    if s.is_empty() {
        return Some(String::new());
    }
    if s.chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == '"')
    {
        return None;
    }
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return (s.len() > lower.find("//")? + 2).then(|| s.to_string());
    }
    if lower.contains(':') && !lower.contains('.')
        || lower.starts_with("javascript:")
        || lower.starts_with("data:")
    {
        return None;
    }
    s.contains('.').then(|| format!("http://{s}"))
}

fn looks_like_email(s: &str) -> bool {
    match s.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !s.chars().any(|c| c.is_whitespace() || c == '<' || c == '>')
        }
        None => false,
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
    let post = detached(async move {
        with_retry::<_, StoreError, _, _>(|| async {
            let mut tx = app.store.pool.write().await?;
            let Ok(id) =
                posts::find_or_create(&mut tx, t, &changes, image.as_ref(), user.id, now).await?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_urls_need_a_scheme_and_an_image_extension() {
        assert!(is_image_url("https://example.com/a/b.JPG?x=1"));
        assert!(!is_image_url("ftp://example.com/a.jpg"));
        assert!(!is_image_url("https://example.com/a.pdf"));
        assert!(!is_image_url("javascript:alert(1).png"));
    }

    #[test]
    fn websites_are_http_urls_or_empty() {
        assert_eq!(normalize_url("").as_deref(), Some(""));
        assert_eq!(
            normalize_url("https://x.org/a").as_deref(),
            Some("https://x.org/a")
        );
        assert_eq!(normalize_url("x.org").as_deref(), Some("http://x.org"));
        assert_eq!(normalize_url("javascript:alert(1)"), None);
        assert_eq!(normalize_url("not a url"), None);
    }
}
