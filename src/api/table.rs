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
    /// English description; also the key of its translations.
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

const PAGE: Arg = arg("page", Kind::Integer, "The archive page to return").default(Default::Int(1));
const STATUS_FILTER: Arg = arg("status", Kind::Status, "The post status to filter by");
const FORCE: Arg = arg(
    "force",
    Kind::Boolean,
    "Delete permanently instead of moving to the trash",
)
.default(Default::Bool(false));

// ---- events -------------------------------------------------------------------

const EVENT_LIST_ARGS: &[Arg] = &[
    PAGE,
    arg("per_page", Kind::Integer, "The number of events to return on each page").default(Default::PerPage),
    arg("start_date", Kind::DateTime, "Events that start on the specified date").default(Default::Now),
    arg("end_date", Kind::DateTime, "Events that end on the specified date").default(Default::InTwoYears),
    arg("starts_before", Kind::DateTime, "Events that start before the specified date"),
    arg("starts_after", Kind::DateTime, "Events that start after the specified date"),
    arg("ends_before", Kind::DateTime, "Events that end before the specified date"),
    arg("ends_after", Kind::DateTime, "Events that end after the specified date"),
    arg(
        "strict_dates",
        Kind::Boolean,
        "Dates set using the start_date/end_date, starts_*/ends_* are set to start at the specified times. The default behavior is to include the entire days.",
    )
    .default(Default::Bool(false)),
    arg("search", Kind::String, "Events should contain the specified string in the title or description"),
    arg("categories", Kind::List(Item::Integer), "Events should be assigned one of the specified categories slugs or IDs"),
    arg("tags", Kind::List(Item::Integer), "Events should be assigned one of the specified tags slugs or IDs"),
    arg("venue", Kind::List(Item::Integer), "Events should be assigned one of the specified venue IDs"),
    arg("organizer", Kind::List(Item::Integer), "Events should be assigned one of the specified organizer IDs"),
    arg("featured", Kind::Boolean, "Events should be filtered by their featured status"),
    arg("status", Kind::Status, "The event post status"),
    arg("geoloc", Kind::Boolean, "Events should be filtered by whether their venue has geolocation data"),
    arg("geoloc_lat", Kind::Number, "Events should be filtered by their venue latitude location, must also provide geoloc_lng"),
    arg("geoloc_lng", Kind::Number, "Events should be filtered by their venue longitude location, must also provide geoloc_lat"),
    arg("geoloc_radius", Kind::Number, "The radius, in kilometres, of the geolocation filter").default(Default::Int(25)),
    arg("include", Kind::List(Item::Integer), "Include events with one of the post IDs specified in the array of CSV list, date filters will be ignored."),
    arg("post_parent", Kind::Integer, "Events should be filtered by their post_parent being the specified one."),
    arg("ticketed", Kind::Boolean, "Filter events with or without tickets."),
    arg("password", Kind::String, "The password of password-protected events to show in full"),
];

macro_rules! event_write_args {
    ($($lead:expr,)* ; title: $title:expr, start: $start:expr, end: $end:expr) => {
        &[
            $($lead,)*
            arg("author", Kind::Integer, "The event author ID"),
            arg("date", Kind::DateTime, "The event publication date"),
            arg("date_utc", Kind::DateTime, "The event publication date (UTC time zone)"),
            $title,
            arg("description", Kind::String, "The event description"),
            arg("slug", Kind::String, "The event slug"),
            arg("excerpt", Kind::String, "The event excerpt"),
            arg("status", Kind::String, "The event post status").one_of(STATUSES),
            arg("timezone", Kind::String, "The event time zone"),
            arg("all_day", Kind::Boolean, "Whether the event lasts the whole day or not").default(Default::Bool(false)),
            $start,
            $end,
            arg("image", Kind::Any, "The event featured image ID or URL"),
            arg("cost", Kind::Any, "The event cost"),
            arg("website", Kind::Any, "The event website URL").default(Default::Null),
            arg("show_map", Kind::Boolean, "Whether the event should show a map or not"),
            arg("show_map_link", Kind::Boolean, "Whether the event should show a map link or not"),
            arg("hide_from_listings", Kind::Boolean, "Whether events should be hidden in the calendar view or not"),
            arg("sticky", Kind::Boolean, "Whether the event should be sticky in the calendar view or not"),
            arg("featured", Kind::Boolean, "Whether the event should be featured on the site or not"),
            arg("categories", Kind::Linked(Item::Integer), "The event category ID or name").default(Default::Null),
            arg("tags", Kind::Linked(Item::Integer), "The event tag ID or name").default(Default::Null),
            arg("venue", Kind::Linked(Item::Integer), "The event venue IDs or data").default(Default::Null),
            arg("organizer", Kind::Linked(Item::Integer), "The event organizer IDs or data").default(Default::Null),
            arg("tickets", Kind::Any, "The event ticket offers: a list of {name, url, price, currency}"),
            arg("post_parent", Kind::Integer, "The ID of the event this event belongs to"),
        ]
    };
}

