//! The route and argument table: the single source of truth for routing,
//! argument validation, the namespace index and `/doc`.

use axum::http::Method;

use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;

/// How an argument's value is checked and what type the index declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Integer,
    /// A double; the reference declares it as `format: double` with no type.
    Number,
    String,
    Boolean,
    /// A post status or list of them; the reference declares `format: string`.
    Status,
    /// A date-time in any accepted form; untyped in the reference.
    DateTime,
    /// An array, a CSV string or repeated `name[]=`; items are kept as strings.
    List(Item),
    /// No declared type: the handler interprets the raw JSON value.
    Any,
    /// Declared as a list of `Item` but also accepts objects (inline venues/organizers).
    Linked(Item),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Integer,
    String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    None,
    /// Declared `null`.
    Null,
    Int(i64),
    Bool(bool),
    Str(&'static str),
    /// The configured `per_page` default.
    PerPage,
    /// The request time (event list `start_date`).
    Now,
    /// Two years after the request time (event list `end_date`).
    InTwoYears,
    /// The namespace name.
    Namespace,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Path,
    /// Query string on GET and DELETE; query or body on writes.
    Param,
}

#[derive(Clone, Copy, Debug)]
pub struct Arg {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub default: Default,
    pub one_of: &'static [&'static str],
    pub location: Location,
    /// Key of the description in the language catalogues (`locales/*.ftl`).
    pub description: &'static str,
}

const fn arg(name: &'static str, kind: Kind, description: &'static str) -> Arg {
    Arg {
        name,
        kind,
        required: false,
        default: Default::None,
        one_of: &[],
        location: Location::Param,
        description,
    }
}

impl Arg {
    const fn required(mut self) -> Self {
        self.required = true;
        self
    }
    const fn default(mut self, d: Default) -> Self {
        self.default = d;
        self
    }
    const fn one_of(mut self, values: &'static [&'static str]) -> Self {
        self.one_of = values;
        self
    }
    const fn path(mut self) -> Self {
        self.location = Location::Path;
        self.required = true;
        self
    }
}

/// How a single post is addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    Id,
    Slug,
}

/// What an endpoint does; `http::dispatch` maps each to its handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Index,
    Doc,
    EventList,
    EventCreate,
    EventGet(By),
    EventUpdate(By),
    EventDelete(By),
    LinkedList(PostType),
    LinkedCreate(PostType),
    LinkedGet(PostType, By),
    LinkedUpdate(PostType, By),
    LinkedDelete(PostType, By),
    TermList(Taxonomy),
    TermCreate(Taxonomy),
    TermGet(Taxonomy),
    TermUpdate(Taxonomy),
    TermDelete(Taxonomy),
}

#[derive(Debug)]
pub struct Endpoint {
    pub methods: &'static [Method],
    pub op: Op,
    pub args: &'static [Arg],
}

#[derive(Debug)]
pub struct Route {
    /// Path below the namespace, in axum syntax (`/events/{id}`); `""` is the index.
    pub path: &'static str,
    pub endpoints: &'static [Endpoint],
}

impl Route {
    /// The path in WordPress's regex form, as the namespace index keys routes.
    pub fn wp_pattern(&self) -> String {
        self.path
            .replace("{id}", r"(?P<id>\d+)")
            .replace("{slug}", "(?P<slug>[^/]+)")
    }

    pub fn has_variables(&self) -> bool {
        self.path.contains('{')
    }
}

const GET: &[Method] = &[Method::GET];
const POST: &[Method] = &[Method::POST];
const DELETE: &[Method] = &[Method::DELETE];
const EDIT: &[Method] = &[Method::POST, Method::PUT, Method::PATCH];

pub const NAMESPACE: &str = "calendar/events/v1";

// ---- shared arguments -------------------------------------------------------

const PAGE: Arg = arg("page", Kind::Integer, "list-page").default(Default::Int(1));
const STATUS_FILTER: Arg = arg("status", Kind::Status, "list-status");
const FORCE: Arg = arg("force", Kind::Boolean, "delete-force").default(Default::Bool(false));

