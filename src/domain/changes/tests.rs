//! Which writes reach which reads.

use super::*;

fn june_2030() -> Window {
    // 2030-06-01 to 2030-06-30, both ends.
    Window {
        start: (1_906_502_400, 1_909_094_399),
        end: (1_906_502_400, i64::MAX),
    }
}

const IN_JUNE: (i64, i64) = (1_907_000_000, 1_907_003_600);

fn list(reach: Reach) -> Reads {
    Reads {
        list: Some(reach),
        ..Reads::default()
    }
}

#[test]
fn an_event_write_reaches_what_shows_the_event_or_could_list_it() {
    let write = Changes::events([7], [3, 4], [EventState::new(IN_JUNE, [3, 4])]);
    let by_id = |id| Reads {
        events: vec![id],
        ..Reads::default()
    };
    assert!(by_id(7).changed_by(&write));
    assert!(!by_id(8).changed_by(&write));
    assert!(list(Reach::window(june_2030())).changed_by(&write));
    let july = Window {
        start: (1_909_094_400, 1_911_772_799),
        end: (i64::MIN, i64::MAX),
    };
    assert!(!list(Reach::window(july)).changed_by(&write));
    let venues_with_events = Reads {
        every_event: true,
        ..Reads::default()
    };
    assert!(venues_with_events.changed_by(&write));
    let terms = Reads {
        every_term: true,
        ..Reads::default()
    };
    assert!(terms.changed_by(&write));
    assert!(!terms.changed_by(&Changes::events([7], [], [])));
    let a_venue = Reads::default();
    assert!(!a_venue.changed_by(&write));
    assert!(a_venue.changed_by(&Changes::anything()));
}

#[test]
fn a_write_that_moves_an_event_reaches_both_windows() {
    let moved = Changes::events([7], [], [EventState::at(IN_JUNE), EventState::at((0, 1))]);
    let early = Window {
        start: (0, 10),
        end: (0, 10),
    };
    assert!(list(Reach::window(early)).changed_by(&moved));
    assert!(list(Reach::window(june_2030())).changed_by(&moved));
}

#[test]
fn a_list_of_some_terms_is_reached_only_by_events_holding_one_of_each_set() {
    let category_list = list(Reach {
        terms: vec![vec![1, 2, 9]],
        ..Reach::window(june_2030())
    });
    let written =
        |terms: &[i64]| Changes::events([7], [], [EventState::new(IN_JUNE, terms.to_vec())]);
    assert!(category_list.changed_by(&written(&[2, 40])));
    assert!(!category_list.changed_by(&written(&[3, 40])));
    assert!(!category_list.changed_by(&written(&[])));
    assert!(
        category_list.changed_by(&Changes::events([7], [], [EventState::at(IN_JUNE)])),
        "an event of unknown terms may be in any list"
    );
    let moved_out = Changes::events(
        [7],
        [],
        [EventState::new(IN_JUNE, [9]), EventState::new(IN_JUNE, [3])],
    );
    assert!(
        category_list.changed_by(&moved_out),
        "it held the term before"
    );
    let category_and_tag = list(Reach {
        terms: vec![vec![1, 2], vec![40]],
        ..Reach::window(june_2030())
    });
    assert!(category_and_tag.changed_by(&written(&[2, 40])));
    assert!(!category_and_tag.changed_by(&written(&[2, 41])));
    assert!(!category_and_tag.changed_by(&written(&[40])));
    let outside = Changes::events([7], [], [EventState::new((0, 1), [2, 40])]);
    assert!(!category_and_tag.changed_by(&outside), "outside the window");
}

#[test]
fn a_list_of_some_venues_or_organizers_is_reached_only_by_events_linked_to_one() {
    let at_hall = list(Reach {
        links: vec![vec![10]],
        ..Reach::window(june_2030())
    });
    let linked = |venue: Option<i64>, organizers: &[i64]| {
        let state = EventState::at(IN_JUNE).with_links(venue, organizers);
        Changes::events([7], [], [state])
    };
    assert!(at_hall.changed_by(&linked(Some(10), &[])));
    assert!(
        at_hall.changed_by(&linked(None, &[10])),
        "one set of post IDs"
    );
    assert!(!at_hall.changed_by(&linked(Some(11), &[12])));
    assert!(!at_hall.changed_by(&linked(None, &[])));
    assert!(at_hall.changed_by(&Changes::events([7], [], [EventState::at(IN_JUNE)])));
}

