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
use crate::http::error::ApiError;
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

pub async fn list(ctx: &Ctx, args: &Args) -> Result<Response, ApiError> {
    let (page, per_page) = lists::page_and_size(args, ctx.app.settings.per_page_max)?;
    let tz = ctx.app.settings.timezone;
    let now = DateTime::from_timestamp(ctx.now, 0).unwrap_or_default();
    let strict = args.bool("strict_dates").unwrap_or(false);
    let mut echo: Vec<(String, String)> = vec![("per_page".into(), per_page.to_string())];

    // A date parameter: parsed in the site zone (offsets honoured), widened to its day unless strict.
    let bound = |name: &str, edge: DayEdge| -> Result<Option<i64>, ApiError> {
        let Some(raw) = args.str(name) else {
            return Ok(None);
        };
        let instant = parse_instant(raw, &tz, now).ok_or_else(|| ApiError::invalid_param(name))?;
        Ok(Some(if strict {
            instant.timestamp()
        } else {
            widen(instant, edge, tz)
        }))
    };
    let include = ids(args, "include")?;
    // With `include`, every date filter is ignored (interface §4.2); bad values are still a 400.
    let dated = |b: Option<i64>| b.filter(|_| include.is_empty());
    let starts_before = dated(bound("starts_before", DayEdge::End)?);
    let starts_after = dated(bound("starts_after", DayEdge::End)?);
    let ends_before = dated(bound("ends_before", DayEdge::End)?);
    let ends_after = dated(bound("ends_after", DayEdge::End)?);
    let explicit_start = bound("start_date", DayEdge::Start)?;
    let explicit_end = bound("end_date", DayEdge::End)?;
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

    let search = match args.str("search") {
        Some(s) if s.trim().is_empty() => return Err(ApiError::invalid_param("search")),
        Some(s) => {
            echo.push(("search".into(), s.trim().to_string()));
            search_words(s)
        }
        None => Vec::new(),
    };
    let statuses = statuses_filter(ctx, args)?;
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

    let mut conn = ctx.app.store.pool.read().await?;
    let mut categories = Vec::new();
    let mut tags = Vec::new();
    for (name, taxonomy) in [("categories", Taxonomy::Category), ("tags", Taxonomy::Tag)] {
        let items = args.list(name).unwrap_or_default();
        for key in items {
            let t = terms::find(&mut conn, taxonomy, key)
                .await?
                .ok_or_else(|| ApiError::invalid_param(name))?;
            match taxonomy {
                Taxonomy::Category => categories.push(t.id),
                Taxonomy::Tag => tags.push(t.id),
            }
        }
        if !items.is_empty() {
            echo.push((name.into(), items.join(",")));
        }
    }
    let mut venues = Vec::new();
    let mut organizers = Vec::new();
    for (name, t) in [
        ("venue", PostType::Venue),
        ("organizer", PostType::Organizer),
    ] {
        let keys = args.list(name).unwrap_or_default();
        for key in keys {
            let id = key
                .parse::<i64>()
                .map_err(|_| ApiError::invalid_param(name))?;
            if posts::type_of(&mut conn, id).await? != Some(t) {
                return Err(ApiError::invalid_param(name));
            }
            if t == PostType::Venue {
                venues.push(id)
            } else {
                organizers.push(id)
            }
        }
        if !keys.is_empty() {
            echo.push((name.into(), keys.join(",")));
        }
    }
    let post_parent = match args.int("post_parent") {
        Some(id) => {
            if posts::type_of(&mut conn, id).await? != Some(PostType::Event) {
                return Err(ApiError::invalid_param("post_parent"));
            }
            echo.push(("post_parent".into(), id.to_string()));
            Some(id)
        }
        None => None,
    };
    let near_venues = match (args.num("geoloc_lat"), args.num("geoloc_lng")) {
        (None, None) => None,
        (Some(lat), Some(lng)) => {
            let radius = args.num("geoloc_radius").unwrap_or(25.0);
            if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lng) {
                return Err(ApiError::invalid_param(if (-90.0..=90.0).contains(&lat) {
                    "geoloc_lng"
                } else {
                    "geoloc_lat"
                }));
            }
            if !(radius > 0.0 && radius <= 20_000.0) {
                return Err(ApiError::invalid_param("geoloc_radius"));
            }
            // A box around the point narrows the venues; the exact distance decides.
            let dlat = radius / 111.0;
            let dlng = (radius / (111.0 * lat.to_radians().cos().abs().max(0.01))).min(180.0);
            // A box across the antimeridian would wrap; take every longitude instead.
            let lngs = if lng - dlng < -180.0 || lng + dlng > 180.0 {
                (-180.0, 180.0)
            } else {
                (lng - dlng, lng + dlng)
            };
            let candidates =
                events::venues_in_box(&mut conn, (lat - dlat, lat + dlat), lngs).await?;
            echo.push(("geoloc_lat".into(), lat.to_string()));
            echo.push(("geoloc_lng".into(), lng.to_string()));
            echo.push(("geoloc_radius".into(), radius.to_string()));
            Some(
                candidates
                    .into_iter()
                    .filter(|(_, vlat, vlng)| distance_km(lat, lng, *vlat, *vlng) <= radius)
                    .map(|(id, _, _)| id)
                    .collect(),
            )
        }
        (None, Some(_)) => return Err(ApiError::invalid_param("geoloc_lat")),
        (Some(_), None) => return Err(ApiError::invalid_param("geoloc_lng")),
    };
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
