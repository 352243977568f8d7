//! The list views: upcoming events (`/`, `/events/`, `/events/list/`, paginated
//! with `?page=N`) and one day (`/events/today/`, `/events/YYYY-MM-DD/`).

use askama::Template;
use chrono::{Days, NaiveDate};

use super::archive::Details;
use super::chrome::Chrome;
use super::filters::{self, FilterForm, Filters};
use super::text::Tr;
use super::views::{DayGroup, EventItem, MonthGroup, group};
use super::{PageError, Visit, dates};
use crate::domain::args::EventListArgs;
use crate::http::urls::with_query;
use crate::service::{Links, ShownEvent};

/// The list page and every view built like it (day, archives).
#[derive(Template)]
#[template(path = "list.html")]
pub struct ListPage {
    pub chrome: Chrome,
    pub heading: String,
    /// Above the events, when the page is about something else first.
    pub events_heading: Option<String>,
    pub details: Option<Details>,
    pub groups: Vec<MonthGroup>,
    pub pager: Pager,
    pub form: Option<FilterForm>,
}

/// The links to the neighbouring pages, days or months.
#[derive(Default)]
pub struct Pager {
    pub previous: Option<Link>,
    pub next: Option<Link>,
    pub label: Option<String>,
}

pub struct Link {
    pub href: String,
    pub text: String,
}

/// `GET /events/`
pub async fn upcoming(visit: &Visit) -> Result<String, PageError> {
    let tr = Tr::new(&visit.lang.code);
    let filters = Filters::of(visit);
    let (groups, pager) = upcoming_events(visit, &filters, EventListArgs::default()).await?;
    let form = FilterForm::new(visit, &filters, ("/events/", Vec::new())).await?;
    let heading = tr.t("page-upcoming");
    Ok(ListPage::filtered(visit, heading, groups, pager, form).render()?)
}

impl ListPage {
    /// A view of events only, with its filter form.
    pub fn filtered(
        visit: &Visit,
        heading: String,
        groups: Vec<MonthGroup>,
        pager: Pager,
        form: FilterForm,
    ) -> ListPage {
        ListPage {
            chrome: visit.chrome(heading.clone()),
            heading,
            events_heading: None,
            details: None,
            groups,
            pager,
            form: Some(form),
        }
    }
}

/// The `?page=N` asked for (the first when none).
fn page_number(visit: &Visit) -> Result<i64, PageError> {
    match visit.arg("page") {
        None => Ok(1),
        Some(n) => n
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or(PageError::NotFound),
    }
}

/// One page of upcoming events, narrowed by `base` (an archive's term, venue or
/// organizer) and the visitor's filters, grouped by month and day.
pub async fn upcoming_events(
    visit: &Visit,
    filters: &Filters,
    base: EventListArgs,
) -> Result<(Vec<MonthGroup>, Pager), PageError> {
    let tr = Tr::new(&visit.lang.code);
    let page = page_number(visit)?;
    let settings = visit.settings();
    let mut args = EventListArgs {
        page,
        per_page: settings.per_page_default as i64,
        ..base
    };
    filters.apply(&mut args);
    let found = visit
        .app
        .service
        .list_events_showing(visit.asking(), &args, settings.per_page_max, Links::Venues)
        .await?;
    let items = items(visit, &tr, &found.events);
    // A search's floor total has more after it: one more event makes its next page,
    // short of the matches a search pages through.
    let shown_total = found.total + u64::from(found.total_at_least && !found.at_search_depth);
    let last_page = shown_total.div_ceil(settings.per_page_default.max(1)) as i64;
    let link = |n: i64, key: &str| {
        let mut pairs = filters.pairs();
        if n > 1 {
            pairs.push(("page".into(), n.to_string()));
        }
        Link {
            href: with_query(&format!("{}{}", visit.lang.prefix, visit.path), &pairs),
            text: tr.t(key),
        }
    };
    let pager = Pager {
        previous: (page > 1).then(|| link(page - 1, "page-previous-events")),
        next: (page < last_page).then(|| link(page + 1, "page-next-events")),
        label: (last_page > 1).then(|| tr.with("page-page-of", &format!("{page} / {last_page}"))),
    };
    Ok((group(tr.lang(), items), pager))
}