#[test]
fn a_search_is_reached_only_by_text_holding_each_of_its_words() {
    let search = |words: &[&str]| {
        list(Reach {
            search: words.iter().map(|w| w.to_string()).collect(),
            ..Reach::window(Window::ALL)
        })
    };
    let text = |title: &str, description: &str| {
        Changes::events(
            [7],
            [],
            [EventState::at(IN_JUNE).with_text(title, "", description)],
        )
    };
    let written = text("Folk Night", "<p>Live JAZZY tunes</p>");
    assert!(search(&["jazz"]).changed_by(&written), "inside a word");
    assert!(search(&["jazz", "folk"]).changed_by(&written));
    assert!(!search(&["jazz", "rock"]).changed_by(&written));
    assert!(
        search(&["<p>live"]).changed_by(&written),
        "the text as stored"
    );
    assert!(
        !search(&["night<p>live"]).changed_by(&written),
        "words apart"
    );
    assert!(search(&[]).changed_by(&written));
    let unknown = Changes::events([7], [], [EventState::at(IN_JUNE)]);
    assert!(search(&["anything"]).changed_by(&unknown));
}

#[test]
fn text_words_are_lower_cased_both_ways_and_long_texts_are_not_carried() {
    let text = text_words(&["İstanbul ΟΔΟΣ", "", "Tea\u{a0}time"]).unwrap();
    let words: Vec<&str> = text.split(' ').collect();
    assert!(words.contains(&"istanbul"), "{words:?}");
    assert!(words.contains(&"i\u{307}stanbul"));
    assert!(words.contains(&"οδος") && words.contains(&"οδοσ"));
    assert!(words.contains(&"tea"), "split at any white space");
    let long = "word ".repeat(10) + &(0..2000).map(|i| format!("w{i} ")).collect::<String>();
    assert_eq!(text_words(&[&long]), None);
}

#[test]
fn merged_changes_keep_every_item_once_and_anything_wins() {
    let mut c = Changes::events([2, 1], [5], [EventState::at((1, 2))]);
    c.merge(Changes::events([1, 3], [5, 6], [EventState::at((1, 2))]));
    assert_eq!(
        c,
        Changes::events([1, 2, 3], [5, 6], [EventState::at((1, 2))])
    );
    c.merge(Changes::anything());
    assert!(c.anything && c.events.is_empty());
    let many = Changes::events(0..5000, [], []);
    assert!(
        many.anything,
        "too many items to check are kept as anything"
    );
    let many_terms = Changes::events([1], [], [EventState::new((1, 2), 0..5000)]);
    assert!(many_terms.anything);
    let text: Vec<String> = (0..150).map(|i| format!("w{i}")).collect();
    let wordy = |n: i64| EventState::at((n, n)).with_text(&text.join(" "), "", "");
    let some = Changes::events([1], [], (0..3).map(wordy));
    assert!(some.states.iter().all(|s| s.words.is_some()));
    let many_words = Changes::events([1], [], (0..1000).map(wordy));
    assert!(!many_words.anything && many_words.states.len() == 1000);
    assert!(
        many_words.states.iter().all(|s| s.words.is_none()),
        "too many words to keep: any search may find these events"
    );
    assert!(Changes::nothing().is_nothing());
}

#[test]
fn changes_travel_as_compact_json() {
    let c = Changes::events([1], [2], [EventState::new((3, 4), [5])]);
    let text = serde_json::to_string(&c).unwrap();
    assert_eq!(
        text,
        r#"{"events":[1],"terms":[2],"spans":[[3,4]],"states":[{"span":[3,4],"terms":[5]}]}"#
    );
    assert_eq!(serde_json::from_str::<Changes>(&text).unwrap(), c);
    let anything = serde_json::to_string(&Changes::anything()).unwrap();
    assert_eq!(anything, r#"{"anything":true}"#);
}

#[test]
fn spans_without_states_read_as_events_of_unknown_terms() {
    let older = r#"{"events":[1],"spans":[[3,4],[5,6]]}"#;
    let c: Changes = serde_json::from_str(older).unwrap();
    assert_eq!(c.states, [EventState::at((3, 4)), EventState::at((5, 6))]);
    let category_list = list(Reach {
        terms: vec![vec![9]],
        ..Reach::window(Window::ALL)
    });
    assert!(category_list.changed_by(&c));
}
