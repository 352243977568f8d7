//! `/event/<slug>/`: one event, as the API's single read shows it to anyone,
//! or its password form when it is protected.

use crate::domain::plain_text::title_text;
use askama::Template;
use chrono::Days;

use super::archive::Details;
use super::chrome::Chrome;
use super::list::Link;
use super::text::Tr;
use super::{PageError, Visit, dates, views};
use crate::api::table::NAMESPACE;
use crate::domain::args::EventListArgs;
use crate::domain::cost::parse_cost;
use crate::domain::event::{Event, Ticket, zone_of};
use crate::domain::post::{Post, Target};
use crate::domain::timezone::EventZone;
use crate::http::urls::Urls;
use crate::service::{Error, Links, Refusal, ShownEvent};

#[derive(Template)]
#[template(path = "event.html")]
struct EventPage {
    chrome: Chrome,
    title: String,
    when: String,
    start: String,
    zone: String,
    image: Option<String>,
    /// HTML, sanitized on every write (`domain::html::sanitize_html`).
    description: String,
    /// At most one: a list, so that the template binds its parts as for the
    /// organizers.
    venue: Vec<(Link, Details)>,
    organizers: Vec<(Link, Details)>,
    categories: Vec<Link>,
    tags: Vec<Link>,
    cost: String,
    website: Option<String>,
    tickets: Vec<Ticket>,
    ical: String,
    google: String,
    /// The neighbouring events by start: the latest earlier one, the earliest later one.
    previous: Option<Link>,
    next: Option<Link>,
    /// The API's schema.org JSON-LD, with every `<` escaped so that nothing in
    /// it can close the `<script>` element it is in.
    json_ld: String,
}

#[derive(Template)]
#[template(path = "password.html")]
struct PasswordPage {
    chrome: Chrome,
    action: String,
    wrong: bool,
}

/// `GET /event/<slug>/`, and the password form's `POST` to it.
pub async fn event(visit: &Visit, slug: &str) -> Result<String, PageError> {
    let password = visit.arg("password");
    let target = Target::Slug(slug.to_string());
    match visit
        .app
        .service
        .event(visit.asking(), &target, password)
        .await
    {
        Ok(shown) => {
            let mut view = page(visit, &shown);
            (view.previous, view.next) = neighbours(visit, &shown.event).await?;
            Ok(view.render()?)
        }
        Err(Error::Refused(Refusal::PasswordProtected)) => {
            let tr = Tr::new(&visit.lang.code);
            let form = PasswordPage {
                chrome: visit.chrome(tr.t("page-password-heading")),
                action: format!("{}{}", visit.lang.prefix, visit.path),
                wrong: password.is_some(),
            };
            Ok(form.render()?)
        }
        Err(err) => Err(PageError::of_lookup(err)),
    }
}

fn page(visit: &Visit, shown: &ShownEvent) -> EventPage {
    let tr = Tr::new(&visit.lang.code);
    let settings = visit.settings();
    let (e, links, prefix) = (&shown.event, &shown.links, visit.lang.prefix.as_str());
    let zone = zone_of(e, settings.timezone);
    let urls = Urls::new(settings, prefix, NAMESPACE);
    let ld = crate::http::views::json_ld(e, links, &zone, &urls);
    let term = |base: &str, t: &crate::domain::term::Term| Link {
        href: format!("{prefix}/events/{base}/{}/", views::segment(&t.slug)),
        text: t.name.clone(),
    };
    let named = |kind: &str, p: &Post| {
        let link = Link {
            href: format!("{prefix}/{kind}/{}/", views::segment(&p.slug)),
            text: title_text(&p.title),
        };
        (link, Details::of(p, visit.reveal(p)))
    };
    let page_url = format!(
        "{}{}",
        settings.site_url,
        views::event_path(prefix, &e.post.slug)
    );
    EventPage {
        chrome: visit.chrome(title_text(&e.post.title)),
        title: title_text(&e.post.title),
        when: views::when(&tr, e, &zone),
        start: dates::iso(&zone, e.start_utc),
        zone: zone_label(&zone, e.start_utc),
        image: e.post.image.as_ref().map(|i| i.url.clone()),
        description: e.post.description.clone(),
        venue: links.venue.iter().map(|v| named("venue", v)).collect(),
        organizers: links
            .organizers
            .iter()
            .map(|o| named("organizer", o))
            .collect(),
        categories: links
            .categories
            .iter()
            .map(|t| term("category", t))
            .collect(),
        tags: links.tags.iter().map(|t| term("tag", t)).collect(),
        cost: parse_cost(&e.cost).0,
        website: e.website.as_deref().and_then(views::web_link),
        tickets: e.tickets.clone(),
        ical: format!("{}?ical=1", views::event_path(prefix, &e.post.slug)),
        google: google_link(e, shown, &page_url),
        previous: None,
        next: None,
        json_ld: serde_json::to_string(&ld)
            .unwrap_or_default()
            .replace('<', "\\u003c"),
    }
}

