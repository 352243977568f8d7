//! A cached answer as it is kept, and as it is served: its body with the term
//! counts of the moment, and the entity tag of those bytes.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::http::live_counts::Spliced;

/// A response as it was sent, its term counts taken out (see `live_counts`).
pub struct Cached {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: Spliced,
}

/// A cached response and the term counts of the moment, ready to send.
pub struct Hit {
    pub(super) cached: Arc<Cached>,
    pub(super) body: Bytes,
    /// The tag of `body`, when it is not the computed body's (in `cached.headers`).
    pub(super) etag: Option<HeaderValue>,
}

impl Cached {
    /// The response as it was computed.
    pub(super) fn response(&self) -> Response {
        let mut resp = Response::new(Body::from(self.body.as_computed()));
        *resp.status_mut() = self.status;
        *resp.headers_mut() = self.headers.clone();
        resp
    }
}

impl Hit {
    pub fn response(&self) -> Response {
        let mut resp = Response::new(Body::from(self.body.clone()));
        *resp.status_mut() = self.cached.status;
        *resp.headers_mut() = self.cached.headers.clone();
        if let Some(tag) = &self.etag {
            // Replaces the computed body's tag in place: the map does not grow.
            resp.headers_mut().insert(header::ETAG, tag.clone());
        }
        resp
    }

    pub(super) fn new(cached: Arc<Cached>, body: Bytes) -> Hit {
        let etag = served_etag(&cached, &body);
        Hit { cached, body, etag }
    }
}

/// The tag of a body served for a cached response: `None` when it is the computed
/// body, whose tag its headers carry.
fn served_etag(cached: &Cached, served: &Bytes) -> Option<HeaderValue> {
    (served.as_ptr() != cached.body.as_computed().as_ptr())
        .then(|| crate::http::conditional::etag(served))
}
