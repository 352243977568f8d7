//! The venue and organizer representations (docs/representations.md): the same head,
//! introduction and IDs around their own fields, and their schema.org JSON-LD.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::schema::{image_or_false_schema, text_or_empty};
use super::wire::{IdString, TextOrEmpty};
use super::{GlobalIds, ImageOrFalse, PostDates, Reveal, guarded, nonempty};
use crate::domain::html::strip_tags;
use crate::domain::post::{Post, PostType};
use crate::http::urls::Urls;

/// What a venue or organizer starts with.
#[derive(Serialize, ToSchema)]
struct PostHead<'a> {
    id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    author: Option<IdString>,
    #[serde(flatten)]
    dates: PostDates<'a>,
    url: String,
}

impl<'a> PostHead<'a> {
    fn new(post: &'a Post, post_type: PostType, urls: &Urls, tz: &chrono_tz::Tz) -> PostHead<'a> {
        PostHead {
            id: post.id,
            author: (post.author != 0).then_some(IdString(post.author)),
            dates: PostDates::new(post, tz),
            url: urls.permalink(post_type, &post.slug, post.id),
        }
    }
}

/// What follows a venue's or organizer's name: its texts, slug and image.
#[derive(Serialize, ToSchema)]
struct Intro<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<&'a str>,
    slug: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = image_or_false_schema)]
    image: Option<ImageOrFalse<'a>>,
}

impl<'a> Intro<'a> {
    fn new(post: &'a Post, reveal: Reveal) -> Intro<'a> {
        Intro {
            description: guarded(&post.description, reveal),
            excerpt: guarded(&post.excerpt, reveal),
            slug: &post.slug,
            image: post
                .image
                .as_ref()
                .map(|_| ImageOrFalse::new(&post.image, reveal)),
        }
    }
}

/// The name, or `[]` in place of a protected one (the reference's quirk).
fn name(post: &Post, reveal: Reveal) -> TextOrEmpty<'_> {
    match reveal {
        Reveal::Blanked => TextOrEmpty::Empty,
        Reveal::Full => TextOrEmpty::Text(&post.title),
    }
}

#[derive(Serialize, ToSchema)]
#[schema(as = Venue)]
pub struct VenueView<'a> {
    #[serde(flatten)]
    head: PostHead<'a>,
    /// The venue name; `[]` when password-protected (the reference's quirk).
    #[schema(schema_with = text_or_empty)]
    venue: TextOrEmpty<'a>,
    #[serde(flatten)]
    intro: Intro<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    city: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    country: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    province: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    zip: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    website: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stateprovince: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    geo_lat: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    geo_lng: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
    show_map: Option<bool>,
    show_map_link: Option<bool>,
    #[serde(flatten)]
    ids: GlobalIds<'a>,
    /// In the trash: the status it had before, which a restore can bring back.
    #[serde(skip_serializing_if = "Option::is_none")]
    status_before_trash: Option<&'static str>,
}

impl<'a> VenueView<'a> {
    pub fn new(
        post: &'a Post,
        urls: &'a Urls,
        tz: &chrono_tz::Tz,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> VenueView<'a> {
        let blank = reveal == Reveal::Blanked;
        VenueView {
            head: PostHead::new(post, PostType::Venue, urls, tz),
            venue: name(post, reveal),
            intro: Intro::new(post, reveal),
            address: guarded(&post.address, reveal),
            city: guarded(&post.city, reveal),
            country: guarded(&post.country, reveal),
            province: guarded(&post.province, reveal),
            // `state` is not in the reference's blanking list.
            state: nonempty(&post.state),
            zip: guarded(&post.zip, reveal),
            phone: guarded(&post.phone, reveal),
            website: guarded(&post.website, reveal),
            stateprovince: guarded(&post.stateprovince, reveal),
            geo_lat: post.geo_lat.map(|v| if blank { 0.0 } else { v }),
            geo_lng: post.geo_lng.map(|v| if blank { 0.0 } else { v }),
            json_ld: (with_json_ld && !blank).then(|| venue_json_ld(post)),
            show_map: (!blank).then_some(post.show_map),
            show_map_link: (!blank).then_some(post.show_map_link),
            ids: GlobalIds::new(urls, post.id),
            status_before_trash: super::status_before_trash(post),
        }
    }
}

/// schema.org `Place` of a venue.
pub fn venue_json_ld(post: &Post) -> Value {
    json!({
        "@type": "Place",
        "name": post.title,
        "description": strip_tags(&post.excerpt),
        "url": "",
        "address": {
            "@type": "PostalAddress",
            "streetAddress": post.address,
            "addressLocality": post.city,
            "addressRegion": if post.state.is_empty() { &post.province } else { &post.state },
            "postalCode": post.zip,
            "addressCountry": post.country,
        },
        "telephone": post.phone,
        "sameAs": post.website,
    })
}

#[derive(Serialize, ToSchema)]
#[schema(as = Organizer)]
pub struct OrganizerView<'a> {
    #[serde(flatten)]
    head: PostHead<'a>,
    #[schema(schema_with = text_or_empty)]
    organizer: TextOrEmpty<'a>,
    #[serde(flatten)]
    intro: Intro<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    website: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
    #[serde(flatten)]
    ids: GlobalIds<'a>,
    /// In the trash: the status it had before, which a restore can bring back.
    #[serde(skip_serializing_if = "Option::is_none")]
    status_before_trash: Option<&'static str>,
}

impl<'a> OrganizerView<'a> {
    pub fn new(
        post: &'a Post,
        urls: &'a Urls,
        tz: &chrono_tz::Tz,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> OrganizerView<'a> {
        OrganizerView {
            head: PostHead::new(post, PostType::Organizer, urls, tz),
            organizer: name(post, reveal),
            intro: Intro::new(post, reveal),
            phone: guarded(&post.phone, reveal),
            website: guarded(&post.website, reveal),
            email: guarded(&post.email, reveal),
            json_ld: (with_json_ld && reveal == Reveal::Full).then(|| organizer_json_ld(post)),
            ids: GlobalIds::new(urls, post.id),
            status_before_trash: super::status_before_trash(post),
        }
    }
}

/// schema.org `Person` of an organizer.
pub fn organizer_json_ld(post: &Post) -> Value {
    json!({
        "@type": "Person",
        "name": post.title,
        "description": strip_tags(&post.excerpt),
        "url": post.website,
        "telephone": post.phone,
        "email": post.email,
        "sameAs": post.website,
    })
}
