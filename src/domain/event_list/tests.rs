use chrono::TimeZone;

use super::*;

/// 2026-11-22 08:30:00 UTC.
const NOW: i64 = 1_795_336_200;

fn cx(zone: Tz) -> ListContext {
    ListContext {
        now: NOW,
        zone,
        per_page_max: 50,
        sees_unpublished: false,
    }
}

fn args() -> EventListArgs {
    EventListArgs {
        page: 1,
        per_page: 10,
        geoloc_radius: 25.0,
        ..EventListArgs::default()
    }
}

fn read(args: &EventListArgs, cx: &ListContext) -> Result<EventQuery, Vec<String>> {
    let mut p = Problems::default();
    let q = event_query(args, cx, &mut p);
    p.finish::<Vec<Invalid>>()
        .map(|()| q)
        .map_err(|list| list.into_iter().map(|i| i.name).collect())
}

fn at(s: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
        .unwrap()
        .and_utc()
        .timestamp()
}

#[test]
fn the_default_window_is_today_to_two_years_on_in_the_site_zone() {
    let q = read(&args(), &cx(Tz::UTC)).unwrap();
    assert_eq!(q.start_min, Some(at("2026-11-22 00:00:00")));
    assert_eq!(q.end_max, Some(at("2028-11-22 23:59:59")));
    assert_eq!(q.window, WindowClock::Until(at("2026-11-22 08:45:00")));
    let paris = read(&args(), &cx(chrono_tz::Europe::Paris)).unwrap();
    assert_eq!(paris.start_min, Some(at("2026-11-21 23:00:00")));
    assert_eq!(
        paris.echo[..3],
        [
            ("per_page".to_string(), "10".to_string()),
            ("start_date".into(), "2026-11-22 00:00:00".into()),
            ("end_date".into(), "2028-11-22 23:59:59".into()),
        ]
    );
}

#[test]
fn dates_widen_to_whole_days_unless_strict() {
    let mut a = args();
    a.start_date = Some("2018-01-01 15:00".into());
    a.end_date = Some("2018-01-01 18:00".into());
    let q = read(&a, &cx(Tz::UTC)).unwrap();
    assert_eq!(
        (q.start_min, q.end_max),
        (
            Some(at("2018-01-01 00:00:00")),
            Some(at("2018-01-01 23:59:59"))
        )
    );
    assert_eq!(q.window, WindowClock::Fixed);
    a.strict_dates = true;
    let q = read(&a, &cx(Tz::UTC)).unwrap();
    assert_eq!(
        (q.start_min, q.end_max),
        (
            Some(at("2018-01-01 15:00:00")),
            Some(at("2018-01-01 18:00:00"))
        )
    );
}

#[test]
fn relative_bounds_drop_the_default_window_and_include_drops_every_date() {
    let mut a = args();
    a.ends_after = Some("2017-12-31".into());
    let q = read(&a, &cx(Tz::UTC)).unwrap();
    assert_eq!((q.start_min, q.end_max), (None, None));
    assert_eq!(q.ends_after, Some(at("2017-12-31 23:59:59")));
    a.include = Some(vec!["5".into(), "7".into()]);
    let q = read(&a, &cx(Tz::UTC)).unwrap();
    assert_eq!(
        (q.ends_after, q.start_min, q.include.clone()),
        (None, None, vec![5, 7])
    );
    a.start_date = Some("tomorrow".into());
    let q = read(&a, &cx(Tz::UTC)).unwrap();
    assert_eq!(q.window, WindowClock::Fixed, "with include, no date counts");
}

#[test]
fn relative_dates_make_the_window_move_every_second() {
    let mut a = args();
    a.start_date = Some("tomorrow".into());
    assert_eq!(
        read(&a, &cx(Tz::UTC)).unwrap().window,
        WindowClock::EverySecond
    );
    let mut a = args();
    a.strict_dates = true;
    assert_eq!(
        read(&a, &cx(Tz::UTC)).unwrap().window,
        WindowClock::EverySecond
    );
}

#[test]
fn every_invalid_argument_is_reported() {
    let mut a = args();
    a.page = 0;
    a.start_date = Some("nope".into());
    a.search = Some("  ".into());
    a.status = Some(vec!["draft".into()]);
    a.venue = Some(vec!["x".into()]);
    a.include = Some(vec!["-1".into()]);
    a.geoloc_lat = Some(100.0);
    a.geoloc_lng = Some(0.0);
    let names = read(&a, &cx(Tz::UTC)).unwrap_err();
    assert_eq!(
        names,
        [
            "page",
            "include",
            "start_date",
            "search",
            "status",
            "venue",
            "geoloc_lat"
        ]
    );
    let mut a = args();
    a.geoloc_lng = Some(2.0);
    assert_eq!(read(&a, &cx(Tz::UTC)).unwrap_err(), ["geoloc_lat"]);
}

#[test]
fn the_echo_repeats_the_query_in_a_fixed_order() {
    let mut a = args();
    a.start_date = Some("2027-01-01".into());
    a.end_date = Some("2027-01-31".into());
    a.search = Some(" jazz night ".into());
    a.categories = Some(vec!["music".into(), "3".into()]);
    a.featured = Some(true);
    a.geoloc_lat = Some(48.85);
    a.geoloc_lng = Some(2.35);
    let q = read(&a, &cx(Tz::UTC)).unwrap();
    assert_eq!(q.search_words, ["jazz", "night"]);
    assert_eq!(
        q.near,
        Some(Near {
            lat: 48.85,
            lng: 2.35,
            radius: 25.0
        })
    );
    let names: Vec<&str> = q.echo.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "per_page",
            "start_date",
            "end_date",
            "search",
            "status",
            "categories",
            "geoloc_lat",
            "geoloc_lng",
            "geoloc_radius",
            "featured"
        ]
    );
    assert_eq!(q.echo[3].1, "jazz night");
    assert_eq!(q.echo[5].1, "music,3");
}

#[test]
fn the_default_window_moves_only_at_quarter_hours() {
    // Zones with DST shifts of an hour and of half an hour, offsets of :30 and :45,
    // a zone far from UTC, and spans across DST changes, year ends and a 29 February
    // (24 months later has none).
    let cases: [(Tz, (i32, u32, u32)); 8] = [
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
