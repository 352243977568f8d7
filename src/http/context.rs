//! What a handler knows about its request: the application, who asks, in which
//! language, and when.

use std::sync::Arc;

use axum::http::{HeaderMap, Uri, header};

use super::cache::Freshness;
use super::state::{App, Lang};
use super::urls::Urls;
use crate::api::table::Op;
use crate::domain::permissions::Caller;
use crate::service::Asking;

/// The representation a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Json,
    /// iCalendar; Outlook's form leaves the calendar's name out.
    Calendar {
        outlook: bool,
    },
}

impl View {
    /// iCalendar for the event reads that ask for it by `?ical=1` (or Outlook's
    /// `?outlook-ical=1`), as the reference's pages do, or by `Accept: text/calendar`.
    pub fn of(op: Op, uri: &Uri, headers: &HeaderMap) -> View {
        if !matches!(op, Op::EventList | Op::EventGet(_)) {
            return View::Json;
        }
        let asked = |name: &str| {
            form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
                .any(|(k, v)| k == name && !matches!(v.as_ref(), "0" | "false"))
        };
        if asked("outlook-ical") {
            return View::Calendar { outlook: true };
        }
        let accepts = headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.to_ascii_lowercase().contains("text/calendar"));
        match asked("ical") || accepts {
            true => View::Calendar { outlook: false },
            false => View::Json,
        }
    }

    /// What the response cache adds to a request's key: its representation.
    pub fn cache_tag(self) -> &'static str {
        match self {
            View::Json => "",
            View::Calendar { outlook: false } => "ics ",
            View::Calendar { outlook: true } => "outlook ",
        }
    }
}

pub struct Ctx {
    pub app: App,
    pub view: View,
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
