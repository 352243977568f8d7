//! The sweep's plan: for each kind of request a visitor or an administrator sends (every
//! list route, every parameter, alone and in the combinations people use), a file of
//! request paths whose values are drawn from the data set: big and small categories and
//! tags, venues and organizers with many and few events, common, rare and absent words,
//! twelve different months, shallow and deep pages. `bench/run.sh --scenarios sweep`
//! replays each file one request at a time against a server whose response cache is off.

use std::fmt::Write as _;
use std::path::Path;

use calendar_events::api::table::NAMESPACE;
use calendar_events::domain::post::PostType;
use calendar_events::domain::term::Taxonomy;
use chrono::Datelike as _;

use crate::Result;
use crate::manifest::text_rows;

/// Who sends a kind's requests.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Caller {
    Anonymous,
    Administrator,
}

pub(crate) struct Kind {
    pub(crate) name: &'static str,
    pub(crate) caller: Caller,
    /// Path from the server's root when it starts with `/` (the calendar's pages),
    /// else below the API root; `{name}` placeholders take the values of `Values`.
    pub(crate) template: &'static str,
}

pub(crate) const fn anon(name: &'static str, template: &'static str) -> Kind {
    Kind {
        name,
        caller: Caller::Anonymous,
        template,
    }
}

pub(crate) const fn admin(name: &'static str, template: &'static str) -> Kind {
    Kind {
        name,
        caller: Caller::Administrator,
        template,
    }
}

