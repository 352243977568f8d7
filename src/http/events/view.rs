//! The event representation (reference §1.1), its embedded terms (§1.5), and JSON-LD.

use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::domain::cost::{CostDetails, parse_cost};
use crate::domain::event::{Event, EventLinks, Ticket};
use crate::domain::permissions::Caller;
use crate::domain::post::{Post, PostType};
use crate::domain::term::Term;
use crate::domain::timezone::{EventZone, parse_zone};
use crate::http::urls::Urls;
use crate::http::views::{ImageView, OrganizerView, Reveal, TermUrls, VenueView};

#[derive(Serialize, ToSchema)]
pub struct DateDetails {
    year: String,
    month: String,
    day: String,
    hour: String,
    minutes: String,
    seconds: String,
}

impl DateDetails {
    fn new(dt: &NaiveDateTime) -> DateDetails {
        DateDetails {
            year: dt.format("%Y").to_string(),
            month: dt.format("%m").to_string(),
            day: dt.format("%d").to_string(),
            hour: dt.format("%H").to_string(),
            minutes: dt.format("%M").to_string(),
            seconds: dt.format("%S").to_string(),
        }
    }
}

/// A term inside an event: WordPress's raw term object with `id` and `urls`.
#[derive(Serialize, ToSchema)]
pub struct EmbeddedTerm {
    name: String,
    slug: String,
    term_group: i64,
    term_taxonomy_id: i64,
    taxonomy: &'static str,
    description: String,
    parent: i64,
    count: i64,
    filter: &'static str,
    id: i64,
    urls: TermUrls,
}

