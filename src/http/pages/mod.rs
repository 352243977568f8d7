//! The public calendar: the HTML pages behind every `url` the API hands out
//! (`/event/<slug>/`, `/venue/<slug>/`, the term archives) and the calendar's
//! views (list, month, day). Each view is a small handler that asks the same use
//! cases as the JSON API, as an anonymous visitor, and renders an askama
//! template; `docs/pages.md` says why and how.

mod archive;
mod cache;
mod chrome;
mod dates;
mod error;
mod event;
mod filters;
mod list;
mod month;
mod text;
mod views;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::NaiveDate;

use super::cache::Freshness;
use super::state::{App, Lang};
use crate::domain::permissions::Caller;
use crate::service::Asking;
pub use error::PageError;
#[cfg(test)]
pub use text::KEYS;

/// Which page a path names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Route {
    Upcoming,
    Month(Option<NaiveDate>),
    Day(Option<NaiveDate>),
    Event(String),
    Venue(String),
    Organizer(String),
    Category(String),
    Tag(String),
}

impl Route {
    /// `path` without its language segment; `bar_date` is the reference's
    /// `tribe-bar-date`, which its month and day views also take.
    fn parse(path: &str, bar_date: Option<&str>) -> Option<Route> {
        let segments: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8()
                    .map(String::from)
            })
            .collect::<Result<_, _>>()
            .ok()?;
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        Some(match segments.as_slice() {
            [] | ["events"] | ["events", "list"] => Route::Upcoming,
            ["events", "month"] => Route::Month(bar_date.and_then(dates::parse_month)),
            ["events", "month", m] => Route::Month(Some(dates::parse_month(m)?)),
            ["events", "today"] => Route::Day(None),
            ["events", "day"] => Route::Day(bar_date.and_then(dates::parse_day)),
            ["events", day] => Route::Day(Some(dates::parse_day(day)?)),
            ["event", s] => Route::Event(s.to_string()),
            ["venue", s] => Route::Venue(s.to_string()),
            ["organizer", s] => Route::Organizer(s.to_string()),
            ["events", "category", .., s] => Route::Category(s.to_string()),
            ["events", "tag", s] | ["tag", s] => Route::Tag(s.to_string()),
            _ => return None,
        })
    }
}

/// The paths only the pages serve (the others are in `feeds::PAGES`, whose
/// handler hands a request that asks for no feed to [`page`]).
const OWN_PATHS: &[&str] = &[
    "/events/month/{month}",
    "/events/{day}",
    "/venue/{slug}",
    "/organizer/{slug}",
    "/tag/{slug}",
];

/// The page routes under every served language's prefix, and the stylesheet.
pub fn routes(languages: &[String]) -> Router<App> {
    let mut router = Router::new().route(chrome::STYLESHEET_PATH, get(chrome::stylesheet));
    for lang in super::feeds::languages(languages) {
        let handler = {
            let lang = lang.clone();
            move |State(app): State<App>, req: Request| page(app, lang, req)
        };
        for path in OWN_PATHS {
            for path in super::feeds::both_forms(&format!("{}{path}", lang.prefix)) {
                router = router.route(&path, get(handler.clone()));
            }
        }
        // The password form of a protected event posts back to the event's page.
        for path in super::feeds::both_forms(&format!("{}/event/{{slug}}", lang.prefix)) {
            router = router.route(&path, post(handler.clone()));
        }
    }
    router
}

/// Largest password form accepted.
const FORM_BYTES: usize = 16 * 1024;

/// Answers a page request (any method the routes let through).
pub async fn page(app: App, lang: Arc<Lang>, req: Request) -> Response {
    cache::answer(app, lang, req).await
}

