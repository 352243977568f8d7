//! The terms, venue and organizers an event write names, and the value forms
//! events share with venues and organizers (images, websites).

use serde_json::Value;

use super::{EventDraft, InlineReader, LinkedDraft};
use crate::domain::args::EventWriteArgs;
use crate::domain::message::Msg;
use crate::domain::post::{ImageRef, PostType};
use crate::domain::validation::{Invalid, Problems};

/// Most organizers, terms or tickets one event may name.
pub const MAX_LINKS: usize = 100;

/// A venue or organizer named in an event write.
#[derive(Clone, Debug)]
pub enum LinkedItem {
    /// By ID (`5`, `"5"`, `{"id": 5}`).
    Id(i64),
    /// By its fields, for a new one (or an existing one with the same fields).
    Inline(Box<LinkedDraft>),
}

pub(super) fn read(
    d: &mut EventDraft,
    args: &EventWriteArgs,
    inline: InlineReader<'_>,
    p: &mut Problems,
) {
    if let Some(v) = &args.categories {
        d.categories = p.check(term_keys(v, "categories")).ok().flatten();
    }
    if let Some(v) = &args.tags {
        d.tags = p.check(term_keys(v, "tags")).ok().flatten();
    }
    if let Some(v) = &args.venue {
        d.venue = p.check(read_venue(v, inline)).ok().flatten();
    }
    if let Some(v) = &args.organizer {
        d.organizers = p
            .check(read_linked_list(v, PostType::Organizer, inline))
            .ok()
            .flatten();
    }
}

/// A scalar JSON value as text.
pub fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Items of a list-like value: a JSON array, a CSV string, or one scalar.
fn items(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        // Form bodies can only say `venue=0` as text; it unlinks like the number does.
        Value::String(s) if s.trim().is_empty() || s.trim() == "0" => Vec::new(),
        Value::String(s) => s
            .split(',')
            .map(|p| Value::String(p.trim().to_string()))
            .filter(|p| p != "")
            .collect(),
        Value::Number(n) if n.as_i64() == Some(0) => Vec::new(),
        Value::Bool(false) => Vec::new(),
        other => vec![other.clone()],
    }
}

/// The terms a write names, each by ID, slug or name (`{"id": …}` or
/// `{"name": …}` too), trimmed; blank ones are skipped.
fn term_keys(v: &Value, param: &str) -> Result<Vec<String>, Invalid> {
    let list = items(v);
    if list.len() > MAX_LINKS {
        return Err(Invalid::param(param));
    }
    let mut keys = Vec::with_capacity(list.len());
    for item in list {
        let key = match &item {
            Value::Object(o) => o.get("id").or(o.get("name")).and_then(scalar),
            other => scalar(other),
        };
        let key = key.ok_or_else(|| Invalid::param(param))?;
        if !key.trim().is_empty() {
            keys.push(key.trim().to_string());
        }
    }
    Ok(keys)
}

/// The entries of a venue or organizer field.
fn linked_items(v: &Value) -> Vec<Value> {
    match v {
        Value::Object(_) => vec![v.clone()],
        other => items(other),
    }
}

fn read_venue(v: &Value, inline: InlineReader<'_>) -> Result<Option<LinkedItem>, Invalid> {
    let list = linked_items(v);
    match list.len() {
        0 => Ok(None),
        // One venue per event in v1: more is an error, not a silent truncation.
        1 => linked_item(&list[0], PostType::Venue, inline).map(Some),
        _ => Err(Invalid::because(
            "venue",
            "rest_too_many_venues",
            Msg::TooManyVenues,
        )),
    }
}

fn read_linked_list(
    v: &Value,
    t: PostType,
    inline: InlineReader<'_>,
) -> Result<Vec<LinkedItem>, Invalid> {
    let list = linked_items(v);
    if list.len() > MAX_LINKS {
        return Err(Invalid::param(t.as_str()));
    }
    list.iter()
        .map(|item| linked_item(item, t, inline))
        .collect()
}

/// A linked post given by ID (`5`, `"5"`, `{"id": 5}`) or by fields (`{"venue": "Hall", …}`).
fn linked_item(item: &Value, t: PostType, inline: InlineReader<'_>) -> Result<LinkedItem, Invalid> {
    let bad = || Invalid::param(t.as_str());
    let id = match item {
        Value::Number(n) => Some(n.as_i64().ok_or_else(bad)?),
        Value::String(s) => Some(s.trim().parse::<i64>().map_err(|_| bad())?),
        Value::Object(o) => match o.get("id") {
            Some(id) => Some(
                scalar(id)
                    .and_then(|s| s.trim().parse::<i64>().ok())
                    .ok_or_else(bad)?,
            ),
            None => None,
        },
        _ => return Err(bad()),
    };
    match (id, item) {
        (Some(id), _) => Ok(LinkedItem::Id(id)),
        (None, Value::Object(fields)) => inline(t, fields)
            .map(|draft| LinkedItem::Inline(Box::new(draft)))
            .map_err(|()| bad()),
        _ => Err(bad()),
    }
}

/// An `image` argument: a media ID, an image URL, or empty to clear. Whether the
/// ID names an image, and whether the caller may add one by URL, the service checks.
pub fn image_ref(param: &str, v: &Value) -> Result<ImageRef, Invalid> {
    let bad = || Invalid::param(param);
    match v {
        Value::Null | Value::Bool(false) => Ok(ImageRef::None),
        Value::Number(n) => n
            .as_i64()
            .filter(|i| *i > 0)
            .map(ImageRef::Id)
            .ok_or_else(bad),
        Value::String(s) => {
            let s = s.trim();
            if s.is_empty() || s == "0" {
                return Ok(ImageRef::None);
            }
            if let Ok(id) = s.parse::<i64>() {
                return Ok(ImageRef::Id(id));
            }
            if !is_image_url(s) {
                return Err(bad());
            }
            Ok(ImageRef::Url(s.to_string()))
        }
        Value::Object(o) => match o.get("id") {
            Some(id) => image_ref(param, id),
            None => Err(bad()),
        },
        _ => Err(bad()),
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
