//! A festival's word: on most of a window's first events, on few after. Its first
//! matches are counted by a walk on from the probe as far as they run, and the rest
//! of the window is not taken for as dense; what a visitor may not see among them
//! is neither counted nor listed.

use super::*;

/// The festival's first and second days (March 1 and 2, 2027), and the window
/// from each: fillers on every day, and the word after the festival on a few.
const FIRST_DAY: u32 = 59;
const FESTIVAL_EACH_DAY: u32 = 25;
const LATER: [u32; 3] = [95, 105, 115];
const WINDOW_END: &str = "2027-04-30";

/// The festival's events in list order: its first day's, its second's, then the later ones.
async fn festival(app: &TestApp) -> Vec<i64> {
    for n in 0..150 {
        for hour in [8, 9] {
            create(app, &format!("Filler {n} {hour}"), n, hour, json!({})).await;
        }
    }
    let mut carnival = Vec::new();
    for n in [FIRST_DAY, FIRST_DAY + 1] {
        for k in 0..FESTIVAL_EACH_DAY {
            let hour = 10 + k % 12;
            let title = format!("Carnival parade {n} {k}");
            carnival.push((n, hour, create(app, &title, n, hour, json!({})).await));
        }
    }
    // What a visitor may not see, among the festival's events.
    for n in [FIRST_DAY, FIRST_DAY + 1] {
        unseen_carnival(app, n, 15).await;
    }
    for n in LATER {
        let title = format!("Carnival encore {n}");
        carnival.push((n, 20, create(app, &title, n, 20, json!({})).await));
    }
    // Past the search queue's age, one more write indexes every event queued so
    // far (SQLite): a count that is not walked reads the index.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    create(app, "Indexing trigger", 340, 10, json!({})).await;
    carnival.sort_unstable();
    carnival.into_iter().map(|(_, _, id)| id).collect()
}

both_with!(
    a_festivals_word_is_counted_where_it_runs_and_exactly_where_it_ends,
    // A probe of 21 events, all on the festival's first day: a walk of twice the
    // events its rate needs for 42 matches finds them in the festival's first
    // window; from its second day the festival ends within that walk, and the
    // window's total, fewer than the limit, is counted whole.
    Settings {
        search_count_limit: 42,
        ..settings()
    },
    |app| async move {
        let carnival = festival(&app).await;
        let whole = format!("start_date={}&end_date={WINDOW_END}", date(FIRST_DAY));
        let r = app.get(&format!("events?{whole}&search=carnival")).await;
        r.assert(200);
        assert_eq!(r.body["total"], 42, "{}", r.text);
        assert_eq!(floor_header(&r), Some("at-least"));
        assert_eq!(event_ids(&r), carnival[..10]);
        let query = format!("{whole}&search=carnival&per_page=20");
        every_page_finds(&app, &query, &Auth::None, &carnival).await;

        let second = format!("start_date={}&end_date={WINDOW_END}", date(FIRST_DAY + 1));
        let later = &carnival[FESTIVAL_EACH_DAY as usize..];
        let r = app.get(&format!("events?{second}&search=carnival")).await;
        r.assert(200);
        assert_eq!(r.body["total"], later.len(), "{}", r.text);
        assert_eq!(floor_header(&r), None);
        let query = format!("{second}&search=carnival&per_page=20");
        every_page_finds(&app, &query, &Auth::None, later).await;
    }
);
