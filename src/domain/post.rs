//! Posts: events, venues, organizers (and the images they point at).

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostType {
    Event,
    Venue,
    Organizer,
    Attachment,
}

impl PostType {
    pub fn as_str(self) -> &'static str {
        match self {
            PostType::Event => "event",
            PostType::Venue => "venue",
            PostType::Organizer => "organizer",
            PostType::Attachment => "attachment",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "event" => PostType::Event,
            "venue" => PostType::Venue,
            "organizer" => PostType::Organizer,
            "attachment" => PostType::Attachment,
            _ => return None,
        })
    }

    /// The API collection segment.
    pub fn collection(self) -> &'static str {
        match self {
            PostType::Event => "events",
            PostType::Venue => "venues",
            PostType::Organizer => "organizers",
            PostType::Attachment => "media",
        }
    }

    /// The WordPress post type name, used in non-pretty permalinks.
    pub fn wp_name(self) -> &'static str {
        match self {
            PostType::Event => "tribe_events",
            PostType::Venue => "tribe_venue",
            PostType::Organizer => "tribe_organizer",
            PostType::Attachment => "attachment",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Publish,
    Future,
    Draft,
    Pending,
    Private,
    Trash,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Publish,
        Status::Future,
        Status::Draft,
        Status::Pending,
        Status::Private,
        Status::Trash,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Publish => "publish",
            Status::Future => "future",
            Status::Draft => "draft",
            Status::Pending => "pending",
            Status::Private => "private",
            Status::Trash => "trash",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// The slug suffix WordPress gives trashed posts, freeing their slug for reuse.
pub const TRASHED_SUFFIX: &str = "__trashed";

/// WordPress shortens a slug to this many bytes before it adds [`TRASHED_SUFFIX`].
const TRASHED_BASE_MAX: usize = 191;

/// The slug a post asks for when it goes to the trash: `concert__trashed`. Slugs are
/// unique per type, so a second trashed "concert" is given `concert__trashed-2`.
pub fn trashed_slug(slug: &str) -> String {
    let base = untrashed_slug(slug).unwrap_or(slug);
    let mut end = base.len().min(TRASHED_BASE_MAX);
    while !base.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{TRASHED_SUFFIX}", &base[..end])
}

/// The slug a trashed post had before the trash (`concert` for `concert__trashed` and
/// for `concert__trashed-2`), or `None` when `slug` is not a trashed one.
pub fn untrashed_slug(slug: &str) -> Option<&str> {
    let unnumbered = match slug.rsplit_once('-') {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => slug,
    };
    unnumbered.strip_suffix(TRASHED_SUFFIX)
}

/// One stored post, as read from the database.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Post {
    pub id: i64,
    pub post_type: Option<PostType>,
    pub author: i64,
    pub status: String,
    pub password: String,
    pub slug: String,
    pub title: String,
    pub description: String,
    pub excerpt: String,
    pub date_utc: i64,
    pub modified_utc: i64,
    pub image: Option<Image>,
    pub address: String,
    pub city: String,
    pub country: String,
    pub province: String,
    pub state: String,
    pub zip: String,
    pub phone: String,
    pub stateprovince: String,
    pub website: String,
    pub email: String,
    pub show_map: bool,
    pub show_map_link: bool,
    pub geo_lat: Option<f64>,
    pub geo_lng: Option<f64>,
    /// In the trash: the status it had before, if recorded.
    pub trashed_status: Option<Status>,
    /// Writes since its creation.
    pub revision: i64,
}

impl Post {
    pub fn status(&self) -> Option<Status> {
        Status::parse(&self.status)
    }

    /// The status permissions are decided on: a post in the trash counts as what it
    /// was before (as WordPress decides them), or as trash when that is unknown.
    pub fn status_for_permissions(&self) -> Option<Status> {
        match self.status() {
            Some(Status::Trash) => self.trashed_status.or(Some(Status::Trash)),
            other => other,
        }
    }

    pub fn is_published(&self, now_utc: i64) -> bool {
        match self.status() {
            Some(Status::Publish) => true,
            // A scheduled post whose date has passed counts as published.
            Some(Status::Future) => self.date_utc <= now_utc,
            _ => false,
        }
    }

