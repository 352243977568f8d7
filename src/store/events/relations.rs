//! An event's organizers (in order) and terms: reading its term IDs, and the
//! statements that replace or insert its links, for one event or a batch of them.

use std::collections::HashSet;

use sea_query::{Expr, ExprTrait, Query, UnionType};

use crate::domain::term::Taxonomy;
use crate::store::db::Statement;
use crate::store::schema::{EventOrganizers, TermRelationships, Terms};
use crate::store::{Conn, StoreError, pieces};

/// The term IDs an event has, in both taxonomies.
pub async fn term_ids(conn: &mut Conn, event_id: i64) -> Result<Vec<i64>, StoreError> {
    conn.query(
        Query::select()
            .column(TermRelationships::TermId)
            .from(TermRelationships::Table)
            .and_where(Expr::col(TermRelationships::PostId).eq(event_id)),
        |r| r.i64(0),
    )
    .await
}

/// An event's term IDs (as [`term_ids`]) and its organizers' IDs, in no order,
/// in one statement.
pub async fn term_and_organizer_ids(
    conn: &mut Conn,
    event_id: i64,
) -> Result<(Vec<i64>, Vec<i64>), StoreError> {
    let rows = conn
        .query(
            Query::select()
                .expr(Expr::cust("CAST(0 AS BIGINT)"))
                .column(TermRelationships::TermId)
                .from(TermRelationships::Table)
                .and_where(Expr::col(TermRelationships::PostId).eq(event_id))
                .union(
                    UnionType::All,
                    Query::select()
                        .expr(Expr::cust("CAST(1 AS BIGINT)"))
                        .column(EventOrganizers::OrganizerId)
                        .from(EventOrganizers::Table)
                        .and_where(Expr::col(EventOrganizers::EventId).eq(event_id))
                        .take(),
                ),
            |r| Ok((r.i64(0)?, r.i64(1)?)),
        )
        .await?;
    let (terms, organizers): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(kind, _)| *kind == 0);
    let ids = |rows: Vec<(i64, i64)>| rows.into_iter().map(|(_, id)| id).collect();
    Ok((ids(terms), ids(organizers)))
}

/// The organizers and terms an event write sets; `None` leaves a relation as it is.
#[derive(Default)]
pub struct Relations<'a> {
    pub organizers: Option<&'a [i64]>,
    pub categories: Option<&'a [i64]>,
    pub tags: Option<&'a [i64]>,
}

/// Whether the event already has relations to replace, or was just inserted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    Replace,
    New,
}

/// Writes an event's organizers (in order) and terms: at most one statement to clear
/// each replaced relation and one to insert each, so a new event's links cost two.
pub async fn set_relations(
    conn: &mut Conn,
    event_id: i64,
    rel: &Relations<'_>,
    existing: Existing,
) -> Result<(), StoreError> {
    conn.execute_all(&relation_statements(event_id, rel, existing))
        .await
}

/// The statements [`set_relations`] runs, for callers that send more with them.
pub(in crate::store) fn relation_statements(
    event_id: i64,
    rel: &Relations<'_>,
    existing: Existing,
) -> Vec<Box<dyn Statement>> {
    let mut out: Vec<Box<dyn Statement>> = Vec::new();
    if existing == Existing::Replace {
        if rel.organizers.is_some() {
            out.push(Box::new(
                Query::delete()
                    .from_table(EventOrganizers::Table)
                    .and_where(Expr::col(EventOrganizers::EventId).eq(event_id))
                    .to_owned(),
            ));
        }
        let replaced: Vec<&str> = [
            (rel.categories, Taxonomy::Category),
            (rel.tags, Taxonomy::Tag),
        ]
        .into_iter()
        .filter_map(|(ids, t)| ids.map(|_| t.as_str()))
        .collect();
        if !replaced.is_empty() {
            // Correlated, so it reads only this event's few relationship rows.
            out.push(Box::new(
                Query::delete()
                    .from_table(TermRelationships::Table)
                    .and_where(Expr::col(TermRelationships::PostId).eq(event_id))
                    .and_where(crate::store::exists(
                        Query::select()
                            .expr(Expr::cust("1"))
                            .from(Terms::Table)
                            .and_where(
                                Expr::col((Terms::Table, Terms::Id))
                                    .equals((TermRelationships::Table, TermRelationships::TermId)),
                            )
                            .and_where(Expr::col((Terms::Table, Terms::Taxonomy)).is_in(replaced))
                            .take(),
                    ))
                    .to_owned(),
            ));
        }
    }
    let terms = distinct_terms(rel);
    out.extend(insert_relations([(
        event_id,
        rel.organizers.unwrap_or_default(),
        terms.as_slice(),
    )]));
    out
}

/// Inserts linking new events to their organizers (in order, each once) and to their
/// terms (`(event, organizers, distinct terms)`), in `store::pieces` of rows.
pub(in crate::store) fn insert_relations<'a>(
    events: impl IntoIterator<Item = (i64, &'a [i64], &'a [i64])>,
) -> Vec<Box<dyn Statement>> {
    let mut organizers: Vec<[sea_query::Value; 3]> = Vec::new();
    let mut terms: Vec<[sea_query::Value; 2]> = Vec::new();
    for (event_id, organizer_ids, term_ids) in events {
        let mut seen = HashSet::new();
        for (pos, id) in organizer_ids
            .iter()
            .filter(|id| seen.insert(**id))
            .enumerate()
        {
            organizers.push([event_id.into(), (*id).into(), (pos as i64).into()]);
        }
        terms.extend(term_ids.iter().map(|id| [event_id.into(), (*id).into()]));
    }
    let mut out: Vec<Box<dyn Statement>> = Vec::new();
    for rows in pieces(&organizers) {
        let mut insert = Query::insert();
        insert.into_table(EventOrganizers::Table).columns([
            EventOrganizers::EventId,
            EventOrganizers::OrganizerId,
            EventOrganizers::Position,
        ]);
        for row in rows {
            insert.values_panic(row.iter().cloned().map(Expr::val));
        }
        out.push(Box::new(insert));
    }
    for rows in pieces(&terms) {
        let mut insert = Query::insert();
        insert
            .into_table(TermRelationships::Table)
            .columns([TermRelationships::PostId, TermRelationships::TermId]);
        for row in rows {
            insert.values_panic(row.iter().cloned().map(Expr::val));
        }
        out.push(Box::new(insert));
    }
    out
}

/// The terms a write names, each once, in the order given.
pub fn distinct_terms(rel: &Relations<'_>) -> Vec<i64> {
    let mut seen = HashSet::new();
    rel.categories
        .into_iter()
        .chain(rel.tags)
        .flatten()
        .copied()
        .filter(|id| seen.insert(*id))
        .collect()
}
