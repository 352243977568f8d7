//! Reading a venue or organizer write: every field checked (including those
//! that need the database) before any permission check or write, and the
//! `image` and `website` values events share.

use crate::api::i18n::Msg;
use serde_json::Value;

use crate::api::args::{self, Args};
use crate::domain::dates::parse_instant;
use crate::domain::html::{sanitize_html, strip_tags};
use crate::domain::post::{ImageRef, PostChanges, PostType, Status};
use crate::http::dispatch::Ctx;
use crate::http::error::{ApiError, Problems};
use crate::store::{posts, users};

/// The name field of each type: `venue` or `organizer`.
fn name_field(t: PostType) -> &'static str {
    match t {
        PostType::Venue => "venue",
        _ => "organizer",
    }
}

/// Reads and checks the fields of a create or update. Checks that need the
/// database (author, image) run here too, so every 400 comes before permission,
/// and every invalid field is reported in the same 400.
pub async fn read_changes(
    ctx: &Ctx,
    t: PostType,
    args: &Args,
    creating: bool,
) -> Result<(PostChanges, Option<ImageRef>), ApiError> {
    let mut p = Problems::new(args);
    let mut c = PostChanges::default();
    let name_key = name_field(t);
    if let Some(name) = text(args, name_key) {
        if name.is_empty() {
            p.check::<()>(Err(ApiError::invalid_param(name_key)))?;
        }
        c.title = Some(name);
    } else if creating && !args.invalid().iter().any(|i| i.name == name_key) {
        return Err(ApiError::Missing(vec![name_key]));
    }
    p.check(read_text_fields(&mut c, t, args))?;
    if t == PostType::Venue {
        p.check(read_map_fields(&mut c, args))?;
    }
    if let Some(list) = args.str("status") {
        c.status = p.check(Status::parse(list).ok_or_else(|| ApiError::invalid_param("status")))?;
    }
    p.check(read_publication_date(ctx, &mut c, args))?;
    c.author = p.check(read_author(ctx, args).await)?.flatten();
    let image = match args.raw("image") {
        None => None,
        Some(v) => p.check(image_ref(ctx, v).await)?,
    };
    p.finish()?;
    Ok((c, image))
}

/// An argument's text without tags or surrounding blanks.
fn text(args: &Args, name: &str) -> Option<String> {
    args.str(name).map(|s| strip_tags(s.trim()))
}

/// The description, excerpt and plain-text fields: address, contact, website.
fn read_text_fields(c: &mut PostChanges, t: PostType, args: &Args) -> Result<(), ApiError> {
    let mut p = Problems::default();
    // Wrapped in paragraphs as event descriptions are, as the reference does.
    c.description = args.str("description").map(sanitize_html);
    c.excerpt = args.str("excerpt").map(|s| s.trim().to_string());
    c.slug = text(args, "slug");
    c.password = args.str("password").map(str::to_string);
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
            *slot = text(args, field);
        }
    }
    if let Some(w) = text(args, "website") {
        c.website = p.check(normalize_url(&w).ok_or_else(|| ApiError::invalid_param("website")))?;
    }
    if t == PostType::Organizer
        && let Some(e) = text(args, "email")
    {
        if !e.is_empty() && !looks_like_email(&e) {
            p.check::<()>(Err(ApiError::invalid_param("email")))?;
        }
        c.email = Some(e);
    }
    p.finish()
}

/// A venue's map flags and coordinates.
fn read_map_fields(c: &mut PostChanges, args: &Args) -> Result<(), ApiError> {
    let mut p = Problems::default();
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
                p.check::<()>(Err(ApiError::invalid_param(field)))?;
            }
            *slot = Some(Some(v));
        }
    }
    p.finish()
}

/// `date` (site zone) or `date_utc`; `date` wins when both are given.
fn read_publication_date(ctx: &Ctx, c: &mut PostChanges, args: &Args) -> Result<(), ApiError> {
    let mut p = Problems::default();
    let tz = ctx.app.settings.timezone;
    let now = chrono::DateTime::from_timestamp(ctx.now, 0).unwrap_or_default();
    if let Some(d) = args.str("date_utc") {
        c.date_utc = p.check(
            parse_instant(d, &chrono_tz::Tz::UTC, now)
                .map(|d| d.timestamp())
                .ok_or_else(|| ApiError::invalid_param("date_utc")),
        )?;
    }
    if let Some(d) = args.str("date")
        && let Some(date) = p.check(
            parse_instant(d, &tz, now)
                .map(|d| d.timestamp())
                .ok_or_else(|| ApiError::invalid_param("date")),
        )?
    {
        c.date_utc = Some(date);
    }
    p.finish()
}

/// The author a write names, who must exist.
pub async fn read_author(ctx: &Ctx, args: &Args) -> Result<Option<i64>, ApiError> {
    let Some(author) = args.int("author") else {
        return Ok(None);
    };
    let mut conn = ctx.app.store.pool.read().await?;
    if author <= 0 || !users::exists(&mut conn, author).await? {
        return Err(ApiError::invalid_param("author"));
    }
    Ok(Some(author))
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