// ---- events -------------------------------------------------------------------

const EVENT_LIST_ARGS: &[Arg] = &[
    PAGE,
    arg("per_page", Kind::Integer, "events-per-page").default(Default::PerPage),
    arg("start_date", Kind::DateTime, "events-start-date").default(Default::Now),
    arg("end_date", Kind::DateTime, "events-end-date").default(Default::InTwoYears),
    arg("starts_before", Kind::DateTime, "events-starts-before"),
    arg("starts_after", Kind::DateTime, "events-starts-after"),
    arg("ends_before", Kind::DateTime, "events-ends-before"),
    arg("ends_after", Kind::DateTime, "events-ends-after"),
    arg("strict_dates", Kind::Boolean, "events-strict-dates").default(Default::Bool(false)),
    arg("search", Kind::String, "events-search"),
    arg("categories", Kind::List(Item::Integer), "events-categories"),
    arg("tags", Kind::List(Item::Integer), "events-tags"),
    arg("venue", Kind::List(Item::Integer), "events-venue"),
    arg("organizer", Kind::List(Item::Integer), "events-organizer"),
    arg("featured", Kind::Boolean, "events-featured"),
    arg("status", Kind::Status, "event-status"),
    arg("geoloc", Kind::Boolean, "events-geoloc"),
    arg("geoloc_lat", Kind::Number, "events-geoloc-lat"),
    arg("geoloc_lng", Kind::Number, "events-geoloc-lng"),
    arg("geoloc_radius", Kind::Number, "events-geoloc-radius").default(Default::Int(25)),
    arg("include", Kind::List(Item::Integer), "events-include"),
    arg("post_parent", Kind::Integer, "events-post-parent"),
    arg("ticketed", Kind::Boolean, "events-ticketed"),
    arg("password", Kind::String, "events-password"),
];

macro_rules! event_write_args {
    ($($lead:expr,)* ; title: $title:expr, start: $start:expr, end: $end:expr) => {
        &[
            $($lead,)*
            arg("author", Kind::Integer, "event-author"),
            arg("date", Kind::DateTime, "event-date"),
            arg("date_utc", Kind::DateTime, "event-date-utc"),
            $title,
            arg("description", Kind::String, "event-description"),
            arg("slug", Kind::String, "event-slug"),
            arg("excerpt", Kind::String, "event-excerpt"),
            arg("status", Kind::String, "event-status").one_of(STATUSES),
            arg("timezone", Kind::String, "event-timezone"),
            arg("all_day", Kind::Boolean, "event-all-day").default(Default::Bool(false)),
            $start,
            $end,
            arg("image", Kind::Any, "event-image"),
            arg("cost", Kind::Any, "event-cost"),
            arg("website", Kind::Any, "event-website").default(Default::Null),
            arg("show_map", Kind::Boolean, "event-show-map"),
            arg("show_map_link", Kind::Boolean, "event-show-map-link"),
            arg("hide_from_listings", Kind::Boolean, "event-hide-from-listings"),
            arg("sticky", Kind::Boolean, "event-sticky"),
            arg("featured", Kind::Boolean, "event-featured"),
            arg("categories", Kind::Linked(Item::Integer), "event-categories").default(Default::Null),
            arg("tags", Kind::Linked(Item::Integer), "event-tags").default(Default::Null),
            arg("venue", Kind::Linked(Item::Integer), "event-venue").default(Default::Null),
            arg("organizer", Kind::Linked(Item::Integer), "event-organizer").default(Default::Null),
            arg("tickets", Kind::Any, "event-tickets"),
            arg("post_parent", Kind::Integer, "event-post-parent"),
        ]
    };
}

const STATUSES: &[&str] = &["publish", "future", "draft", "pending", "private", "trash"];

