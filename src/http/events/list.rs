//! `GET /events`: the list query of DESIGN.md §10.

use crate::api::i18n::Msg;
use chrono::{DateTime, NaiveTime, Utc};

use super::view::EventView;
use super::{reveal, view_context};
use crate::api::args::Args;
use crate::domain::dates::{format_in, parse_absolute, parse_instant};
use crate::domain::event::{EventQuery, distance_km, search_words};
use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;
use crate::http::cache::Freshness;
use crate::http::dispatch::Ctx;
use crate::http::error::{ApiError, Problems};
use crate::http::linked::statuses_filter;
use crate::http::lists::{self, Layout, Paging};
use crate::store::{events, posts, terms};
use axum::response::Response;

/// The window a list shows when `start_date` or `end_date` is not given: from
/// the start of today to the end of the same day 24 months on, in the site zone
/// (or from this very second to 24 months on, when strict).
fn default_window(now: DateTime<Utc>, tz: chrono_tz::Tz, strict: bool) -> (i64, i64) {
    let later = now
        .checked_add_months(chrono::Months::new(24))
        .unwrap_or(now);
    if strict {
        (now.timestamp(), later.timestamp())
    } else {
        (
            widen(now, DayEdge::Start, tz),
            widen(later, DayEdge::End, tz),
        )
    }
}

/// The next UTC quarter-hour after `now`. A non-strict default window moves only at
/// quarter-hours: at local midnights (every zone's offset is a whole number of
/// quarter-hours) and at UTC midnights (where adding 24 months may clamp to a
/// month's end). `the_default_window_moves_only_at_quarter_hours` checks it.
fn next_quarter_hour(now: i64) -> i64 {
    (now.div_euclid(QUARTER_HOUR) + 1) * QUARTER_HOUR
}

const QUARTER_HOUR: i64 = 15 * 60;

/// The arguments that are dates.
const DATE_ARGS: [&str; 6] = [
    "start_date",
    "end_date",
    "starts_before",
    "starts_after",
    "ends_before",
    "ends_after",
];

/// Which end of its day a widened bound moves to.
#[derive(Clone, Copy, PartialEq)]
enum DayEdge {
    Start,
    End,
}

/// The date bounds of a list request, as parsed and widened, before defaults.
#[derive(Default)]
struct Bounds {
    starts_before: Option<i64>,
    starts_after: Option<i64>,
    ends_before: Option<i64>,
    ends_after: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
}

/// Every date parameter: parsed in the site zone (offsets honoured), widened to
/// its day unless strict; each invalid one is reported.
fn read_bounds(ctx: &Ctx, args: &Args, strict: bool) -> Result<Bounds, ApiError> {
    let tz = ctx.app.settings.timezone;
    let now = DateTime::from_timestamp(ctx.now, 0).unwrap_or_default();
    let mut p = Problems::default();
    let mut bound = |name: &str, edge: DayEdge| -> Result<Option<i64>, ApiError> {
        let Some(raw) = args.str(name) else {
            return Ok(None);
        };
        let instant = parse_instant(raw, &tz, now).map(|instant| {
            if strict {
                instant.timestamp()
            } else {
                widen(instant, edge, tz)
            }
        });
        p.check(instant.ok_or_else(|| ApiError::invalid_param(name)))
    };
    let bounds = Bounds {
        starts_before: bound("starts_before", DayEdge::End)?,
        starts_after: bound("starts_after", DayEdge::End)?,
        ends_before: bound("ends_before", DayEdge::End)?,
        ends_after: bound("ends_after", DayEdge::End)?,
        start: bound("start_date", DayEdge::Start)?,
        end: bound("end_date", DayEdge::End)?,
    };
    p.finish()?;
    Ok(bounds)
}

/// The IDs of the terms a list is filtered by, each named by ID or slug.
async fn term_filter(ctx: &Ctx, args: &Args, taxonomy: Taxonomy) -> Result<Vec<i64>, ApiError> {
    let name = taxonomy.collection();
    let keys = args.list(name).unwrap_or_default();
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let mut conn = ctx.app.store.pool.read().await?;
    let mut ids = Vec::with_capacity(keys.len());
    for key in keys {
        let t = terms::find(&mut conn, taxonomy, key)
            .await?
            .ok_or_else(|| ApiError::invalid_param(name))?;
        ids.push(t.id);
    }
    Ok(ids)
}

