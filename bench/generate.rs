//! `calendar-bench`: fills a SQLite or PostgreSQL database with a realistic calendar for the
//! load tests of `bench/run.sh`, and samples it for their Lua scripts.
//!
//! The schema comes from `Store::open`, so the rows land in the tables, indexes and triggers
//! of the real migrations. The rows themselves go straight through the drivers in large
//! transactions: through the HTTP API a million events would take hours.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use base64::Engine;
use calendar_events::domain::permissions::{Role, User};
use calendar_events::domain::post::{PostType, Status};
use calendar_events::domain::slug::slugify;
use calendar_events::domain::term::Taxonomy;
use calendar_events::http::auth_secret_hash;
use calendar_events::store::events::{SEARCH_KEY_TRIGGERS, search_grams_fill};
use calendar_events::store::users::{self, CredentialKind};
use calendar_events::store::{Backend, Store};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};
use tokio::sync::mpsc;

mod hostile;
mod sweep;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Result<T, E = BoxError> = std::result::Result<T, E>;

#[derive(Parser)]
#[command(
    name = "calendar-bench",
    about = "Benchmark data for calendar-events (see bench/README.md)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Creates the schema and fills it with N events and their venues, organizers and terms.
    Generate(GenerateArgs),
    /// Issues a fresh application password for the benchmark administrator and writes
    /// sample IDs and slugs for the load-test scripts into a directory.
    Manifest(ManifestArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// `sqlite://PATH` or `postgres://…`
    #[arg(long, env = "CALENDAR_DATABASE_URL")]
    database_url: String,
    /// Number of events: a number, or with a suffix such as 1k, 100k, 1m.
    #[arg(long, value_parser = parse_count)]
    events: u64,
    /// The same seed gives the same data set (dates are relative to the day it runs).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Empties the database first (SQLite: deletes the file; PostgreSQL: drops the public schema).
    #[arg(long)]
    replace: bool,
    /// SQLite: keep the search-index triggers during the load instead of indexing all events
    /// in one statement at the end (much slower; only to compare the two).
    #[arg(long)]
    fts_triggers: bool,
    /// SQLite: run ANALYZE at the end. The server never does, so by default neither do we.
    #[arg(long)]
    analyze: bool,
    /// Login of the administrator created for the write scenarios.
    #[arg(long, default_value = "bench-admin")]
    admin_login: String,
    /// Events per transaction.
    #[arg(long, default_value_t = 100_000)]
    batch: usize,
    /// Also write the timings as JSON to this file.
    #[arg(long)]
    summary_json: Option<PathBuf>,
}

#[derive(Args)]
struct ManifestArgs {
    #[arg(long, env = "CALENDAR_DATABASE_URL")]
    database_url: String,
    /// Directory for the files (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// How many event IDs and slugs to sample.
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    #[arg(long, default_value = "bench-admin")]
    admin_login: String,
}

fn parse_count(s: &str) -> std::result::Result<u64, String> {
    let s = s.trim().to_ascii_lowercase().replace('_', "");
    let (digits, factor) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1_000),
        Some('m') => (&s[..s.len() - 1], 1_000_000),
        _ => (s.as_str(), 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s:?} is not a positive count such as 1000, 100k or 1m"))
}

fn main() {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Generate(args) => generate(args).await,
            Command::Manifest(args) => manifest(args).await,
        }
    });
    if let Err(e) = outcome {
        eprintln!("calendar-bench: {e}");
        std::process::exit(1);
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

fn sqlite_path(url: &str) -> PathBuf {
    PathBuf::from(
        url.strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url),
    )
}

async fn pg_connect(url: &str) -> Result<tokio_postgres::Client> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("calendar-bench: PostgreSQL connection: {e}");
        }
    });
    Ok(client)
}

// ---------------------------------------------------------------------------------------
// The administrator the write scenarios authenticate as.

