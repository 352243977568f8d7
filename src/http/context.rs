//! What a handler knows about its request: the application, who asks, in which
//! language, and when.

use std::sync::Arc;

use super::cache::Freshness;
use super::state::{App, Lang};
use super::urls::Urls;
use crate::domain::permissions::Caller;
use crate::service::Asking;

pub struct Ctx {
    pub app: App,
    pub caller: Caller,
    pub urls: Urls,
    pub lang: Arc<Lang>,
    pub now: i64,
    /// The data version the answer will be cached under, if it may be cached.
    pub cache_version: Option<u64>,
}

impl Ctx {
    /// Who asks, and when, as the use cases take it.
    pub fn asking(&self) -> Asking<'_> {
        Asking {
            caller: &self.caller,
            now: self.now,
        }
    }

    /// How long an answer that changes by the clock only when a scheduled post goes
    /// live stays true: `None` (the second it is computed in) when it is not going
    /// to be cached, or when that moment is not known yet for this data version. The
    /// lookup then runs in the background, once per version and shared by every
    /// answer: a request never waits for it, nor runs it among its own statements.
    pub fn until_next_go_live(&self) -> Option<Freshness> {
        let version = self.cache_version?;
        let cache = &self.app.cache;
        if let Some(next) = cache.known_go_live(version, self.now) {
            return Some(Freshness::until_earliest(next));
        }
        if cache.start_go_live_lookup(version) {
            let (app, now) = (self.app.clone(), self.now);
            tokio::spawn(async move {
                match app.service.next_go_live(now).await {
                    Ok(next) => app.cache.remember_go_live(version, now, next),
                    Err(e) => {
                        tracing::debug!(error = %e, "looking up the next scheduled post failed");
                        app.cache.go_live_unknown(version);
                    }
                }
            });
        }
        None
    }
}
