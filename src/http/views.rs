//! The JSON representations clients see, as deliberate types: key order, the
//! reference's quirks (string authors, omitted empty fields) and all.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

use super::urls::Urls;
use super::wire::{EmptyList, GlobalId, IdString, TextOrEmpty, WpDate};
use crate::domain::html::strip_tags;
use crate::domain::post::{Image, Post, PostType};
use crate::domain::term::{Taxonomy, Term};

pub use crate::domain::post::Reveal;

fn nonempty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

/// A protected post's field: present fields become `""`, absent ones stay absent.
fn guarded(s: &str, reveal: Reveal) -> Option<&str> {
    let v = nonempty(s)?;
    Some(if reveal == Reveal::Blanked { "" } else { v })
}

#[derive(Serialize, ToSchema)]
pub struct ImageView<'a> {
    pub url: &'a str,
    pub id: i64,
    pub extension: &'a str,
}

impl<'a> ImageView<'a> {
    pub fn new(image: &'a Image) -> ImageView<'a> {
        ImageView {
            url: &image.url,
            id: image.id,
            extension: image.extension(),
        }
    }
}

/// An image object, or `false` when there is none or it is hidden, as the reference prints it.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ImageOrFalse<'a> {
    Image(ImageView<'a>),
    False(bool),
}

impl<'a> ImageOrFalse<'a> {
    pub fn new(image: &'a Option<Image>, reveal: Reveal) -> ImageOrFalse<'a> {
        match (image, reveal) {
            (Some(img), Reveal::Full) => ImageOrFalse::Image(ImageView::new(img)),
            _ => ImageOrFalse::False(false),
        }
    }
}

/// Fields every post representation starts with.
#[derive(Serialize, ToSchema)]
struct PostHead<'a> {
    id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    author: Option<IdString>,
    status: &'a str,
    #[schema(value_type = String)]
    date: WpDate,
    #[schema(value_type = String)]
    date_utc: WpDate,
    #[schema(value_type = String)]
    modified: WpDate,
    #[schema(value_type = String)]
    modified_utc: WpDate,
    url: String,
}

fn head<'a>(post: &'a Post, post_type: PostType, urls: &Urls, tz: &chrono_tz::Tz) -> PostHead<'a> {
    PostHead {
        id: post.id,
        author: (post.author != 0).then_some(IdString(post.author)),
        status: &post.status,
        date: WpDate(local(post.date_utc, tz)),
        date_utc: WpDate(local(post.date_utc, &chrono_tz::Tz::UTC)),
        modified: WpDate(local(post.modified_utc, tz)),
        modified_utc: WpDate(local(post.modified_utc, &chrono_tz::Tz::UTC)),
        url: urls.permalink(post_type, &post.slug, post.id),
    }
}

/// Wall time of an instant in a zone.
pub fn local(ts: i64, tz: &chrono_tz::Tz) -> chrono::NaiveDateTime {
    chrono::DateTime::from_timestamp(ts, 0)
        .unwrap_or_default()
        .with_timezone(tz)
        .naive_local()
}

#[derive(Serialize, ToSchema)]
pub struct VenueView<'a> {
    #[serde(flatten)]
    head: PostHead<'a>,
    /// The venue name; `[]` when password-protected (the reference's quirk).
    #[schema(schema_with = text_or_empty)]
    venue: TextOrEmpty<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<&'a str>,
    slug: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = image_or_false_schema)]
    image: Option<ImageOrFalse<'a>>,
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
    #[schema(value_type = String)]
    global_id: GlobalId<'a>,
    #[schema(value_type = Vec<String>)]
    global_id_lineage: [GlobalId<'a>; 1],
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
        let global_id = urls.global_id(post.id);
        VenueView {
            head: head(post, PostType::Venue, urls, tz),
            venue: if blank {
                TextOrEmpty::Empty
            } else {
                TextOrEmpty::Text(&post.title)
            },
            description: guarded(&post.description, reveal),
            excerpt: guarded(&post.excerpt, reveal),
            slug: &post.slug,
            image: post
                .image
                .as_ref()
                .map(|_| ImageOrFalse::new(&post.image, reveal)),
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
            global_id_lineage: [global_id],
            global_id,
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
pub struct OrganizerView<'a> {
    #[serde(flatten)]
    head: PostHead<'a>,
    #[schema(schema_with = text_or_empty)]
    organizer: TextOrEmpty<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<&'a str>,
    slug: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = image_or_false_schema)]
    image: Option<ImageOrFalse<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    website: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
    #[schema(value_type = String)]
    global_id: GlobalId<'a>,
    #[schema(value_type = Vec<String>)]
    global_id_lineage: [GlobalId<'a>; 1],
}