/// Same shape as the secrets `calendar-events user create` issues.
fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The administrator `login` (created if missing) and a new application password for it.
async fn admin_with_password(store: &Store, login: &str) -> Result<(User, String)> {
    let now = chrono::Utc::now().timestamp();
    let existing = {
        let mut conn = store.pool.read().await?;
        users::by_login(&mut conn, login).await?
    };
    let secret = new_secret();
    let mut tx = store.pool.write().await?;
    let user = match existing {
        Some(u) => u,
        None => users::create(&mut tx, login, Role::Administrator, now).await?,
    };
    users::add_secret(
        &mut tx,
        user.id,
        CredentialKind::AppPassword,
        "bench",
        &auth_secret_hash(&secret),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok((user, secret))
}

// ---------------------------------------------------------------------------------------
// What the data looks like.

const CATEGORY_NAMES: &str = "\
    Music, Arts, Theater, Dance, Film, Food & Drink, Sports, Outdoors, Family, Kids,\
    Education, Workshops, Talks, Technology, Business, Community, Charity, Health,\
    Wellness, Markets, Festivals, Nightlife, Comedy, Literature, History, Science,\
    Gardening, Crafts, Faith, Seniors";

/// (child, parent) by index into the categories: a shallow hierarchy, as sites have.
const CATEGORY_PARENTS: [(usize, usize); 9] = [
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

const COMMON_TAGS: &str = "\
    free, outdoor, indoor, family friendly, all ages, 21+, wheelchair accessible,\
    live music, online, weekend, evening, morning, beginners, advanced, members only,\
    sold out, limited seats, registration required, volunteers, fundraiser";

const TAG_COUNT: usize = 200;

// No word below contains "jazz": the search scenario relies on the word appearing only in
// the titles that `event_title` puts it in.
const SEARCH_WORD: &str = "Jazz";
const SEARCH_SHARE: f64 = 0.02;

const ADJECTIVES: &str = "\
    golden, silver, quiet, bright, hidden, grand, little, old, new, northern, southern,\
    eastern, western, royal, urban, rural, sunny, misty, velvet, crystal, ancient, modern,\
    open, secret, wild, gentle, lively, cozy, spring, summer, autumn, winter, midnight,\
    morning, evening, riverside, lakeside, hilltop, downtown, uptown, green, blue, red,\
    amber, scarlet, ivory, silent, roaring, merry, humble, noble, happy, lucky, brave,\
    swift, calm, bold, rustic, vintage, electric";

const NOUNS: &str = "\
    harbor, garden, river, forest, meadow, valley, mountain, market, square, bridge,\
    lantern, castle, tower, orchard, island, canyon, prairie, station, library, museum,\
    gallery, workshop, kitchen, studio, barn, mill, chapel, plaza, pier, lighthouse,\
    courtyard, terrace, pavilion, arena, cellar, loft, greenhouse, vineyard, brewery,\
    bakery, cafe, tavern, park, beach, grove, field, hollow, ridge, creek, fountain, stone,\
    oak, maple, willow, cedar, pine, falcon, fox, heron, comet";

const KINDS: &str = "\
    festival, concert, workshop, meetup, fair, market, class, lecture, tour, exhibition,\
    screening, reading, tasting, night, jam, showcase, gala, parade, race, tournament,\
    retreat, seminar, conference, brunch, picnic, marathon, recital, session, social, camp";

const GENRES: &str = "\
    rock, folk, blues, classical, salsa, techno, opera, poetry, comedy, film, yoga, chess,\
    pottery, painting, photography, gardening, cooking, wine, craft beer, cycling, running,\
    coding, robotics, astronomy, history, science, dance, theater, puppet, storytelling";

const FILLER: &str = "\
    the, a, and, of, to, in, with, for, on, at, join, us, our, your, all, ages, welcome,\
    afternoon, tickets, free, bring, friends, family, enjoy, local, artists, music, food,\
    drinks, special, guests, featuring, experience, celebrate, community, season, annual,\
    first, time, doors, early, seats, limited, register, online, members, discount,\
    children, under, accompanied, adults, parking, available, nearby, accessible, venue,\
    program, includes, talk, followed, by, reception, light, refreshments, served, learn,\
    more, about, history, hands-on, beginners, experts, alike, stories, laughter, together,\
    neighbors, weekend, evening, sunset";

const PLACE_KINDS: &str = "\
    Hall, Theater, Club, Center, Arena, Park, Gallery, Church, Library, Pavilion, Ballroom,\
    Lounge, Stadium, Auditorium, Warehouse";

const ORG_KINDS: &str = "\
    Society, Collective, Productions, Foundation, Association, Club, Guild, Council,\
    Alliance, Company, Trust, Network, Partners, Ensemble, League";

/// The word lists above, split once.
struct Words {
    categories: Vec<&'static str>,
    common_tags: Vec<&'static str>,
    adjectives: Vec<&'static str>,
    nouns: Vec<&'static str>,
    kinds: Vec<&'static str>,
    genres: Vec<&'static str>,
    filler: Vec<&'static str>,
    place_kinds: Vec<&'static str>,
    org_kinds: Vec<&'static str>,
}

static WORDS: LazyLock<Words> = LazyLock::new(|| {
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
const CITIES: [(&str, &str, &str, &str, f64, f64); 16] = [
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
const ZONES: [(&str, f64); 4] = [
    ("UTC", 0.6),
    ("America/New_York", 0.15),
    ("Europe/Paris", 0.15),
    ("America/Los_Angeles", 0.10),
];

const DAY: i64 = 86_400;

fn title_case(words: &[&str]) -> String {
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
struct Skewed {
    cumulative: Vec<f64>,
}

impl Skewed {
    fn new(n: usize, exponent: f64) -> Skewed {
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

    fn pick(&self, rng: &mut SmallRng) -> usize {
        let x: f64 = rng.random();
        self.cumulative
            .partition_point(|c| *c < x)
            .min(self.cumulative.len() - 1)
    }

    /// `k` distinct indexes.
    fn pick_distinct(&self, rng: &mut SmallRng, k: usize, out: &mut Vec<usize>) {
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
struct Slugs(HashMap<String, u32>);

impl Slugs {
    fn unique(&mut self, title: &str) -> String {
        let base = slugify(title);
        let n = self.0.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 { base } else { format!("{base}-{n}") }
    }
}

struct Term {
    id: i64,
    taxonomy: &'static str,
    name: String,
    slug: String,
    description: String,
    parent: i64,
}

/// A venue or organizer.
struct LinkedRow {
    id: i64,
    post_type: &'static str,
    slug: String,
    title: String,
    description: String,
    date_utc: i64,
    address: String,
    city: String,
    country: String,
    state: String,
    zip: String,
    phone: String,
    stateprovince: String,
    website: Option<String>,
    email: String,
    show_map: bool,
    geo_lat: Option<f64>,
    geo_lng: Option<f64>,
}

struct EventRow {
    id: i64,
    status: &'static str,
    password: &'static str,
    slug: String,
    title: String,
    description: String,
    excerpt: String,
    date_utc: i64,
    modified_utc: i64,
    website: Option<String>,
    start_utc: i64,
    end_utc: i64,
    timezone: &'static str,
    all_day: bool,
    cost: String,
    hide: bool,
    sticky: bool,
    featured: bool,
    show_map: bool,
    venue_id: Option<i64>,
    tickets: String,
    organizers: Vec<i64>,
    terms: Vec<i64>,
}

/// How many of everything, and where each kind's IDs start. Posts share one ID sequence
/// (venues, then organizers, then events), as do terms (categories, then tags).
#[derive(Clone, Copy)]
struct Shape {
    events: u64,
    venues: u64,
    organizers: u64,
    author: i64,
    /// Midnight UTC of the day the data is generated; dates spread around it.
    today: i64,
    now: i64,
}

impl Shape {
    fn new(events: u64, author: i64) -> Shape {
        let now = chrono::Utc::now().timestamp();
        Shape {
            events,
            venues: (events / 50).max(1),
            organizers: (events / 100).max(1),
            author,
            today: now - now.rem_euclid(DAY),
            now,
        }
    }
    fn venue_id(&self, i: u64) -> i64 {
        1 + i as i64
    }
    fn organizer_id(&self, i: u64) -> i64 {
        1 + (self.venues + i) as i64
    }
    fn event_id(&self, i: u64) -> i64 {
        1 + (self.venues + self.organizers + i) as i64
    }
    fn category_id(i: usize) -> i64 {
        1 + i as i64
    }
    fn tag_id(i: usize) -> i64 {
        1 + (WORDS.categories.len() + i) as i64
    }
}

struct Gen {
    rng: SmallRng,
    shape: Shape,
    categories: Skewed,
    tags: Skewed,
    event_slugs: Slugs,
    picks: Vec<usize>,
}

impl Gen {
    fn new(seed: u64, shape: Shape) -> Gen {
        Gen {
            rng: SmallRng::seed_from_u64(seed),
            shape,
            categories: Skewed::new(WORDS.categories.len(), 1.0),
            tags: Skewed::new(TAG_COUNT, 0.9),
            event_slugs: Slugs::default(),
            picks: Vec::new(),
        }
    }

    fn one<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.rng.random_range(0..words.len())]
    }

    fn sentence(&mut self, out: &mut String) {
        let n = self.rng.random_range(6..=16);
        for i in 0..n {
            let word = match self.rng.random_range(0..10) {
                0..=4 => self.one(&WORDS.filler),
                5 => self.one(&WORDS.adjectives),
                6 | 7 => self.one(&WORDS.nouns),
                8 => self.one(&WORDS.genres),
                _ => self.one(&WORDS.kinds),
            };
            if i == 0 {
                out.push_str(&title_case(&[word]));
            } else {
                out.push(' ');
                out.push_str(word);
            }
        }
        out.push('.');
    }

    /// HTML paragraphs of generated sentences, about `min..=max` characters long.
    fn paragraphs(&mut self, min: usize, max: usize) -> String {
        let target = self.rng.random_range(min..=max);
        let mut out = String::with_capacity(target + 160);
        while out.len() < target {
            out.push_str("<p>");
            for s in 0..self.rng.random_range(2..=5) {
                if s > 0 {
                    out.push(' ');
                }
                self.sentence(&mut out);
                if out.len() >= target {
                    break;
                }
            }
            out.push_str("</p>\n");
        }
        out
    }

    fn event_title(&mut self) -> String {
        let genre = if self.rng.random_bool(SEARCH_SHARE) {
            SEARCH_WORD
        } else {
            self.one(&WORDS.genres)
        };
        let adjective = self.one(&WORDS.adjectives);
        let noun = self.one(&WORDS.nouns);
        let kind = self.one(&WORDS.kinds);
        match self.rng.random_range(0..3) {
            0 => title_case(&[adjective, genre, kind]),
            1 => format!(
                "{} at the {}",
                title_case(&[genre, kind]),
                title_case(&[adjective, noun])
            ),
            _ => format!(
                "{}: {}",
                title_case(&[noun, genre, kind]),
                title_case(&[adjective, "edition"])
            ),
        }
    }

    fn terms(&mut self) -> Vec<Term> {
        let mut terms = Vec::new();
        for (i, name) in WORDS.categories.iter().enumerate() {
            let parent = CATEGORY_PARENTS
                .iter()
                .find(|(child, _)| *child == i)
                .map_or(0, |(_, p)| Shape::category_id(*p));
            terms.push(Term {
                id: Shape::category_id(i),
                taxonomy: Taxonomy::Category.as_str(),
                name: (*name).to_string(),
                slug: slugify(name),
                description: format!("{name} events"),
                parent,
            });
        }
        let mut names: Vec<String> = WORDS.common_tags.iter().map(|s| s.to_string()).collect();
        while names.len() < TAG_COUNT {
            let name = format!("{} {}", self.one(&WORDS.adjectives), self.one(&WORDS.nouns));
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for (i, name) in names.into_iter().enumerate() {
            terms.push(Term {
                id: Shape::tag_id(i),
                taxonomy: Taxonomy::Tag.as_str(),
                slug: slugify(&name),
                name,
                description: String::new(),
                parent: 0,
            });
        }
        terms
    }

    fn phone(&mut self) -> String {
        format!(
            "+1 555-{:04}-{:04}",
            self.rng.random_range(0..10_000),
            self.rng.random_range(0..10_000)
        )
    }

    fn venues(&mut self) -> Vec<LinkedRow> {
        let mut slugs = Slugs::default();
        (0..self.shape.venues)
            .map(|i| {
                let (city, state, country, zip, lat, lng) =
                    CITIES[self.rng.random_range(0..CITIES.len())];
                let adjective = self.one(&WORDS.adjectives);
                let noun = self.one(&WORDS.nouns);
                let title = format!(
                    "{} {}",
                    title_case(&[adjective, noun]),
                    self.one(&WORDS.place_kinds)
                );
                let slug = slugs.unique(&title);
                let located = self.rng.random_bool(0.7);
                LinkedRow {
                    id: self.shape.venue_id(i),
                    post_type: PostType::Venue.as_str(),
                    website: self
                        .rng
                        .random_bool(0.5)
                        .then(|| format!("https://venues.example.org/{slug}")),
                    description: self.paragraphs(80, 400),
                    date_utc: self.shape.now - self.rng.random_range(DAY..800 * DAY),
                    address: format!(
                        "{} {} Street",
                        self.rng.random_range(1..2000),
                        title_case(&[self.one(&WORDS.nouns)])
                    ),
                    city: city.to_string(),
                    country: country.to_string(),
                    state: if country == "United States" {
                        state.to_string()
                    } else {
                        String::new()
                    },
                    zip: format!("{zip}{:02}", self.rng.random_range(0..100)),
                    phone: self.phone(),
                    stateprovince: state.to_string(),
                    email: String::new(),
                    show_map: true,
                    geo_lat: located.then(|| lat + self.rng.random_range(-0.1..0.1)),
                    geo_lng: located.then(|| lng + self.rng.random_range(-0.1..0.1)),
                    slug,
                    title,
                }
            })
            .collect()
    }

    fn organizers(&mut self) -> Vec<LinkedRow> {
        let mut slugs = Slugs::default();
        (0..self.shape.organizers)
            .map(|i| {
                let title = format!(
                    "{} {}",
                    title_case(&[self.one(&WORDS.nouns), self.one(&WORDS.genres)]),
                    self.one(&WORDS.org_kinds)
                );
                let slug = slugs.unique(&title);
                LinkedRow {
                    id: self.shape.organizer_id(i),
                    post_type: PostType::Organizer.as_str(),
                    website: self
                        .rng
                        .random_bool(0.6)
                        .then(|| format!("https://organizers.example.org/{slug}")),
                    description: self.paragraphs(80, 400),
                    date_utc: self.shape.now - self.rng.random_range(DAY..800 * DAY),
                    address: String::new(),
                    city: String::new(),
                    country: String::new(),
                    state: String::new(),
                    zip: String::new(),
                    phone: self.phone(),
                    stateprovince: String::new(),
                    email: format!("{slug}@organizers.example.org"),
                    show_map: false,
                    geo_lat: None,
                    geo_lng: None,
                    slug,
                    title,
                }
            })
            .collect()
    }

    fn zone(&mut self) -> &'static str {
        let mut x: f64 = self.rng.random();
        for (name, share) in ZONES {
            if x < share {
                return name;
            }
            x -= share;
        }
        "UTC"
    }

    fn cost(&mut self) -> String {
        let values: Vec<String> = match self.rng.random_range(0..100) {
            0..=29 => Vec::new(),
            30..=44 => vec!["Free".into()],
            45..=84 => vec![format!("{}", 5 * self.rng.random_range(1..=20))],
            _ => {
                let low = 5 * self.rng.random_range(1..=10);
                vec![format!(
                    "${low} - ${}",
                    low + 5 * self.rng.random_range(1..=10)
                )]
            }
        };
        if values.is_empty() {
            String::new()
        } else {
            serde_json::to_string(&values).unwrap_or_default()
        }
    }

    fn tickets(&mut self, slug: &str) -> String {
        if !self.rng.random_bool(0.1) {
            return String::new();
        }
        let offers: Vec<serde_json::Value> = (0..self.rng.random_range(1..=2))
            .map(|i| {
                serde_json::json!({
                    "name": if i == 0 { "General admission" } else { "VIP" },
                    "url": format!("https://tickets.example.org/{slug}"),
                    "price": format!("{}.00", 10 * self.rng.random_range(1..=10) * (i + 1)),
                    "currency": "USD",
                })
            })
            .collect();
        serde_json::to_string(&offers).unwrap_or_default()
    }

    fn event(&mut self, i: u64) -> EventRow {
        let title = self.event_title();
        let slug = self.event_slugs.unique(&title);
        // From a year ago to two years ahead: GET /events (today to +2 years) sees two thirds.
        let day = self.shape.today + self.rng.random_range(-365..730) * DAY;
        let all_day = self.rng.random_bool(0.1);
        let (timezone, start_utc, end_utc) = if all_day {
            let days = if self.rng.random_bool(0.2) {
                self.rng.random_range(2..=4)
            } else {
                1
            };
            ("UTC", day, day + days * DAY - 1)
        } else {
            let start = day + self.rng.random_range(16..46) * 1800;
            let length = if self.rng.random_bool(0.05) {
                self.rng.random_range(1..=3) * DAY
            } else {
                self.rng.random_range(2..=8) * 1800
            };
            (self.zone(), start, start + length)
        };
        let date_utc = (start_utc - self.rng.random_range(DAY..120 * DAY)).min(self.shape.now);
        let modified_utc = (date_utc + self.rng.random_range(0..30 * DAY)).min(self.shape.now);
        let status = if self.rng.random_bool(0.05) {
            Status::Draft.as_str()
        } else {
            Status::Publish.as_str()
        };
        let n = self.rng.random_range(1..=3);
        self.categories
            .pick_distinct(&mut self.rng, n, &mut self.picks);
        let mut terms: Vec<i64> = self.picks.iter().map(|c| Shape::category_id(*c)).collect();
        let n = self.rng.random_range(1..=3);
        self.tags.pick_distinct(&mut self.rng, n, &mut self.picks);
        terms.extend(self.picks.iter().map(|t| Shape::tag_id(*t)));
        let wanted = self.rng.random_range(1..=3u64).min(self.shape.organizers);
        let mut organizers = Vec::with_capacity(3);
        while (organizers.len() as u64) < wanted {
            let o = self
                .shape
                .organizer_id(self.rng.random_range(0..self.shape.organizers));
            if !organizers.contains(&o) {
                organizers.push(o);
            }
        }
        EventRow {
            id: self.shape.event_id(i),
            status,
            password: if self.rng.random_bool(0.05) {
                "bench-secret"
            } else {
                ""
            },
            website: self
                .rng
                .random_bool(0.3)
                .then(|| format!("https://events.example.org/{slug}")),
            description: self.paragraphs(200, 2000),
            excerpt: if self.rng.random_bool(0.4) {
                let mut s = String::new();
                self.sentence(&mut s);
                s
            } else {
                String::new()
            },
            date_utc,
            modified_utc,
            start_utc,
            end_utc,
            timezone,
            all_day,
            cost: self.cost(),
            hide: self.rng.random_bool(0.02),
            sticky: self.rng.random_bool(0.01),
            featured: self.rng.random_bool(0.05),
            show_map: self.rng.random_bool(0.8),
            venue_id: self.rng.random_bool(0.95).then(|| {
                self.shape
                    .venue_id(self.rng.random_range(0..self.shape.venues))
            }),
            tickets: self.tickets(&slug),
            organizers,
            terms,
            slug,
            title,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Rows as driver-neutral values, so both loaders share one column list per table.

#[derive(Debug)]
enum Val<'a> {
    Int(i64),
    OptInt(Option<i64>),
    Text(&'a str),
    OptText(Option<&'a str>),
    Bool(bool),
    OptFloat(Option<f64>),
}

impl Val<'_> {
    fn pg_type(&self) -> tokio_postgres::types::Type {
        use tokio_postgres::types::Type;
        match self {
            Val::Int(_) | Val::OptInt(_) => Type::INT8,
            Val::Text(_) | Val::OptText(_) => Type::TEXT,
            Val::Bool(_) => Type::BOOL,
            Val::OptFloat(_) => Type::FLOAT8,
        }
    }
}

impl rusqlite::ToSql for Val<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        match self {
            Val::Int(v) => v.to_sql(),
            Val::OptInt(v) => v.to_sql(),
            Val::Text(v) => v.to_sql(),
            Val::OptText(v) => v.to_sql(),
            Val::Bool(v) => v.to_sql(),
            Val::OptFloat(v) => v.to_sql(),
        }
    }
}

impl tokio_postgres::types::ToSql for Val<'_> {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> std::result::Result<tokio_postgres::types::IsNull, BoxError> {
        match self {
            Val::Int(v) => v.to_sql(ty, out),
            Val::OptInt(v) => v.to_sql(ty, out),
            Val::Text(v) => v.to_sql(ty, out),
            Val::OptText(v) => v.to_sql(ty, out),
            Val::Bool(v) => v.to_sql(ty, out),
            Val::OptFloat(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <i64 as tokio_postgres::types::ToSql>::accepts(ty)
            || <&str as tokio_postgres::types::ToSql>::accepts(ty)
            || <bool as tokio_postgres::types::ToSql>::accepts(ty)
            || <f64 as tokio_postgres::types::ToSql>::accepts(ty)
    }

    tokio_postgres::types::to_sql_checked!();
}

/// A table's columns and how to turn one of its rows into values.
struct Table<R> {
    name: &'static str,
    columns: &'static [&'static str],
    values: for<'a> fn(&'a R, &Shape) -> Vec<Val<'a>>,
}

const TERMS: Table<Term> = Table {
    name: "terms",
    columns: &["id", "taxonomy", "name", "slug", "description", "parent"],
    values: |t, _| {
        vec![
            Val::Int(t.id),
            Val::Text(t.taxonomy),
            Val::Text(&t.name),
            Val::Text(&t.slug),
            Val::Text(&t.description),
            Val::Int(t.parent),
        ]
    },
};

const LINKED: Table<LinkedRow> = Table {
    name: "posts",
    columns: &[
        "id",
        "post_type",
        "author",
        "status",
        "slug",
        "title",
        "description",
        "date_utc",
        "modified_utc",
        "address",
        "city",
        "country",
        "state",
        "zip",
        "phone",
        "stateprovince",
        "website",
        "email",
        "show_map",
        "show_map_link",
        "geo_lat",
        "geo_lng",
    ],
    values: |p, shape| {
        vec![
            Val::Int(p.id),
            Val::Text(p.post_type),
            Val::Int(shape.author),
            Val::Text(Status::Publish.as_str()),
            Val::Text(&p.slug),
            Val::Text(&p.title),
            Val::Text(&p.description),
            Val::Int(p.date_utc),
            Val::Int(p.date_utc),
            Val::Text(&p.address),
            Val::Text(&p.city),
            Val::Text(&p.country),
            Val::Text(&p.state),
            Val::Text(&p.zip),
            Val::Text(&p.phone),
            Val::Text(&p.stateprovince),
            Val::OptText(p.website.as_deref()),
            Val::Text(&p.email),
            Val::Bool(p.show_map),
            Val::Bool(p.show_map),
            Val::OptFloat(p.geo_lat),
            Val::OptFloat(p.geo_lng),
        ]
    },
};

const EVENTS: Table<EventRow> = Table {
    name: "posts",
    columns: &[
        "id",
        "post_type",
        "author",
        "status",
        "password",
        "slug",
        "title",
        "description",
        "excerpt",
        "date_utc",
        "modified_utc",
        "website",
        "start_utc",
        "end_utc",
        "timezone",
        "all_day",
        "cost",
        "hide_from_listings",
        "sticky",
        "featured",
        "show_map",
        "show_map_link",
        "venue_id",
        "tickets",
    ],
    values: |e, shape| {
        vec![
            Val::Int(e.id),
            Val::Text(PostType::Event.as_str()),
            Val::Int(shape.author),
            Val::Text(e.status),
            Val::Text(e.password),
            Val::Text(&e.slug),
            Val::Text(&e.title),
            Val::Text(&e.description),
            Val::Text(&e.excerpt),
            Val::Int(e.date_utc),
            Val::Int(e.modified_utc),
            Val::OptText(e.website.as_deref()),
            Val::OptInt(Some(e.start_utc)),
            Val::OptInt(Some(e.end_utc)),
            Val::Text(e.timezone),
            Val::Bool(e.all_day),
            Val::Text(&e.cost),
            Val::Bool(e.hide),
            Val::Bool(e.sticky),
            Val::Bool(e.featured),
            Val::Bool(e.show_map),
            Val::Bool(e.show_map),
            Val::OptInt(e.venue_id),
            Val::Text(&e.tickets),
        ]
    },
};

/// (event, term) pairs.
const TERM_LINKS: Table<(i64, i64)> = Table {
    name: "term_relationships",
    columns: &["post_id", "term_id"],
    values: |(e, t), _| vec![Val::Int(*e), Val::Int(*t)],
};

/// (event, organizer, position) triples.
const ORGANIZER_LINKS: Table<(i64, i64, i64)> = Table {
    name: "event_organizers",
    columns: &["event_id", "organizer_id", "position"],
    values: |(e, o, p), _| vec![Val::Int(*e), Val::Int(*o), Val::Int(*p)],
};

fn term_links(events: &[EventRow]) -> Vec<(i64, i64)> {
    events
        .iter()
        .flat_map(|e| e.terms.iter().map(move |t| (e.id, *t)))
        .collect()
}

fn organizer_links(events: &[EventRow]) -> Vec<(i64, i64, i64)> {
    events
        .iter()
        .flat_map(|e| {
            e.organizers
                .iter()
                .enumerate()
                .map(move |(p, o)| (e.id, *o, p as i64))
        })
        .collect()
}

/// Term counts as the server keeps them: published events per term, where a scheduled
/// (`future`) event whose date has passed counts as published. Counted in one grouped pass
/// into a temporary table: a correlated subquery per term made SQLite, without statistics,
/// scan every post once per term.
fn count_terms_sql(now: i64) -> String {
    format!(
        "CREATE TEMP TABLE bench_term_counts AS
            SELECT tr.term_id, COUNT(*) AS n
            FROM term_relationships tr JOIN posts p ON p.id = tr.post_id
            WHERE p.post_type = '{event}'
              AND (p.status = '{publish}' OR (p.status = '{future}' AND p.date_utc <= {now}))
            GROUP BY tr.term_id;
         UPDATE terms SET count = COALESCE(
            (SELECT n FROM bench_term_counts c WHERE c.term_id = terms.id), 0);
         DROP TABLE bench_term_counts;",
        event = PostType::Event.as_str(),
        publish = Status::Publish.as_str(),
        future = Status::Future.as_str(),
    )
}

fn count_events_sql() -> String {
    format!(
        "SELECT COUNT(*) FROM posts WHERE post_type = '{}'",
        PostType::Event.as_str()
    )
}

// ---------------------------------------------------------------------------------------
// generate

struct Timings {
    phases: Vec<(&'static str, Duration)>,
    started: Instant,
    last: Instant,
}

impl Timings {
    fn new() -> Timings {
        let now = Instant::now();
        Timings {
            phases: Vec::new(),
            started: now,
            last: now,
        }
    }
    fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.phases.push((phase, now - self.last));
        self.last = now;
    }
}

fn spinner(message: &'static str) -> ProgressBar {
    let pb = ProgressBar::new_spinner().with_message(message);
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

async fn generate(args: GenerateArgs) -> Result<()> {
    let url = args.database_url.clone();
    let postgres = is_postgres(&url);
    if args.replace {
        if postgres {
            pg_connect(&url)
                .await?
                .batch_execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
                .await?;
        } else {
            let path = sqlite_path(&url);
            for suffix in ["", "-wal", "-shm"] {
                let mut p = path.clone().into_os_string();
                p.push(suffix);
                match std::fs::remove_file(&p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                    _ => {}
                }
            }
        }
    }
    let mut timings = Timings::new();
    let store = Store::open(&url).await?;
    debug_assert_eq!(store.backend() == Backend::Postgres, postgres);
    // Explicit IDs from 1 up would collide with existing rows.
    let existing = text_rows(&url, "SELECT CAST(COUNT(*) AS TEXT) FROM posts").await?;
    if existing[0][0] != "0" {
        return Err(format!(
            "the database already holds {} posts; --replace empties it first",
            existing[0][0]
        )
        .into());
    }
    let (admin, password) = admin_with_password(&store, &args.admin_login).await?;
    // The loaders use their own connections; SQLite's journal mode can only change once
    // no other connection has the file open.
    drop(store);
    timings.lap("schema");

    let shape = Shape::new(args.events, admin.id);
    let mut generator = Gen::new(args.seed, shape);
    let terms = generator.terms();
    let venues = generator.venues();
    let organizers = generator.organizers();

    // Text generation runs on its own thread so that it overlaps the database work.
    let chunk = 2_000usize;
    let (tx, rx) = mpsc::channel::<Vec<EventRow>>(8);
    let producer = std::thread::spawn(move || {
        let mut next = 0u64;
        while next < shape.events {
            let end = (next + chunk as u64).min(shape.events);
            let events: Vec<EventRow> = (next..end).map(|i| generator.event(i)).collect();
            if tx.blocking_send(events).is_err() {
                return;
            }
            next = end;
        }
    });

    let pb = ProgressBar::new(args.events).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} events ({per_sec}, eta {eta})",
        )
        .expect("progress template")
        .progress_chars("=> "),
    );
    let load = Load {
        shape,
        terms,
        venues,
        organizers,
        batch: args.batch.max(chunk),
        fts_triggers: args.fts_triggers,
        analyze: args.analyze,
        progress: pb,
    };
    if postgres {
        load_postgres(&url, load, rx, &mut timings).await?;
    } else {
        let path = sqlite_path(&url);
        timings = tokio::task::spawn_blocking(move || {
            load_sqlite(&path, load, rx, &mut timings).map(|()| timings)
        })
        .await??;
        // The venues and organizers the load queued for search (migration 12),
        // indexed as the server's writer indexes its queue, on the store's own
        // connection: the index holds text lowered by the server's `lower()`, which
        // the loader's connection lacks.
        let store = Store::open(&url).await?;
        let mut tx = store.pool.write().await?;
        for sql in calendar_events::store::posts::INDEX_QUEUED_LINKED {
            tx.batch(sql).await?;
        }
        for sql in search_grams_fill(Backend::Sqlite) {
            tx.batch(sql).await?;
        }
        tx.commit().await?;
        drop(store);
        timings.lap("venue and organizer search index");
    }
    producer
        .join()
        .map_err(|_| "the event generator panicked")?;

    let total = timings.started.elapsed();
    let mut line = format!(
        "generated {} events, {} venues, {} organizers, {} categories and {} tags in {:.1} s (",
        shape.events,
        shape.venues,
        shape.organizers,
        WORDS.categories.len(),
        TAG_COUNT,
        total.as_secs_f64()
    );
    for (i, (phase, d)) in timings.phases.iter().enumerate() {
        let _ = write!(
            line,
            "{}{phase} {:.1} s",
            if i > 0 { ", " } else { "" },
            d.as_secs_f64()
        );
    }
    line.push(')');
    println!("{line}");
    if let Some(file) = &args.summary_json {
        let phases: serde_json::Map<String, serde_json::Value> = timings
            .phases
            .iter()
            .map(|(p, d)| ((*p).to_string(), serde_json::json!(d.as_secs_f64())))
            .collect();
        let summary = serde_json::json!({
            "backend": if postgres { "postgres" } else { "sqlite" },
            "events": shape.events,
            "venues": shape.venues,
            "organizers": shape.organizers,
            "seed": args.seed,
            "fts_triggers": args.fts_triggers,
            "seconds": total.as_secs_f64(),
            "phases": phases,
        });
        std::fs::write(file, serde_json::to_string_pretty(&summary)? + "\n")?;
    }
    println!(
        "administrator {} (id {}), application password (shown once):",
        admin.login, admin.id
    );
    println!("{password}");
    Ok(())
}

struct Load {
    shape: Shape,
    terms: Vec<Term>,
    venues: Vec<LinkedRow>,
    organizers: Vec<LinkedRow>,
    batch: usize,
    fts_triggers: bool,
    analyze: bool,
    progress: ProgressBar,
}

// --- SQLite -----------------------------------------------------------------------------

fn sqlite_insert<R>(
    conn: &rusqlite::Connection,
    table: &Table<R>,
    rows: &[R],
    shape: &Shape,
) -> Result<()> {
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        table.name,
        table.columns.join(", "),
        vec!["?"; table.columns.len()].join(", ")
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    for row in rows {
        stmt.execute(rusqlite::params_from_iter((table.values)(row, shape)))?;
    }
    Ok(())
}

fn load_sqlite(
    path: &Path,
    load: Load,
    mut rx: mpsc::Receiver<Vec<EventRow>>,
    timings: &mut Timings,
) -> Result<()> {
    let conn = rusqlite::Connection::open(path)?;
    // Durability is worthless for a data set that is regenerated if the load fails, and a
    // WAL would hold a second copy of everything until the checkpoint.
    conn.execute_batch(
        "PRAGMA journal_mode = MEMORY;
         PRAGMA synchronous = OFF;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -524288;",
    )?;
    let shape = load.shape;
    let fts_triggers: Vec<(String, String)> = if load.fts_triggers {
        Vec::new()
    } else {
        let mut stmt = conn.prepare(
            "SELECT name, sql FROM sqlite_master
             WHERE type = 'trigger' AND tbl_name = 'posts' AND name = 'posts_fts_insert'",
        )?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };

    let key_triggers: Vec<String> = EVENT_KEYS_TRIGGERS
        .iter()
        .chain(&SQLITE_KEYS_TRIGGERS)
        .map(|(_, name)| {
            conn.query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?1",
                [name],
                |r| r.get(0),
            )
        })
        .collect::<rusqlite::Result<_>>()?;
    conn.execute_batch("BEGIN")?;
    for (name, _) in &fts_triggers {
        conn.execute_batch(&format!("DROP TRIGGER {name}"))?;
    }
    for (_, name) in EVENT_KEYS_TRIGGERS.iter().chain(&SQLITE_KEYS_TRIGGERS) {
        conn.execute_batch(&format!("DROP TRIGGER {name}"))?;
    }
    sqlite_insert(&conn, &TERMS, &load.terms, &shape)?;
    sqlite_insert(&conn, &LINKED, &load.venues, &shape)?;
    sqlite_insert(&conn, &LINKED, &load.organizers, &shape)?;
    timings.lap("venues, organizers, terms");

    let mut in_tx = 0usize;
    while let Some(events) = rx.blocking_recv() {
        sqlite_insert(&conn, &EVENTS, &events, &shape)?;
        sqlite_insert(&conn, &TERM_LINKS, &term_links(&events), &shape)?;
        sqlite_insert(&conn, &ORGANIZER_LINKS, &organizer_links(&events), &shape)?;
        in_tx += events.len();
        if in_tx >= load.batch {
            conn.execute_batch("COMMIT; BEGIN")?;
            in_tx = 0;
        }
        load.progress.inc(events.len() as u64);
    }
    load.progress.finish();
    timings.lap("events");

    if !fts_triggers.is_empty() {
        let pb = spinner("search index");
        // What the insert trigger would have done row by row, in one pass. Not
        // `'rebuild'`: that would index venues and organizers too, which the triggers
        // never do. A 256 MiB term buffer (default 1 MiB) means far fewer segments to
        // write and merge; the setting is removed again so the server runs with defaults.
        // `'optimize'` then merges the big segments into one: left unmerged, FTS5's
        // incremental merging would make every later write pay for them (seconds per
        // commit at 1M events).
        conn.execute_batch(&format!(
            "INSERT INTO posts_fts(posts_fts, rank) VALUES ('hashsize', 268435456);
             INSERT INTO posts_fts(rowid, title, excerpt, description)
             SELECT id, title, excerpt, description FROM posts
             WHERE post_type = '{}' ORDER BY id;
             DELETE FROM posts_fts_config WHERE k = 'hashsize';
             INSERT INTO posts_fts(posts_fts) VALUES ('optimize');",
            PostType::Event.as_str()
        ))?;
        for (_, sql) in &fts_triggers {
            conn.execute_batch(sql)?;
        }
        pb.finish_and_clear();
        timings.lap("search index");
    }

    // The counts first: the keys' fill gives the most used terms their bits.
    let pb = spinner("term counts");
    conn.execute_batch(&count_terms_sql(shape.now))?;
    pb.finish_and_clear();
    timings.lap("term counts");

    let pb = spinner("event keys");
    conn.execute_batch(&event_keys_fill_sql(Backend::Sqlite)?)?;
    for sql in &key_triggers {
        conn.execute_batch(sql)?;
    }
    conn.execute_batch("COMMIT")?;
    pb.finish_and_clear();
    timings.lap("event keys");

    let pb = spinner("finishing");
    if load.analyze {
        conn.execute_batch("ANALYZE")?;
    }
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if mode != "wal" {
        return Err(format!("could not switch the database back to WAL (got {mode})").into());
    }
    let events: i64 = conn.query_row(&count_events_sql(), [], |r| r.get(0))?;
    if events as u64 != shape.events {
        return Err(format!("expected {} events, found {events}", shape.events).into());
    }
    pb.finish_and_clear();
    timings.lap("finish");
    Ok(())
}

// --- PostgreSQL -------------------------------------------------------------------------

async fn pg_copy<R>(
    client: &tokio_postgres::Client,
    table: &Table<R>,
    rows: &[R],
    shape: &Shape,
) -> Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let types: Vec<_> = (table.values)(first, shape)
        .iter()
        .map(Val::pg_type)
        .collect();
    let sink = client
        .copy_in(&format!(
            "COPY {} ({}) FROM STDIN (FORMAT binary)",
            table.name,
            table.columns.join(", ")
        ))
        .await?;
    let writer = tokio_postgres::binary_copy::BinaryCopyInWriter::new(sink, &types);
    let mut writer = std::pin::pin!(writer);
    for row in rows {
        let values = (table.values)(row, shape);
        let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = values
            .iter()
            .map(|v| v as &(dyn tokio_postgres::types::ToSql + Sync))
            .collect();
        writer.as_mut().write(&refs).await?;
    }
    writer.finish().await?;
    Ok(())
}

/// Migration 7's fill of `event_keys` and of its summaries, then migration 17's of
/// the terms' ancestors and the keys they give, then migration 18's of the terms'
/// flagged keys, then migration 20's of the per-day counts' blocks, then migration
/// 34's of the terms' bits on the events' own keys and 37's on their term keys, then
/// 41's of the flags' bits on the own keys, for
/// a load made without their triggers: taken from the migrations, so the two cannot
/// drift apart.
fn event_keys_fill_sql(backend: Backend) -> Result<String> {
    let (keys, ancestors, flagged, blocks, bits, key_bits, flag_bits) = match backend {
        Backend::Sqlite => (
            include_str!("../src/store/migrations/sqlite/0007_event_keys.sql"),
            include_str!("../src/store/migrations/sqlite/0017_term_ancestors.sql"),
            include_str!("../src/store/migrations/sqlite/0018_flagged_term_keys.sql"),
            include_str!("../src/store/migrations/sqlite/0020_event_key_blocks.sql"),
            include_str!("../src/store/migrations/sqlite/0034_wider_term_bits.sql"),
            include_str!("../src/store/migrations/sqlite/0037_term_key_bits.sql"),
            include_str!("../src/store/migrations/sqlite/0041_flag_bits.sql"),
        ),
        Backend::Postgres => (
            include_str!("../src/store/migrations/postgres/0007_event_keys.sql"),
            include_str!("../src/store/migrations/postgres/0017_term_ancestors.sql"),
            include_str!("../src/store/migrations/postgres/0018_flagged_term_keys.sql"),
            include_str!("../src/store/migrations/postgres/0020_event_key_blocks.sql"),
            include_str!("../src/store/migrations/postgres/0034_wider_term_bits.sql"),
            include_str!("../src/store/migrations/postgres/0037_term_key_bits.sql"),
            include_str!("../src/store/migrations/postgres/0041_flag_bits.sql"),
        ),
    };
    Ok(format!(
        "DELETE FROM event_keys; DELETE FROM event_key_days; DELETE FROM linked_event_stats;\n{}\n{}\n{}\n{}\n{}\n{}\n{}",
        section(keys, "event_keys", 7)?,
        section(ancestors, "term_ancestors", 17)?,
        section(flagged, "flagged_term_keys", 18)?,
        section(blocks, "event_key_blocks", 20)?,
        section(bits, "term_bits", 34)?,
        section(key_bits, "term_key_bits", 37)?,
        section(flag_bits, "flag_bits", 41)?,
    ))
}

/// Migration 29's rebuild of PostgreSQL's `event_search` with each event's terms, for
/// a load whose keys were filled without the triggers that keep those terms.
fn event_search_terms_fill_sql() -> Result<&'static str> {
    section(
        include_str!("../src/store/migrations/postgres/0029_event_search_terms.sql"),
        "event_search_terms",
        29,
    )
}

/// The part of a migration between its `-- {name}: fill` and `-- {name}: filled`.
fn section<'a>(migration: &'a str, name: &str, version: u32) -> Result<&'a str> {
    let start = migration
        .find(&format!("-- {name}: fill\n"))
        .ok_or(format!("migration {version} lost its fill marker"))?;
    let end = migration
        .find(&format!("-- {name}: filled"))
        .ok_or(format!("migration {version} lost its filled marker"))?;
    Ok(&migration[start..end])
}