/// The entries of a listing (the use case already leaves out the events hidden
/// from listings).
pub fn items(visit: &Visit, tr: &Tr, shown: &[ShownEvent]) -> Vec<EventItem> {
    let zone = visit.settings().timezone;
    shown
        .iter()
        .map(|s| EventItem::new(s, tr, &visit.lang.prefix, zone))
        .collect()
}

/// Events a day's page lists; a busier day has more pages.
const DAY_PAGE: u64 = 50;

/// `GET /events/YYYY-MM-DD/`, `/events/today/`: the day's events, a page of
/// [`DAY_PAGE`] at a time (`?page=N`). Its pager walks through the day's pages,
/// then on to the next or previous day.
pub async fn day(visit: &Visit, day: Option<NaiveDate>) -> Result<String, PageError> {
    let tr = Tr::new(&visit.lang.code);
    let day = day.unwrap_or_else(|| visit.today());
    let filters = Filters::of(visit);
    let page = page_number(visit)?;
    let window = (day, day);
    let (events, total) = running_page(visit, &tr, &filters, window, DAY_PAGE, page).await?;
    let long = dates::long_date(tr.lang(), day);
    let groups = match events.is_empty() {
        true => Vec::new(),
        false => vec![MonthGroup {
            label: dates::month_year(tr.lang(), day),
            days: vec![DayGroup {
                label: long.clone(),
                date: day.to_string(),
                events,
            }],
        }],
    };
    let link = |d: NaiveDate, n: i64, key: &str| {
        let mut pairs = filters.pairs();
        if n > 1 {
            pairs.push(("page".into(), n.to_string()));
        }
        Link {
            href: with_query(&visit_path(visit, &format!("/events/{d}/")), &pairs),
            text: tr.t(key),
        }
    };
    let last_page = total.div_ceil(DAY_PAGE).max(1) as i64;
    let pager = Pager {
        previous: match page {
            1 => day.pred_opt().map(|d| link(d, 1, "page-previous-day")),
            n => Some(link(day, n - 1, "page-previous-events")),
        },
        next: match page < last_page {
            true => Some(link(day, page + 1, "page-next-events")),
            false => day
                .checked_add_days(Days::new(1))
                .map(|d| link(d, 1, "page-next-day")),
        },
        label: (last_page > 1).then(|| tr.with("page-page-of", &format!("{page} / {last_page}"))),
    };
    let feed = (
        "/events/day/",
        vec![("tribe-bar-date".into(), day.to_string())],
    );
    let form = FilterForm::new(visit, &filters, feed).await?;
    let heading = tr.with("page-events-on", &long);
    Ok(ListPage::filtered(visit, heading, groups, pager, form).render()?)
}

/// Page `page` of the events (by start) that run on some day from `first` to
/// `last`, `per_page` a page, as the filters narrow them, and how many there are
/// in all.
async fn running_page(
    visit: &Visit,
    tr: &Tr,
    filters: &Filters,
    (first, last): (NaiveDate, NaiveDate),
    per_page: u64,
    page: i64,
) -> Result<(Vec<EventItem>, u64), PageError> {
    let mut args = filters::running(first, last, per_page, visit.look_back().await?);
    args.page = page;
    filters.apply(&mut args);
    let found = visit
        .app
        .service
        .list_events_showing(visit.asking(), &args, per_page, Links::Venues)
        .await?;
    // A search's floor total counts as one more, so that the day reads on.
    let total = found.total + u64::from(found.total_at_least);
    Ok((items(visit, tr, &found.events), total))
}

/// A path in the visit's language.
pub fn visit_path(visit: &Visit, path: &str) -> String {
    format!("{}{path}", visit.lang.prefix)
}