    /// When the clock alone will change whether this post is published: a
    /// scheduled post that is not due yet goes live at its date.
    pub fn goes_live_at(&self, now_utc: i64) -> Option<i64> {
        (self.status() == Some(Status::Future) && self.date_utc > now_utc).then_some(self.date_utc)
    }
}

/// A featured image: an attachment post with a URL.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub id: i64,
    pub url: String,
}

impl Image {
    pub fn extension(&self) -> &str {
        let path = self.url.split(['?', '#']).next().unwrap_or("");
        path.rsplit_once('.').map_or("", |(_, ext)| ext)
    }
}

/// How a write names a featured image.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageRef {
    Id(i64),
    Url(String),
    None,
}

/// Values for a venue or organizer create/update; `None` keeps the stored value,
/// `Some("")` clears it.
#[derive(Clone, Debug, Default)]
pub struct PostChanges {
    /// The ID a new post is created with (an import keeping its source's IDs);
    /// the next free one when `None`. Never changes a stored post.
    pub id: Option<i64>,
    pub title: Option<String>,
    pub author: Option<i64>,
    pub status: Option<Status>,
    pub date_utc: Option<i64>,
    pub description: Option<String>,
    pub excerpt: Option<String>,
    pub slug: Option<String>,
    pub password: Option<String>,
    pub image: Option<ImageRef>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
    pub province: Option<String>,
    pub state: Option<String>,
    pub zip: Option<String>,
    pub phone: Option<String>,
    pub stateprovince: Option<String>,
    pub website: Option<String>,
    pub email: Option<String>,
    pub show_map: Option<bool>,
    pub show_map_link: Option<bool>,
    pub geo_lat: Option<Option<f64>>,
    pub geo_lng: Option<Option<f64>>,
}

/// How much of a password-protected post a caller may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reveal {
    Full,
    /// Protected content is blanked, as The Events Calendar blanks it.
    Blanked,
}

/// How a single-item route names its post.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Id(i64),
    Slug(String),
}

impl Target {
    /// The route parameter that names it: an unknown one is a 400 on it.
    pub fn param(&self) -> &'static str {
        match self {
            Target::Id(_) => "id",
            Target::Slug(_) => "slug",
        }
    }
}

/// Which posts a list may show to its caller.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Visibility {
    /// Everything (editors and administrators).
    All,
    /// Published posts, plus every post of this author.
    PublishedOrOwn(i64),
    /// Published posts only.
    #[default]
    Published,
}

/// A validated venue or organizer list query.
#[derive(Clone, Debug)]
pub struct LinkedPostQuery {
    pub post_type: PostType,
    pub page: u64,
    pub per_page: u64,
    pub search: Option<String>,
    pub event: Option<i64>,
    pub has_events: Option<bool>,
    pub only_with_upcoming: bool,
    /// Some venue or organizer restored before the last batch of its trash has
    /// events whose writes kept their links to it (`store::linked_unlinks`):
    /// `has_events` and `only_with_upcoming` count those events too.
    pub kept_links: bool,
    /// Explicit statuses; empty means "any but trash".
    pub statuses: Vec<Status>,
    pub visibility: Visibility,
    pub now_utc: i64,
    /// How many matches a search counts: past them (and past the page asked), its
    /// total is a floor (docs/departures.md, "Totals of searches").
    pub count_limit: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trashed_slug_gives_back_the_slug_it_came_from() {
        assert_eq!(trashed_slug("concert"), "concert__trashed");
        assert_eq!(untrashed_slug("concert__trashed"), Some("concert"));
        assert_eq!(untrashed_slug("concert__trashed-12"), Some("concert"));
        assert_eq!(trashed_slug("concert__trashed-2"), "concert__trashed");
        assert_eq!(untrashed_slug("concert"), None);
        assert_eq!(untrashed_slug("concert-2"), None);
        assert_eq!(untrashed_slug("concert__trashed-"), None);
        assert_eq!(untrashed_slug("concert__trashed-x"), None);
    }

    #[test]
    fn a_long_slug_is_shortened_so_its_suffix_survives() {
        let long = "a".repeat(200);
        let trashed = trashed_slug(&long);
        assert_eq!(trashed.len(), 191 + TRASHED_SUFFIX.len());
        assert_eq!(untrashed_slug(&trashed), Some(&long[..191]));
    }
}
