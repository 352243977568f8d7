//! The hostile plan: requests an anonymous visitor (and an administrator) can send at
//! their most expensive — every category and the hundred most used tags at once (the most a list names), unset flags over
//! every date, the last page of lists of millions of events, the deepest page a search
//! allows, feeds and calendar pages of searches — with values drawn from the data set.
//! `bench/run.sh --scenarios hostile` sends each once, and again, to a server whose
//! response cache is off, and reports each against the bound: no request costs
//! more than a second, whatever its input.
//!
//! `page=last` in a path stands for the list's last page: `run.sh` asks for page 1
//! first and reads `X-WP-TotalPages`; of a search, the last page within its depth
//! (`--search-depth`, 10,000 matches: page 200 of 50).

use std::path::Path;

use calendar_events::domain::term::Taxonomy;

use crate::Result;
use crate::sweep::{
    Kind, Values, admin, anon, request_path, strings, terms_by_count, values, write_kinds,
};

/// The most values a list argument takes (`include`, `categories`, `tags`).
const MAX_ITEMS: usize = 100;

/// Every date the data set holds, and more.
const ALL: &str = "start_date=1900-01-01&end_date=2200-01-01";

/// Paths starting with `/` are the calendar's pages; the others are below the API root.
const KINDS: &[Kind] = &[
    anon(
        "terms_all_unset_flags",
        "events?categories={categories_all}&tags={tags_most}&featured=0&ticketed=0&geoloc=1&per_page=50&page={first_or_last}",
    ),
    anon(
        "terms_all_all_dates",
        "events?categories={categories_all}&tags={tags_most}&{all}&per_page=50&page={first_or_last}",
    ),
    anon("all_dates", "events?{all}&per_page=50&page={first_or_last}"),
    anon(
        "unset_flags_all_dates",
        "events?featured=0&ticketed=0&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "category_unset_flag_all_dates",
        "events?categories={category_big}&featured=0&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "category_unset_flags_all_dates",
        "events?categories={category_big}&featured=0&ticketed=0&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "categories_two_all_dates",
        "events?categories={categories_two}&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "category_tag_all_dates",
        "events?categories={category_big}&tags={tag_big}&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "venue_all_dates",
        "events?venue={venue_big}&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "near_everywhere_all_dates",
        "events?geoloc_lat={lat}&geoloc_lng={lng}&geoloc_radius=20000&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "search_deepest_page",
        "events?search={word}&{all}&per_page=50&page=last",
    ),
    anon(
        "search_two_words_deepest_page",
        "events?search={word_medium}+{word_short}&{all}&per_page=50&page=last",
    ),
    anon(
        "search_words_deepest_page",
        "events?search={words}&{all}&per_page=50&page=last",
    ),
    anon(
        "search_terms_all",
        "events?search={word}&categories={categories_all}&tags={tags_most}&{all}&per_page=50",
    ),
    anon(
        "parent_category_search",
        "events?post_parent={event_id}&categories={category_big}&search={word}&{all}",
    ),
    anon(
        "flag_search_all_dates",
        "events?featured=1&search={word_festival}&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "unset_flags_search",
        "events?featured=0&ticketed=0&search={word_rare}&per_page=50&page={first_or_last}",
    ),
    anon(
        "category_unset_flag_search",
        "events?categories={category_big}&featured=0&search={word_rare}&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "include_many_unset_flags",
        "events?include={include_many}&featured=0&ticketed=0&search={word}&{all}&per_page=50",
    ),
    anon("feed_all_dates_search", "events?ical=1&{all}&search={word}"),
    anon(
        "feed_terms_all",
        "events?ical=1&categories={categories_all}&tags={tags_most}&{all}",
    ),
    admin(
        "admin_all_dates",
        "events?{all}&per_page=50&page={first_or_last}",
    ),
    admin(
        "admin_drafts_search",
        "events?status=draft&search={word}&{all}&per_page=50&page={first_or_last}",
    ),
    anon(
        "venues_upcoming",
        "venues?only_with_upcoming=1&per_page=50&page={first_or_last}",
    ),
    anon(
        "organizers_has_events_search",
        "organizers?has_events=1&search={word_short}&per_page=50&page={first_or_last}",
    ),
    anon(
        "tags_by_count",
        "tags?orderby=count&hide_empty=0&per_page=50&page={first_or_last}",
    ),
    anon("page_list_search", "/events/list/?search={word}&page=20"),
    anon(
        "page_month_search",
        "/events/month/?search={word_medium}&category={category_slug}",
    ),
    anon(
        "page_category_search",
        "/events/category/{category_slug}/?search={word_short}",
    ),
];

/// The sweep's values, and the extremes of this plan.
async fn hostile_values(url: &str, event_ids: &[String]) -> Result<Values> {
    let mut values = values(url, event_ids).await?;
    let categories = terms_by_count(url, Taxonomy::Category, "CAST(id AS TEXT)").await?;
    let tags = terms_by_count(url, Taxonomy::Tag, "CAST(id AS TEXT)").await?;
    let categories_two = categories.get(..2).unwrap_or(&categories).join(",");
    let include_many = event_ids
        .iter()
        .take(MAX_ITEMS)
        .cloned()
        .collect::<Vec<_>>();
    values.0.extend([
        ("all", strings(&[ALL])),
        ("categories_all", vec![categories.join(",")]),
        (
            "tags_most",
            vec![tags[..tags.len().min(MAX_ITEMS)].join(",")],
        ),
        ("categories_two", vec![categories_two]),
        ("include_many", vec![include_many.join(",")]),
        ("first_or_last", strings(&["1", "last"])),
        ("word", strings(&["the", "salsa"])),
        // A flag's events and a word's, each some 5 % of the events: on SQLite,
        // each of the word's matches looked up for the flag's key; on PostgreSQL,
        // both read from the index of whole words (migration 54).
        ("word_festival", strings(&["carnival"])),
        // Two common words (a fifth of the events hold both), a common word with a
        // rare one, a rare word with a letter every event holds, a common word
        // with one, and three words.
        (
            "words",
            strings(&[
                "salsa+lantern",
                "salsa+jazz",
                "jazz+a",
                "lantern+a",
                "salsa+e",
                "harbor+salsa+a",
            ]),
        ),
    ]);
    Ok(values)
}

/// Writes `hostile/<kind>.paths` (request paths from the server's root) and
/// `hostile/kinds.tsv` (kind, caller, file) into `dir`.
pub async fn write_plan(url: &str, dir: &Path, event_ids: &[String]) -> Result<usize> {
    let values = hostile_values(url, event_ids).await?;
    write_kinds(&dir.join("hostile"), KINDS, &values, &request_path)
}
