//! What a handler knows about its request: the application, who asks, in which
//! language, and when.

use std::sync::Arc;

use axum::http::{HeaderMap, Uri, header};

use super::cache::Freshness;
use super::conditional::Preconditions;
use super::error::ApiError;
use super::state::{App, Lang};
use super::urls::Urls;
use crate::api::table::Op;
use crate::domain::permissions::Caller;
use crate::service::{Asking, Condition, Refusal};

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
        if let Some(feed) = View::asked_in(uri.query()) {
            return feed;
        }
        // Every cacheable event read comes here, cache hits included: nothing is allocated.
        let accepts = headers.get_all(header::ACCEPT).iter().any(|v| {
            v.as_bytes()
                .windows(b"text/calendar".len())
                .any(|w| w.eq_ignore_ascii_case(b"text/calendar"))
        });
        match accepts {
            true => View::Calendar { outlook: false },
            false => View::Json,
        }
    }

    /// The feed a query string asks for with `ical=1` or `outlook-ical=1` (any value
    /// but `0` and `false`), if it asks for one. It is parsed only when it can.
    pub fn asked_in(query: Option<&str>) -> Option<View> {
        let query = query.filter(|q| q.contains("ical"))?;
        let asked = |name: &str| {
            form_urlencoded::parse(query.as_bytes())
                .any(|(k, v)| k == name && !matches!(v.as_ref(), "0" | "false"))
        };
        if asked("outlook-ical") {
            Some(View::Calendar { outlook: true })
        } else if asked("ical") {
            Some(View::Calendar { outlook: false })
        } else {
            None
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

/// What a conditional write is checked against: the resource as a GET by the same
/// caller answers it now.
pub struct Current {
    pub body: Vec<u8>,
    /// When it last changed, if it records it (posts do, terms do not).
    pub modified_utc: Option<i64>,
    /// Its revision, if it has one, for the check under the write's lock.
    pub revision: Option<i64>,
}

impl Current {
    pub fn of_post(body: Vec<u8>, post: &crate::domain::post::Post) -> Current {
        Current {
            body,
            modified_utc: Some(post.modified_utc),
            revision: Some(post.revision),
        }
    }
}

pub struct Ctx {
    pub app: App,
    pub view: View,
    /// A write's `If-Match` / `If-Unmodified-Since`.
    pub preconditions: Preconditions,
    pub caller: Caller,
    pub urls: Urls,
    pub lang: Arc<Lang>,
    pub now: i64,
    /// The data version the answer will be cached under, if it may be cached.
    pub cache_version: Option<u64>,
}

impl Ctx {
    /// Who asks, when, and on what condition for a write: the writer's
    /// preconditions checked against the current representation of the post
    /// (`current`: its body as a GET by this caller answers it, its last change
    /// and its revision). A stale one is `412`; one that holds is checked again
    /// under the write's lock, by revision.
    pub fn asking_if(&self, current: Option<Current>) -> Result<Asking<'_>, ApiError> {
        let mut asking = self.asking();
        if let Some(c) = current {
            if !self.preconditions.hold(&c.body, c.modified_utc) {
                return Err(crate::service::Error::Refused(Refusal::PreconditionFailed).into());
            }
            asking.condition = Condition {
                if_revision: c.revision,
            };
        }
        Ok(asking)
    }

    /// Who asks, and when, as the use cases take it.
    pub fn asking(&self) -> Asking<'_> {
        Asking::of(&self.caller, self.now)
    }

    /// How long an answer that changes by the clock only when a scheduled post goes
    /// live stays true ([`until_next_go_live`]).
    pub fn until_next_go_live(&self) -> Option<Freshness> {
        until_next_go_live(&self.app, self.cache_version, self.now)
    }
}

/// How long an answer that changes by the clock only when a scheduled post goes
/// live stays true: `None` (the second it is computed in) when it is not going
/// to be cached (no data `version`), or when that moment is not known yet for
/// this data version. The lookup then runs in the background, once per version
/// and shared by every answer: a request never waits for it, nor runs it among
/// its own statements.
pub fn until_next_go_live(app: &App, version: Option<u64>, now: i64) -> Option<Freshness> {
    let version = version?;
    let cache = &app.cache;
    if let Some(next) = cache.known_go_live(version, now) {
        return Some(Freshness::until_earliest(next));
    }
    if cache.start_go_live_lookup(version) {
        let app = app.clone();
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