/// Renders a page request as of `now`; `version` is the data version the cache
/// keeps the page under, if it does.
async fn compute(
    app: App,
    lang: Arc<Lang>,
    req: Request,
    now: i64,
    version: Option<u64>,
) -> Response {
    let (parts, body) = req.into_parts();
    let mut query: Vec<(String, String)> =
        form_urlencoded::parse(parts.uri.query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    if parts.method == axum::http::Method::POST {
        match axum::body::to_bytes(Body::new(body), FORM_BYTES).await {
            Ok(bytes) => query.extend(form_urlencoded::parse(&bytes).into_owned()),
            Err(_) => query.clear(),
        }
    }
    let full = parts.uri.path();
    let path = full.strip_prefix(lang.prefix.as_str()).unwrap_or(full);
    let visit = Visit {
        path: if path.is_empty() {
            "/".to_string()
        } else {
            path.to_string()
        },
        now,
        caller: Caller(None),
        app,
        lang,
        query,
        look_back: Default::default(),
    };
    // Pages take the same limited turns as the API's requests, and see what the API
    // sees: scheduled posts that are due go live before a read.
    let turns = visit.app.clone();
    let Ok(_turn) = turns.turns.acquire().await else {
        let stopping = crate::service::Error::Unavailable("the server is stopping".into());
        return error::page(&visit, PageError::Service(stopping));
    };
    if let Err(e) = visit.app.service.publish_due(now).await {
        // The page shows what there is; the next request tries again.
        tracing::warn!(error = %e, "publishing scheduled posts failed");
    }
    let route = Route::parse(&visit.path, visit.arg("tribe-bar-date"));
    if let Some(feed) = route
        .as_ref()
        .and_then(|r| feed_of(r, &visit, parts.uri.query()))
    {
        return axum::response::Redirect::to(&feed).into_response();
    }
    let fresh = route.as_ref().and_then(|r| fresh_until(&visit, r, version));
    let answer = match route {
        Some(route) => render(&visit, route).await,
        None => Err(PageError::NotFound),
    };
    let mut resp = match answer {
        Ok(html) => chrome::html(&visit.app.settings, axum::http::StatusCode::OK, html),
        Err(err) => error::page(&visit, err),
    };
    if let Some(fresh) = fresh {
        resp.extensions_mut().insert(fresh);
    }
    if parts.method == axum::http::Method::POST || visit.arg("password").is_some() {
        // What a password reveals is for this visitor only.
        resp.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("private, no-store"),
        );
    }
    resp
}

/// The first path segments of the pages (after any language segment).
const PAGE_ROOTS: &[&str] = &["event", "events", "venue", "organizer", "tag"];

/// The HTML 404 page for a GET of a path under the pages' roots that no route
/// takes (`/event/`, `/events/month/2027-03/extra/`): a visitor's browser gets a
/// page of the site, not the API's JSON error. `None` for any other request.
pub fn not_found(app: &App, req: &Request) -> Option<Response> {
    if !matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD
    ) {
        return None;
    }
    let path = req.uri().path();
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    let first = segments.next()?;
    let (lang, root) = match app.settings.languages.iter().find(|l| *l == first) {
        Some(code) => (code.as_str(), segments.next()?),
        None => ("en", first),
    };
    if !PAGE_ROOTS.contains(&root) {
        return None;
    }
    let prefix = if lang == first {
        format!("/{lang}")
    } else {
        String::new()
    };
    let lang = Arc::new(Lang {
        code: lang.to_string(),
        prefix,
        namespace: crate::api::table::NAMESPACE,
    });
    let now = chrono::Utc::now().timestamp();
    Some(failure(app.clone(), lang, path, now, PageError::NotFound))
}

/// The HTML page of a failure met outside a page's own rendering (no route, a
/// time-out).
fn failure(app: App, lang: Arc<Lang>, path: &str, now: i64, err: PageError) -> Response {
    let path = match path.strip_prefix(lang.prefix.as_str()).unwrap_or(path) {
        "" => "/",
        rest => rest,
    };
    let visit = Visit {
        path: path.to_string(),
        lang,
        app,
        query: Vec::new(),
        now,
        caller: Caller(None),
        look_back: Default::default(),
    };
    error::page(&visit, err)
}

/// A dated view's own URL with `?ical=1` stands for the feed the reference's
/// URLs of that view give (`feeds.rs`): it is sent there, filters and all.
fn feed_of(route: &Route, visit: &Visit, query: Option<&str>) -> Option<String> {
    let asked = super::context::View::asked_in(query)?;
    let flag = match asked {
        super::context::View::Calendar { outlook: true } => "outlook-ical",
        _ => "ical",
    };
    let mut pairs = filters::Filters::of(visit).api_pairs();
    let path = match route {
        Route::Month(Some(month)) => {
            pairs.insert(
                0,
                ("tribe-bar-date".into(), month.format("%Y-%m").to_string()),
            );
            "/events/month/".to_string()
        }
        Route::Day(Some(day)) if flag == "ical" && pairs.is_empty() => {
            format!("/events/{day}/ical/")
        }
        Route::Day(Some(day)) => {
            pairs.insert(0, ("tribe-bar-date".into(), day.to_string()));
            "/events/day/".to_string()
        }
        _ => return None,
    };
    if !path.ends_with("/ical/") {
        pairs.push((flag.to_string(), "1".to_string()));
    }
    let base = format!("{}{path}", visit.lang.prefix);
    Some(crate::http::urls::with_query(&base, &pairs))
}

