//! The URLs responses carry: front-end permalinks and API URLs that keep the
//! request's language segment.

use std::fmt::{self, Display, Write};

use serde::{Serialize, Serializer};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::config::Settings;
use crate::domain::post::{PostType, untrashed_slug};
use crate::domain::term::Taxonomy;

/// Characters left as they are in a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

#[derive(Clone, Debug)]
pub struct Urls {
    site: String,
    site_host: String,
    /// `<site>[/lang]<rest_root>/calendar/events/v1`
    api: String,
    /// `<site>[/lang]<rest_root>/`
    rest_root: String,
}

impl Urls {
    /// `lang_prefix` is the language segment the request used (`""`, `"/fr"`, even
    /// `"/en"`); `namespace` the namespace it used.
    pub fn new(settings: &Settings, lang_prefix: &str, namespace: &str) -> Urls {
        let rest_root = format!("{}{lang_prefix}{}", settings.site_url, settings.rest_root);
        Urls {
            site: settings.site_url.clone(),
            site_host: settings.site_host.clone(),
            api: format!("{rest_root}/{namespace}"),
            rest_root: format!("{rest_root}/"),
        }
    }

    /// The site's URL, without a trailing slash.
    pub fn site(&self) -> &str {
        &self.site
    }

    /// Host (and path) of the site, as in `global_id`.
    pub fn site_host(&self) -> &str {
        &self.site_host
    }

    pub fn api(&self) -> &str {
        &self.api
    }

    pub fn rest_root(&self) -> &str {
        &self.rest_root
    }

    /// `<api>/<collection>`
    pub fn collection(&self, collection: &str) -> String {
        format!("{}/{collection}", self.api)
    }

    /// `<api>/<collection>/<id>`
    pub fn item(&self, collection: &str, id: i64) -> String {
        format!("{}/{collection}/{id}", self.api)
    }

    pub fn global_id(&self, id: i64) -> GlobalId<'_> {
        GlobalId {
            host: &self.site_host,
            id,
        }
    }

    /// The front-end permalink of a post; trashed posts get the plain form, as in WordPress.
    pub fn permalink(&self, post_type: PostType, slug: &str, id: i64) -> String {
        if untrashed_slug(slug).is_some() || slug.is_empty() {
            return format!("{}/?post_type={}&p={id}", self.site, post_type.wp_name());
        }
        let base = match post_type {
            PostType::Event => "event",
            PostType::Venue => "venue",
            PostType::Organizer => "organizer",
            PostType::Attachment => "attachment",
        };
        format!(
            "{}/{base}/{}/",
            self.site,
            utf8_percent_encode(slug, SEGMENT)
        )
    }

    pub fn term_link(&self, taxonomy: Taxonomy, slug: &str) -> String {
        format!(
            "{}/{}/{}/",
            self.site,
            taxonomy.archive_base(),
            utf8_percent_encode(slug, SEGMENT)
        )
    }
}

/// Appends `?k=v&…` (form-encoded) to a URL; nothing when there are no pairs.
pub fn with_query(base: &str, pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return base.to_string();
    }
    let mut out = String::with_capacity(base.len() + 64);
    out.push_str(base);
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .finish();
    let _ = write!(out, "?{encoded}");
    out
}

/// `<host>?id=<id>`: the reference's `global_id`.
#[derive(Clone, Copy, Debug)]
pub struct GlobalId<'a> {
    pub host: &'a str,
    pub id: i64,
}

impl Display for GlobalId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.host)?;
        f.write_str("?id=")?;
        write!(f, "{}", self.id)
    }
}

impl Serialize for GlobalId<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
