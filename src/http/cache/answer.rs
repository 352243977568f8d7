//! A cached answer as it is kept, and as it is served: its body with the term
//! counts of the moment, its entity tag that of those bytes.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;

use crate::http::live_counts::Spliced;

/// A response as it was sent, its term counts taken out (see `live_counts`).
pub struct Cached {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: Spliced,
}

/// A cached response with the term counts of the moment, ready to send.
pub struct Hit {
    pub(super) cached: Arc<Cached>,
    pub(super) body: Bytes,
}

impl Cached {
    /// The memory it holds: itself, its body with its count marks, and its headers,
    /// each in a slot of the header map with its hash links and an index beside it.
    pub(super) fn held_bytes(&self) -> usize {
        const HEADER_SLOT: usize = size_of::<HeaderName>() + size_of::<HeaderValue>() + 16;
        size_of::<Cached>()
            + self.body.len()
            + self.headers.capacity() * HEADER_SLOT
            + self.headers.values().map(HeaderValue::len).sum::<usize>()
    }

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
        resp
    }

    pub(super) fn new(cached: Arc<Cached>) -> Hit {
        let body = cached.body.as_computed();
        Hit { cached, body }
    }
}
