//! The filter form of the list, month and day views (a plain GET form: it works
//! without JavaScript), the list arguments each view asks the use case for, and
//! the links to the same events as a feed and in the JSON API.

use chrono::{Days, NaiveDate};

use super::text::Tr;
use super::{PageError, Visit};
use crate::api::table::NAMESPACE;
use crate::domain::args::{CategoryListArgs, EventListArgs};
use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;
use crate::http::urls::{Urls, with_query};

/// What a visitor narrowed a view to; the names are the form's, the values the
/// API's (term slugs, venue and organizer IDs).
#[derive(Clone, Debug, Default)]
pub struct Filters {
    pub search: Option<String>,
    pub category: Option<String>,
    pub tag: Option<String>,
    pub venue: Option<String>,
    pub organizer: Option<String>,
}

impl Filters {
    pub fn of(visit: &Visit) -> Filters {
        let get = |name: &str| visit.arg(name).map(str::to_string);
        Filters {
            search: get("search").or_else(|| get("tribe-bar-search")),
            category: get("category"),
            tag: get("tag"),
            venue: get("venue"),
            organizer: get("organizer"),
        }
    }

    pub fn apply(&self, args: &mut EventListArgs) {
        let one = |v: &Option<String>| v.clone().map(|v| vec![v]);
        args.search = self.search.clone();
        args.categories = one(&self.category).or(args.categories.take());
        args.tags = one(&self.tag).or(args.tags.take());
        args.venue = one(&self.venue).or(args.venue.take());
        args.organizer = one(&self.organizer).or(args.organizer.take());
    }

    /// As the form names them: kept by the views' own navigation links.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.named(["search", "category", "tag", "venue", "organizer"])
    }

    /// As the API and the feeds name them.
    pub fn api_pairs(&self) -> Vec<(String, String)> {
        self.named(["search", "categories", "tags", "venue", "organizer"])
    }

    fn named(&self, names: [&str; 5]) -> Vec<(String, String)> {
        let values = [
            &self.search,
            &self.category,
            &self.tag,
            &self.venue,
            &self.organizer,
        ];
        names
            .iter()
            .zip(values)
            .filter_map(|(n, v)| v.as_ref().map(|v| (n.to_string(), v.clone())))
            .collect()
    }
}

/// One option of a select.
pub struct Choice {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

/// A select of the form; left out when there is nothing to choose from.
pub struct Select {
    pub name: &'static str,
    pub label: String,
    pub choices: Vec<Choice>,
}

impl Select {
    /// `options` are `(value, label)`; `chosen` is the value asked for.
    fn new(
        name: &'static str,
        label: String,
        options: Vec<(String, String)>,
        chosen: &Option<String>,
    ) -> Select {
        let choices = options
            .into_iter()
            .map(|(value, label)| Choice {
                selected: chosen.as_deref() == Some(value.as_str()),
                value,
                label,
            })
            .collect();
        Select {
            name,
            label,
            choices,
        }
    }
}

/// The filter form, and where the events it shows can also be had.
pub struct FilterForm {
    pub action: String,
    pub search: String,
    pub selects: Vec<Select>,
    pub filtered: bool,
    pub ical: String,
    pub webcal: String,
    pub json: String,
}

/// Options in each select: the form is a convenience, not an index of the site.
const CHOICES: i64 = 100;

impl FilterForm {
    /// `feed` is the view's feed path and its own arguments (its date).
    pub async fn new(
        visit: &Visit,
        filters: &Filters,
        feed: (&str, Vec<(String, String)>),
    ) -> Result<FilterForm, PageError> {
        let settings = visit.settings();
        let urls = Urls::new(settings, &visit.lang.prefix, NAMESPACE);
        let (feed_path, mut feed_pairs) = feed;
        feed_pairs.extend(filters.api_pairs());
        let json = with_query(&urls.collection("events"), &filters.api_pairs());
        feed_pairs.push(("ical".into(), "1".into()));
        let ical = with_query(
            &format!("{}{}{feed_path}", settings.site_url, visit.lang.prefix),
            &feed_pairs,
        );
        let webcal = ical
            .replacen("https://", "webcal://", 1)
            .replacen("http://", "webcal://", 1);
        Ok(FilterForm {
            action: format!("{}{}", visit.lang.prefix, visit.path),
            search: filters.search.clone().unwrap_or_default(),
            selects: selects(visit, filters).await?,
            filtered: !filters.pairs().is_empty(),
            ical,
            webcal,
            json,
        })
    }
}

async fn selects(visit: &Visit, filters: &Filters) -> Result<Vec<Select>, PageError> {
    let tr = Tr::new(&visit.lang.code);
    let all = [
        Select::new(
            "category",
            tr.t("page-categories"),
            terms(visit, Taxonomy::Category).await?,
            &filters.category,
        ),
        Select::new(
            "tag",
            tr.t("page-tags"),
            terms(visit, Taxonomy::Tag).await?,
            &filters.tag,
        ),
        Select::new(
            "venue",
            tr.t("page-venue"),
            linked(visit, PostType::Venue).await?,
            &filters.venue,
        ),
        Select::new(
            "organizer",
            tr.t("page-organizer"),
            linked(visit, PostType::Organizer).await?,
            &filters.organizer,
        ),
    ];
    Ok(all.into_iter().filter(|s| !s.choices.is_empty()).collect())
}

async fn terms(visit: &Visit, tax: Taxonomy) -> Result<Vec<(String, String)>, PageError> {
    let args = CategoryListArgs {
        page: 1,
        per_page: CHOICES,
        ..Default::default()
    };
    let page = visit
        .app
        .service
        .list_terms(visit.asking(), tax, &args, &[])
        .await?;
    Ok(page.terms.into_iter().map(|t| (t.slug, t.name)).collect())
}

async fn linked(visit: &Visit, t: PostType) -> Result<Vec<(String, String)>, PageError> {
    let most = CHOICES as u64;
    let posts = visit
        .app
        .service
        .linked_choices(visit.asking(), t, most)
        .await?;
    let mut named: Vec<(String, String)> = posts
        .into_iter()
        .map(|p| (p.id.to_string(), p.title))
        .collect();
    named.sort_by_key(|(_, name)| name.to_lowercase());
    Ok(named)
}

/// Every event that runs at some time from `first` to `last` (whole days in the
/// site zone), as the feeds of the day and month views ask for them.
pub fn running(first: NaiveDate, last: NaiveDate, most: u64, look_back: u64) -> EventListArgs {
    let since_days = Days::new(look_back);
    let since = first.checked_sub_days(since_days).unwrap_or(first);
    let until = last.checked_add_days(since_days).unwrap_or(last);
    EventListArgs {
        page: 1,
        per_page: most as i64,
        start_date: Some(format!("{since} 00:00:00")),
        end_date: Some(format!("{until} 23:59:59")),
        starts_before: Some(format!("{} 00:00:00", last.succ_opt().unwrap_or(last))),
        ends_after: Some(format!("{first} 00:00:00")),
        strict_dates: true,
        ..Default::default()
    }
}
