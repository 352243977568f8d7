//! The typed arguments of every endpoint. Each struct names exactly the
//! parameters its endpoints declare in the route table (`api::table`, which a
//! test holds to these names), so a handler reads `args.search`, and a typo is a
//! compile error rather than a silent `None`.
//!
//! A field of type `Option<T>` holds what the request carried and nothing else;
//! a plain `T` holds the declared default when the request carried none.

use serde_json::Value;

/// A checked argument value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i64),
    Num(f64),
    Str(String),
    Bool(bool),
    List(Vec<String>),
    /// Untyped arguments keep their JSON value.
    Raw(Value),
}

/// The usual spellings of a boolean: `true/false`, `1/0`, `yes/no`, `on/off`.
pub fn parse_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_i64() {
            Some(1) => Some(true),
            Some(0) => Some(false),
            _ => None,
        },
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Some(true),
            "false" | "0" | "no" | "off" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Where typed arguments come from: the checked arguments of one request.
pub trait ArgSource {
    /// The argument's value: the request's, or its declared default.
    fn value(&self, name: &str) -> Option<&Val>;
    /// Whether the request itself carried the argument.
    fn given(&self, name: &str) -> bool;
}

/// A field of a typed argument struct.
pub trait FromArg: Sized {
    fn from_arg(source: &dyn ArgSource, name: &str) -> Self;
}

/// An argument struct built from a request's checked arguments.
pub trait TypedArgs: Sized {
    /// The parameters it holds, as the route table names them.
    const NAMES: &'static [&'static str];
    fn from_source(source: &dyn ArgSource) -> Self;
}

fn given<'a>(source: &'a dyn ArgSource, name: &str) -> Option<&'a Val> {
    source.value(name).filter(|_| source.given(name))
}

fn int(v: Option<&Val>) -> Option<i64> {
    match v {
        Some(Val::Int(i)) => Some(*i),
        _ => None,
    }
}

fn num(v: Option<&Val>) -> Option<f64> {
    match v {
        Some(Val::Num(n)) => Some(*n),
        Some(Val::Int(i)) => Some(*i as f64),
        _ => None,
    }
}

