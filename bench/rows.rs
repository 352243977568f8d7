//! The rows of the calendar, generated: terms, venues, organizers and events, from a seed.

use calendar_events::domain::post::{PostType, Status};
use calendar_events::domain::slug::slugify;
use calendar_events::domain::term::Taxonomy;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::vocabulary::{
    CATEGORY_PARENTS, CITIES, DAY, FESTIVAL_WORD, SEARCH_SHARE, SEARCH_WORD, Skewed, Slugs,
    TAG_COUNT, WORDS, ZONES, festival_day, title_case,
};

pub(crate) struct Term {
    pub(crate) id: i64,
    pub(crate) taxonomy: &'static str,
    pub(crate) name: String,
    pub(crate) slug: String,
    pub(crate) description: String,
    pub(crate) parent: i64,
}

/// A venue or organizer.
pub(crate) struct LinkedRow {
    pub(crate) id: i64,
    pub(crate) post_type: &'static str,
    pub(crate) slug: String,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) date_utc: i64,
    pub(crate) address: String,
    pub(crate) city: String,
    pub(crate) country: String,
    pub(crate) state: String,
    pub(crate) zip: String,
    pub(crate) phone: String,
    pub(crate) stateprovince: String,
    pub(crate) website: Option<String>,
    pub(crate) email: String,
    pub(crate) show_map: bool,
    pub(crate) geo_lat: Option<f64>,
    pub(crate) geo_lng: Option<f64>,
}

pub(crate) struct EventRow {
    pub(crate) id: i64,
    pub(crate) status: &'static str,
    pub(crate) password: &'static str,
    pub(crate) slug: String,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) excerpt: String,
    pub(crate) date_utc: i64,
    pub(crate) modified_utc: i64,
    pub(crate) website: Option<String>,
    pub(crate) start_utc: i64,
    pub(crate) end_utc: i64,
    pub(crate) timezone: &'static str,
    pub(crate) all_day: bool,
    pub(crate) cost: String,
    pub(crate) hide: bool,
    pub(crate) sticky: bool,
    pub(crate) featured: bool,
    pub(crate) show_map: bool,
    pub(crate) venue_id: Option<i64>,
    pub(crate) tickets: String,
    pub(crate) organizers: Vec<i64>,
    pub(crate) terms: Vec<i64>,
}

/// How many of everything, and where each kind's IDs start. Posts share one ID sequence
/// (venues, then organizers, then events), as do terms (categories, then tags).
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) events: u64,
    pub(crate) venues: u64,
    pub(crate) organizers: u64,
    pub(crate) author: i64,
    /// Midnight UTC of the day the data is generated; dates spread around it.
    pub(crate) today: i64,
    pub(crate) now: i64,
}

impl Shape {
    pub(crate) fn new(events: u64, author: i64) -> Shape {
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
    pub(crate) fn venue_id(&self, i: u64) -> i64 {
        1 + i as i64
    }
    pub(crate) fn organizer_id(&self, i: u64) -> i64 {
        1 + (self.venues + i) as i64
    }
    pub(crate) fn event_id(&self, i: u64) -> i64 {
        1 + (self.venues + self.organizers + i) as i64
    }
    pub(crate) fn category_id(i: usize) -> i64 {
        1 + i as i64
    }
    pub(crate) fn tag_id(i: usize) -> i64 {
        1 + (WORDS.categories.len() + i) as i64
    }
}

pub(crate) struct Gen {
    pub(crate) rng: SmallRng,
    pub(crate) shape: Shape,
    pub(crate) categories: Skewed,
    pub(crate) tags: Skewed,
    pub(crate) event_slugs: Slugs,
    pub(crate) picks: Vec<usize>,
}

impl Gen {
    pub(crate) fn new(seed: u64, shape: Shape) -> Gen {
        Gen {
            rng: SmallRng::seed_from_u64(seed),
            shape,
            categories: Skewed::new(WORDS.categories.len(), 1.0),
            tags: Skewed::new(TAG_COUNT, 0.9),
            event_slugs: Slugs::default(),
            picks: Vec::new(),
        }
    }

    pub(crate) fn one<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.rng.random_range(0..words.len())]
    }

    pub(crate) fn sentence(&mut self, out: &mut String) {
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
    pub(crate) fn paragraphs(&mut self, min: usize, max: usize) -> String {
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

    pub(crate) fn event_title(&mut self) -> String {
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

    pub(crate) fn terms(&mut self) -> Vec<Term> {
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

    pub(crate) fn phone(&mut self) -> String {
        format!(
            "+1 555-{:04}-{:04}",
            self.rng.random_range(0..10_000),
            self.rng.random_range(0..10_000)
        )
    }

    pub(crate) fn venues(&mut self) -> Vec<LinkedRow> {
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

    pub(crate) fn organizers(&mut self) -> Vec<LinkedRow> {
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

    pub(crate) fn zone(&mut self) -> &'static str {
        let mut x: f64 = self.rng.random();
        for (name, share) in ZONES {
            if x < share {
                return name;
            }
            x -= share;
        }
        "UTC"
    }

    pub(crate) fn cost(&mut self) -> String {
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

    pub(crate) fn tickets(&mut self, slug: &str) -> String {
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

    pub(crate) fn event(&mut self, i: u64) -> EventRow {
        let mut title = self.event_title();
        // From a year ago to two years ahead: GET /events (today to +2 years) sees two thirds.
        let day = self.shape.today + self.rng.random_range(-365..730) * DAY;
        if i.is_multiple_of(2) && festival_day(day) {
            title = format!("{FESTIVAL_WORD} {title}");
        }
        let slug = self.event_slugs.unique(&title);
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
