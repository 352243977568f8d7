//! The event representation, its embedded terms, and its schema.org JSON-LD, in
//! the shape The Events Calendar's clients know (docs/representations.md).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::wire::{DateDetails, DateDetailsSchema, EmptyList, IdString, WpDate};
use super::{
    GlobalIds, ImageOrFalse, OrganizerView, PostDates, Reveal, TermUrls, VenueView, local,
};
use crate::domain::cost::{CostDetails, parse_cost};
use crate::domain::event::{Event, EventLinks, Ticket, zone_of};
use crate::domain::permissions::Caller;
use crate::domain::post::{Post, PostType};
use crate::domain::term::Term;
use crate::domain::timezone::EventZone;
use crate::http::live_counts::TermCount;
use crate::http::urls::Urls;

/// A term inside an event: WordPress's raw term object with `id` and `urls`.
#[derive(Serialize, ToSchema)]
pub struct EmbeddedTerm<'a> {
    name: &'a str,
    slug: &'a str,
    term_group: i64,
    term_taxonomy_id: i64,
    taxonomy: &'static str,
    description: &'a str,
    parent: i64,
    #[schema(value_type = i64)]
    count: TermCount,
    filter: &'static str,
    id: i64,
    urls: TermUrls,
}

impl<'a> EmbeddedTerm<'a> {
    pub fn new(t: &'a Term, urls: &Urls) -> EmbeddedTerm<'a> {
        EmbeddedTerm {
            name: &t.name,
            slug: &t.slug,
            term_group: 0,
            term_taxonomy_id: t.id,
            taxonomy: t.taxonomy.as_str(),
            description: &t.description,
            parent: t.parent,
            count: TermCount {
                term: t.id,
                count: t.count,
            },
            filter: "raw",
            id: t.id,
            urls: TermUrls::new(t, urls),
        }
    }
}

/// A venue object, or `[]` when the event has none (the reference's shape).
#[derive(Serialize)]
#[serde(untagged)]
pub enum VenueOrEmpty<'a> {
    Venue(Box<VenueView<'a>>),
    Empty(EmptyList),
}

#[derive(Serialize, ToSchema)]
#[schema(as = Event)]
pub struct EventView<'a> {
    id: i64,
    #[serde(flatten)]
    ids: GlobalIds<'a>,
    #[schema(value_type = String)]
    author: IdString,
    #[serde(flatten)]
    dates: PostDates<'a>,
    url: String,
    rest_url: String,
    title: &'a str,
    description: &'a str,
    excerpt: &'a str,
    slug: &'a str,
    #[schema(schema_with = super::image_or_false_schema)]
    image: ImageOrFalse<'a>,
    all_day: Option<bool>,
    #[serde(flatten)]
    when: EventDates,
    cost: String,
    cost_details: CostDetails,
    website: Cow<'a, str>,
    show_map: Option<bool>,
    show_map_link: Option<bool>,
    hide_from_listings: Option<bool>,
    sticky: Option<bool>,
    featured: Option<bool>,
    categories: Vec<EmbeddedTerm<'a>>,
    tags: Vec<EmbeddedTerm<'a>>,
    #[schema(schema_with = venue_or_empty)]
    venue: VenueOrEmpty<'a>,
    organizer: Vec<OrganizerView<'a>>,
    #[schema(schema_with = super::empty_array)]
    custom_fields: EmptyList,
    tickets: &'a [Ticket],
    post_parent: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
    /// In the trash: the status it had before, which a restore can bring back.
    #[serde(skip_serializing_if = "Option::is_none")]
    status_before_trash: Option<&'static str>,
}

