//! Every filter of the event list, and the venue and organizer lists by their
//! events, checked against the model.

use super::*;

/// A filter of the list, and which events of the model it keeps.
type Keeps = Box<dyn Fn(&Model, &Calendar) -> bool>;

/// The IDs of every event of the calendar, as `include` names them.
fn every_event(cal: &Calendar) -> String {
    let ids: Vec<String> = cal.events.values().map(|(id, _)| id.to_string()).collect();
    ids.join(",")
}

fn filters(cal: &Calendar) -> Vec<(String, Keeps)> {
    let term = |i: usize| cal.terms[i];
    let venue = |i: usize| cal.venues[i];
    let organizer = |i: usize| cal.organizers[i];
    vec![
        (
            format!("categories={}", term(0)),
            Box::new(|m: &Model, c: &Calendar| c.within(m, 0)),
        ),
        (
            format!("categories={}", term(4)),
            Box::new(|m: &Model, c: &Calendar| c.within(m, 4)),
        ),
        (
            format!("categories={},{}", term(0), term(1)),
            Box::new(|m: &Model, c: &Calendar| c.within(m, 0) || c.within(m, 1)),
        ),
        (
            format!("categories={},{}", term(4), term(5)),
            Box::new(|m: &Model, c: &Calendar| c.within(m, 4) || c.within(m, 5)),
        ),
        (
            format!("tags={}", term(2)),
            Box::new(|m: &Model, _: &Calendar| m.terms.contains(&2)),
        ),
        (
            format!("categories={}&tags={},{}", term(0), term(2), term(3)),
            Box::new(|m: &Model, c: &Calendar| {
                c.within(m, 0) && (m.terms.contains(&2) || m.terms.contains(&3))
            }),
        ),
        (
            format!("categories={}&tags={}", term(0), term(2)),
            Box::new(|m: &Model, c: &Calendar| c.within(m, 0) && m.terms.contains(&2)),
        ),
        (
            format!("featured=1&categories={}", term(1)),
            Box::new(|m: &Model, c: &Calendar| m.featured && c.within(m, 1)),
        ),
        (
            format!("featured=1&categories={}", term(0)),
            Box::new(|m: &Model, c: &Calendar| m.featured && c.within(m, 0)),
        ),
        (
            format!("ticketed=1&categories={},{}", term(4), term(5)),
            Box::new(|m: &Model, c: &Calendar| m.ticketed && (c.within(m, 4) || c.within(m, 5))),
        ),
        (
            format!(
                "featured=1&ticketed=1&categories={}&tags={}",
                term(0),
                term(2)
            ),
            Box::new(|m: &Model, c: &Calendar| {
                m.featured && m.ticketed && c.within(m, 0) && m.terms.contains(&2)
            }),
        ),
        (
            format!("venue={}&featured=1&categories={}", venue(1), term(0)),
            Box::new(|m: &Model, c: &Calendar| m.venue == Some(1) && m.featured && c.within(m, 0)),
        ),
        (
            format!("ticketed=1&search=gala&tags={}", term(3)),
            Box::new(|m: &Model, _: &Calendar| m.ticketed && m.terms.contains(&3)),
        ),
        (
            format!("venue={}", venue(0)),
            Box::new(|m: &Model, _: &Calendar| m.venue == Some(0)),
        ),
        (
            format!("venue={}&venue={}", venue(0), venue(1)),
            Box::new(|m: &Model, _: &Calendar| m.venue.is_some()),
        ),
        (
            format!("organizer={}", organizer(0)),
            Box::new(|m: &Model, _: &Calendar| m.organizers.contains(&0)),
        ),
        (
            format!(
                "organizer={}&organizer={}&featured=1",
                organizer(0),
                organizer(1)
            ),
            Box::new(|m: &Model, _: &Calendar| !m.organizers.is_empty() && m.featured),
        ),
        (
            "featured=0".into(),
            Box::new(|m: &Model, _: &Calendar| !m.featured),
        ),
        (
            "ticketed=1".into(),
            Box::new(|m: &Model, _: &Calendar| m.ticketed),
        ),
        (
            format!("featured=0&categories={}", term(0)),
            Box::new(|m: &Model, c: &Calendar| !m.featured && c.within(m, 0)),
        ),
        (
            format!("featured=0&tags={}", term(2)),
            Box::new(|m: &Model, _: &Calendar| !m.featured && m.terms.contains(&2)),
        ),
        (
            format!("ticketed=0&categories={}", term(1)),
            Box::new(|m: &Model, c: &Calendar| !m.ticketed && c.within(m, 1)),
        ),
        (
            "geoloc=1".into(),
            Box::new(|m: &Model, c: &Calendar| m.venue.is_some_and(|v| c.venue_located[v])),
        ),
        (
            "geoloc=0".into(),
            Box::new(|m: &Model, c: &Calendar| !m.venue.is_some_and(|v| c.venue_located[v])),
        ),
        // Events named by ID drive from their own keys, which carry their flags'
        // bits (migration 41): no lookup of the flags' keys.
        (
            format!("include={}&featured=0&geoloc=1", every_event(cal)),
            Box::new(|m: &Model, c: &Calendar| {
                !m.featured && m.venue.is_some_and(|v| c.venue_located[v])
            }),
        ),
        (
            format!("include={}&ticketed=1&geoloc=0", every_event(cal)),
            Box::new(|m: &Model, c: &Calendar| {
                m.ticketed && !m.venue.is_some_and(|v| c.venue_located[v])
            }),
        ),
        // Flags alone, each on most events, read from every event's own key.
        (
            "featured=0&ticketed=0&geoloc=1".into(),
            Box::new(|m: &Model, c: &Calendar| {
                !m.featured && !m.ticketed && m.venue.is_some_and(|v| c.venue_located[v])
            }),
        ),
        (
            "ticketed=0&geoloc=0".into(),
            Box::new(|m: &Model, c: &Calendar| {
                !m.ticketed && !m.venue.is_some_and(|v| c.venue_located[v])
            }),
        ),
        (
            format!("search=gala&categories={}", term(0)),
            Box::new(|m: &Model, c: &Calendar| c.within(m, 0)),
        ),
        (
            format!("search=gala&tags={}", term(3)),
            Box::new(|m: &Model, _: &Calendar| m.terms.contains(&3)),
        ),
    ]
}

