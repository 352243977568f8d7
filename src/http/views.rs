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
use crate::domain::dates::{format_in, format_utc};
use crate::domain::html::strip_tags;
use crate::domain::post::{Image, Post, PostType};
use crate::domain::term::{Taxonomy, Term};

/// How much of a password-protected post a caller may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reveal {
    Full,
    /// Protected content is blanked as in reference §1.7.
    Blanked,
}

fn nonempty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// A protected post's field: present fields become `""`, absent ones stay absent.
fn guarded(s: &str, reveal: Reveal) -> Option<String> {
    let v = nonempty(s)?;
    Some(if reveal == Reveal::Blanked {
        String::new()
    } else {
        v
    })
}

#[derive(Serialize, ToSchema)]
pub struct ImageView {
    pub url: String,
    pub id: i64,
    pub extension: String,
}

impl ImageView {
    pub fn new(image: &Image) -> ImageView {
        ImageView {
            url: image.url.clone(),
            id: image.id,
            extension: image.extension().to_string(),
        }
    }
}

/// `false` when there is no image or it is hidden, as the reference prints it.
fn image_or_false(image: &Option<Image>, reveal: Reveal) -> Value {
    match (image, reveal) {
        (Some(img), Reveal::Full) => {
            serde_json::to_value(ImageView::new(img)).unwrap_or(Value::Bool(false))
        }
        _ => Value::Bool(false),
    }
}

/// Fields every post representation starts with.
#[derive(Serialize, ToSchema)]
struct PostHead {
    id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<String>,
    status: String,
    date: String,
    date_utc: String,
    modified: String,
    modified_utc: String,
    url: String,
}

fn head(post: &Post, post_type: PostType, urls: &Urls, tz: &chrono_tz::Tz) -> PostHead {
    PostHead {
        id: post.id,
        author: (post.author != 0).then(|| post.author.to_string()),
        status: post.status.clone(),
        date: format_in(post.date_utc, tz),
        date_utc: format_utc(post.date_utc),
        modified: format_in(post.modified_utc, tz),
        modified_utc: format_utc(post.modified_utc),
        url: urls.permalink(post_type, &post.slug, post.id),
    }
}

#[derive(Serialize, ToSchema)]
pub struct VenueView {
    #[serde(flatten)]
    head: PostHead,
    /// The venue name; `[]` when password-protected (the reference's quirk).
    #[schema(schema_with = text_or_empty)]
    venue: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<String>,
    slug: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = image_or_false_schema)]
    image: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    city: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    country: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    province: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    zip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    website: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stateprovince: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    geo_lat: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    geo_lng: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
    show_map: Option<bool>,
    show_map_link: Option<bool>,
    global_id: String,
    global_id_lineage: Vec<String>,
}

impl VenueView {
    pub fn new(
        post: &Post,
        urls: &Urls,
        tz: &chrono_tz::Tz,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> VenueView {
        let blank = reveal == Reveal::Blanked;
        let global_id = urls.global_id(post.id);
        VenueView {
            head: head(post, PostType::Venue, urls, tz),
            venue: if blank { json!([]) } else { json!(post.title) },
            description: guarded(&post.description, reveal),
            excerpt: guarded(&post.excerpt, reveal),
            slug: post.slug.clone(),
            image: post
                .image
                .as_ref()
                .map(|_| image_or_false(&post.image, reveal)),
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
            global_id_lineage: vec![global_id.clone()],
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
pub struct OrganizerView {
    #[serde(flatten)]
    head: PostHead,
    #[schema(schema_with = text_or_empty)]
    organizer: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<String>,
    slug: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = image_or_false_schema)]
    image: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    website: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    json_ld: Option<Value>,
    global_id: String,
    global_id_lineage: Vec<String>,
}

impl OrganizerView {
    pub fn new(
        post: &Post,
        urls: &Urls,
        tz: &chrono_tz::Tz,
        reveal: Reveal,
        with_json_ld: bool,
    ) -> OrganizerView {
        let blank = reveal == Reveal::Blanked;
        let global_id = urls.global_id(post.id);
        OrganizerView {
            head: head(post, PostType::Organizer, urls, tz),
            organizer: if blank { json!([]) } else { json!(post.title) },
            description: guarded(&post.description, reveal),
            excerpt: guarded(&post.excerpt, reveal),
            slug: post.slug.clone(),
            image: post
                .image
                .as_ref()
                .map(|_| image_or_false(&post.image, reveal)),
            phone: guarded(&post.phone, reveal),
            website: guarded(&post.website, reveal),
            email: guarded(&post.email, reveal),
            json_ld: (with_json_ld && !blank).then(|| organizer_json_ld(post)),
            global_id_lineage: vec![global_id.clone()],
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
pub struct TermView {
    id: i64,
    count: i64,
    description: String,
    name: String,
    slug: String,
    taxonomy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<i64>,
    #[schema(schema_with = empty_array)]
    meta: [(); 0],
    url: String,
    urls: TermUrls,
}

impl TermView {
    pub fn new(term: &Term, urls: &Urls) -> TermView {
        TermView {
            id: term.id,
            count: term.count,
            description: term.description.clone(),
            name: term.name.clone(),
            slug: term.slug.clone(),
            taxonomy: term.taxonomy.as_str(),
            parent: (term.taxonomy == Taxonomy::Category).then_some(term.parent),
            meta: [],
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
    venues: Vec<VenueView>,
    rest_url: String,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
    total: u64,
    total_pages: u64,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct OrganizerList {
    organizers: Vec<OrganizerView>,
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
    categories: Vec<TermView>,
    next_rest_url: Option<String>,
    previous_rest_url: Option<String>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct TagList {
    rest_url: String,
    total: u64,
    total_pages: u64,
    tags: Vec<TermView>,
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