const KINDS: &[Kind] = &[
    anon("events", "events?per_page={per_page}"),
    anon(
        "events_month",
        "events?start_date={month_start}&end_date={month_end}",
    ),
    anon(
        "events_all_dates",
        "events?start_date=2000-01-01&end_date=2100-01-01&page={event_page}",
    ),
    anon("events_starts_after", "events?starts_after={month_start}"),
    anon("events_ends_before", "events?ends_before={month_end}"),
    anon("events_deep_page", "events?per_page=50&page={deep_page}"),
    anon("events_search_common", "events?search={word_common}"),
    anon("events_search_medium", "events?search={word_medium}"),
    anon("events_search_rare", "events?search={word_rare}"),
    anon("events_search_absent", "events?search={word_absent}"),
    anon("events_search_short", "events?search={word_short}"),
    anon("events_search_symbols", "events?search={word_symbols}"),
    anon(
        "events_search_two_words",
        "events?search={word_medium}+{word_rare}",
    ),
    anon(
        "events_search_word_and_short",
        "events?search={word_rare}+{word_short}",
    ),
    anon(
        "events_all_dates_search",
        "events?start_date=2000-01-01&end_date=2100-01-01&search={word_medium}",
    ),
    anon(
        "events_month_search",
        "events?start_date={month_start}&end_date={month_end}&search={word_common}",
    ),
    anon("events_search_clustered", "events?search={word_clustered}"),
    anon(
        "events_month_clustered_search",
        "events?start_date={month_start}&end_date={month_end}&search={word_clustered}",
    ),
    anon("events_category_big", "events?categories={category_big}"),
    anon(
        "events_category_small",
        "events?categories={category_small}",
    ),
    anon(
        "events_categories_two",
        "events?categories={category_big},{category_small}",
    ),
    anon(
        "events_categories_many",
        "events?categories={categories_many}",
    ),
    anon("events_tags_many", "events?tags={tags_many}"),
    anon("events_category_slug", "events?categories={category_slug}"),
    anon("events_tag_big", "events?tags={tag_big}"),
    anon("events_tag_small", "events?tags={tag_small}"),
    anon(
        "events_category_and_tag",
        "events?categories={category_big}&tags={tag_big}",
    ),
    anon(
        "events_category_featured",
        "events?categories={category_big}&featured=1",
    ),
    anon(
        "events_category_not_featured",
        "events?categories={category_big}&featured=0",
    ),
    anon("events_tag_ticketed", "events?tags={tag_big}&ticketed=1"),
    anon("events_venue_big", "events?venue={venue_big}"),
    anon("events_venue_small", "events?venue={venue_small}"),
    anon(
        "events_venue_month",
        "events?venue={venue_big}&start_date={month_start}&end_date={month_end}",
    ),
    anon("events_organizer_big", "events?organizer={organizer_big}"),
    anon(
        "events_organizer_small",
        "events?organizer={organizer_small}",
    ),
    anon("events_featured", "events?featured=1&page={event_page}"),
    anon("events_not_featured", "events?featured=0&page={event_page}"),
    anon("events_ticketed", "events?ticketed=1&page={event_page}"),
    anon("events_not_ticketed", "events?ticketed=0&page={event_page}"),
    anon("events_geoloc", "events?geoloc=1&page={event_page}"),
    anon("events_near", "events?geoloc_lat={lat}&geoloc_lng={lng}"),
    anon("events_include", "events?include={include}"),
    // Events named by their parent or by ID beside filters of many events: the
    // named events drive (`store::events::list::named_keys`).
    anon(
        "events_parent_category",
        "events?post_parent={event_id}&categories={category_big}",
    ),
    anon(
        "events_include_filtered",
        "events?include={include}&categories={category_big}&featured=0&search={word_common}",
    ),
    anon(
        "events_month_category_search",
        "events?start_date={month_start}&end_date={month_end}&categories={category_big}&search={word_rare}",
    ),
    anon(
        "events_category_search",
        "events?categories={category_big}&search={word_common}",
    ),
    anon(
        "events_category_small_search",
        "events?categories={category_small}&search={word_rare}",
    ),
    anon(
        "events_tags_two_search",
        "events?tags={tag_big},{tag_small}&search={word_rare}",
    ),
    // The calendar's pages, as a visitor's browser asks for them: a month's grid
    // places the events of six weeks, a day lists what runs on it.
    anon("page_list", "/events/list/?page={event_page}"),
    anon("page_month", "/events/month/{month}/"),
    anon(
        "page_month_category",
        "/events/month/{month}/?category={category_slug}",
    ),
    anon(
        "page_month_search",
        "/events/month/{month}/?search={word_medium}",
    ),
    anon(
        "page_month_rare_search",
        "/events/month/{month}/?search={word_rare}",
    ),
    anon(
        "page_month_clustered_search",
        "/events/month/{month}/?search={word_clustered}",
    ),
    anon("page_day", "/events/{day}/"),
    anon("feed", "events?ical=1"),
    anon(
        "feed_month",
        "events?ical=1&start_date={month_start}&end_date={month_end}",
    ),
    anon(
        "feed_category_small",
        "events?ical=1&categories={category_small}",
    ),
    anon("feed_event", "events/{event_id}?ical=1"),
    admin("admin_events", "events?per_page={per_page}"),
    admin(
        "admin_events_draft",
        "events?status=draft&page={event_page}",
    ),
    admin("admin_events_search", "events?search={word_medium}"),
    admin("admin_events_category", "events?categories={category_big}"),
    admin(
        "admin_events_deep_page",
        "events?per_page=50&page={deep_page}",
    ),
    anon("venues", "venues?page={venue_page}"),
    anon("venues_search", "venues?search={venue_word}"),
    anon(
        "venues_upcoming_short_search",
        "venues?only_with_upcoming=1&search={word_short}",
    ),
    anon("venues_has_events", "venues?has_events=1&page={venue_page}"),
    anon("venues_no_events", "venues?has_events=0"),
    anon(
        "venues_upcoming",
        "venues?only_with_upcoming=1&page={venue_page}",
    ),
    anon("venues_of_event", "venues?event={event_id}"),
    anon(
        "venues_deep_page",
        "venues?per_page=50&page={venue_deep_page}",
    ),
    admin("admin_venues_upcoming", "venues?only_with_upcoming=1"),
    anon("organizers", "organizers?page={organizer_page}"),
    anon("organizers_search", "organizers?search={organizer_word}"),
    anon(
        "organizers_has_events_short_search",
        "organizers?has_events=1&search={word_short}",
    ),
    anon(
        "organizers_has_events",
        "organizers?has_events=1&page={organizer_page}",
    ),
    anon(
        "organizers_upcoming",
        "organizers?only_with_upcoming=1&page={organizer_page}",
    ),
    anon("organizers_of_event", "organizers?event={event_id}"),
    admin("admin_organizers_has_events", "organizers?has_events=1"),
    anon("categories", "categories?page=1"),
    anon(
        "categories_all",
        "categories?hide_empty=0&per_page=50&orderby={term_order}",
    ),
    anon("categories_search", "categories?search={category_word}"),
    anon("categories_of_event", "categories?post={event_id}"),
    anon("tags", "tags?per_page=50&page={tag_page}"),
    anon("tags_of_event", "tags?event={event_id}"),
];

