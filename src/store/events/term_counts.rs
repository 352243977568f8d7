//! `terms.count`, the published events of each term, kept right by increments as
//! events are written, under one lock so that concurrent writers neither deadlock
//! nor overwrite each other's counts.

use std::collections::BTreeMap;

use sea_query::{CaseStatement, Expr, ExprTrait, Query};

use crate::store::db::Statement;
use crate::store::schema::Terms;
use crate::store::{Conn, Row, StoreError, pieces};

/// Serialises the writers that change term counts, until their transactions end.
///
/// An `UPDATE … WHERE id IN …` locks its rows in the order its scan meets them,
/// and on a table as small as `terms` PostgreSQL scans it whole, in an order that
/// changes as updates move rows: two writers whose terms overlap could lock them in
/// opposite orders and deadlock (a one-second stall before PostgreSQL notices).
/// Callers take this first and change counts last, just before the commit, so it
/// is held briefly.
pub(in crate::store) async fn lock_counts(conn: &mut Conn) -> Result<(), StoreError> {
    conn.lock_key("term-counts").await
}

/// Adds to each term's count the events it `gained`, returning each term's count as
/// it then is (see [`count_from_row`]). Meant last in a transaction (see
/// `Tx::commit_after`), so that PostgreSQL holds these busy rows only until the
/// commit. The caller holds [`lock_counts`].
pub(in crate::store) fn add_to_counts(gained: &BTreeMap<i64, i64>) -> Vec<Box<dyn Statement>> {
    change_counts(gained, true)
}

/// Adds `deltas` to the terms' counts, in [`pieces`] of terms; none when there are
/// none. The caller holds [`lock_counts`].
pub(super) fn change_counts(
    deltas: &BTreeMap<i64, i64>,
    returning: bool,
) -> Vec<Box<dyn Statement>> {
    let deltas: Vec<(i64, i64)> = deltas.iter().map(|(id, n)| (*id, *n)).collect();
    pieces(&deltas)
        .map(|piece| {
            let first = piece[0].1;
            let by = if piece.iter().all(|(_, n)| *n == first) {
                Expr::val(first)
            } else {
                let mut case = CaseStatement::new();
                for (id, n) in piece {
                    // Typed, or PostgreSQL takes a CASE of bare parameters for text.
                    case = case.case(
                        Expr::col(Terms::Id).eq(*id),
                        Expr::val(*n).cast_as("BIGINT"),
                    );
                }
                case.finally(0).into()
            };
            let mut update = Query::update();
            update
                .table(Terms::Table)
                .value(Terms::Count, Expr::col(Terms::Count).add(by))
                .and_where(Expr::col(Terms::Id).is_in(piece.iter().map(|(id, _)| *id)));
            if returning {
                update.returning(Query::returning().columns([Terms::Id, Terms::Count]));
            }
            Box::new(update) as Box<dyn Statement>
        })
        .collect()
}

/// Writes a new event's organizers and terms, and the counts of its terms when it
/// counts as published, then commits: on PostgreSQL the count updates travel with
/// the `COMMIT`. Returns each counted term's count as it then is.
pub async fn commit_new_event_links(
    mut tx: crate::store::Tx,
    event_id: i64,
    relations: &super::Relations<'_>,
    counted: bool,
) -> Result<Vec<(i64, i64)>, StoreError> {
    let stmts = super::relation_statements(event_id, relations, super::Existing::New);
    let gained: BTreeMap<i64, i64> = match counted {
        true => super::distinct_terms(relations)
            .into_iter()
            .map(|id| (id, 1))
            .collect(),
        false => BTreeMap::new(),
    };
    let increments = add_to_counts(&gained);
    if !increments.is_empty() {
        lock_counts(&mut tx).await?;
    }
    tx.commit_after(&stmts, &increments, count_from_row)
        .await
        .map_err(StoreError::from)
}

/// A term and its count, as [`add_to_counts`] returns them.
pub(in crate::store) fn count_from_row(r: &Row<'_>) -> Result<(i64, i64), StoreError> {
    Ok((r.i64(0)?, r.i64(1)?))
}

/// Keeps `terms.count` (published events per term) right after a change:
/// terms the event counted for lose one, terms it counts for now gain one.
/// Increments rather than recounts, so concurrent writers on PostgreSQL cannot
/// overwrite each other's counts.
pub async fn adjust_counts(
    conn: &mut Conn,
    before: (&[i64], bool),
    after: (&[i64], bool),
) -> Result<(), StoreError> {
    let statements = count_statements(before, after);
    if !statements.is_empty() {
        lock_counts(conn).await?;
    }
    conn.execute_all(&statements).await
}

/// The statements [`adjust_counts`] runs.
fn count_statements(before: (&[i64], bool), after: (&[i64], bool)) -> Vec<Box<dyn Statement>> {
    let mut delta: BTreeMap<i64, i64> = BTreeMap::new();
    if before.1 {
        for id in before.0 {
            *delta.entry(*id).or_default() -= 1;
        }
    }
    if after.1 {
        for id in after.0 {
            *delta.entry(*id).or_default() += 1;
        }
    }
    delta.retain(|_, n| *n != 0);
    change_counts(&delta, false)
}
