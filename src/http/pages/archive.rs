//! The pages of a venue, an organizer, a category and a tag: what the API says
//! of each, and their upcoming events.

use crate::domain::plain_text::title_text;
use askama::Template;

use super::filters::{FilterForm, Filters};
use super::list::{ListPage, upcoming_events};
use super::text::Tr;
use super::{PageError, Visit};
use crate::domain::args::{CategoryListArgs, EventListArgs};
use crate::domain::post::{Post, PostType, Reveal, Target};
use crate::domain::term::Taxonomy;

/// What a venue, an organizer or a term tells about itself.
pub struct Details {
    pub address: Vec<String>,
    pub map: Option<String>,
    pub phone: Option<String>,
    /// `tel:` and the number's digits (a URL has no spaces).
    pub phone_href: Option<String>,
    pub email: Option<String>,
    pub website: Option<String>,
    /// HTML, sanitized on every write (`domain::html::sanitize_html`).
    pub description: String,
    /// Plain text (a term's description is stored without tags).
    pub summary: String,
}

impl Details {
    /// All of it, or nothing for a post behind a password.
    pub fn of(post: &Post, reveal: Reveal) -> Details {
        if reveal != Reveal::Full {
            return Details::of_term("");
        }
        let nonblank = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let region = [
            post.city.as_str(),
            post.stateprovince.as_str(),
            post.zip.as_str(),
        ]
        .iter()
        .filter(|s| !s.trim().is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
        let address: Vec<String> = [post.address.as_str(), &region, post.country.as_str()]
            .into_iter()
            .filter_map(nonblank)
            .collect();
        Details {
            map: map_link(post, &address),
            address,
            phone: nonblank(&post.phone),
            phone_href: nonblank(&post.phone).map(|p| tel(&p)),
            email: nonblank(&post.email),
            website: super::views::web_link(&post.website),
            description: post.description.clone(),
            summary: String::new(),
        }
    }

    pub fn of_term(description: &str) -> Details {
        Details {
            address: Vec::new(),
            map: None,
            phone: None,
            phone_href: None,
            email: None,
            website: None,
            description: String::new(),
            summary: description.to_string(),
        }
    }
}

fn tel(phone: &str) -> String {
    let dialled: String = phone
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '+')
        .collect();
    format!("tel:{dialled}")
}

/// A plain link to OpenStreetMap (no map script on the page): at the venue's
/// coordinates when it has them, else a search for its address.
fn map_link(post: &Post, address: &[String]) -> Option<String> {
    if !post.show_map_link {
        return None;
    }
    if let (Some(lat), Some(lng)) = (post.geo_lat, post.geo_lng) {
        return Some(format!(
            "https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=16/{lat}/{lng}"
        ));
    }
    if address.is_empty() {
        return None;
    }
    let query: String = form_urlencoded::byte_serialize(address.join(", ").as_bytes()).collect();
    Some(format!(
        "https://www.openstreetmap.org/search?query={query}"
    ))
}

/// `GET /venue/<slug>/`
pub async fn venue(visit: &Visit, slug: &str) -> Result<String, PageError> {
    linked(visit, PostType::Venue, slug).await
}

/// `GET /organizer/<slug>/`
pub async fn organizer(visit: &Visit, slug: &str) -> Result<String, PageError> {
    linked(visit, PostType::Organizer, slug).await
}

async fn linked(visit: &Visit, t: PostType, slug: &str) -> Result<String, PageError> {
    let tr = Tr::new(&visit.lang.code);
    let target = Target::Slug(slug.to_string());
    let (post, reveal) = visit
        .app
        .service
        .linked(visit.asking(), t, &target, None)
        .await
        .map_err(PageError::of_lookup)?;
    let id = vec![post.id.to_string()];
    let (base, key) = match t {
        PostType::Venue => (
            EventListArgs {
                venue: Some(id),
                ..Default::default()
            },
            "page-venue-events",
        ),
        _ => (
            EventListArgs {
                organizer: Some(id),
                ..Default::default()
            },
            "page-organizer-events",
        ),
    };
    let (groups, pager) = upcoming_events(visit, &Filters::default(), base).await?;
    let page = ListPage {
        chrome: visit.chrome(title_text(&post.title)),
        heading: title_text(&post.title),
        events_heading: Some(tr.t(key)),
        details: Some(Details::of(&post, reveal)),
        groups,
        pager,
        form: None,
    };
    Ok(page.render()?)
}

/// `GET /events/category/<slug>/`
pub async fn category(visit: &Visit, slug: &str) -> Result<String, PageError> {
    term(visit, Taxonomy::Category, slug).await
}

/// `GET /events/tag/<slug>/` and `/tag/<slug>/` (the tag's `link` in the API).
pub async fn tag(visit: &Visit, slug: &str) -> Result<String, PageError> {
    term(visit, Taxonomy::Tag, slug).await
}

async fn term(visit: &Visit, tax: Taxonomy, slug: &str) -> Result<String, PageError> {
    let tr = Tr::new(&visit.lang.code);
    let args = CategoryListArgs {
        page: 1,
        per_page: 1,
        slug: Some(slug.to_string()),
        ..Default::default()
    };
    let found = visit
        .app
        .service
        .list_terms(visit.asking(), tax, &args, &[])
        .await
        .map_err(PageError::of_lookup)?;
    let term = found.terms.into_iter().next().ok_or(PageError::NotFound)?;
    let filters = Filters::of(visit);
    let (base, key, feed) = match tax {
        Taxonomy::Category => (
            EventListArgs {
                categories: Some(vec![term.slug.clone()]),
                ..Default::default()
            },
            "page-category",
            format!("/events/category/{}/", super::views::segment(&term.slug)),
        ),
        Taxonomy::Tag => (
            EventListArgs {
                tags: Some(vec![term.slug.clone()]),
                ..Default::default()
            },
            "page-tag",
            format!("/events/tag/{}/", super::views::segment(&term.slug)),
        ),
    };
    let (groups, pager) = upcoming_events(visit, &filters, base).await?;
    let form = FilterForm::new(visit, &filters, (&feed, Vec::new())).await?;
    let heading = tr.with(key, &term.name);
    let page = ListPage {
        chrome: visit.chrome(heading.clone()),
        heading,
        events_heading: None,
        details: Some(Details::of_term(&term.description)),
        groups,
        pager,
        form: Some(form),
    };
    Ok(page.render()?)
}