/// `event_keys`' triggers, and the insert triggers of its summaries, off during a
/// load they would slow down tenfold (ten keys per event, inserted out of key order;
/// each one updating one of a few million counts). Kept row by row, PostgreSQL's
/// counts would also be left many times their size by the updates of one transaction.
/// The blocks' update and delete triggers too: the fill's sections replace day
/// counts (migrations 17 and 18 delete and add the terms' rows), and the blocks'
/// section then sums the blocks from the days afresh; left on, they updated a block
/// for each of 646,000 day rows at a million events, to no end but a blocks table
/// twelve times its size (142 MB for 71,000 rows on PostgreSQL). The bits' triggers
/// too: the fill's last sections give each event its bits once.
const EVENT_KEYS_TRIGGERS: [(&str, &str); 18] = [
    ("event_keys", "event_key_days_insert"),
    ("event_keys", "event_keys_term_bits_insert"),
    ("event_keys", "event_keys_term_bits_delete"),
    ("event_keys", "event_keys_flag_bits_insert"),
    ("event_keys", "event_keys_flag_bits_delete"),
    ("event_keys", "event_keys_flag_bits_update"),
    ("event_key_days", "event_key_blocks_insert"),
    ("event_key_days", "event_key_blocks_update"),
    ("event_key_days", "event_key_blocks_delete"),
    ("event_keys", "event_keys_term_flags_insert"),
    ("event_keys", "event_keys_flag_terms_insert"),
    ("event_keys", "linked_event_stats_insert"),
    ("posts", "event_keys_insert"),
    ("posts", "event_keys_update"),
    ("term_relationships", "event_keys_term_insert"),
    ("term_relationships", "event_keys_term_delete"),
    ("event_organizers", "event_keys_organizer_insert"),
    ("event_organizers", "event_keys_organizer_delete"),
];

