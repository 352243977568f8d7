//! Conditional GETs (RFC 9110 §13): every successful GET carries a strong `ETag`,
//! a digest of the bytes of its body, and `If-None-Match` naming it answers `304
//! Not Modified` without the body. The same data gives the same bytes on every
//! instance, so the tags are the same on every instance sharing a database.
//!
//! Cached answers compute their tag once, when their body is made (`cache`); a
//! hit only copies it.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use base64::Engine;
use sha2::{Digest, Sha256};

/// The strong entity tag of a body: 128 bits of its SHA-256, quoted.
pub fn etag(body: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(body);
    let tag = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&digest[..16]);
    HeaderValue::from_str(&format!("\"{tag}\"")).expect("base64 is a valid header value")
}

/// The `If-None-Match` of a GET or HEAD, the only requests it makes conditional here.
pub fn if_none_match(method: &Method, headers: &HeaderMap) -> Option<HeaderValue> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    headers.get(header::IF_NONE_MATCH).cloned()
}

/// Whether a client's `If-None-Match` names this tag: `*`, or a list of tags
/// compared weakly, as RFC 9110 §13.1.2 asks (`W/"x"` matches `"x"`).
fn names(if_none_match: &HeaderValue, etag: &HeaderValue) -> bool {
    let Ok(list) = if_none_match.to_str() else {
        return false;
    };
    let ours = etag.to_str().unwrap_or("");
    list.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == ours)
}

/// The response, or `304 Not Modified` in its place when the client already holds
/// its body.
pub fn answer(if_none_match: Option<&HeaderValue>, resp: Response) -> Response {
    let Some(wanted) = if_none_match else {
        return resp;
    };
    if resp.status() != StatusCode::OK {
        return resp;
    }
    match resp.headers().get(header::ETAG) {
        Some(tag) if names(wanted, tag) => not_modified(resp),
        _ => resp,
    }
}

/// A 304 with the headers the 200 would have had, but none that describe a body.
fn not_modified(resp: Response) -> Response {
    let (mut parts, _) = resp.into_parts();
    parts.status = StatusCode::NOT_MODIFIED;
    for name in [
        header::CONTENT_TYPE,
        header::CONTENT_LENGTH,
        header::CONTENT_DISPOSITION,
    ] {
        parts.headers.remove(name);
    }
    Response::from_parts(parts, Body::empty())
}

/// Tags a successful answer that the cache did not see (an authenticated one, or
/// any when the cache is off). Handlers answer from memory: reading the body costs
/// nothing.
pub async fn tag(resp: Response) -> Response {
    if resp.status() != StatusCode::OK || resp.headers().contains_key(header::ETAG) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => {
            tracing::warn!(error = %e, "reading a response to tag it failed");
            return Response::from_parts(parts, Body::empty());
        }
    };
    parts.headers.insert(header::ETAG, etag(&bytes));
    Response::from_parts(parts, Body::from(bytes))
}

/// A write's conditions (RFC 9110 §13.1.1, §13.1.4): `If-Match` naming the tags
/// the writer read, or `If-Unmodified-Since` a moment (only without `If-Match`).
#[derive(Clone, Debug, Default)]
pub struct Preconditions {
    if_match: Option<String>,
    if_unmodified_since: Option<i64>,
}

impl Preconditions {
    /// The conditions of a write; reads have none (`If-None-Match` is theirs).
    pub fn of(method: &Method, headers: &HeaderMap) -> Preconditions {
        if method == Method::GET || method == Method::HEAD {
            return Preconditions::default();
        }
        let text = |name| {
            headers
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
        };
        Preconditions {
            if_match: text(header::IF_MATCH).map(str::to_string),
            // An invalid date is ignored, as RFC 9110 asks.
            if_unmodified_since: text(header::IF_UNMODIFIED_SINCE)
                .and_then(|d| chrono::DateTime::parse_from_rfc2822(d).ok())
                .map(|d| d.timestamp()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.if_match.is_none() && self.if_unmodified_since.is_none()
    }

    /// Whether the write may go on, given the body a GET by the same caller would
    /// answer now, and when the resource last changed (if it records it).
    pub fn hold(&self, current_body: &[u8], modified_utc: Option<i64>) -> bool {
        if let Some(list) = &self.if_match {
            let ours = etag(current_body);
            let ours = ours.to_str().unwrap_or("");
            // Strong comparison: a weak tag never matches.
            return list
                .split(',')
                .map(str::trim)
                .any(|t| t == "*" || t == ours);
        }
        match (self.if_unmodified_since, modified_utc) {
            (Some(since), Some(modified)) => modified <= since,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conditions(if_match: Option<&str>, since: Option<&str>) -> Preconditions {
        let mut h = HeaderMap::new();
        if let Some(m) = if_match {
            h.insert(header::IF_MATCH, HeaderValue::from_str(m).unwrap());
        }
        if let Some(s) = since {
            h.insert(
                header::IF_UNMODIFIED_SINCE,
                HeaderValue::from_str(s).unwrap(),
            );
        }
        Preconditions::of(&Method::PUT, &h)
    }

    #[test]
    fn if_match_compares_strongly() {
        let tag = etag(b"now");
        let s = tag.to_str().unwrap();
        assert!(conditions(Some(s), None).hold(b"now", None));
        assert!(conditions(Some(&format!("\"x\", {s}")), None).hold(b"now", None));
        assert!(conditions(Some("*"), None).hold(b"now", None));
        assert!(!conditions(Some(&format!("W/{s}")), None).hold(b"now", None));
        assert!(!conditions(Some(s), None).hold(b"changed", None));
    }

    #[test]
    fn if_unmodified_since_holds_until_the_resource_changes_after_it() {
        let c = conditions(None, Some("Wed, 25 Nov 2026 17:00:00 GMT"));
        let at = chrono::DateTime::parse_from_rfc2822("Wed, 25 Nov 2026 17:00:00 GMT")
            .unwrap()
            .timestamp();
        assert!(c.hold(b"", Some(at)));
        assert!(!c.hold(b"", Some(at + 1)));
        // Nothing recorded to compare with: the condition cannot fail.
        assert!(c.hold(b"", None));
        assert!(conditions(None, Some("not a date")).is_empty());
    }

    #[test]
    fn tags_name_their_bytes() {
        assert_eq!(etag(b"a"), etag(b"a"));
        assert_ne!(etag(b"a"), etag(b"b"));
        let t = etag(b"a");
        assert!(t.to_str().unwrap().starts_with('"') && t.to_str().unwrap().ends_with('"'));
    }

    #[test]
    fn if_none_match_compares_weakly_and_takes_lists_and_stars() {
        let tag = etag(b"body");
        let s = tag.to_str().unwrap();
        let v = |x: &str| HeaderValue::from_str(x).unwrap();
        assert!(names(&v(s), &tag));
        assert!(names(&v(&format!("W/{s}")), &tag));
        assert!(names(&v(&format!("\"other\", {s}")), &tag));
        assert!(names(&v("*"), &tag));
        assert!(!names(&v("\"other\""), &tag));
    }
}