/// When an event happens: wall times in its zone and in UTC, and the zone.
#[derive(Serialize, ToSchema)]
struct EventDates {
    #[schema(value_type = String)]
    start_date: WpDate,
    #[schema(value_type = DateDetailsSchema)]
    start_date_details: DateDetails,
    #[schema(value_type = String)]
    end_date: WpDate,
    #[schema(value_type = DateDetailsSchema)]
    end_date_details: DateDetails,
    #[schema(value_type = String)]
    utc_start_date: WpDate,
    #[schema(value_type = DateDetailsSchema)]
    utc_start_date_details: DateDetails,
    #[schema(value_type = String)]
    utc_end_date: WpDate,
    #[schema(value_type = DateDetailsSchema)]
    utc_end_date_details: DateDetails,
    timezone: String,
    timezone_abbr: String,
}

impl EventDates {
    fn new(e: &Event, zone: &EventZone) -> EventDates {
        let (start, end) = (zone.local(e.start_utc), zone.local(e.end_utc));
        let utc = chrono_tz::Tz::UTC;
        let (utc_start, utc_end) = (local(e.start_utc, &utc), local(e.end_utc, &utc));
        EventDates {
            start_date: WpDate(start),
            start_date_details: DateDetails(start),
            end_date: WpDate(end),
            end_date_details: DateDetails(end),
            utc_start_date: WpDate(utc_start),
            utc_start_date_details: DateDetails(utc_start),
            utc_end_date: WpDate(utc_end),
            utc_end_date_details: DateDetails(utc_end),
            timezone: zone.name(),
            timezone_abbr: zone.abbreviation_at(e.start_utc),
        }
    }
}

pub struct ViewContext<'a> {
    pub urls: &'a Urls,
    pub site_zone: chrono_tz::Tz,
    /// Decides how much of each linked venue and organizer is shown.
    pub caller: &'a Caller,
}

impl<'a> EventView<'a> {
    pub fn new(
        e: &'a Event,
        links: &'a EventLinks,
        cx: &ViewContext<'a>,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> EventView<'a> {
        let (p, urls) = (&e.post, cx.urls);
        let zone = zone_of(e, cx.site_zone);
        let full = reveal == Reveal::Full;
        let permalink = urls.permalink(PostType::Event, &p.slug, p.id);
        let (cost, cost_details) = match full {
            true => parse_cost(&e.cost),
            false => (String::new(), CostDetails::empty()),
        };
        let (venue, organizer) = linked(links, cx, full, with_json_ld);
        let terms = |list: &'a [Term]| -> Vec<EmbeddedTerm<'a>> {
            let shown = if full { list } else { &[] };
            shown.iter().map(|t| EmbeddedTerm::new(t, urls)).collect()
        };
        EventView {
            id: p.id,
            ids: GlobalIds::new(urls, p.id),
            author: IdString(p.author),
            dates: PostDates::new(p, &cx.site_zone),
            rest_url: urls.item("events", p.id),
            title: &p.title,
            description: if full { &p.description } else { "" },
            excerpt: if full { &p.excerpt } else { "" },
            slug: &p.slug,
            image: ImageOrFalse::new(&p.image, reveal),
            all_day: full.then_some(e.all_day),
            when: EventDates::new(e, &zone),
            cost,
            cost_details,
            website: match (&e.website, full) {
                (_, false) => Cow::Borrowed(""),
                (Some(w), true) => Cow::Borrowed(w.as_str()),
                (None, true) => Cow::Owned(permalink.clone()),
            },
            url: permalink,
            show_map: full.then_some(p.show_map),
            show_map_link: full.then_some(p.show_map_link),
            hide_from_listings: full.then_some(e.hide_from_listings),
            sticky: full.then_some(e.sticky),
            featured: full.then_some(e.featured),
            categories: terms(&links.categories),
            tags: terms(&links.tags),
            venue,
            organizer,
            custom_fields: EmptyList,
            tickets: if full { &e.tickets } else { &[] },
            post_parent: e.post_parent,
            json_ld: (with_json_ld && full).then(|| json_ld(e, links, &zone, urls)),
            status_before_trash: super::status_before_trash(p),
        }
    }
}

/// The embedded venue and organizers, each shown as much as the caller may see
/// it. The running reference gives them their JSON-LD on single GETs
/// (as its single-event answers show), not in lists.
fn linked<'a>(
    links: &'a EventLinks,
    cx: &ViewContext<'a>,
    full: bool,
    with_json_ld: bool,
) -> (VenueOrEmpty<'a>, Vec<OrganizerView<'a>>) {
    if !full {
        return (VenueOrEmpty::Empty(EmptyList), Vec::new());
    }
    let reveal = |post: &Post| cx.caller.reveal(post, None);
    let zone = &cx.site_zone;
    let venue = match &links.venue {
        Some(v) => VenueOrEmpty::Venue(Box::new(VenueView::new(
            v,
            cx.urls,
            zone,
            reveal(v),
            with_json_ld,
        ))),
        None => VenueOrEmpty::Empty(EmptyList),
    };
    let organizers = links
        .organizers
        .iter()
        .map(|o| OrganizerView::new(o, cx.urls, zone, reveal(o), with_json_ld))
        .collect();
    (venue, organizers)
}

