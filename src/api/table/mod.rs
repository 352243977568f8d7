//! The route and argument table: the single source of truth for routing,
//! argument validation, the namespace index and `/doc`.
//!
//! This file holds the table's vocabulary (arguments, endpoints, routes), the
//! arguments several resources share, and [`ROUTES`] itself; each resource's
//! arguments and routes live in its own submodule: `events.rs`, `linked.rs`
//! (venues and organizers) and `terms.rs` (categories and tags).

mod events;
mod linked;
mod terms;

mod names;
pub use names::{operation_name, summary_key};

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

impl Endpoint {
    /// The parameters of the endpoint's typed argument struct (`domain::args`),
    /// which must be exactly the ones it declares.
    pub fn typed_names(&self) -> &'static [&'static str] {
        use crate::domain::args::*;
        match self.op {
            Op::Index => IndexArgs::NAMES,
            Op::Doc | Op::TermGet(_) | Op::TermDelete(_) => NoArgs::NAMES,
            Op::EventList => EventListArgs::NAMES,
            Op::EventCreate | Op::EventUpdate(_) => EventWriteArgs::NAMES,
            Op::EventGet(_) | Op::LinkedGet(..) => PostReadArgs::NAMES,
            Op::EventDelete(_) => EventDeleteArgs::NAMES,
            Op::LinkedList(_) => LinkedListArgs::NAMES,
            Op::LinkedCreate(PostType::Venue) | Op::LinkedUpdate(PostType::Venue, _) => {
                VenueWriteArgs::NAMES
            }
            Op::LinkedCreate(_) | Op::LinkedUpdate(..) => OrganizerWriteArgs::NAMES,
            Op::LinkedDelete(..) => LinkedDeleteArgs::NAMES,
            Op::TermList(Taxonomy::Category) => CategoryListArgs::NAMES,
            Op::TermList(Taxonomy::Tag) => TagListArgs::NAMES,
            Op::TermCreate(Taxonomy::Category) | Op::TermUpdate(Taxonomy::Category) => {
                CategoryWriteArgs::NAMES
            }
            Op::TermCreate(Taxonomy::Tag) | Op::TermUpdate(Taxonomy::Tag) => TagWriteArgs::NAMES,
        }
    }

    /// True when `name` is an argument that takes several values.
    pub fn takes_list(&self, name: &str) -> bool {
        self.args.iter().any(|a| {
            a.name == name
                && a.location == Location::Param
                && matches!(a.kind, Kind::List(_) | Kind::Linked(_) | Kind::Status)
        })
    }
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
/// The Events Calendar's own namespace, which `--tribe-namespace` serves too, so that
/// clients written for a WordPress site only change their host.
pub const REFERENCE_NAMESPACE: &str = "tribe/events/v1";

// ---- shared arguments -------------------------------------------------------

const PAGE: Arg = arg("page", Kind::Integer, "list-page").default(Default::Int(1));
const STATUS_FILTER: Arg = arg("status", Kind::Status, "list-status");
/// Incremental sync on every list (`domain::sync`).
const MODIFIED_AFTER: Arg = arg("modified_after", Kind::DateTime, "list-modified-after");
const CURSOR: Arg = arg("cursor", Kind::String, "list-cursor");
const FORCE: Arg = arg("force", Kind::Boolean, "delete-force").default(Default::Bool(false));

/// The statuses a post write may set (events, venues, organizers).
const STATUSES: &[&str] = &["publish", "future", "draft", "pending", "private", "trash"];

// ---- the table ---------------------------------------------------------------------

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
    events::EVENTS,
    events::EVENT_BY_ID,
    events::EVENT_BY_SLUG,
    linked::VENUES,
    linked::VENUE_BY_ID,
    linked::VENUE_BY_SLUG,
    linked::ORGANIZERS,
    linked::ORGANIZER_BY_ID,
    linked::ORGANIZER_BY_SLUG,
    terms::CATEGORIES,
    terms::CATEGORY_BY_ID,
    terms::TAGS,
    terms::TAG_BY_ID,
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
    fn every_endpoint_declares_exactly_the_fields_of_its_typed_arguments() {
        for route in ROUTES {
            for ep in route.endpoints {
                let mut declared: Vec<&str> = ep
                    .args
                    .iter()
                    .filter(|a| a.location == Location::Param)
                    .map(|a| a.name)
                    .collect();
                let mut typed = ep.typed_names().to_vec();
                declared.sort_unstable();
                typed.sort_unstable();
                assert_eq!(declared, typed, "{} {:?}", route.path, ep.methods);
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
