//! The category and tag routes (`/categories…`, `/tags…`) and their arguments:
//! the term list filters and the fields of a term create or update.

use super::{
    Arg, CURSOR, DELETE, Default, EDIT, Endpoint, GET, Item, Kind, MODIFIED_AFTER, Op, PAGE, POST,
    Route, arg,
};
use crate::domain::term::Taxonomy::{Category, Tag};

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
            MODIFIED_AFTER,
            CURSOR,
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

pub(super) const CATEGORIES: Route = Route {
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
};

pub(super) const CATEGORY_BY_ID: Route = Route {
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
};

pub(super) const TAGS: Route = Route {
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
};

pub(super) const TAG_BY_ID: Route = Route {
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
};