fn text(v: Option<&Val>) -> Option<String> {
    match v {
        Some(Val::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn boolean(v: Option<&Val>) -> Option<bool> {
    match v {
        Some(Val::Bool(b)) => Some(*b),
        _ => None,
    }
}

fn list(v: Option<&Val>) -> Option<Vec<String>> {
    match v {
        Some(Val::List(l)) => Some(l.clone()),
        _ => None,
    }
}

fn raw(v: Option<&Val>) -> Option<Value> {
    match v {
        Some(Val::Raw(r)) => Some(r.clone()),
        _ => None,
    }
}

macro_rules! from_arg {
    ($ty:ty, $read:ident) => {
        impl FromArg for Option<$ty> {
            fn from_arg(source: &dyn ArgSource, name: &str) -> Self {
                $read(given(source, name))
            }
        }
        impl FromArg for $ty {
            fn from_arg(source: &dyn ArgSource, name: &str) -> Self {
                $read(source.value(name)).unwrap_or_default()
            }
        }
    };
}

from_arg!(i64, int);
from_arg!(f64, num);
from_arg!(String, text);
from_arg!(bool, boolean);
from_arg!(Vec<String>, list);
from_arg!(Value, raw);

/// Declares a typed argument struct and how it is read.
macro_rules! typed_args {
    ($(#[$meta:meta])* pub struct $name:ident { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name { $( $(#[$fmeta])* pub $field: $ty ),* }

        impl TypedArgs for $name {
            const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];
            fn from_source(source: &dyn ArgSource) -> Self {
                let _ = source;
                $name { $( $field: FromArg::from_arg(source, stringify!($field)) ),* }
            }
        }
    };
}

typed_args! {
    /// Endpoints without parameters of their own (`/doc`, a term by ID).
    pub struct NoArgs {}
}

typed_args! {
    /// `GET /` of the namespace: the index.
    pub struct IndexArgs {
        pub namespace: Option<String>,
        pub context: String,
    }
}

typed_args! {
    /// Incremental sync on any list (`domain::sync`).
    pub struct SyncArgs {
        pub page: i64,
        pub per_page: i64,
        pub modified_after: Option<String>,
        pub cursor: Option<String>,
    }
}

typed_args! {
    /// `GET /events`.
    pub struct EventListArgs {
        pub page: i64,
        pub per_page: i64,
        pub start_date: Option<String>,
        pub end_date: Option<String>,
        pub starts_before: Option<String>,
        pub starts_after: Option<String>,
        pub ends_before: Option<String>,
        pub ends_after: Option<String>,
        pub strict_dates: bool,
        pub search: Option<String>,
        pub categories: Option<Vec<String>>,
        pub tags: Option<Vec<String>>,
        pub venue: Option<Vec<String>>,
        pub organizer: Option<Vec<String>>,
        pub featured: Option<bool>,
        pub status: Option<Vec<String>>,
        pub geoloc: Option<bool>,
        pub geoloc_lat: Option<f64>,
        pub geoloc_lng: Option<f64>,
        pub geoloc_radius: f64,
        pub include: Option<Vec<String>>,
        pub post_parent: Option<i64>,
        pub ticketed: Option<bool>,
        pub password: Option<String>,
        /// Incremental sync, read as [`SyncArgs`].
        pub modified_after: Option<String>,
        pub cursor: Option<String>,
    }
}

typed_args! {
    /// `POST /events`, and updates of an event by ID or slug.
    pub struct EventWriteArgs {
        pub password: Option<String>,
        pub author: Option<i64>,
        pub date: Option<String>,
        pub date_utc: Option<String>,
        pub title: Option<String>,
        pub description: Option<String>,
        pub slug: Option<String>,
        pub excerpt: Option<String>,
        pub status: Option<String>,
        pub timezone: Option<String>,
        pub all_day: Option<bool>,
        pub start_date: Option<String>,
        pub end_date: Option<String>,
        pub image: Option<Value>,
        pub cost: Option<Value>,
        pub website: Option<Value>,
        pub show_map: Option<bool>,
        pub show_map_link: Option<bool>,
        pub hide_from_listings: Option<bool>,
        pub sticky: Option<bool>,
        pub featured: Option<bool>,
        pub categories: Option<Value>,
        pub tags: Option<Value>,
        pub venue: Option<Value>,
        pub organizer: Option<Value>,
        pub tickets: Option<Value>,
        pub post_parent: Option<i64>,
    }
}

typed_args! {
    /// A single event, venue or organizer read.
    pub struct PostReadArgs {
        pub password: Option<String>,
    }
}

typed_args! {
    /// `DELETE` of an event.
    pub struct EventDeleteArgs {
        pub password: Option<String>,
        pub force: bool,
    }
}

typed_args! {
    /// `DELETE` of a venue or organizer.
    pub struct LinkedDeleteArgs {
        pub force: bool,
    }
}

typed_args! {
    /// `GET /venues` and `GET /organizers`.
    pub struct LinkedListArgs {
        pub page: i64,
        pub per_page: i64,
        pub search: Option<String>,
        pub event: Option<i64>,
        pub has_events: Option<bool>,
        pub only_with_upcoming: bool,
        pub status: Option<Vec<String>>,
        /// Incremental sync, read as [`SyncArgs`].
        pub modified_after: Option<String>,
        pub cursor: Option<String>,
    }
}

typed_args! {
    /// `POST /venues`, and updates of a venue.
    pub struct VenueWriteArgs {
        pub author: Option<i64>,
        pub date: Option<String>,
        pub date_utc: Option<String>,
        pub venue: Option<String>,
        pub description: Option<String>,
        pub status: Option<String>,
        pub show_map: Option<String>,
        pub show_map_link: Option<String>,
        pub address: Option<String>,
        pub city: Option<String>,
        pub country: Option<String>,
        pub province: Option<String>,
        pub state: Option<String>,
        pub zip: Option<String>,
        pub phone: Option<String>,
        pub stateprovince: Option<String>,
        pub website: Option<String>,
        pub image: Option<Value>,
        pub geo_lat: Option<f64>,
        pub geo_lng: Option<f64>,
        pub excerpt: Option<String>,
        pub slug: Option<String>,
        pub password: Option<String>,
    }
}

typed_args! {
    /// `POST /organizers`, and updates of an organizer.
    pub struct OrganizerWriteArgs {
        pub author: Option<i64>,
        pub date: Option<String>,
        pub date_utc: Option<String>,
        pub organizer: Option<String>,
        pub description: Option<String>,
        pub status: Option<String>,
        pub phone: Option<String>,
        pub website: Option<String>,
        pub email: Option<String>,
        pub image: Option<Value>,
        pub excerpt: Option<String>,
        pub slug: Option<String>,
        pub password: Option<String>,
    }
}

typed_args! {
    /// `GET /tags`.
    pub struct TagListArgs {
        pub page: i64,
        pub per_page: i64,
        pub search: Option<String>,
        pub exclude: Option<Vec<String>>,
        pub include: Option<Vec<String>>,
        pub order: Option<String>,
        pub orderby: Option<String>,
        pub hide_empty: bool,
        pub post: Option<i64>,
        pub event: Option<i64>,
        pub slug: Option<String>,
        /// Incremental sync, read as [`SyncArgs`].
        pub modified_after: Option<String>,
        pub cursor: Option<String>,
    }
}

typed_args! {
    /// `GET /categories`: the tag list's filters and `parent`.
    pub struct CategoryListArgs {
        pub page: i64,
        pub per_page: i64,
        pub search: Option<String>,
        pub exclude: Option<Vec<String>>,
        pub include: Option<Vec<String>>,
        pub order: Option<String>,
        pub orderby: Option<String>,
        pub hide_empty: bool,
        pub parent: Option<i64>,
        pub post: Option<i64>,
        pub event: Option<i64>,
        pub slug: Option<String>,
        /// Incremental sync, read as [`SyncArgs`].
        pub modified_after: Option<String>,
        pub cursor: Option<String>,
    }
}

impl From<TagListArgs> for CategoryListArgs {
    fn from(t: TagListArgs) -> CategoryListArgs {
        CategoryListArgs {
            page: t.page,
            per_page: t.per_page,
            search: t.search,
            exclude: t.exclude,
            include: t.include,
            order: t.order,
            orderby: t.orderby,
            hide_empty: t.hide_empty,
            parent: None,
            post: t.post,
            event: t.event,
            slug: t.slug,
            modified_after: t.modified_after,
            cursor: t.cursor,
        }
    }
}

typed_args! {
    /// `POST /tags`, and updates of a tag.
    pub struct TagWriteArgs {
        pub name: Option<String>,
        pub description: Option<String>,
        pub slug: Option<String>,
    }
}

typed_args! {
    /// `POST /categories`, and updates of a category: a tag's fields and `parent`.
    pub struct CategoryWriteArgs {
        pub name: Option<String>,
        pub description: Option<String>,
        pub slug: Option<String>,
        pub parent: Option<i64>,
    }
}

impl From<TagWriteArgs> for CategoryWriteArgs {
    fn from(t: TagWriteArgs) -> CategoryWriteArgs {
        CategoryWriteArgs {
            name: t.name,
            description: t.description,
            slug: t.slug,
            parent: None,
        }
    }
}