impl EmbeddedTerm {
    pub fn new(t: &Term, urls: &Urls) -> EmbeddedTerm {
        EmbeddedTerm {
            name: t.name.clone(),
            slug: t.slug.clone(),
            term_group: 0,
            term_taxonomy_id: t.id,
            taxonomy: t.taxonomy.as_str(),
            description: t.description.clone(),
            parent: t.parent,
            count: t.count,
            filter: "raw",
            id: t.id,
            urls: TermUrls::new(t, urls),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct EventView {
    id: i64,
    global_id: String,
    global_id_lineage: Vec<String>,
    author: String,
    status: String,
    date: String,
    date_utc: String,
    modified: String,
    modified_utc: String,
    url: String,
    rest_url: String,
    title: String,
    description: String,
    excerpt: String,
    slug: String,
    #[schema(schema_with = crate::http::views::image_or_false_schema)]
    image: Value,
    all_day: Option<bool>,
    start_date: String,
    start_date_details: DateDetails,
    end_date: String,
    end_date_details: DateDetails,
    utc_start_date: String,
    utc_start_date_details: DateDetails,
    utc_end_date: String,
    utc_end_date_details: DateDetails,
    timezone: String,
    timezone_abbr: String,
    cost: String,
    cost_details: CostDetails,
    website: String,
    show_map: Option<bool>,
    show_map_link: Option<bool>,
    hide_from_listings: Option<bool>,
    sticky: Option<bool>,
    featured: Option<bool>,
    categories: Vec<EmbeddedTerm>,
    tags: Vec<EmbeddedTerm>,
    /// A venue object, or `[]` when there is none (the reference's shape).
    #[schema(schema_with = venue_or_empty)]
    venue: Value,
    organizer: Vec<OrganizerView>,
    #[schema(schema_with = crate::http::views::empty_array)]
    custom_fields: [(); 0],
    tickets: Vec<Ticket>,
    post_parent: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
}

/// The zone an event's dates are shown in: its own, or the site's.
pub fn zone_of(event: &Event, site: chrono_tz::Tz) -> EventZone {
    parse_zone(&event.timezone).unwrap_or(EventZone::Named(site))
}

fn format(dt: &NaiveDateTime) -> String {
    dt.format("%Y-%m-%d %H:%M:%S").to_string()
}

pub struct ViewContext<'a> {
    pub urls: &'a Urls,
    pub site_zone: chrono_tz::Tz,
    pub caller: &'a Caller,
    pub now: i64,
}

impl EventView {
    pub fn new(
        e: &Event,
        links: &EventLinks,
        cx: &ViewContext<'_>,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> EventView {
        let p = &e.post;
        let urls = cx.urls;
        let site = EventZone::Named(cx.site_zone);
        let zone = zone_of(e, cx.site_zone);
        let full = reveal == Reveal::Full;
        let local_start = zone.local(e.start_utc);
        let local_end = zone.local(e.end_utc);
        let utc = EventZone::Named(chrono_tz::Tz::UTC);
        let (utc_start, utc_end) = (utc.local(e.start_utc), utc.local(e.end_utc));
        let (date, modified) = (site.local(p.date_utc), site.local(p.modified_utc));
        let permalink = urls.permalink(PostType::Event, &p.slug, p.id);
        let (cost, cost_details) = if full {
            parse_cost(&e.cost)
        } else {
            (String::new(), CostDetails::empty())
        };
        let global_id = urls.global_id(p.id);
        let linked_reveal = |post: &Post| {
            if post.password.is_empty() || cx.caller.can_edit(post) {
                Reveal::Full
            } else {
                Reveal::Blanked
            }
        };
        // Linked posts the caller may not read (drafts, private) are left out.
        let venue = links
            .venue
            .as_ref()
            .filter(|v| cx.caller.can_read(v, cx.now));
        let organizers: Vec<&Post> = links
            .organizers
            .iter()
            .filter(|o| cx.caller.can_read(o, cx.now))
            .collect();
        EventView {
            id: p.id,
            global_id_lineage: vec![global_id.clone()],
            global_id,
            author: p.author.to_string(),
            status: p.status.clone(),
            date: format(&date),
            date_utc: format(&utc.local(p.date_utc)),
            modified: format(&modified),
            modified_utc: format(&utc.local(p.modified_utc)),
            rest_url: urls.item("events", p.id),
            title: p.title.clone(),
            description: if full {
                p.description.clone()
            } else {
                String::new()
            },
            excerpt: if full {
                p.excerpt.clone()
            } else {
                String::new()
            },
            slug: p.slug.clone(),
            image: match (&p.image, full) {
                (Some(img), true) => {
                    serde_json::to_value(ImageView::new(img)).unwrap_or(Value::Bool(false))
                }
                _ => Value::Bool(false),
            },
            all_day: full.then_some(e.all_day),
            start_date: format(&local_start),
            start_date_details: DateDetails::new(&local_start),
            end_date: format(&local_end),
            end_date_details: DateDetails::new(&local_end),
            utc_start_date: format(&utc_start),
            utc_start_date_details: DateDetails::new(&utc_start),
            utc_end_date: format(&utc_end),
            utc_end_date_details: DateDetails::new(&utc_end),
            timezone: zone.name(),
            timezone_abbr: zone.abbreviation_at(e.start_utc),
            cost,
            cost_details,
            website: match (&e.website, full) {
                (_, false) => String::new(),
                (Some(w), true) => w.clone(),
                (None, true) => permalink.clone(),
            },
            url: permalink,
            show_map: full.then_some(p.show_map),
            show_map_link: full.then_some(p.show_map_link),
            hide_from_listings: full.then_some(e.hide_from_listings),
            sticky: full.then_some(e.sticky),
            featured: full.then_some(e.featured),
            categories: if full {
                links
                    .categories
                    .iter()
                    .map(|t| EmbeddedTerm::new(t, urls))
                    .collect()
            } else {
                Vec::new()
            },
            tags: if full {
                links
                    .tags
                    .iter()
                    .map(|t| EmbeddedTerm::new(t, urls))
                    .collect()
            } else {
                Vec::new()
            },
            // The running reference gives embedded venues and organizers their JSON-LD
            // on single GETs (samples/event_single.json), not in lists.
            venue: match venue {
                Some(v) if full => serde_json::to_value(VenueView::new(
                    v,
                    urls,
                    &cx.site_zone,
                    linked_reveal(v),
                    with_json_ld,
                ))
                .unwrap_or(json!([])),
                _ => json!([]),
            },
            organizer: if full {
                organizers
                    .iter()
                    .map(|o| {
                        OrganizerView::new(o, urls, &cx.site_zone, linked_reveal(o), with_json_ld)
                    })
                    .collect()
            } else {
                Vec::new()
            },
            custom_fields: [],
            tickets: if full { e.tickets.clone() } else { Vec::new() },
            post_parent: e.post_parent,
            json_ld: (with_json_ld && full).then(|| json_ld(e, venue, &organizers, &zone, urls)),
        }
    }
}

fn iso(zone: &EventZone, ts: i64) -> String {
    let offset = zone.offset_seconds_at(ts);
    let local = zone.local(ts);
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.abs();
    format!(
        "{}{sign}{:02}:{:02}",
        local.format("%Y-%m-%dT%H:%M:%S"),
        abs / 3600,
        (abs % 3600) / 60
    )
}

/// schema.org `Event` for a single event.
fn json_ld(
    e: &Event,
    venue: Option<&Post>,
    organizers: &[&Post],
    zone: &EventZone,
    urls: &Urls,
) -> Value {
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
        ld["location"] = crate::http::views::venue_json_ld(v);
    }
    let organizers: Vec<Value> = organizers
        .iter()
        .filter(|o| o.password.is_empty())
        .map(|o| crate::http::views::organizer_json_ld(o))
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
        .item(utoipa::openapi::Ref::from_schema_name("VenueView"))
        .item(crate::http::views::empty_array())
        .into()
}

/// A page of events with its totals and the URLs of the neighbouring pages.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct EventList {
    events: Vec<EventView>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}