const EVENT_ID: Arg = arg("id", Kind::Integer, "event-id").path();
const EVENT_SLUG: Arg = arg("slug", Kind::String, "event-path-slug").path();
const EVENT_PASSWORD: Arg = arg("password", Kind::String, "event-password");

const EVENT_CREATE_ARGS: &[Arg] = event_write_args!(
    EVENT_PASSWORD,;
    title: arg("title", Kind::String, "event-title").required(),
    start: arg("start_date", Kind::DateTime, "event-start-date").required(),
    end: arg("end_date", Kind::DateTime, "event-end-date").required()
);
const EVENT_UPDATE_ARGS: &[Arg] = event_write_args!(
    EVENT_ID, EVENT_PASSWORD,;
    title: arg("title", Kind::String, "event-title"),
    start: arg("start_date", Kind::DateTime, "event-start-date"),
    end: arg("end_date", Kind::DateTime, "event-end-date")
);
const EVENT_SLUG_UPDATE_ARGS: &[Arg] = event_write_args!(
    EVENT_SLUG, EVENT_PASSWORD,;
    title: arg("title", Kind::String, "event-title"),
    start: arg("start_date", Kind::DateTime, "event-start-date"),
    end: arg("end_date", Kind::DateTime, "event-end-date")
);

// ---- venues and organizers ----------------------------------------------------------

macro_rules! linked_list_args {
    ($prefix:literal) => {
        &[
            PAGE,
            arg("per_page", Kind::Integer, concat!($prefix, "-per-page")).default(Default::PerPage),
            arg("search", Kind::String, concat!($prefix, "-search")),
            arg("event", Kind::Integer, concat!($prefix, "-event")),
            arg("has_events", Kind::Boolean, concat!($prefix, "-has-events")),
            arg(
                "only_with_upcoming",
                Kind::Boolean,
                concat!($prefix, "-only-with-upcoming"),
            )
            .default(Default::Bool(false)),
            STATUS_FILTER,
        ]
    };
}

macro_rules! venue_write_args {
    ($($lead:expr,)* ; name: $name:expr) => {
        &[
            $($lead,)*
            arg("author", Kind::Integer, "venue-author"),
            arg("date", Kind::DateTime, "venue-date"),
            arg("date_utc", Kind::DateTime, "venue-date-utc"),
            $name,
            arg("description", Kind::String, "venue-description").default(Default::Null),
            arg("status", Kind::String, "venue-status").one_of(STATUSES),
            arg("show_map", Kind::String, "venue-show-map").default(Default::Null),
            arg("show_map_link", Kind::String, "venue-show-map-link").default(Default::Null),
            arg("address", Kind::String, "venue-address").default(Default::Null),
            arg("city", Kind::String, "venue-city").default(Default::Null),
            arg("country", Kind::String, "venue-country").default(Default::Null),
            arg("province", Kind::String, "venue-province").default(Default::Null),
            arg("state", Kind::String, "venue-state").default(Default::Null),
            arg("zip", Kind::String, "venue-zip").default(Default::Null),
            arg("phone", Kind::String, "venue-phone").default(Default::Null),
            arg("stateprovince", Kind::String, "venue-stateprovince").default(Default::Null),
            arg("website", Kind::String, "venue-website").default(Default::Null),
            arg("image", Kind::Any, "venue-image").default(Default::Null),
            arg("geo_lat", Kind::Number, "venue-geo-lat"),
            arg("geo_lng", Kind::Number, "venue-geo-lng"),
            arg("excerpt", Kind::String, "venue-excerpt"),
            arg("slug", Kind::String, "venue-slug"),
            arg("password", Kind::String, "venue-password"),
        ]
    };
}

