//! The event routes (`/events`, `/events/{id}`, `/events/by-slug/{slug}`) and
//! their arguments: the list filters and the fields of a create or update.

use super::By::{Id, Slug};
use super::{
    Arg, CURSOR, DELETE, Default, EDIT, Endpoint, FORCE, GET, Item, Kind, MODIFIED_AFTER, Op, PAGE,
    POST, Route, STATUSES, arg,
};

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
    MODIFIED_AFTER,
    CURSOR,
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

const EVENT_ID: Arg = arg("id", Kind::Integer, "event-id").path();
const EVENT_SLUG: Arg = arg("slug", Kind::String, "event-path-slug").path();
/// Also what the single venue and organizer reads declare.
pub(super) const EVENT_PASSWORD: Arg = arg("password", Kind::String, "event-password");

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

pub(super) const EVENTS: Route = Route {
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
};

pub(super) const EVENT_BY_ID: Route = Route {
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
};

pub(super) const EVENT_BY_SLUG: Route = Route {
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
};
