//! The venue and organizer routes (`/venues…`, `/organizers…`) and their
//! arguments: the two linked post types share a list shape and differ in their
//! write fields.

use super::By::{Id, Slug};
use super::events::EVENT_PASSWORD;
use super::{
    Arg, CURSOR, DELETE, Default, EDIT, Endpoint, FORCE, GET, Kind, MODIFIED_AFTER, Op, PAGE, POST,
    Route, STATUS_FILTER, STATUSES, arg,
};
use crate::domain::post::PostType::{Organizer, Venue};

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
            MODIFIED_AFTER,
            CURSOR,
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

pub(super) const VENUES: Route = Route {
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
};

pub(super) const VENUE_BY_ID: Route = Route {
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
};

pub(super) const VENUE_BY_SLUG: Route = Route {
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
};

pub(super) const ORGANIZERS: Route = Route {
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
};

pub(super) const ORGANIZER_BY_ID: Route = Route {
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
};

pub(super) const ORGANIZER_BY_SLUG: Route = Route {
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
};