const STATUSES: &[&str] = &["publish", "future", "draft", "pending", "private", "trash"];

const EVENT_ID: Arg = arg("id", Kind::Integer, "the event post ID").path();
const EVENT_SLUG: Arg = arg("slug", Kind::String, "the event post name").path();
const EVENT_PASSWORD: Arg = arg("password", Kind::String, "The event password");

const EVENT_CREATE_ARGS: &[Arg] = event_write_args!(
    EVENT_PASSWORD,;
    title: arg("title", Kind::String, "The event title").required(),
    start: arg("start_date", Kind::DateTime, "The event start date and time").required(),
    end: arg("end_date", Kind::DateTime, "The event end date and time").required()
);
const EVENT_UPDATE_ARGS: &[Arg] = event_write_args!(
    EVENT_ID, EVENT_PASSWORD,;
    title: arg("title", Kind::String, "The event title"),
    start: arg("start_date", Kind::DateTime, "The event start date and time"),
    end: arg("end_date", Kind::DateTime, "The event end date and time")
);
const EVENT_SLUG_UPDATE_ARGS: &[Arg] = event_write_args!(
    EVENT_SLUG, EVENT_PASSWORD,;
    title: arg("title", Kind::String, "The event title"),
    start: arg("start_date", Kind::DateTime, "The event start date and time"),
    end: arg("end_date", Kind::DateTime, "The event end date and time")
);

// ---- venues and organizers ----------------------------------------------------------