/// The IDs a `venue`, `organizer` or `post_parent` filter names, each a post of
/// type `t` that the caller may read: a hidden one answers as an unknown ID does.
async fn post_filter(
    ctx: &Ctx,
    name: &str,
    keys: &[String],
    t: PostType,
) -> Result<Vec<i64>, ApiError> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let ids = keys
        .iter()
        .map(|k| k.parse::<i64>().map_err(|_| ApiError::invalid_param(name)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut conn = ctx.app.store.pool.read().await?;
    let found = posts::get_many(&mut conn, &ids).await?;
    let readable = |id: &i64| {
        found
            .iter()
            .any(|p| p.id == *id && p.post_type == Some(t) && ctx.caller.can_read(p, ctx.now))
    };
    if ids.iter().all(readable) {
        Ok(ids)
    } else {
        Err(ApiError::invalid_param(name))
    }
}

/// The venues within `geoloc_radius` km of `geoloc_lat`/`geoloc_lng`, if given.
async fn near_venues(ctx: &Ctx, args: &Args) -> Result<Option<Vec<i64>>, ApiError> {
    let (lat, lng) = match (args.num("geoloc_lat"), args.num("geoloc_lng")) {
        (None, None) => return Ok(None),
        (Some(lat), Some(lng)) => (lat, lng),
        (None, Some(_)) => return Err(ApiError::invalid_param("geoloc_lat")),
        (Some(_), None) => return Err(ApiError::invalid_param("geoloc_lng")),
    };
    let radius = args.num("geoloc_radius").unwrap_or(25.0);
    let mut p = Problems::default();
    if !(-90.0..=90.0).contains(&lat) {
        p.check::<()>(Err(ApiError::invalid_param("geoloc_lat")))?;
    }
    if !(-180.0..=180.0).contains(&lng) {
        p.check::<()>(Err(ApiError::invalid_param("geoloc_lng")))?;
    }
    if !(radius > 0.0 && radius <= 20_000.0) {
        p.check::<()>(Err(ApiError::invalid_param("geoloc_radius")))?;
    }
    p.finish()?;
    // A box around the point narrows the venues; the exact distance decides.
    let dlat = radius / 111.0;
    let dlng = (radius / (111.0 * lat.to_radians().cos().abs().max(0.01))).min(180.0);
    // A box across the antimeridian would wrap; take every longitude instead.
    let lngs = if lng - dlng < -180.0 || lng + dlng > 180.0 {
        (-180.0, 180.0)
    } else {
        (lng - dlng, lng + dlng)
    };
    let mut conn = ctx.app.store.pool.read().await?;
    let candidates = events::venues_in_box(&mut conn, (lat - dlat, lat + dlat), lngs).await?;
    Ok(Some(
        candidates
            .into_iter()
            .filter(|(_, vlat, vlng)| distance_km(lat, lng, *vlat, *vlng) <= radius)
            .map(|(id, _, _)| id)
            .collect(),
    ))
}

/// The filters of a list request that name other things (terms, posts, places),
/// each checked, and every invalid one reported.
struct Filters {
    categories: Vec<i64>,
    tags: Vec<i64>,
    venues: Vec<i64>,
    organizers: Vec<i64>,
    post_parent: Option<i64>,
    near_venues: Option<Vec<i64>>,
}

async fn read_filters(ctx: &Ctx, args: &Args, p: &mut Problems) -> Result<Filters, ApiError> {
    let list = |name| args.list(name).unwrap_or_default();
    let parent: Vec<String> = args
        .int("post_parent")
        .map(|id| id.to_string())
        .into_iter()
        .collect();
    Ok(Filters {
        categories: p
            .check(term_filter(ctx, args, Taxonomy::Category).await)?
            .unwrap_or_default(),
        tags: p
            .check(term_filter(ctx, args, Taxonomy::Tag).await)?
            .unwrap_or_default(),
        venues: p
            .check(post_filter(ctx, "venue", list("venue"), PostType::Venue).await)?
            .unwrap_or_default(),
        organizers: p
            .check(post_filter(ctx, "organizer", list("organizer"), PostType::Organizer).await)?
            .unwrap_or_default(),
        post_parent: p
            .check(post_filter(ctx, "post_parent", &parent, PostType::Event).await)?
            .and_then(|ids| ids.first().copied()),
        near_venues: p.check(near_venues(ctx, args).await)?.flatten(),
    })
}

pub async fn list(ctx: &Ctx, args: &Args) -> Result<Response, ApiError> {
    let tz = ctx.app.settings.timezone;
    let now = DateTime::from_timestamp(ctx.now, 0).unwrap_or_default();
    let strict = args.bool("strict_dates").unwrap_or(false);
    let mut p = Problems::new(args);
    let paging = p.check(lists::page_and_size(args, ctx.app.settings.per_page_max))?;
    let include = p.check(ids(args, "include"))?.unwrap_or_default();
    let bounds = p.check(read_bounds(ctx, args, strict))?.unwrap_or_default();
    let search = match args.str("search") {
        Some(s) if s.trim().is_empty() => p.check(Err(ApiError::invalid_param("search")))?,
        other => other.map(str::trim),
    };
    let statuses = p.check(statuses_filter(ctx, args))?.unwrap_or_default();
    let filters = read_filters(ctx, args, &mut p).await?;
    p.finish()?;
    let Some((page, per_page)) = paging else {
        return Err(ApiError::Internal("a checked argument has no value".into()));
    };
    let mut echo: Vec<(String, String)> = vec![("per_page".into(), per_page.to_string())];
    // With `include`, every date filter is ignored (interface §4.2); bad values are still a 400.
    let dated = |b: Option<i64>| b.filter(|_| include.is_empty());
    let starts_before = dated(bounds.starts_before);
    let starts_after = dated(bounds.starts_after);
    let ends_before = dated(bounds.ends_before);
    let ends_after = dated(bounds.ends_after);
    let (explicit_start, explicit_end) = (bounds.start, bounds.end);
    let relative = [starts_before, starts_after, ends_before, ends_after]
        .iter()
        .any(Option::is_some);
    // The defaults apply only when no relative bound is given.
    let (start_min, end_max) = if !include.is_empty() {
        (None, None)
    } else if relative {
        (explicit_start, explicit_end)
    } else {
        let (default_start, default_end) = default_window(now, tz, strict);
        (
            Some(explicit_start.unwrap_or(default_start)),
            Some(explicit_end.unwrap_or(default_end)),
        )
    };
    // How the window depends on the clock: not at all, through a default bound (which
    // moves at quarter-hours, or every second when strict), or through a relative date.
    let defaulted =
        include.is_empty() && !relative && (explicit_start.is_none() || explicit_end.is_none());
    let dates_read_the_clock = DATE_ARGS
        .iter()
        .filter_map(|name| args.str(name))
        .any(|raw| parse_absolute(raw, &tz).is_none());
    // `None`: it may move any second.
    let window = match (defaulted, strict) {
        _ if dates_read_the_clock => None,
        (false, _) => Some(Freshness::UntilWrite),
        (true, false) => Some(Freshness::Until(next_quarter_hour(ctx.now))),
        (true, true) => None,
    };
    for (name, v) in [("start_date", start_min), ("end_date", end_max)] {
        if let Some(ts) = v {
            echo.push((name.into(), format_in(ts, &tz)));
        }
    }
    for (name, v) in [
        ("starts_before", starts_before),
        ("starts_after", starts_after),
        ("ends_before", ends_before),
        ("ends_after", ends_after),
    ] {
        if let Some(ts) = v {
            echo.push((name.into(), format_in(ts, &tz)));
        }
    }
    if strict {
        echo.push(("strict_dates".into(), "1".into()));
    }
    let search = match search {
        Some(s) => {
            echo.push(("search".into(), s.to_string()));
            search_words(s)
        }
        None => Vec::new(),
    };
    if !statuses.is_empty() {
        echo.push((
            "status".into(),
            statuses
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ));
    } else if !ctx.caller.can_create_posts() {
        echo.push(("status".into(), "publish".into()));
    }
    for name in ["categories", "tags", "venue", "organizer"] {
        if let Some(items) = args.list(name).filter(|i| !i.is_empty()) {
            echo.push((name.into(), items.join(",")));
        }
    }
    let Filters {
        categories,
        tags,
        venues,
        organizers,
        post_parent,
        near_venues,
    } = filters;
    if let Some(id) = post_parent {
        echo.push(("post_parent".into(), id.to_string()));
    }
    if near_venues.is_some() {
        for name in ["geoloc_lat", "geoloc_lng", "geoloc_radius"] {
            let value = args.num(name).unwrap_or(25.0);
            echo.push((name.into(), value.to_string()));
        }
    }
    for (name, v) in [
        ("featured", args.bool("featured")),
        ("geoloc", args.bool("geoloc")),
        ("ticketed", args.bool("ticketed")),
    ] {
        if let Some(b) = v {
            echo.push((name.into(), if b { "1" } else { "0" }.into()));
        }
    }
    if !include.is_empty() {
        echo.push((
            "include".into(),
            include
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ));
    }
    let mut conn = ctx.app.store.pool.read().await?;

    let query = EventQuery {
        page,
        per_page,
        start_min,
        end_max,
        starts_before,
        starts_after,
        ends_before,
        ends_after,
        search_words: search,
        categories,
        tags,
        venues,
        organizers,
        featured: args.bool("featured"),
        statuses,
        visibility: ctx.caller.visibility(),
        geoloc: args.bool("geoloc"),
        near_venues,
        include,
        post_parent,
        ticketed: args.bool("ticketed"),
        now_utc: ctx.now,
    };
    let (items, total) = events::list(&mut conn, &query).await?;
    if items.is_empty() && page > 1 {
        return Err(ApiError::coded(
            404,
            "event-archive-page-not-found",
            Msg::EventArchivePageNotFound,
        ));
    }
    let links = events::load_links(&mut conn, &items).await?;
    // Scheduled posts going live change the answer by the clock too.
    let freshness = window.and_then(|window| {
        let go_live = ctx.until_next_go_live()?;
        Some(Freshness::until_earliest(
            [window.changes_at(), go_live.changes_at()]
                .into_iter()
                .flatten(),
        ))
    });
    drop(conn);
    let cx = view_context(ctx);
    let password = args.str("password");
    let empty = Default::default();
    let views: Vec<EventView<'_>> = items
        .iter()
        .map(|e| {
            let l = links.get(&e.post.id).unwrap_or(&empty);
            EventView::new(e, l, &cx, reveal(ctx, e, password), false)
        })
        .collect();
    let base = format!("{}/", ctx.urls.collection("events"));
    let paging = Paging::new(&base, page, per_page, total, &echo, true);
    let mut resp = lists::respond("events", &views, &paging, Layout::Posts)?;
    if let Some(freshness) = freshness {
        resp.extensions_mut().insert(freshness);
    }
    Ok(resp)
}

/// Moves an instant to the first or last second of its day in the site zone.
fn widen(instant: DateTime<Utc>, edge: DayEdge, tz: chrono_tz::Tz) -> i64 {
    let day = instant.with_timezone(&tz).date_naive();
    let time = match edge {
        DayEdge::Start => NaiveTime::MIN,
        DayEdge::End => NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN),
    };
    crate::domain::dates::resolve_local(&tz, day.and_time(time))
        .map_or(instant.timestamp(), |d| d.timestamp())
}