/// SQLite's trigger giving an own key written after its flag keys their bits
/// (PostgreSQL's statement trigger covers both kinds of key).
const SQLITE_KEYS_TRIGGERS: [(&str, &str); 1] = [("event_keys", "event_keys_flag_bits_own")];

/// PostgreSQL's triggers writing each event's terms into `event_search` (SQLite has
/// none): off during the load too, migration 29's rebuild of that table fills them
/// once the keys are in.
const POSTGRES_KEYS_TRIGGERS: [(&str, &str); 2] = [
    ("event_keys", "event_search_terms_insert"),
    ("event_keys", "event_search_terms_delete"),
];

async fn load_postgres(
    url: &str,
    load: Load,
    mut rx: mpsc::Receiver<Vec<EventRow>>,
    timings: &mut Timings,
) -> Result<()> {
    let client = pg_connect(url).await?;
    let shape = load.shape;
    // The trigram GIN index would otherwise be updated row by row; a large pending list
    // lets PostgreSQL merge it in bulk, as its own bulk loads do.
    client
        .batch_execute(
            "SET synchronous_commit = off;
             SET work_mem = '256MB';
             SET maintenance_work_mem = '512MB';
             SET gin_pending_list_limit = '256MB';",
        )
        .await?;
    client.batch_execute("BEGIN").await?;
    for (table, trigger) in EVENT_KEYS_TRIGGERS.iter().chain(&POSTGRES_KEYS_TRIGGERS) {
        client
            .batch_execute(&format!("ALTER TABLE {table} DISABLE TRIGGER {trigger}"))
            .await?;
    }
    for trigger in SEARCH_KEY_TRIGGERS {
        client
            .batch_execute(&format!("ALTER TABLE posts DISABLE TRIGGER {trigger}"))
            .await?;
    }
    pg_copy(&client, &TERMS, &load.terms, &shape).await?;
    pg_copy(&client, &LINKED, &load.venues, &shape).await?;
    pg_copy(&client, &LINKED, &load.organizers, &shape).await?;
    timings.lap("venues, organizers, terms");

    let mut in_tx = 0usize;
    let mut pending: Vec<EventRow> = Vec::new();
    // One COPY per table and batch: each COPY has a fixed cost, so batches stay large.
    let flush = |events: Vec<EventRow>| {
        let client = &client;
        async move {
            pg_copy(client, &EVENTS, &events, &shape).await?;
            pg_copy(client, &TERM_LINKS, &term_links(&events), &shape).await?;
            pg_copy(client, &ORGANIZER_LINKS, &organizer_links(&events), &shape).await?;
            Ok::<_, BoxError>(events.len())
        }
    };
    while let Some(events) = rx.recv().await {
        pending.extend(events);
        if pending.len() >= 10_000 {
            let n = flush(std::mem::take(&mut pending)).await?;
            in_tx += n;
            load.progress.inc(n as u64);
            if in_tx >= load.batch {
                client.batch_execute("COMMIT; BEGIN").await?;
                in_tx = 0;
            }
        }
    }
    let n = flush(pending).await?;
    load.progress.inc(n as u64);
    load.progress.finish();
    timings.lap("events");

    let pb = spinner("term counts");
    // The events of this transaction have their search rows written now rather than at
    // its commit (migration 30's deferred trigger): PostgreSQL refuses to alter a table
    // with trigger events pending, as enabling the triggers below does.
    client
        .batch_execute("SET CONSTRAINTS ALL IMMEDIATE")
        .await?;
    client.batch_execute(&count_terms_sql(shape.now)).await?;
    client
        .batch_execute(&event_keys_fill_sql(Backend::Postgres)?)
        .await?;
    client.batch_execute(event_search_terms_fill_sql()?).await?;
    for (table, trigger) in EVENT_KEYS_TRIGGERS.iter().chain(&POSTGRES_KEYS_TRIGGERS) {
        client
            .batch_execute(&format!("ALTER TABLE {table} ENABLE TRIGGER {trigger}"))
            .await?;
    }
    for sql in search_grams_fill(Backend::Postgres) {
        client.batch_execute(sql).await?;
    }
    for trigger in SEARCH_KEY_TRIGGERS {
        client
            .batch_execute(&format!("ALTER TABLE posts ENABLE TRIGGER {trigger}"))
            .await?;
    }
    // The explicit IDs above bypassed the identity sequences.
    client
        .batch_execute(
            "SELECT setval(pg_get_serial_sequence('posts', 'id'), (SELECT MAX(id) FROM posts));
             SELECT setval(pg_get_serial_sequence('terms', 'id'), (SELECT MAX(id) FROM terms));
             COMMIT;",
        )
        .await?;
    pb.finish_and_clear();
    timings.lap("term counts");

    // The fills above write every key and then rewrite it with its term bits, as the
    // migrations that introduced them did: that leaves the keys' indexes twice their rebuilt
    // size (5.3 GB against 2.6 at 1M), a bloat that only a database upgraded across those
    // migrations has, and that docs/operations.md tells its operator to rebuild away
    // (bench/HISTORY.md, "2026-12-04").
    let pb = spinner("reindex event_keys");
    client.batch_execute("REINDEX TABLE event_keys").await?;
    pb.finish_and_clear();
    timings.lap("reindex");

    // Autovacuum would get there within minutes of the load; doing it now makes the first
    // benchmark run see the same plans and visibility map as later ones.
    let pb = spinner("vacuum analyze");
    client.batch_execute("VACUUM ANALYZE").await?;
    let events: i64 = client.query_one(&count_events_sql(), &[]).await?.get(0);
    if events as u64 != shape.events {
        return Err(format!("expected {} events, found {events}", shape.events).into());
    }
    pb.finish_and_clear();
    timings.lap("finish");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// manifest

/// Rows of a query whose columns are all cast to text, on either backend.
async fn text_rows(url: &str, sql: &str) -> Result<Vec<Vec<String>>> {
    if is_postgres(url) {
        let client = pg_connect(url).await?;
        Ok(client
            .query(sql, &[])
            .await?
            .iter()
            .map(|r| (0..r.len()).map(|i| r.get::<_, String>(i)).collect())
            .collect())
    } else {
        let path = sqlite_path(url);
        let sql = sql.to_string();
        tokio::task::spawn_blocking(move || -> Result<Vec<Vec<String>>> {
            let conn = rusqlite::Connection::open(path)?;
            let mut stmt = conn.prepare(&sql)?;
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| (0..n).map(|i| r.get::<_, String>(i)).collect())?
                .collect::<rusqlite::Result<_>>()?;
            Ok(rows)
        })
        .await?
    }
}