macro_rules! organizer_write_args {
    ($($lead:expr,)* ; name: $name:expr) => {
        &[
            $($lead,)*
            arg("author", Kind::Integer, "organizer-author").default(Default::Null),
            arg("date", Kind::DateTime, "organizer-date").default(Default::Null),
            arg("date_utc", Kind::DateTime, "organizer-date-utc").default(Default::Null),
            $name,
            arg("description", Kind::String, "organizer-description").default(Default::Null),
            arg("status", Kind::String, "organizer-status").one_of(STATUSES).default(Default::Null),
            arg("phone", Kind::String, "organizer-phone").default(Default::Null),
            arg("website", Kind::String, "organizer-website").default(Default::Null),
            arg("email", Kind::String, "organizer-email").default(Default::Null),
            arg("image", Kind::Any, "organizer-image").default(Default::Null),
            arg("excerpt", Kind::String, "organizer-excerpt"),
            arg("slug", Kind::String, "organizer-slug"),
            arg("password", Kind::String, "organizer-password"),
        ]
    };
}

const VENUE_ID: Arg = arg("id", Kind::Integer, "venue-id").path();
const VENUE_SLUG: Arg = arg("slug", Kind::String, "venue-path-slug").path();
const ORGANIZER_ID: Arg = arg("id", Kind::Integer, "organizer-id").path();
const ORGANIZER_SLUG: Arg = arg("slug", Kind::String, "organizer-path-slug").path();

const VENUE_CREATE_ARGS: &[Arg] =
    venue_write_args!(; name: arg("venue", Kind::String, "venue-name").required());
const VENUE_UPDATE_ARGS: &[Arg] =
    venue_write_args!(VENUE_ID,; name: arg("venue", Kind::String, "venue-name"));
const VENUE_SLUG_UPDATE_ARGS: &[Arg] =
    venue_write_args!(VENUE_SLUG,; name: arg("venue", Kind::String, "venue-name"));
const ORGANIZER_CREATE_ARGS: &[Arg] = organizer_write_args!(;
    name: arg("organizer", Kind::String, "organizer-name").required().default(Default::Null));
const ORGANIZER_UPDATE_ARGS: &[Arg] = organizer_write_args!(ORGANIZER_ID,;
    name: arg("organizer", Kind::String, "organizer-name").default(Default::Null));
const ORGANIZER_SLUG_UPDATE_ARGS: &[Arg] = organizer_write_args!(ORGANIZER_SLUG,;
    name: arg("organizer", Kind::String, "organizer-name").default(Default::Null));

// ---- categories and tags -----------------------------------------------------------

const ORDER_VALUES: &[&str] = &["asc", "desc"];
const ORDERBY_VALUES: &[&str] = crate::domain::term::TermOrderBy::NAMES;

macro_rules! term_list_args {
    ($prefix:literal $(, $extra:expr)?) => {
        &[
            PAGE,
            arg("per_page", Kind::Integer, concat!($prefix, "-per-page")).default(Default::PerPage),
            arg("search", Kind::String, "terms-search"),
            arg("exclude", Kind::List(Item::Integer), "terms-exclude"),
            arg("include", Kind::List(Item::Integer), "terms-include"),
            arg("order", Kind::String, "terms-order").one_of(ORDER_VALUES),
            arg("orderby", Kind::String, "terms-orderby").one_of(ORDERBY_VALUES),
            arg("hide_empty", Kind::Boolean, "terms-hide-empty").default(Default::Bool(true)),
            $($extra,)?
            arg("post", Kind::Integer, "terms-post"),
            arg("event", Kind::Integer, "terms-event"),
            arg("slug", Kind::String, "terms-slug"),
        ]
    };
}

const CATEGORY_ID: Arg = arg("id", Kind::Integer, "category-id").path();
const TAG_ID: Arg = arg("id", Kind::Integer, "tag-id").path();
const CATEGORY_PARENT: Arg = arg("parent", Kind::Integer, "category-parent");