impl<'a> OrganizerView<'a> {
    pub fn new(
        post: &'a Post,
        urls: &'a Urls,
        tz: &chrono_tz::Tz,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> OrganizerView<'a> {
        let blank = reveal == Reveal::Blanked;
        let global_id = urls.global_id(post.id);
        OrganizerView {
            head: head(post, PostType::Organizer, urls, tz),
            organizer: if blank {
                TextOrEmpty::Empty
            } else {
                TextOrEmpty::Text(&post.title)
            },
            description: guarded(&post.description, reveal),
            excerpt: guarded(&post.excerpt, reveal),
            slug: &post.slug,
            image: post
                .image
                .as_ref()
                .map(|_| ImageOrFalse::new(&post.image, reveal)),
            phone: guarded(&post.phone, reveal),
            website: guarded(&post.website, reveal),
            email: guarded(&post.email, reveal),
            json_ld: (with_json_ld && !blank).then(|| organizer_json_ld(post)),
            global_id_lineage: [global_id],
            global_id,
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

#[derive(Serialize, ToSchema)]
pub struct TermUrls {
    #[serde(rename = "self")]
    pub self_: String,
    pub collection: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up: Option<String>,
}

impl TermUrls {
    pub fn new(term: &Term, urls: &Urls) -> TermUrls {
        let collection = term.taxonomy.collection();
        TermUrls {
            self_: urls.item(collection, term.id),
            collection: urls.collection(collection),
            up: (term.parent != 0).then(|| urls.item(collection, term.parent)),
        }
    }
}

/// A term as `/categories` and `/tags` return it.
#[derive(Serialize, ToSchema)]
pub struct TermView<'a> {
    id: i64,
    count: i64,
    description: &'a str,
    name: &'a str,
    slug: &'a str,
    taxonomy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<i64>,
    #[schema(schema_with = empty_array)]
    meta: EmptyList,
    url: String,
    urls: TermUrls,
}

impl<'a> TermView<'a> {
    pub fn new(term: &'a Term, urls: &Urls) -> TermView<'a> {
        TermView {
            id: term.id,
            count: term.count,
            description: &term.description,
            name: &term.name,
            slug: &term.slug,
            taxonomy: term.taxonomy.as_str(),
            parent: (term.taxonomy == Taxonomy::Category).then_some(term.parent),
            meta: EmptyList,
            url: urls.term_link(term.taxonomy, &term.slug),
            urls: TermUrls::new(term, urls),
        }
    }
}

/// `"text"`, or `[]` where the reference blanks a protected name.
pub fn text_or_empty() -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::String)))
        .item(empty_array())
        .into()
}

/// Any JSON value.
pub fn any_value() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::AnyValue)
        .into()
}

/// `[]`: a list the reference always sends empty.
pub fn empty_array() -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(ObjectBuilder::new().schema_type(SchemaType::AnyValue))
        .max_items(Some(0))
        .into()
}

/// An image object, or `false` when there is none or it is hidden.
pub fn image_or_false_schema() -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
            "ImageView",
        )))
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::Boolean)))
        .into()
}

/// An error: a stable `code`, a human-readable `message` in the request's language, and `data.status`.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    code: String,
    message: String,
    data: ErrorData,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorData {
    status: u16,
    /// Missing parameters (a list) or invalid ones (name → message).
    #[schema(schema_with = any_value)]
    params: Option<Value>,
    /// Per-parameter detail: `[]` or name → `{code, message, data}`.
    #[schema(schema_with = any_value)]
    details: Option<Value>,
    term_id: Option<i64>,
}

/// Schemas of the list envelopes (serialised by `lists::respond`) and of the
/// discovery documents.
pub struct ListSchemas;

#[derive(ToSchema)]
#[allow(dead_code)]
struct VenueList {
    venues: Vec<VenueView<'static>>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct OrganizerList {
    organizers: Vec<OrganizerView<'static>>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct CategoryList {
    rest_url: String,
    total: u64,
    total_pages: u64,
    categories: Vec<TermView<'static>>,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct TagList {
    rest_url: String,
    total: u64,
    total_pages: u64,
    tags: Vec<TermView<'static>>,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
}

impl ListSchemas {
    pub fn collect(out: &mut Vec<(String, RefOr<Schema>)>) {
        fn add<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
            out.push((T::name().into_owned(), T::schema()));
            T::schemas(out);
        }
        add::<ImageView>(out);
        add::<VenueList>(out);
        add::<OrganizerList>(out);
        add::<CategoryList>(out);
        add::<TagList>(out);
        let open: RefOr<Schema> = ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Object))
            .into();
        out.push(("NamespaceIndex".into(), open.clone()));
        out.push(("OpenApiDocument".into(), open));
    }
}