fn write_lines(dir: &Path, name: &str, rows: &[Vec<String>], column: usize) -> Result<()> {
    let mut text = String::new();
    for r in rows {
        text.push_str(&r[column]);
        text.push('\n');
    }
    std::fs::write(dir.join(name), text)?;
    Ok(())
}

/// How many events the manifest offers the `removals` scenario: half to edit, half to
/// remove, more than a 10-second run at 64 connections removes on this hardware.
const REMOVABLE_EVENTS: usize = 50_000;

async fn manifest(args: ManifestArgs) -> Result<()> {
    let url = &args.database_url;
    // As it is: `ab.sh` runs the manifest of each copy before the server measured on
    // it, which may be an older build than this one.
    let store = Store::open_as_is(url).await?;
    let (admin, password) = admin_with_password(&store, &args.admin_login).await?;
    drop(store);
    std::fs::create_dir_all(&args.out)?;
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{password}", admin.login));
    std::fs::write(args.out.join("authorization"), format!("Basic {basic}\n"))?;

    // Published events without a password answer 200 to anyone; a fixed scatter of IDs
    // keeps the sample the same from run to run without clustering it in time.
    let event = PostType::Event.as_str();
    let publish = Status::Publish.as_str();
    let events = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT), slug FROM posts
             WHERE post_type = '{event}' AND status = '{publish}' AND password = ''
             ORDER BY (id * 7919) % 10007, id LIMIT {}",
            args.samples
        ),
    )
    .await?;
    write_lines(&args.out, "event_ids", &events, 0)?;
    write_lines(&args.out, "event_slugs", &events, 1)?;
    // Events the `removals` scenario edits and removes: from the other end of the same
    // scatter, so that at 100k events and more none is one the reads sample.
    let removable = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT) FROM posts
             WHERE post_type = '{event}' AND status = '{publish}' AND password = ''
             ORDER BY (id * 7919) % 10007 DESC, id LIMIT {REMOVABLE_EVENTS}"
        ),
    )
    .await?;
    write_lines(&args.out, "removable_ids", &removable, 0)?;
    let categories = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT), CAST(count AS TEXT) FROM terms
             WHERE taxonomy = '{}' ORDER BY count DESC, id",
            Taxonomy::Category.as_str()
        ),
    )
    .await?;
    write_lines(&args.out, "category_ids", &categories, 0)?;
    let tags = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT) FROM terms WHERE taxonomy = '{}' ORDER BY id",
            Taxonomy::Tag.as_str()
        ),
    )
    .await?;
    write_lines(&args.out, "tag_ids", &tags, 0)?;
    for (post_type, file) in [
        (PostType::Venue.as_str(), "venue_ids"),
        (PostType::Organizer.as_str(), "organizer_ids"),
    ] {
        let rows = text_rows(
            url,
            &format!(
                "SELECT CAST(id AS TEXT) FROM posts
                 WHERE post_type = '{post_type}' AND status = '{publish}' ORDER BY id LIMIT 1000"
            ),
        )
        .await?;
        write_lines(&args.out, file, &rows, 0)?;
    }
    let totals = text_rows(
        url,
        &format!(
            "SELECT CAST(COUNT(*) AS TEXT),
                    CAST(COALESCE(SUM(CASE WHEN status = '{publish}' THEN 1 ELSE 0 END), 0) AS TEXT)
             FROM posts WHERE post_type = '{event}'"
        ),
    )
    .await?;
    let total = |i: usize| -> i64 { totals[0][i].parse().unwrap_or(0) };
    let ids: Vec<String> = events.iter().map(|r| r[0].clone()).collect();
    let sweep_kinds = sweep::write_plan(url, &args.out, &ids).await?;
    let hostile_kinds = hostile::write_plan(url, &args.out, &ids).await?;
    let manifest = serde_json::json!({
        "admin_login": admin.login,
        "sweep_kinds": sweep_kinds,
        "hostile_kinds": hostile_kinds,
        "events": total(0),
        "published_events": total(1),
        "sampled_events": events.len(),
        "top_category": categories.first().map(|c| serde_json::json!({"id": c[0], "count": c[1]})),
    });
    std::fs::write(
        args.out.join("manifest.json"),
        serde_json::to_string_pretty(&manifest)? + "\n",
    )?;
    println!("{}", serde_json::to_string(&manifest)?);
    Ok(())
}