/// The values each placeholder cycles through.
pub(crate) struct Values(pub(crate) Vec<(&'static str, Vec<String>)>);

impl Values {
    fn get(&self, name: &str) -> Option<&[String]> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The template with its `i`-th combination of values; placeholders cycle in step.
    pub(crate) fn expand(&self, template: &str, i: usize) -> Result<String> {
        let mut out = String::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').ok_or("unclosed placeholder")? + open;
            out.push_str(&rest[..open]);
            let name = &rest[open + 1..close];
            let values = self
                .get(name)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("no values for {{{name}}}"))?;
            out.push_str(&values[i % values.len()]);
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// How many distinct requests a template makes: its longest value list.
    pub(crate) fn variants(&self, template: &str) -> usize {
        template
            .split('{')
            .skip(1)
            .filter_map(|s| s.split('}').next())
            .filter_map(|name| self.get(name).map(<[String]>::len))
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

fn column(rows: Vec<Vec<String>>) -> Vec<String> {
    rows.into_iter()
        .filter_map(|r| r.into_iter().next())
        .collect()
}

pub(crate) fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

/// Terms of a taxonomy with events, most used first.
pub(crate) async fn terms_by_count(
    url: &str,
    taxonomy: Taxonomy,
    column_sql: &str,
) -> Result<Vec<String>> {
    let taxonomy = taxonomy.as_str();
    Ok(column(
        text_rows(
            url,
            &format!(
                "SELECT {column_sql} FROM terms WHERE taxonomy = '{taxonomy}' AND count > 0
                 ORDER BY count DESC, id"
            ),
        )
        .await?,
    ))
}

/// Venues or organizers by how many events they have: (most, fewest), three each.
async fn linked_by_events(url: &str, post_type: PostType) -> Result<(Vec<String>, Vec<String>)> {
    let grouped = match post_type {
        PostType::Venue => {
            "SELECT venue_id AS linked, COUNT(*) AS n FROM posts
             WHERE post_type = 'event' AND venue_id IS NOT NULL GROUP BY venue_id"
        }
        _ => {
            "SELECT organizer_id AS linked, COUNT(*) AS n FROM event_organizers GROUP BY organizer_id"
        }
    };
    let ranked = |order: &str| {
        format!("SELECT CAST(linked AS TEXT) FROM ({grouped}) g ORDER BY n {order}, linked LIMIT 3")
    };
    Ok((
        column(text_rows(url, &ranked("DESC")).await?),
        column(text_rows(url, &ranked("ASC")).await?),
    ))
}

fn tags_many(tags: &[String]) -> Vec<String> {
    let least = |n: usize| {
        let from = tags.len().saturating_sub(n);
        tags[from..].join(",")
    };
    let most = tags[..tags.len().min(100)].join(",");
    vec![least(10), least(40), most]
}

fn first_pages(pages: u64) -> Vec<String> {
    (1..=pages.clamp(1, 3)).map(|p| p.to_string()).collect()
}

fn deep_pages(pages: u64) -> Vec<String> {
    let mut out: Vec<u64> = [pages / 10, pages / 2, pages * 9 / 10]
        .into_iter()
        .map(|p| p.max(1))
        .collect();
    out.dedup();
    out.into_iter().map(|p| p.to_string()).collect()
}

/// Sizes that decide which pages exist.
struct Counts {
    /// Published events starting from now on: about the default list's total.
    upcoming_events: u64,
    venues: u64,
    organizers: u64,
    tags: u64,
}

async fn counts(url: &str) -> Result<Counts> {
    let now = chrono::Utc::now().timestamp();
    let sql = format!(
        "SELECT CAST((SELECT COUNT(*) FROM posts WHERE post_type = 'event' AND status = 'publish'
                       AND NOT hide_from_listings AND start_utc >= {now}) AS TEXT),
                CAST((SELECT COUNT(*) FROM posts WHERE post_type = 'venue') AS TEXT),
                CAST((SELECT COUNT(*) FROM posts WHERE post_type = 'organizer') AS TEXT),
                CAST((SELECT COUNT(*) FROM terms WHERE taxonomy = 'post_tag' AND count > 0) AS TEXT)"
    );
    let row = text_rows(url, &sql).await?.pop().ok_or("no counts")?;
    let n = |i: usize| row.get(i).and_then(|v| v.parse().ok()).unwrap_or(0);
    Ok(Counts {
        upcoming_events: n(0),
        venues: n(1),
        organizers: n(2),
        tags: n(3),
    })
}

pub(crate) async fn values(url: &str, event_ids: &[String]) -> Result<Values> {
    let counts = counts(url).await?;
    let categories = terms_by_count(url, Taxonomy::Category, "CAST(id AS TEXT)").await?;
    let category_slugs = terms_by_count(url, Taxonomy::Category, "slug").await?;
    let tags = terms_by_count(url, Taxonomy::Tag, "CAST(id AS TEXT)").await?;
    let (venue_big, venue_small) = linked_by_events(url, PostType::Venue).await?;
    let (organizer_big, organizer_small) = linked_by_events(url, PostType::Organizer).await?;
    let first_month = chrono::Utc::now().date_naive().with_day(1).ok_or("date")?;
    let months: Vec<_> = (1..=12)
        .filter_map(|m| first_month.checked_add_months(chrono::Months::new(m)))
        .collect();
    let ends = months
        .iter()
        .filter_map(|m| m.checked_add_months(chrono::Months::new(1))?.pred_opt())
        .map(|d| d.to_string())
        .collect();
    let top = |list: &[String]| list.iter().take(3).cloned().collect::<Vec<_>>();
    let bottom = |list: &[String]| list.iter().rev().take(3).cloned().collect::<Vec<_>>();
    let many = |list: &[String]| {
        [4, 8, list.len()]
            .iter()
            .map(|&n| list[..n.min(list.len())].join(","))
            .collect::<Vec<_>>()
    };
    let samples: Vec<String> = event_ids.iter().take(20).cloned().collect();
    let include = samples.chunks(10).map(|c| c.join(",")).collect::<Vec<_>>();
    Ok(Values(vec![
        ("per_page", strings(&["10", "50"])),
        // Pages that exist whatever the size of the data set: the first few, and pages a
        // tenth, half and nine tenths of the way through.
        ("event_page", first_pages(counts.upcoming_events / 400)),
        ("deep_page", deep_pages(counts.upcoming_events / 50)),
        ("venue_page", first_pages(counts.venues / 20)),
        ("venue_deep_page", deep_pages(counts.venues / 50)),
        ("organizer_page", first_pages(counts.organizers / 20)),
        ("tag_page", first_pages(counts.tags / 100)),
        (
            "month_start",
            months.iter().map(ToString::to_string).collect(),
        ),
        ("month_end", ends),
        (
            "month",
            months
                .iter()
                .map(|m| m.format("%Y-%m").to_string())
                .collect(),
        ),
        (
            "day",
            months
                .iter()
                .filter_map(|m| m.with_day(15))
                .map(|d| d.to_string())
                .collect(),
        ),
        // "the" is in nearly every description, "music" in most; a genre or a noun in
        // about a third; "jazz" only in 2 % of titles; the absent words in none.
        ("word_common", strings(&["the", "music"])),
        ("word_medium", strings(&["salsa", "lantern", "harbor"])),
        ("word_rare", strings(&["jazz"])),
        // On every other event of each month's first three days and nowhere else: common
        // at the start of a month's window and grid, rare after.
        ("word_clustered", strings(&["carnival"])),
        ("word_absent", strings(&["zeppelin", "quixotic", "xq"])),
        // Shorter than a trigram: common, rare and absent (no text holds a digit).
        ("word_short", strings(&["a", "dj", "zz", "qx", "7"])),
        // Characters other than letters and digits, which PostgreSQL's trigram index
        // does not hold: in every description, in some, in few and in none; and
        // made of pairs every description holds, never together.
        (
            "word_symbols",
            strings(&["%3Cp%3E", "-on", "%3A", "%E2%82%AC", ".%3Cp"]),
        ),
        // Several of the most used categories at once: four, eight, all of them.
        ("categories_many", many(&categories)),
        // Many tags at once: ten and forty of the least used, a hundred of the most
        // used (past the 63 terms with bits, most of them).
        ("tags_many", tags_many(&tags)),
        ("category_big", top(&categories)),
        ("category_small", bottom(&categories)),
        ("category_slug", top(&category_slugs)),
        ("tag_big", top(&tags)),
        ("tag_small", bottom(&tags)),
        ("venue_big", venue_big),
        ("venue_small", venue_small),
        ("organizer_big", organizer_big),
        ("organizer_small", organizer_small),
        ("event_id", samples),
        ("include", include),
        ("lat", strings(&["48.86", "39.78", "51.51"])),
        ("lng", strings(&["2.35", "-89.65", "-0.13"])),
        ("venue_word", strings(&["hall", "club", "springfield"])),
        (
            "organizer_word",
            strings(&["society", "friends", "ensemble"]),
        ),
        ("category_word", strings(&["mus", "art", "zz"])),
        ("term_order", strings(&["name", "count", "id"])),
    ]))
}

/// Writes `sweep/<kind>.paths` (request paths from the server's root) and `sweep/kinds.tsv`
/// (kind, caller, file) into `dir`.
pub async fn write_plan(url: &str, dir: &Path, event_ids: &[String]) -> Result<usize> {
    let values = values(url, event_ids).await?;
    write_kinds(&dir.join("sweep"), KINDS, &values, &request_path)
}

/// A kind's path from the server's root: a page's as it is, else below the API root.
pub(crate) fn request_path(template: &str) -> String {
    match template.starts_with('/') {
        true => template.to_string(),
        false => format!("/{NAMESPACE}/{template}"),
    }
}

/// Writes `<kind>.paths` (each variant of the kind's template, as `path` makes it a
/// request path) and `kinds.tsv` (kind, caller, file) into `out`.
pub(crate) fn write_kinds(
    out: &Path,
    kinds: &[Kind],
    values: &Values,
    path: &dyn Fn(&str) -> String,
) -> Result<usize> {
    std::fs::create_dir_all(out)?;
    let mut index = String::new();
    for kind in kinds {
        let mut paths = String::new();
        for i in 0..values.variants(kind.template) {
            paths.push_str(&path(&values.expand(kind.template, i)?));
            paths.push('\n');
        }
        let file = format!("{}.paths", kind.name);
        std::fs::write(out.join(&file), paths)?;
        let caller = match kind.caller {
            Caller::Anonymous => "anonymous",
            Caller::Administrator => "administrator",
        };
        writeln!(index, "{}\t{caller}\t{file}", kind.name)?;
    }
    std::fs::write(out.join("kinds.tsv"), index)?;
    Ok(kinds.len())
}
