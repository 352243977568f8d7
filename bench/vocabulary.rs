//! What the benchmark's calendar looks like: its words, places and zones, and the skewed
//! picks that make a few terms and venues busy.

use std::collections::HashMap;
use std::sync::LazyLock;

use chrono::Datelike as _;

use calendar_events::domain::slug::slugify;
use rand::Rng;
use rand::rngs::SmallRng;

pub(crate) const CATEGORY_NAMES: &str = "\
    Music, Arts, Theater, Dance, Film, Food & Drink, Sports, Outdoors, Family, Kids,\
    Education, Workshops, Talks, Technology, Business, Community, Charity, Health,\
    Wellness, Markets, Festivals, Nightlife, Comedy, Literature, History, Science,\
    Gardening, Crafts, Faith, Seniors";

/// (child, parent) by index into the categories: a shallow hierarchy, as sites have.
pub(crate) const CATEGORY_PARENTS: [(usize, usize); 9] = [
    (2, 1),
    (3, 1),
    (4, 1),
    (9, 8),
    (11, 10),
    (12, 10),
    (18, 17),
    (21, 0),
    (27, 1),
];

pub(crate) const COMMON_TAGS: &str = "\
    free, outdoor, indoor, family friendly, all ages, 21+, wheelchair accessible,\
    live music, online, weekend, evening, morning, beginners, advanced, members only,\
    sold out, limited seats, registration required, volunteers, fundraiser";

pub(crate) const TAG_COUNT: usize = 200;

// No word below contains "jazz": the search scenario relies on the word appearing only in
// the titles that `event_title` puts it in.
pub(crate) const SEARCH_WORD: &str = "Jazz";
pub(crate) const SEARCH_SHARE: f64 = 0.02;

// A festival's word: in the titles of every other event on the first `FESTIVAL_DAYS`
// days (UTC) of each month and nowhere else, 5 % of the events in all, so that a
// month's window or grid meets it often at its start and seldom after. No word above
// contains "carnival".
pub(crate) const FESTIVAL_WORD: &str = "Carnival";
const FESTIVAL_DAYS: u32 = 3;

pub(crate) const ADJECTIVES: &str = "\
    golden, silver, quiet, bright, hidden, grand, little, old, new, northern, southern,\
    eastern, western, royal, urban, rural, sunny, misty, velvet, crystal, ancient, modern,\
    open, secret, wild, gentle, lively, cozy, spring, summer, autumn, winter, midnight,\
    morning, evening, riverside, lakeside, hilltop, downtown, uptown, green, blue, red,\
    amber, scarlet, ivory, silent, roaring, merry, humble, noble, happy, lucky, brave,\
    swift, calm, bold, rustic, vintage, electric";

pub(crate) const NOUNS: &str = "\
    harbor, garden, river, forest, meadow, valley, mountain, market, square, bridge,\
    lantern, castle, tower, orchard, island, canyon, prairie, station, library, museum,\
    gallery, workshop, kitchen, studio, barn, mill, chapel, plaza, pier, lighthouse,\
    courtyard, terrace, pavilion, arena, cellar, loft, greenhouse, vineyard, brewery,\
    bakery, cafe, tavern, park, beach, grove, field, hollow, ridge, creek, fountain, stone,\
    oak, maple, willow, cedar, pine, falcon, fox, heron, comet";

pub(crate) const KINDS: &str = "\
    festival, concert, workshop, meetup, fair, market, class, lecture, tour, exhibition,\
    screening, reading, tasting, night, jam, showcase, gala, parade, race, tournament,\
    retreat, seminar, conference, brunch, picnic, marathon, recital, session, social, camp";

pub(crate) const GENRES: &str = "\
    rock, folk, blues, classical, salsa, techno, opera, poetry, comedy, film, yoga, chess,\
    pottery, painting, photography, gardening, cooking, wine, craft beer, cycling, running,\
    coding, robotics, astronomy, history, science, dance, theater, puppet, storytelling";

pub(crate) const FILLER: &str = "\
    the, a, and, of, to, in, with, for, on, at, join, us, our, your, all, ages, welcome,\
    afternoon, tickets, free, bring, friends, family, enjoy, local, artists, music, food,\
    drinks, special, guests, featuring, experience, celebrate, community, season, annual,\
    first, time, doors, early, seats, limited, register, online, members, discount,\
    children, under, accompanied, adults, parking, available, nearby, accessible, venue,\
    program, includes, talk, followed, by, reception, light, refreshments, served, learn,\
    more, about, history, hands-on, beginners, experts, alike, stories, laughter, together,\
    neighbors, weekend, evening, sunset";

pub(crate) const PLACE_KINDS: &str = "\
    Hall, Theater, Club, Center, Arena, Park, Gallery, Church, Library, Pavilion, Ballroom,\
    Lounge, Stadium, Auditorium, Warehouse";

