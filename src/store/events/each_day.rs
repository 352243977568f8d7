//! The lists of many days alike but for their dates: a busy month's grid, each
//! day's first events and how many run that day.

use sea_query::{Alias, Expr, ExprTrait, Query, SelectStatement};

use super::keys::{Weighed, aggregate_window, driver_mask};
use super::list::{listed_as_planned, page_ids, planned_keys, search_keys, span_of, span_select};
use super::search;
use super::word_index::with_lookups;
use crate::domain::event::{EventFilter, Total};
use crate::domain::event_keys::KeyFilter;
use crate::store::event_count::{running_days, union};
use crate::store::posts::col;
use crate::store::schema::{EventKeys, Posts};
use crate::store::{Conn, StoreError};

/// The IDs of the first page of each of `eqs`, in list order, and its total:
/// lists alike but for their dates, whose keys are planned once, from the first (a
/// filter of terms is weighed by a read of its terms' counts, which no date
/// changes). Days the per-day counts count whole (a UTC site's, without a search)
/// are read at once ([`at_once`]), and so are a search's ([`searched_at_once`]);
/// others one list at a time.
pub async fn list_ids_each(
    conn: &mut Conn,
    eqs: &[EventFilter],
) -> Result<Vec<(Vec<i64>, Total)>, StoreError> {
    let Some(first) = eqs.first() else {
        return Ok(Vec::new());
    };
    // The days' lists search the same words.
    let first = &*with_lookups(conn, first).await?;
    let with_first_lookups = |eq: &EventFilter| EventFilter {
        search_pieces: first.search_pieces.clone(),
        search_pieces_share: first.search_pieces_share,
        search_unindexed: first.search_unindexed.clone(),
        ..eq.clone()
    };
    let eqs: Vec<EventFilter> = eqs.iter().map(with_first_lookups).collect();
    let eqs = &eqs[..];
    let Some((keys, terms)) = planned_keys(conn, first).await? else {
        return Ok(eqs.iter().map(|_| (Vec::new(), Total::exact(0))).collect());
    };
    let all = if first.search_words.is_empty() {
        at_once(conn, eqs, &keys, terms).await?
    } else {
        let keys = search_keys(first, keys.clone(), terms);
        searched_at_once(conn, eqs, &keys).await?
    };
    if let Some(each) = all {
        return Ok(each);
    }
    let mut each = Vec::with_capacity(eqs.len());
    for eq in eqs {
        let (spans, total, _) =
            listed_as_planned(conn, eq, keys.clone(), terms, span_select(), span_of).await?;
        each.push((spans.iter().map(|s| s.id).collect(), total));
    }
    Ok(each)
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
) -> Result<Option<Vec<(Vec<i64>, Total)>>, StoreError> {
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
            let mut page = Query::select();
            page.from(Posts::Table)
                .columns([(Posts::Table, Posts::Id), (Posts::Table, Posts::StartUtc)])
                .and_where(col(Posts::Id).in_subquery(ids));
            pages.push(tagged(place, page));
        }
    }
    let days = read_tagged(conn, pages, eqs.len()).await?;
    Ok(Some(
        days.into_iter()
            .zip(counts)
            .map(|(ids, count)| (ids, Total::exact(count)))
            .collect(),
    ))
}

/// Every day's first matches of a search, in one statement: a compound of each
/// day's walk of its window in list order, up to one match past its count limit
/// (a few dozen events of a day where the words are common), each match's start
/// read from its key. `None` when a day's driver has several values.
async fn searched_at_once(
    conn: &mut Conn,
    eqs: &[EventFilter],
    keys: &[KeyFilter],
) -> Result<Option<Vec<(Vec<i64>, Total)>>, StoreError> {
    let backend = conn.backend();
    let mut pages = Vec::with_capacity(eqs.len());
    for (place, eq) in eqs.iter().enumerate() {
        let Some(matches) = search::counted_matches(backend, eq, keys) else {
            return Ok(None);
        };
        let w = Alias::new("w");
        let mut page = Query::select();
        page.columns([
            (w.clone(), EventKeys::EventId),
            (w.clone(), EventKeys::StartUtc),
        ])
        .from_subquery(matches, w);
        pages.push(tagged(place, page));
    }
    let days = read_tagged(conn, pages, eqs.len()).await?;
    Ok(Some(
        days.into_iter()
            .zip(eqs)
            .map(|(mut ids, eq)| {
                let total = search::day_total(eq, ids.len());
                ids.truncate(usize::try_from(eq.per_page).unwrap_or(usize::MAX));
                (ids, total)
            })
            .collect(),
    ))
}

/// `page` (an ID and a start a row) with the place of its day, a third column.
fn tagged(place: usize, mut page: SelectStatement) -> SelectStatement {
    // Typed: PostgreSQL takes a parameter alone in a compound's column as text.
    page.expr(Expr::cust(format!("CAST({place} AS BIGINT)")));
    page
}

/// The IDs of `pages` ([`tagged`]), read as one compound statement, each day's in
/// list order.
async fn read_tagged(
    conn: &mut Conn,
    pages: Vec<SelectStatement>,
    days: usize,
) -> Result<Vec<Vec<i64>>, StoreError> {
    let mut each: Vec<Vec<(i64, i64)>> = (0..days).map(|_| Vec::new()).collect();
    if let Some(all) = union(pages) {
        let rows = conn
            .one_plan()
            .query(&all, |r| {
                Ok((r.i64(0)?, r.opt_i64(1)?.unwrap_or(0), r.i64(2)?))
            })
            .await?;
        for (id, start, place) in rows {
            if let Some(day) = usize::try_from(place).ok().and_then(|p| each.get_mut(p)) {
                day.push((start, id));
            }
        }
    }
    Ok(each
        .into_iter()
        .map(|mut day| {
            day.sort_unstable();
            day.into_iter().map(|(_, id)| id).collect()
        })
        .collect())
}