/// How long a page stays true while nothing is written, when that is longer than
/// the second it is computed in: an event's page until a scheduled post goes live
/// (it may become a neighbour), a month or a day also until midnight (today is
/// marked). The lists of upcoming events change with the clock.
fn fresh_until(visit: &Visit, route: &Route, version: Option<u64>) -> Option<Freshness> {
    let go_live = super::context::until_next_go_live(&visit.app, version, visit.now)?;
    let midnight = || {
        let tomorrow = visit.today().succ_opt()?.and_hms_opt(0, 0, 0)?;
        let zone = visit.settings().timezone;
        Some(tomorrow.and_local_timezone(zone).earliest()?.timestamp())
    };
    match route {
        Route::Event(_) => Some(go_live),
        Route::Month(_) | Route::Day(_) => Some(Freshness::until_earliest(
            go_live.changes_at().into_iter().chain(midnight()),
        )),
        _ => None,
    }
}

async fn render(visit: &Visit, route: Route) -> Result<String, PageError> {
    match route {
        Route::Upcoming => list::upcoming(visit).await,
        Route::Month(month) => month::month(visit, month).await,
        Route::Day(day) => list::day(visit, day).await,
        Route::Event(slug) => event::event(visit, &slug).await,
        Route::Venue(slug) => archive::venue(visit, &slug).await,
        Route::Organizer(slug) => archive::organizer(visit, &slug).await,
        Route::Category(slug) => archive::category(visit, &slug).await,
        Route::Tag(slug) => archive::tag(visit, &slug).await,
    }
}

/// One page request: who asks (always an anonymous visitor, so the pages show
/// exactly what the API shows anyone), when, in which language, with what.
pub struct Visit {
    pub app: App,
    pub lang: Arc<Lang>,
    /// The path without its language segment.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub now: i64,
    caller: Caller,
    /// How far back a view of a day looks for events still running on it.
    look_back: tokio::sync::OnceCell<u64>,
}

impl Visit {
    pub fn asking(&self) -> Asking<'_> {
        Asking::of(&self.caller, self.now)
    }

    /// A non-blank query (or form) value.
    pub fn arg(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// How much of a linked venue or organizer the visitor sees.
    pub fn reveal(&self, post: &crate::domain::post::Post) -> crate::domain::post::Reveal {
        self.caller.reveal(post, None)
    }

    pub fn settings(&self) -> &crate::config::Settings {
        &self.app.settings
    }

    pub fn chrome(&self, page_title: String) -> chrome::Chrome {
        // The same view in another language keeps its filters, never a password.
        let kept: Vec<&(String, String)> =
            self.query.iter().filter(|(k, _)| k != "password").collect();
        let query = match kept.is_empty() {
            true => String::new(),
            false => {
                let mut q = form_urlencoded::Serializer::for_suffix(String::from("?"), 1);
                q.extend_pairs(kept.iter().map(|(k, v)| (k.as_str(), v.as_str())));
                q.finish()
            }
        };
        let path = (self.path.as_str(), query.as_str());
        chrome::Chrome::new(self.settings(), &self.lang, path, page_title)
    }

    /// How many days before a day an event still running on it may have started:
    /// the longest a listed event runs, a day more for the site's zone, and never
    /// more than the feeds' year. Read once a visit; exact, so a view misses no
    /// event, and its start range stays days long, not a year.
    pub async fn look_back(&self) -> Result<u64, PageError> {
        let days = self
            .look_back
            .get_or_try_init(|| async {
                let longest = self.app.service.longest_event_days().await?;
                Ok::<_, crate::service::Error>(super::feeds::look_back_days(longest))
            })
            .await?;
        Ok(*days)
    }

    /// Today in the site's zone.
    pub fn today(&self) -> NaiveDate {
        chrono::DateTime::from_timestamp(self.now, 0)
            .unwrap_or_default()
            .with_timezone(&self.settings().timezone)
            .date_naive()
    }
}

#[cfg(test)]
mod tests {
    use super::Route;

    #[test]
    fn page_paths_name_their_views() {
        let day = super::dates::parse_day("2027-03-05");
        assert_eq!(Route::parse("/", None), Some(Route::Upcoming));
        assert_eq!(Route::parse("/events/list/", None), Some(Route::Upcoming));
        assert_eq!(
            Route::parse("/events/2027-03-05/", None),
            Some(Route::Day(day))
        );
        assert_eq!(
            Route::parse("/events/day/", Some("2027-03-05")),
            Some(Route::Day(day))
        );
        assert_eq!(
            Route::parse("/events/month/2027-03/", None),
            Some(Route::Month(super::dates::parse_month("2027-03")))
        );
        assert_eq!(Route::parse("/events/nonsense/", None), None);
        assert_eq!(
            Route::parse("/venue/caf%C3%A9/", None),
            Some(Route::Venue("café".into()))
        );
        assert_eq!(
            Route::parse("/tag/jazz/", None),
            Some(Route::Tag("jazz".into()))
        );
    }
}