/// Positive integer IDs of a list argument.
fn ids(args: &Args, name: &str) -> Result<Vec<i64>, ApiError> {
    args.list(name)
        .unwrap_or_default()
        .iter()
        .map(|s| {
            s.parse::<i64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| ApiError::invalid_param(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_default_window_moves_only_at_quarter_hours() {
        // Zones with DST shifts of an hour and of half an hour, offsets of :30 and :45,
        // a zone far from UTC, and spans across DST changes, year ends and a 29 February
        // (24 months later has none).
        let cases: [(chrono_tz::Tz, (i32, u32, u32)); 8] = [
            (chrono_tz::America::New_York, (2027, 3, 13)),
            (chrono_tz::America::New_York, (2026, 10, 31)),
            (chrono_tz::Europe::Paris, (2027, 3, 27)),
            (chrono_tz::Australia::Lord_Howe, (2027, 4, 3)),
            (chrono_tz::Asia::Kathmandu, (2026, 12, 31)),
            (chrono_tz::Pacific::Chatham, (2027, 9, 25)),
            (chrono_tz::Asia::Kolkata, (2028, 2, 28)),
            (chrono_tz::Pacific::Kiritimati, (2028, 2, 28)),
        ];
        let at = |t: i64, tz| default_window(DateTime::from_timestamp(t, 0).unwrap(), tz, false);
        for (tz, (y, m, d)) in cases {
            let from = Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap().timestamp();
            let mut moves = 0;
            for t in (from..from + 3 * 86_400).step_by(60) {
                let quarter = t - t.rem_euclid(QUARTER_HOUR);
                assert_eq!(next_quarter_hour(t), quarter + QUARTER_HOUR);
                assert_eq!(at(t, tz), at(quarter, tz), "{tz} at {t}");
                if at(t, tz) != at(t - 60, tz) {
                    moves += 1;
                }
            }
            assert!(
                moves >= 2,
                "{tz}: the window moved {moves} times in three days"
            );
        }
    }
}