pub(crate) const ORG_KINDS: &str = "\
    Society, Collective, Productions, Foundation, Association, Club, Guild, Council,\
    Alliance, Company, Trust, Network, Partners, Ensemble, League";

/// The word lists above, split once.
pub(crate) struct Words {
    pub(crate) categories: Vec<&'static str>,
    pub(crate) common_tags: Vec<&'static str>,
    pub(crate) adjectives: Vec<&'static str>,
    pub(crate) nouns: Vec<&'static str>,
    pub(crate) kinds: Vec<&'static str>,
    pub(crate) genres: Vec<&'static str>,
    pub(crate) filler: Vec<&'static str>,
    pub(crate) place_kinds: Vec<&'static str>,
    pub(crate) org_kinds: Vec<&'static str>,
}

pub(crate) static WORDS: LazyLock<Words> = LazyLock::new(|| {
    let split = |list: &'static str| list.split(',').map(str::trim).collect::<Vec<_>>();
    Words {
        categories: split(CATEGORY_NAMES),
        common_tags: split(COMMON_TAGS),
        adjectives: split(ADJECTIVES),
        nouns: split(NOUNS),
        kinds: split(KINDS),
        genres: split(GENRES),
        filler: split(FILLER),
        place_kinds: split(PLACE_KINDS),
        org_kinds: split(ORG_KINDS),
    }
});

/// (city, state/province, country, zip prefix, latitude, longitude)
pub(crate) const CITIES: [(&str, &str, &str, &str, f64, f64); 16] = [
    ("Springfield", "IL", "United States", "627", 39.78, -89.65),
    ("Portland", "OR", "United States", "972", 45.52, -122.68),
    ("Austin", "TX", "United States", "787", 30.27, -97.74),
    ("Boston", "MA", "United States", "021", 42.36, -71.06),
    ("Denver", "CO", "United States", "802", 39.74, -104.99),
    ("Seattle", "WA", "United States", "981", 47.61, -122.33),
    ("Chicago", "IL", "United States", "606", 41.88, -87.63),
    ("Toronto", "ON", "Canada", "M5V", 43.65, -79.38),
    ("Montreal", "QC", "Canada", "H2X", 45.50, -73.57),
    ("Vancouver", "BC", "Canada", "V6B", 49.28, -123.12),
    ("London", "", "United Kingdom", "EC1", 51.51, -0.13),
    ("Manchester", "", "United Kingdom", "M1", 53.48, -2.24),
    ("Paris", "", "France", "750", 48.86, 2.35),
    ("Lyon", "", "France", "690", 45.76, 4.84),
    ("Berlin", "", "Germany", "101", 52.52, 13.40),
    ("Madrid", "", "Spain", "280", 40.42, -3.70),
];

/// Event time zones and how often they occur.
pub(crate) const ZONES: [(&str, f64); 4] = [
    ("UTC", 0.6),
    ("America/New_York", 0.15),
    ("Europe/Paris", 0.15),
    ("America/Los_Angeles", 0.10),
];

pub(crate) const DAY: i64 = 86_400;

/// Whether the day starting at `midnight` (UTC) is one of a month's festival days.
pub(crate) fn festival_day(midnight: i64) -> bool {
    chrono::DateTime::from_timestamp(midnight, 0).is_some_and(|d| d.day() <= FESTIVAL_DAYS)
}

pub(crate) fn title_case(words: &[&str]) -> String {
    let mut out = String::new();
    for w in words {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut chars = w.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

/// Picks from a fixed set with a skewed distribution: a few categories and tags are used
/// far more than the rest, as on real sites, which matters for term-filter selectivity.
pub(crate) struct Skewed {
    pub(crate) cumulative: Vec<f64>,
}

impl Skewed {
    pub(crate) fn new(n: usize, exponent: f64) -> Skewed {
        let mut total = 0.0;
        let cumulative = (0..n)
            .map(|i| {
                total += 1.0 / ((i + 1) as f64).powf(exponent);
                total
            })
            .collect::<Vec<_>>();
        Skewed {
            cumulative: cumulative.iter().map(|c| c / total).collect(),
        }
    }

    pub(crate) fn pick(&self, rng: &mut SmallRng) -> usize {
        let x: f64 = rng.random();
        self.cumulative
            .partition_point(|c| *c < x)
            .min(self.cumulative.len() - 1)
    }

    /// `k` distinct indexes.
    pub(crate) fn pick_distinct(&self, rng: &mut SmallRng, k: usize, out: &mut Vec<usize>) {
        out.clear();
        while out.len() < k.min(self.cumulative.len()) {
            let i = self.pick(rng);
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
}

/// Slugs unique per post type, made unique the way the server does: `-2`, `-3`, …
#[derive(Default)]
pub(crate) struct Slugs(HashMap<String, u32>);

impl Slugs {
    pub(crate) fn unique(&mut self, title: &str) -> String {
        let base = slugify(title);
        let n = self.0.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 { base } else { format!("{base}-{n}") }
    }
}