fn iso(zone: &EventZone, ts: i64) -> String {
    let offset = zone.offset_seconds_at(ts);
    let wall = WpDate(zone.local(ts)).to_string().replacen(' ', "T", 1);
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.abs();
    format!("{wall}{sign}{:02}:{:02}", abs / 3600, (abs % 3600) / 60)
}

/// schema.org `Event` for a single event (its API answer and its page).
pub fn json_ld(e: &Event, links: &EventLinks, zone: &EventZone, urls: &Urls) -> Value {
    let (venue, organizers) = (links.venue.as_ref(), &links.organizers);
    let p = &e.post;
    let mut ld = json!({
        "@context": "http://schema.org",
        "@type": "Event",
        "name": p.title,
        "description": crate::domain::html::strip_tags(if p.excerpt.is_empty() { &p.description } else { &p.excerpt }),
        "url": urls.permalink(PostType::Event, &p.slug, p.id),
        "eventAttendanceMode": "https://schema.org/OfflineEventAttendanceMode",
        "eventStatus": "https://schema.org/EventScheduled",
        "startDate": iso(zone, e.start_utc),
        "endDate": iso(zone, e.end_utc),
    });
    if let Some(img) = &p.image {
        ld["image"] = json!(img.url);
    }
    if let Some(v) = venue.filter(|v| v.password.is_empty()) {
        ld["location"] = super::linked::venue_json_ld(v);
    }
    let organizers: Vec<Value> = organizers
        .iter()
        .filter(|o| o.password.is_empty())
        .map(super::linked::organizer_json_ld)
        .collect();
    match organizers.len() {
        0 => {}
        1 => ld["organizer"] = organizers[0].clone(),
        _ => ld["organizer"] = Value::Array(organizers),
    }
    let (_, cost) = parse_cost(&e.cost);
    let offers: Vec<Value> = if e.tickets.is_empty() {
        cost.values
            .first()
            .map(|price| vec![json!({"@type": "Offer", "price": price, "priceCurrency": cost.currency_code, "url": urls.permalink(PostType::Event, &p.slug, p.id)})])
            .unwrap_or_default()
    } else {
        e.tickets
            .iter()
            .map(|t| json!({"@type": "Offer", "name": t.name, "price": t.price, "priceCurrency": t.currency, "url": t.url}))
            .collect()
    };
    if !offers.is_empty() {
        ld["offers"] = Value::Array(offers);
    }
    ld["performer"] = json!("Organization");
    ld
}

/// A venue object, or `[]` when the event has none.
fn venue_or_empty() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::schema::OneOfBuilder::new()
        .item(utoipa::openapi::Ref::from_schema_name("Venue"))
        .item(super::empty_array())
        .into()
}

/// A page of events with its totals and the URLs of the neighbouring pages.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct EventList {
    events: Vec<EventView<'static>>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}
