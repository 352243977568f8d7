//! The events running on a day (`ends_after` its midnight, `starts_before` the
//! next, inside a window of days around it, with `strict_dates`), as a calendar
//! page's days ask for them: their total is counted from the per-day counts less
//! the events that end on the day's first second, so those are the edge this
//! checks, with every kind of event a visitor may not see beside them.

use super::*;

/// Events around 2027-03-10, many of them ending or starting on a midnight.
fn running_events() -> Vec<(&'static str, &'static str, &'static str, Value)> {
    vec![
        (
            "Ends at midnight",
            "2027-03-09 22:00:00",
            "2027-03-10 00:00:00",
            json!({}),
        ),
        (
            "Midnight, no length",
            "2027-03-10 00:00:00",
            "2027-03-10 00:00:00",
            json!({}),
        ),
        (
            "Over midnight",
            "2027-03-09 23:00:00",
            "2027-03-10 01:00:00",
            json!({}),
        ),
        (
            "Starts at midnight",
            "2027-03-10 00:00:00",
            "2027-03-10 02:00:00",
            json!({}),
        ),
        (
            "All day",
            "2027-03-10 00:00:00",
            "2027-03-10 23:59:59",
            json!({"all_day": true}),
        ),
        (
            "Three days to midnight",
            "2027-03-08 10:00:00",
            "2027-03-11 00:00:00",
            json!({}),
        ),
        (
            "A week",
            "2027-03-07 09:00:00",
            "2027-03-12 12:00:00",
            json!({}),
        ),
        (
            "Hidden, ends at midnight",
            "2027-03-09 20:00:00",
            "2027-03-10 00:00:00",
            json!({"hide_from_listings": true}),
        ),
        (
            "Draft, ends at midnight",
            "2027-03-09 20:00:00",
            "2027-03-10 00:00:00",
            json!({"status": "draft"}),
        ),
        (
            "Protected, ends at midnight",
            "2027-03-10 21:00:00",
            "2027-03-11 00:00:00",
            json!({"password": "s3cret"}),
        ),
        (
            "Due, ends at midnight",
            "2027-03-11 22:00:00",
            "2027-03-12 00:00:00",
            json!({"status": "future"}),
        ),
        (
            "Private, over midnight",
            "2027-03-11 23:00:00",
            "2027-03-12 01:00:00",
            json!({"status": "private"}),
        ),
    ]
}

fn utc(t: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S")
        .unwrap()
        .and_utc()
        .timestamp()
}

/// The bounds a calendar page gives a day: its window of days around it, and the
/// events that start before the next midnight and end after this one; and the same
/// with `ends_after` at noon, which the per-day counts do not serve, or with one of
/// the two bounds alone. A bound left out is a wide one in the posts' count.
fn day_queries(day: chrono::NaiveDate) -> Vec<(String, [String; 4])> {
    let at = |d: chrono::NaiveDate, time: &str| format!("{d} {time}");
    let (since, until) = (day - chrono::Days::new(4), day + chrono::Days::new(4));
    let next = Some(at(day.succ_opt().unwrap(), "00:00:00"));
    let (midnight, noon) = (Some(at(day, "00:00:00")), Some(at(day, "12:00:00")));
    [
        (next.clone(), midnight.clone()),
        (next.clone(), noon),
        (None, midnight),
        (next, None),
    ]
    .into_iter()
    .map(|(before, after)| {
        let mut path = format!(
            "events?start_date={}&end_date={}&strict_dates=true&per_page=50",
            at(since, "00:00:00"),
            at(until, "23:59:59"),
        );
        for (name, bound) in [("starts_before", &before), ("ends_after", &after)] {
            if let Some(t) = bound {
                path += &format!("&{name}={t}");
            }
        }
        let bounds = [
            at(since, "00:00:00"),
            at(until, "23:59:59"),
            before.unwrap_or_else(|| "2100-01-01 00:00:00".into()),
            after.unwrap_or_else(|| "1900-01-01 00:00:00".into()),
        ];
        (path.replace(' ', "%20"), bounds)
    })
    .collect()
}

/// How many events a visitor sees running in the bounds, from the posts themselves.
async fn visible_running(app: &TestApp, b: &[String; 4], category: Option<i64>) -> usize {
    let dates = format!(
        "p.start_utc >= {} AND p.end_utc <= {} AND p.start_utc < {} AND p.end_utc > {}",
        utc(&b[0]),
        utc(&b[1]),
        utc(&b[2]),
        utc(&b[3]),
    );
    visible_events(app, &dates, category).await
}

/// Each day's lists, as a visitor and as the administrator, alone and in the
/// category: the total is what the list shows, and a visitor's list is what the
/// posts say runs.
async fn assert_running_totals(app: &TestApp, category: i64, when: &str) {
    let admin = app.admin.auth();
    let first = chrono::NaiveDate::from_ymd_opt(2027, 3, 8).unwrap();
    for day in first.iter_days().take(6) {
        for (path, bounds) in day_queries(day) {
            for (filter, auth) in [
                (String::new(), &Auth::None),
                (format!("&categories={category}"), &Auth::None),
                (String::new(), &admin),
                (format!("&categories={category}"), &admin),
            ] {
                let r = app.get_as(&(path.clone() + &filter), auth).await;
                r.assert(200);
                let listed = titles(&r);
                if matches!(auth, Auth::None) {
                    let in_category = (!filter.is_empty()).then_some(category);
                    let expected = visible_running(app, &bounds, in_category).await;
                    assert_eq!(listed.len(), expected, "{when}: {path}{filter}: {listed:?}");
                }
                let total: usize = r.header("X-WP-Total").unwrap().parse().unwrap();
                assert_eq!(
                    total,
                    listed.len(),
                    "{when}: {path}{filter} as {auth:?}: {listed:?}"
                );
            }
        }
    }
}

both!(
    a_days_running_events_are_counted_as_listed,
    |app| async move {
        let category = app.post("categories", json!({"name": "Late"})).await.id();
        let mut ids = Vec::new();
        for (i, (title, start, end, extra)) in running_events().into_iter().enumerate() {
            let body = with(event(title, start, end), extra);
            let body = if i % 2 == 0 {
                with(body, json!({"categories": [category]}))
            } else {
                body
            };
            ids.push(app.event(body).await);
        }
        // The 10th lists what runs after its midnight, not what ends on it.
        let (path, _) = &day_queries(chrono::NaiveDate::from_ymd_opt(2027, 3, 10).unwrap())[0];
        let mut listed = titles(&app.get(path).await);
        listed.sort();
        assert_eq!(
            listed,
            [
                "A week",
                "All day",
                "Over midnight",
                "Protected, ends at midnight",
                "Starts at midnight",
                "Three days to midnight"
            ]
        );
        assert_running_totals(&app, category, "as created").await;

        // Ends moved onto a midnight and off one, and an event made visible.
        let edits = [
            (ids[2], json!({"end_date": "2027-03-10 00:00:00"})),
            (ids[0], json!({"end_date": "2027-03-10 00:30:00"})),
            (ids[5], json!({"end_date": "2027-03-10 00:00:00"})),
            (ids[7], json!({"hide_from_listings": false})),
            (ids[8], json!({"status": "publish"})),
        ];
        for (id, body) in edits {
            app.post(&format!("events/{id}"), body).await.assert(200);
        }
        assert_running_totals(&app, category, "after updates").await;
        app.delete(&format!("events/{}?force=true", ids[7]))
            .await
            .assert(200);
        assert_running_totals(&app, category, "after a deletion").await;
    }
);