/// How far, in days, the neighbours of an event are looked for: the nearest
/// window first, so that a busy calendar counts a day's events, not a year's.
const NEIGHBOUR_WINDOWS: [i64; 3] = [1, 31, 366];

/// The neighbours of `e` among the events a visitor sees: the latest that starts
/// earlier and the earliest that starts later, within a year (one starting at the
/// very same second is neither).
async fn neighbours(visit: &Visit, e: &Event) -> Result<(Option<Link>, Option<Link>), PageError> {
    let link = |shown: ShownEvent| Link {
        href: views::event_path(&visit.lang.prefix, &shown.event.post.slug),
        text: title_text(&shown.event.post.title),
    };
    let previous = nearest(visit, e.start_utc, true).await?;
    let next = nearest(visit, e.start_utc, false).await?;
    Ok((previous.map(link), next.map(link)))
}

/// The event that starts nearest to `at`, earlier or later. Lists run in start
/// order only, so the latest earlier one is the last page of one event.
async fn nearest(visit: &Visit, at: i64, earlier: bool) -> Result<Option<ShownEvent>, PageError> {
    let local = |ts: i64| {
        chrono::DateTime::from_timestamp(ts, 0)
            .unwrap_or_default()
            .with_timezone(&visit.settings().timezone)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    };
    let service = &visit.app.service;
    for days in NEIGHBOUR_WINDOWS {
        let edge = if earlier {
            at - days * 86_400
        } else {
            at + days * 86_400
        };
        let (after, before) = if earlier { (edge, at) } else { (at, edge) };
        let window = |page: i64| EventListArgs {
            page,
            per_page: 1,
            strict_dates: true,
            starts_after: Some(local(after)),
            starts_before: Some(local(before)),
            ..Default::default()
        };
        // A neighbour shows its title alone.
        let found = service
            .list_events_showing(visit.asking(), &window(1), 1, Links::Left)
            .await?;
        let last = found.total as i64;
        let event = match (earlier, last) {
            (_, 0) => continue,
            (false, _) | (true, 1) => found.events.into_iter().next(),
            (true, _) => service
                .list_events_showing(visit.asking(), &window(last), 1, Links::Left)
                .await?
                .events
                .into_iter()
                .next(),
        };
        return Ok(event);
    }
    Ok(None)
}

/// "Europe/Paris (CET)", or the name alone where the abbreviation is the name.
fn zone_label(zone: &EventZone, at: i64) -> String {
    let (name, abbr) = (zone.name(), zone.abbreviation_at(at));
    match name == abbr || abbr.is_empty() {
        true => name,
        false => format!("{name} ({abbr})"),
    }
}

/// A Google Calendar template link: a plain link that prefills a new event there.
fn google_link(e: &Event, shown: &ShownEvent, page_url: &str) -> String {
    let dates = match e.all_day {
        true => {
            let zone = zone_of(e, chrono_tz::Tz::UTC);
            let (first, last) = dates::days_covered(&zone, e.start_utc, e.end_utc);
            let after = last.checked_add_days(Days::new(1)).unwrap_or(last);
            format!("{}/{}", first.format("%Y%m%d"), after.format("%Y%m%d"))
        }
        false => {
            let utc = |ts: i64| {
                chrono::DateTime::from_timestamp(ts, 0)
                    .unwrap_or_default()
                    .format("%Y%m%dT%H%M%SZ")
                    .to_string()
            };
            format!("{}/{}", utc(e.start_utc), utc(e.end_utc))
        }
    };
    let mut pairs = vec![
        ("action", "TEMPLATE".to_string()),
        ("text", title_text(&e.post.title)),
        ("dates", dates),
        ("details", page_url.to_string()),
    ];
    if let Some(v) = &shown.links.venue {
        let place = [v.title.as_str(), v.address.as_str(), v.city.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        pairs.push(("location", place));
    }
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    format!("https://calendar.google.com/calendar/render?{query}")
}