macro_rules! linked_list_args {
    ($plural:literal) => {
        &[
            PAGE,
            arg(
                "per_page",
                Kind::Integer,
                concat!("The number of ", $plural, " to return on each page"),
            )
            .default(Default::PerPage),
            arg(
                "search",
                Kind::String,
                concat!(
                    "Limit to ",
                    $plural,
                    " containing the specified string in the title, description or custom fields"
                ),
            ),
            arg(
                "event",
                Kind::Integer,
                concat!("Limit to ", $plural, " related to this event"),
            ),
            arg(
                "has_events",
                Kind::Boolean,
                concat!("Limit to ", $plural, " that have events associated to them"),
            ),
            arg(
                "only_with_upcoming",
                Kind::Boolean,
                concat!(
                    "Limit to ",
                    $plural,
                    " that have upcoming events associated to them"
                ),
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
            arg("author", Kind::Integer, "The venue author ID"),
            arg("date", Kind::DateTime, "The venue publication date"),
            arg("date_utc", Kind::DateTime, "The venue publication date (UTC time zone)"),
            $name,
            arg("description", Kind::String, "The venue description").default(Default::Null),
            arg("status", Kind::String, "The venue post status").one_of(STATUSES),
            arg("show_map", Kind::String, "Whether events linked to the venue should show a map or not").default(Default::Null),
            arg("show_map_link", Kind::String, "Whether events linked to the venue should show a map link or not").default(Default::Null),
            arg("address", Kind::String, "The venue address").default(Default::Null),
            arg("city", Kind::String, "The venue city").default(Default::Null),
            arg("country", Kind::String, "The venue country").default(Default::Null),
            arg("province", Kind::String, "The venue province").default(Default::Null),
            arg("state", Kind::String, "The venue state").default(Default::Null),
            arg("zip", Kind::String, "The venue ZIP code").default(Default::Null),
            arg("phone", Kind::String, "The venue phone number").default(Default::Null),
            arg("stateprovince", Kind::String, "The venue state and province").default(Default::Null),
            arg("website", Kind::String, "The venue website URL").default(Default::Null),
            arg("image", Kind::Any, "The venue featured image ID or URL").default(Default::Null),
            arg("geo_lat", Kind::Number, "The venue latitude"),
            arg("geo_lng", Kind::Number, "The venue longitude"),
            arg("excerpt", Kind::String, "The venue excerpt"),
            arg("slug", Kind::String, "The venue slug"),
            arg("password", Kind::String, "A password that protects the venue's details"),
        ]
    };
}

macro_rules! organizer_write_args {
    ($($lead:expr,)* ; name: $name:expr) => {
        &[
            $($lead,)*
            arg("author", Kind::Integer, "The organizer author ID").default(Default::Null),
            arg("date", Kind::DateTime, "The organizer publication date").default(Default::Null),
            arg("date_utc", Kind::DateTime, "The organizer publication date (UTC time zone)").default(Default::Null),
            $name,
            arg("description", Kind::String, "The organizer description").default(Default::Null),
            arg("status", Kind::String, "The organizer post status").one_of(STATUSES).default(Default::Null),
            arg("phone", Kind::String, "The organizer phone number").default(Default::Null),
            arg("website", Kind::String, "The organizer website").default(Default::Null),
            arg("email", Kind::String, "The organizer e-mail address").default(Default::Null),
            arg("image", Kind::Any, "The organizer featured image ID or URL").default(Default::Null),
            arg("excerpt", Kind::String, "The organizer excerpt"),
            arg("slug", Kind::String, "The organizer slug"),
            arg("password", Kind::String, "A password that protects the organizer's details"),
        ]
    };
}

const VENUE_ID: Arg = arg("id", Kind::Integer, "the venue post ID").path();
const VENUE_SLUG: Arg = arg("slug", Kind::String, "the venue post name").path();
const ORGANIZER_ID: Arg = arg("id", Kind::Integer, "the organizer post ID").path();
const ORGANIZER_SLUG: Arg = arg("slug", Kind::String, "the organizer post name").path();

const VENUE_CREATE_ARGS: &[Arg] =
    venue_write_args!(; name: arg("venue", Kind::String, "The venue name").required());
const VENUE_UPDATE_ARGS: &[Arg] =
    venue_write_args!(VENUE_ID,; name: arg("venue", Kind::String, "The venue name"));
const VENUE_SLUG_UPDATE_ARGS: &[Arg] =
    venue_write_args!(VENUE_SLUG,; name: arg("venue", Kind::String, "The venue name"));
const ORGANIZER_CREATE_ARGS: &[Arg] = organizer_write_args!(;
    name: arg("organizer", Kind::String, "The organizer name").required().default(Default::Null));
const ORGANIZER_UPDATE_ARGS: &[Arg] = organizer_write_args!(ORGANIZER_ID,;
    name: arg("organizer", Kind::String, "The organizer name").default(Default::Null));
const ORGANIZER_SLUG_UPDATE_ARGS: &[Arg] = organizer_write_args!(ORGANIZER_SLUG,;
    name: arg("organizer", Kind::String, "The organizer name").default(Default::Null));

// ---- categories and tags -----------------------------------------------------------

const ORDER_VALUES: &[&str] = &["asc", "desc"];
const ORDERBY_VALUES: &[&str] = crate::domain::term::TermOrderBy::NAMES;

macro_rules! term_list_args {
    ($plural:literal $(, $extra:expr)?) => {
        &[
            PAGE,
            arg("per_page", Kind::Integer, concat!("The number of ", $plural, " to return on each page")).default(Default::PerPage),
            arg("search", Kind::String, "Limit results to those matching a string"),
            arg("exclude", Kind::List(Item::Integer), "Ensure result set exclude specific IDs"),
            arg("include", Kind::List(Item::Integer), "Limit result set to specific IDs"),
            arg("order", Kind::String, "Order sort attribute ascending or descending").one_of(ORDER_VALUES),
            arg("orderby", Kind::String, "Sort collection by term attribute").one_of(ORDERBY_VALUES),
            arg("hide_empty", Kind::Boolean, "Whether to hide terms not assigned to any posts").default(Default::Bool(true)),
            $($extra,)?
            arg("post", Kind::Integer, "Limit result set to terms assigned to a specific post"),
            arg("event", Kind::Integer, "Limit result set to terms assigned to a specific event (an alias of the \"post\" parameter)"),
            arg("slug", Kind::String, "Limit result set to terms with a specific slug"),
        ]
    };
}

const CATEGORY_ID: Arg = arg("id", Kind::Integer, "the event category term ID").path();
const TAG_ID: Arg = arg("id", Kind::Integer, "the event tag term ID").path();
const CATEGORY_PARENT: Arg = arg("parent", Kind::Integer, "The event category parent term ID");

const CATEGORY_CREATE_ARGS: &[Arg] = &[
    arg("name", Kind::String, "The event category name").required(),
    arg(
        "description",
        Kind::String,
        "The event category description",
    ),
    arg("slug", Kind::String, "The event category slug"),
    CATEGORY_PARENT,
];
const CATEGORY_UPDATE_ARGS: &[Arg] = &[
    CATEGORY_ID,
    arg("name", Kind::String, "The event category name"),
    arg(
        "description",
        Kind::String,
        "The event category description",
    ),
    arg("slug", Kind::String, "The event category slug"),
    CATEGORY_PARENT,
];
const TAG_CREATE_ARGS: &[Arg] = &[
    arg("name", Kind::String, "The event tag name").required(),
    arg("description", Kind::String, "The event tag description"),
    arg("slug", Kind::String, "The event tag slug"),
];
const TAG_UPDATE_ARGS: &[Arg] = &[
    TAG_ID,
    arg("name", Kind::String, "The event tag name"),
    arg("description", Kind::String, "The event tag description"),
    arg("slug", Kind::String, "The event tag slug"),
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
                arg("namespace", Kind::String, "The namespace to describe")
                    .default(Default::Namespace),
                arg(
                    "context",
                    Kind::String,
                    "Scope under which the request is made; determines fields present in response",
                )
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
                args: term_list_args!(
                    "event categories",
                    arg(
                        "parent",
                        Kind::Integer,
                        "Limit result set to terms assigned to a specific parent"
                    )
                ),
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
                args: term_list_args!("event tags"),
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
