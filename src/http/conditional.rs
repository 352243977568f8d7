//! Conditional reads: every successful `GET` carries a strong `ETag`, and a client
//! that sends it back in `If-None-Match` gets `304 Not Modified` without the body.
//!
//! The tag is a digest of the body, so every instance sharing a database gives
//! the same answer the same tag. The response cache computes it once per body it
//! keeps; other answers are digested as they are sent.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use sha2::{Digest, Sha256};

/// The strong entity tag of a body: 128 bits of its SHA-256, quoted.
pub fn etag(body: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(body);
    let tag = format!("\"{}\"", hex::encode(&digest[..16]));
    HeaderValue::from_str(&tag).unwrap_or_else(|_| HeaderValue::from_static("\"\""))
}

/// Whether `If-None-Match` names this tag (or `*`): RFC 9110 §13.1.2, whose weak
/// comparison ignores a `W/` prefix.
fn none_match_fails(if_none_match: &HeaderValue, tag: &HeaderValue) -> bool {
    let Ok(list) = if_none_match.to_str() else {
        return false;
    };
    let tag = tag.to_str().unwrap_or_default();
    list.split(',')
        .map(str::trim)
        .any(|t| t == "*" || t.trim_start_matches("W/") == tag)
}

/// A `200` with its tag; `304` with no body when the client already holds it.
pub fn answer(
    if_none_match: Option<&HeaderValue>,
    mut resp: Response,
    tag: HeaderValue,
) -> Response {
    if resp.status() != StatusCode::OK {
        return resp;
    }
    if if_none_match.is_some_and(|inm| none_match_fails(inm, &tag)) {
        return not_modified(resp.headers(), tag);
    }
    resp.headers_mut().insert(header::ETAG, tag);
    resp
}

/// `304`: the headers a `200` would have had that describe the representation
/// (RFC 9110 §15.4.5), without the body.
fn not_modified(headers: &HeaderMap, tag: HeaderValue) -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::NOT_MODIFIED;
    for name in [
        header::CACHE_CONTROL,
        header::VARY,
        header::CONTENT_LOCATION,
    ] {
        if let Some(v) = headers.get(&name) {
            resp.headers_mut().insert(name, v.clone());
        }
    }
    resp.headers_mut().insert(header::ETAG, tag);
    resp
}

/// Tags a response computed outside the cache (its body is in memory).
pub async fn tag_computed(if_none_match: Option<&HeaderValue>, resp: Response) -> Response {
    if resp.status() != StatusCode::OK {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let tag = etag(&bytes);
    answer(
        if_none_match,
        Response::from_parts(parts, Body::from(bytes)),
        tag,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_matches_the_tag_any_of_a_list_or_a_star() {
        let tag = etag(b"body");
        let matches = |inm: &str| none_match_fails(&HeaderValue::from_str(inm).unwrap(), &tag);
        let t = tag.to_str().unwrap().to_string();
        assert!(matches(&t));
        assert!(matches(&format!("\"x\", {t}")));
        assert!(matches(&format!("W/{t}")));
        assert!(matches("*"));
        assert!(!matches("\"other\""));
        assert_ne!(etag(b"body"), etag(b"body!"));
    }

    #[test]
    fn a_client_holding_the_tag_gets_304_without_a_body() {
        let tag = etag(b"x");
        let resp = answer(Some(&tag), Response::new(Body::from("x")), tag.clone());
        assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(resp.headers().get(header::ETAG), Some(&tag));
        let resp = answer(None, Response::new(Body::from("x")), tag.clone());
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.headers().get(header::ETAG), Some(&tag));
    }
}
