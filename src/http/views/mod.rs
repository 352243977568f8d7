//! The JSON representations clients see, as deliberate types: key order, the
//! reference's quirks (string authors, omitted empty fields) and all. Each
//! resource has its file; what several share (images, the dates and IDs every
//! post carries) is here, and the wire formats of small values in `wire.rs`.

mod event;
pub mod ical;
mod linked;
mod schema;
mod term;
pub mod wire;

use serde::Serialize;
use utoipa::ToSchema;

pub use event::{EventList, EventView, ViewContext, json_ld};
pub use linked::{OrganizerView, VenueView};
pub use schema::{ErrorBody, ListSchemas, empty_array, image_or_false_schema};
pub use term::{TermUrls, TermView};

use super::urls::GlobalId;
use super::urls::Urls;
use crate::domain::post::{Image, Post};
use wire::WpDate;

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
#[schema(as = Image)]
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

/// An image object, or `false` when there is none or it is hidden.
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

/// A post's status and its publication and modification dates, local and UTC.
#[derive(Serialize, ToSchema)]
struct PostDates<'a> {
    status: &'a str,
    #[schema(value_type = String)]
    date: WpDate,
    #[schema(value_type = String)]
    date_utc: WpDate,
    #[schema(value_type = String)]
    modified: WpDate,
    #[schema(value_type = String)]
    modified_utc: WpDate,
}

impl<'a> PostDates<'a> {
    fn new(post: &'a Post, tz: &chrono_tz::Tz) -> PostDates<'a> {
        let utc = &chrono_tz::Tz::UTC;
        PostDates {
            status: &post.status,
            date: WpDate(local(post.date_utc, tz)),
            date_utc: WpDate(local(post.date_utc, utc)),
            modified: WpDate(local(post.modified_utc, tz)),
            modified_utc: WpDate(local(post.modified_utc, utc)),
        }
    }
}

/// In the trash: the status a post had before, which a restore can bring back
/// (an extension, after every field of the reference's shape).
fn status_before_trash(post: &Post) -> Option<&'static str> {
    post.trashed_status
        .filter(|_| post.status() == Some(crate::domain::post::Status::Trash))
        .map(|s| s.as_str())
}

/// A post's `global_id` (`<site host>?id=<ID>`) and its lineage.
#[derive(Serialize, ToSchema)]
struct GlobalIds<'a> {
    #[schema(value_type = String)]
    global_id: GlobalId<'a>,
    #[schema(value_type = Vec<String>)]
    global_id_lineage: [GlobalId<'a>; 1],
}

impl<'a> GlobalIds<'a> {
    fn new(urls: &'a Urls, id: i64) -> GlobalIds<'a> {
        let global_id = urls.global_id(id);
        GlobalIds {
            global_id_lineage: [global_id],
            global_id,
        }
    }
}

/// Wall time of an instant in a zone.
pub fn local(ts: i64, tz: &chrono_tz::Tz) -> chrono::NaiveDateTime {
    chrono::DateTime::from_timestamp(ts, 0)
        .unwrap_or_default()
        .with_timezone(tz)
        .naive_local()
}