/// Venue and organizer lists with `has_events` and `only_with_upcoming`, for a
/// visitor and for the administrator, against the model.
async fn assert_linked_lists_match(app: &TestApp, cal: &Calendar, when: &str) {
    let now = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S").to_string();
    for (path, posts) in [("venues", &cal.venues), ("organizers", &cal.organizers)] {
        let links = |m: &Model, i: usize| {
            if path == "venues" {
                m.venue == Some(i)
            } else {
                m.organizers.contains(&i)
            }
        };
        for admin in [false, true] {
            for query in ["has_events=1", "has_events=0", "only_with_upcoming=1"] {
                let counts = |m: &Model| match query {
                    "only_with_upcoming=1" => {
                        let visible = if admin {
                            m.status != "trash"
                        } else {
                            m.status == "publish"
                        };
                        visible && !m.hidden && m.start >= now
                    }
                    _ => !["draft", "pending", "trash"].contains(&m.status),
                };
                let mut expected: Vec<i64> = posts
                    .iter()
                    .enumerate()
                    .filter(|(_, id)| !cal.gone_posts.contains(id))
                    .filter(|(i, _)| {
                        let any = cal.events.values().any(|(_, m)| links(m, *i) && counts(m));
                        any != (query == "has_events=0")
                    })
                    .map(|(_, id)| *id)
                    .collect();
                expected.sort_unstable();
                let get = |list: String| async move {
                    let r = if admin {
                        app.get_as(&list, &app.admin.auth()).await
                    } else {
                        app.get(&list).await
                    };
                    assert_eq!(r.status, 200, "{when}: {list}: {}", r.text);
                    let mut ids: Vec<i64> = r.body[path]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| p["id"].as_i64().unwrap())
                        .collect();
                    ids.sort_unstable();
                    ids
                };
                let list = format!("{path}?{query}&per_page=50");
                let listed = get(list.clone()).await;
                let who = if admin { "administrator" } else { "visitor" };
                assert_eq!(listed, expected, "{when}: {list} as {who}");
                // With a search too short for the trigram index (PostgreSQL reads
                // the summaries as an array then): those of the list it matches.
                let matching = get(format!("{path}?search=a&per_page=100")).await;
                let both = get(format!("{list}&search=a")).await;
                let want: Vec<i64> = expected
                    .iter()
                    .copied()
                    .filter(|id| matching.contains(id))
                    .collect();
                assert!(!matching.is_empty(), "{when}: {path}?search=a");
                assert_eq!(both, want, "{when}: {list}&search=a as {who}");
            }
        }
    }
}

/// Every filter, for a visitor and for the administrator, against the model.
pub(super) async fn assert_lists_match(app: &TestApp, cal: &Calendar, when: &str) {
    assert_summaries_hold(app, when).await;
    assert_linked_lists_match(app, cal, when).await;

    for (query, keeps) in filters(cal) {
        let names_gone = query.split('&').any(|pair| {
            let (key, values) = pair.split_once('=').unwrap_or_default();
            let gone = match key {
                "categories" | "tags" => &cal.gone_terms,
                "venue" | "organizer" => &cal.gone_posts,
                _ => return false,
            };
            values
                .split(',')
                .any(|v| gone.iter().any(|id| v == id.to_string()))
        });
        if names_gone {
            continue;
        }
        // `include` drops the list's dates (docs/departures.md).
        let dated = !query.starts_with("include=");
        for admin in [false, true] {
            let mut expected: Vec<&str> = cal
                .events
                .iter()
                .filter(|(_, (_, m))| {
                    let visible = if admin {
                        m.status != "trash"
                    } else {
                        m.status == "publish" && !m.protected
                    };
                    let in_window = !dated || m.start.starts_with("2027");
                    visible && !m.hidden && in_window && keeps(m, cal)
                })
                .map(|(title, _)| title.as_str())
                .collect();
            expected.sort_unstable();
            let path = format!("events?{WINDOW}&{query}");
            let r = if admin {
                app.get_as(&path, &app.admin.auth()).await
            } else {
                app.get(&path).await
            };
            assert_eq!(r.status, 200, "{when}: {path}: {}", r.text);
            let mut listed = titles(&r);
            listed.sort_unstable();
            let who = if admin { "administrator" } else { "visitor" };
            assert_eq!(listed, expected, "{when}: {query} as {who}");
            let total: usize = r.header("X-WP-Total").unwrap().parse().unwrap();
            assert_eq!(total, expected.len(), "{when}: total of {query} as {who}");
        }
    }
}