const CATEGORY_CREATE_ARGS: &[Arg] = &[
    arg("name", Kind::String, "category-name").required(),
    arg("description", Kind::String, "category-description"),
    arg("slug", Kind::String, "category-slug"),
    CATEGORY_PARENT,
];
const CATEGORY_UPDATE_ARGS: &[Arg] = &[
    CATEGORY_ID,
    arg("name", Kind::String, "category-name"),
    arg("description", Kind::String, "category-description"),
    arg("slug", Kind::String, "category-slug"),
    CATEGORY_PARENT,
];
const TAG_CREATE_ARGS: &[Arg] = &[
    arg("name", Kind::String, "tag-name").required(),
    arg("description", Kind::String, "tag-description"),
    arg("slug", Kind::String, "tag-slug"),
];
const TAG_UPDATE_ARGS: &[Arg] = &[
    TAG_ID,
    arg("name", Kind::String, "tag-name"),
    arg("description", Kind::String, "tag-description"),
    arg("slug", Kind::String, "tag-slug"),
];

// ---- the table ---------------------------------------------------------------------

use By::{Id, Slug};
use PostType::{Organizer, Venue};
use Taxonomy::{Category, Tag};

pub static ROUTES: &[Route] = &[
    Route {
        path: "",
        endpoints: &[Endpoint {
            methods: GET,
            op: Op::Index,
            args: &[
                arg("namespace", Kind::String, "index-namespace").default(Default::Namespace),
                arg("context", Kind::String, "index-context")
                    .default(Default::Str("view"))
                    .one_of(&["view", "help"]),
            ],
        }],
    },
    Route {
        path: "/doc",
        endpoints: &[Endpoint {
            methods: GET,
            op: Op::Doc,
            args: &[],
        }],
    },
    Route {
        path: "/events",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::EventList,
                args: EVENT_LIST_ARGS,
            },
            Endpoint {
                methods: POST,
                op: Op::EventCreate,
                args: EVENT_CREATE_ARGS,
            },
        ],
    },
    Route {
        path: "/events/{id}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::EventGet(Id),
                args: &[EVENT_ID, EVENT_PASSWORD],
            },
            Endpoint {
                methods: DELETE,
                op: Op::EventDelete(Id),
                args: &[EVENT_ID, EVENT_PASSWORD, FORCE],
            },
            Endpoint {
                methods: EDIT,
                op: Op::EventUpdate(Id),
                args: EVENT_UPDATE_ARGS,
            },
        ],
    },
    Route {
        path: "/events/by-slug/{slug}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::EventGet(Slug),
                args: &[EVENT_SLUG, EVENT_PASSWORD],
            },
            Endpoint {
                methods: DELETE,
                op: Op::EventDelete(Slug),
                args: &[EVENT_SLUG, EVENT_PASSWORD, FORCE],
            },
            Endpoint {
                methods: EDIT,
                op: Op::EventUpdate(Slug),
                args: EVENT_SLUG_UPDATE_ARGS,
            },
        ],
    },
    Route {
        path: "/venues",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::LinkedList(Venue),
                args: linked_list_args!("venues"),
            },
            Endpoint {
                methods: POST,
                op: Op::LinkedCreate(Venue),
                args: VENUE_CREATE_ARGS,
            },
        ],
    },
    Route {
        path: "/venues/{id}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::LinkedGet(Venue, Id),
                args: &[VENUE_ID, EVENT_PASSWORD],
            },
            Endpoint {
                methods: DELETE,
                op: Op::LinkedDelete(Venue, Id),
                args: &[VENUE_ID, FORCE],
            },
            Endpoint {
                methods: EDIT,
                op: Op::LinkedUpdate(Venue, Id),
                args: VENUE_UPDATE_ARGS,
            },
        ],
    },
    Route {
        path: "/venues/by-slug/{slug}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::LinkedGet(Venue, Slug),
                args: &[VENUE_SLUG, EVENT_PASSWORD],
            },
            Endpoint {
                methods: DELETE,
                op: Op::LinkedDelete(Venue, Slug),
                args: &[VENUE_SLUG, FORCE],
            },
            Endpoint {
                methods: EDIT,
                op: Op::LinkedUpdate(Venue, Slug),
                args: VENUE_SLUG_UPDATE_ARGS,
            },
        ],
    },
    Route {
        path: "/organizers",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::LinkedList(Organizer),
                args: linked_list_args!("organizers"),
            },
            Endpoint {
                methods: POST,
                op: Op::LinkedCreate(Organizer),
                args: ORGANIZER_CREATE_ARGS,
            },
        ],
    },
    Route {
        path: "/organizers/{id}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::LinkedGet(Organizer, Id),
                args: &[ORGANIZER_ID, EVENT_PASSWORD],
            },
            Endpoint {
                methods: DELETE,
                op: Op::LinkedDelete(Organizer, Id),
                args: &[ORGANIZER_ID, FORCE],
            },
            Endpoint {
                methods: EDIT,
                op: Op::LinkedUpdate(Organizer, Id),
                args: ORGANIZER_UPDATE_ARGS,
            },
        ],
    },
    Route {
        path: "/organizers/by-slug/{slug}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::LinkedGet(Organizer, Slug),
                args: &[ORGANIZER_SLUG, EVENT_PASSWORD],
            },
            Endpoint {
                methods: DELETE,
                op: Op::LinkedDelete(Organizer, Slug),
                args: &[ORGANIZER_SLUG, FORCE],
            },
            Endpoint {
                methods: EDIT,
                op: Op::LinkedUpdate(Organizer, Slug),
                args: ORGANIZER_SLUG_UPDATE_ARGS,
            },
        ],
    },
    Route {
        path: "/categories",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::TermList(Category),
                args: term_list_args!("categories", arg("parent", Kind::Integer, "terms-parent")),
            },
            Endpoint {
                methods: POST,
                op: Op::TermCreate(Category),
                args: CATEGORY_CREATE_ARGS,
            },
        ],
    },
    Route {
        path: "/categories/{id}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::TermGet(Category),
                args: &[CATEGORY_ID],
            },
            Endpoint {
                methods: EDIT,
                op: Op::TermUpdate(Category),
                args: CATEGORY_UPDATE_ARGS,
            },
            Endpoint {
                methods: DELETE,
                op: Op::TermDelete(Category),
                args: &[CATEGORY_ID],
            },
        ],
    },
    Route {
        path: "/tags",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::TermList(Tag),
                args: term_list_args!("tags"),
            },
            Endpoint {
                methods: POST,
                op: Op::TermCreate(Tag),
                args: TAG_CREATE_ARGS,
            },
        ],
    },
    Route {
        path: "/tags/{id}",
        endpoints: &[
            Endpoint {
                methods: GET,
                op: Op::TermGet(Tag),
                args: &[TAG_ID],
            },
            Endpoint {
                methods: EDIT,
                op: Op::TermUpdate(Tag),
                args: TAG_UPDATE_ARGS,
            },
            Endpoint {
                methods: DELETE,
                op: Op::TermDelete(Tag),
                args: &[TAG_ID],
            },
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_and_method_is_declared_once() {
        for route in ROUTES {
            let mut seen = Vec::new();
            for ep in route.endpoints {
                for m in ep.methods {
                    assert!(!seen.contains(m), "{} declares {m} twice", route.path);
                    seen.push(m.clone());
                }
                // A by-slug update has the path `slug` and a body `slug` that renames.
                let mut names: Vec<_> = ep.args.iter().map(|a| (a.name, a.location)).collect();
                names.sort_unstable_by_key(|(n, l)| (*n, *l == Location::Path));
                names.dedup();
                assert_eq!(
                    names.len(),
                    ep.args.len(),
                    "{} {:?} repeats an argument",
                    route.path,
                    ep.methods
                );
            }
        }
    }

    #[test]
    fn path_variables_are_declared_as_path_arguments() {
        for route in ROUTES {
            for ep in route.endpoints {
                for var in ["id", "slug"] {
                    let in_path = route.path.contains(&format!("{{{var}}}"));
                    let declared = ep
                        .args
                        .iter()
                        .any(|a| a.name == var && a.location == Location::Path);
                    assert_eq!(in_path, declared, "{} {:?} {var}", route.path, ep.methods);
                }
            }
        }
    }
}
