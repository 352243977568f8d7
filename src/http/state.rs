//! What every request shares: the application state, and what routing and the
//! connection tell a handler about its request.

use std::sync::Arc;

use super::cache;
use crate::config::Settings;
use crate::service::Service;

/// The request header carrying a request's ID (set here when the client sends none).
pub const REQUEST_ID: &str = "x-request-id";

/// The address of the client a request came from (for rate limits and logs).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub std::net::SocketAddr);

/// The language a request was routed under.
#[derive(Debug)]
pub struct Lang {
    pub code: String,
    /// The path segment the request used: `""` or `"/fr"`.
    pub prefix: String,
    /// The namespace the request used: the API's own, or the reference's when it
    /// is served too; the URLs an answer hands out keep it.
    pub namespace: &'static str,
}

pub struct AppState {
    pub service: Service,
    pub settings: Settings,
    pub cache: cache::ResponseCache,
    /// Turns to handle a request, taken once its body is in (see `dispatch::run`).
    pub turns: tokio::sync::Semaphore,
}

impl AppState {
    pub fn new(service: Service, settings: Settings) -> AppState {
        AppState {
            cache: cache::ResponseCache::new(settings.response_cache_bytes),
            turns: tokio::sync::Semaphore::new(settings.max_concurrent_requests),
            service,
            settings,
        }
    }
}

pub type App = Arc<AppState>;
