//! The lists of many days alike but for their dates: a busy month's grid, each
//! day's first events and how many run that day.

use sea_query::{Expr, ExprTrait, SelectStatement};

use super::keys::{Weighed, aggregate_window, driver_mask};
use super::list::{listed_as_planned, page_ids, planned_keys, search_keys, span_of, span_select};
use super::search;
use crate::domain::event::{EventFilter, EventSpan, Total};
use crate::domain::event_keys::KeyFilter;
use crate::store::event_count::{running_days, union};
use crate::store::posts::col;
use crate::store::schema::Posts;
use crate::store::{Conn, StoreError};

/// As `list_spans`, for each of `eqs`: lists alike but for their dates, whose
/// keys are planned once, from the first (a filter of terms is weighed by a read
/// of its terms' counts, which no date changes). Days the per-day counts count
/// whole (a UTC site's, without a search) are read at once ([`at_once`]), and so
/// are a search's ([`searched_at_once`]); others one list at a time.
pub async fn list_spans_each(
    conn: &mut Conn,
    eqs: &[EventFilter],
) -> Result<Vec<(Vec<EventSpan>, Total)>, StoreError> {
    let Some(first) = eqs.first() else {
        return Ok(Vec::new());
    };
    let Some((keys, terms)) = planned_keys(conn, first).await? else {
        return Ok(eqs.iter().map(|_| (Vec::new(), Total::exact(0))).collect());
    };
    let at_once = if first.search_words.is_empty() {
        at_once(conn, eqs, &keys, terms).await?
    } else {
        let keys = search_keys(first, keys.clone(), terms);
        searched_at_once(conn, eqs, &keys).await?
    };
    if let Some(each) = at_once {
        return Ok(each);
    }
    let mut each = Vec::with_capacity(eqs.len());
    for eq in eqs {
        let (spans, total, _) =
            listed_as_planned(conn, eq, keys.clone(), terms, span_select(), span_of).await?;
        each.push((spans, total));
    }
    Ok(each)
}

/// Whether the words of `eq`'s search are common among its window's events: a
/// view of many days then reads each day's first matches ([`list_spans_each`])
/// rather than placing them all.
pub async fn search_is_common(conn: &mut Conn, eq: &EventFilter) -> Result<bool, StoreError> {
    if eq.search_words.is_empty() {
        return Ok(false);
    }
    let Some((keys, terms)) = planned_keys(conn, eq).await? else {
        return Ok(false);
    };
    let keys = search_keys(eq, keys, terms);
    search::common(conn, eq, &keys).await
}

/// Every day's count, from the per-day counts read once (`event_count::running_days`),
/// then every day's first events, in one statement: a compound of each day's page
/// as its list reads it, tagged with the day's place. PostgreSQL plans it once per
/// connection ([`Conn::one_plan`]): each day's page is a walk of the start index
/// from the look-back, whatever the day, and planned for its values at every
/// request a month's 42 pages cost 10-14 ms to plan and 7 to run (at a million
/// events), where one at a time they cost 0.45 ms a day. `None` when the counts do
/// not serve the days.
async fn at_once(
    conn: &mut Conn,
    eqs: &[EventFilter],
    keys: &[KeyFilter],
    terms: Option<Weighed>,
) -> Result<Option<Vec<(Vec<EventSpan>, Total)>>, StoreError> {
    let windows: Option<Vec<_>> = eqs.iter().map(|eq| aggregate_window(eq, keys)).collect();
    let Some(windows) = windows else {
        return Ok(None);
    };
    let Some(counts) = running_days(conn, &windows).await? else {
        return Ok(None);
    };
    let lookups = terms.map_or(0, |n| n.lookups());
    let mut pages = Vec::new();
    for (place, (eq, count)) in eqs.iter().zip(&counts).enumerate() {
        let mask = driver_mask(conn, eq, keys, lookups).await?;
        if let Some(ids) = page_ids(conn, eq, keys, *count, mask).await? {
            pages.push(tagged_page(place, ids));
        }
    }
    let spans = tagged(conn, pages, eqs.len()).await?;
    Ok(Some(
        spans
            .into_iter()
            .zip(counts)
            .map(|(mut day, count)| {
                day.sort_unstable_by_key(|s| (s.start_utc, s.id));
                (day, Total::exact(count))
            })
            .collect(),
    ))
}

/// Every day's first matches of a search, in one statement: a compound of each
/// day's walk of its window in list order, up to one match past its count limit
/// (a few dozen events of a day where the words are common). `None` when a day's
/// driver has several values.
async fn searched_at_once(
    conn: &mut Conn,
    eqs: &[EventFilter],
    keys: &[KeyFilter],
) -> Result<Option<Vec<(Vec<EventSpan>, Total)>>, StoreError> {
    let backend = conn.backend();
    let mut pages = Vec::with_capacity(eqs.len());
    for (place, eq) in eqs.iter().enumerate() {
        let Some(ids) = search::counted_matches(backend, eq, keys) else {
            return Ok(None);
        };
        pages.push(tagged_page(place, ids));
    }
    let spans = tagged(conn, pages, eqs.len()).await?;
    Ok(Some(
        spans
            .into_iter()
            .zip(eqs)
            .map(|(mut day, eq)| {
                day.sort_unstable_by_key(|s| (s.start_utc, s.id));
                let total = search::day_total(eq, day.len());
                day.truncate(usize::try_from(eq.per_page).unwrap_or(usize::MAX));
                (day, total)
            })
            .collect(),
    ))
}

/// The spans of the posts `ids`, each tagged with the day's place.
fn tagged_page(place: usize, ids: SelectStatement) -> SelectStatement {
    let mut page = span_select();
    // Typed: PostgreSQL takes a parameter alone in a compound's column as text.
    page.expr(Expr::cust(format!("CAST({place} AS BIGINT)")))
        .and_where(col(Posts::Id).in_subquery(ids));
    page
}

/// The spans of `pages`, a compound of pages tagged with their day's place
/// ([`tagged_page`]), read as one statement, each day's in no order.
async fn tagged(
    conn: &mut Conn,
    pages: Vec<SelectStatement>,
    days: usize,
) -> Result<Vec<Vec<EventSpan>>, StoreError> {
    let mut spans: Vec<Vec<EventSpan>> = (0..days).map(|_| Vec::new()).collect();
    let Some(all) = union(pages) else {
        return Ok(spans);
    };
    let rows = conn
        .one_plan()
        .query(&all, |r| Ok((r.i64(4)?, span_of(r)?)))
        .await?;
    for (place, span) in rows {
        if let Some(day) = usize::try_from(place).ok().and_then(|p| spans.get_mut(p)) {
            day.push(span);
        }
    }
    Ok(spans)
}
