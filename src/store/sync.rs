//! Incremental sync's reads (see `domain::sync`): the changes of one list after
//! a cursor, below the position every reader can trust, and the tombstones kept
//! for it; and the writes it needs that no trigger sees (links dropped with a
//! term or organizer, tombstones forgotten).
//!
//! Positions are stamped by triggers (migration 10). On SQLite they count commits
//! of the single writer. On PostgreSQL a position is the writing transaction's ID,
//! and transactions commit out of ID order, so a read serves only positions
//! below the oldest transaction still running that may write this database: no
//! commit can land behind them.

use sea_query::{Expr, ExprTrait, Order, Query, SelectStatement, SimpleExpr};

use super::schema::{
    ChangeClock, ChangeHorizon, ChangeTombstones, EventOrganizers, Posts, TermRelationships, Terms,
};
use super::{Backend, Conn, StoreError};
use crate::domain::post::PostType;
use crate::domain::sync::{Audience, ChangeRow, Forgotten, SyncCursor};
use crate::domain::term::Taxonomy;

/// Which list's changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeSet {
    Posts(PostType),
    Terms(Taxonomy),
}

impl ChangeSet {
    /// The type or taxonomy name rows and tombstones are kept under.
    fn kind(self) -> &'static str {
        match self {
            ChangeSet::Posts(t) => t.as_str(),
            ChangeSet::Terms(t) => t.as_str(),
        }
    }
}

/// How far a read of changes may go.
#[derive(Clone, Copy, Debug)]
pub struct Horizon {
    /// The first position no reader may serve yet: every change below it has
    /// committed or never will.
    pub below: i64,
    /// Whether every transaction running when the read began has ended: if not,
    /// changes the reader is entitled to may still come below a later horizon.
    pub settled: bool,
}

/// How far a read of changes may go.
///
/// On PostgreSQL that is the oldest transaction still running that may write
/// this database (see [`OLDEST_RUNNING_HERE`]). A read waits (briefly, see
/// [`SETTLE_WAIT`]) for the transactions already running when it began, so that a
/// client reads its own acknowledged writes and a stranger's short transaction
/// does not hold the answer back; a longer one leaves the horizon unsettled, and
/// the answer says more may follow.
pub async fn horizon(conn: &mut Conn) -> Result<Horizon, StoreError> {
    if conn.backend() == Backend::Sqlite {
        let q = Query::select()
            .expr(Expr::col(ChangeClock::Position).add(1))
            .from(ChangeClock::Table)
            .take();
        let below = conn.query_one(&q, |r| r.i64(0)).await?;
        return Ok(Horizon {
            below,
            settled: true,
        });
    }
    let snapshot = Query::select()
        .expr(Expr::cust(OLDEST_RUNNING_HERE))
        .expr(Expr::cust(
            "pg_snapshot_xmax(pg_current_snapshot())::text::bigint",
        ))
        .take();
    let (mut settled, began) = conn
        .query_one(&snapshot, |r| Ok((r.i64(0)?, r.i64(1)?)))
        .await?;
    let deadline = std::time::Instant::now() + SETTLE_WAIT;
    while settled < began && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        settled = conn.query_one(&snapshot, |r| r.i64(0)).await?;
    }
    Ok(Horizon {
        below: settled,
        settled: settled >= began,
    })
}

/// PostgreSQL: the oldest transaction of the statement's snapshot still running,
/// but for those known to run in another database of the cluster (a session's, or
/// a prepared one's), which cannot write this one's rows; the snapshot's end when
/// none is left. Transaction IDs are the cluster's: without that, another
/// application's long migration or bulk load next door would hold every sync read
/// back until it ended. A transaction whose session is hidden or gone by the time
/// the sessions are read is not known to run elsewhere, and holds the horizon as
/// any other (`backend_xid` is the 32-bit form of the snapshot's 64-bit IDs).
const OLDEST_RUNNING_HERE: &str = "COALESCE((\
    SELECT min(x::text::bigint) FROM pg_snapshot_xip(pg_current_snapshot()) AS x \
    WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a \
        WHERE a.datname <> current_database() \
        AND a.backend_xid::text::bigint = x::text::bigint % 4294967296) \
    AND NOT EXISTS (SELECT 1 FROM pg_prepared_xacts p \
        WHERE p.database <> current_database() \
        AND p.transaction::text::bigint = x::text::bigint % 4294967296)), \
    pg_snapshot_xmax(pg_current_snapshot())::text::bigint)";

/// The longest a PostgreSQL read of changes waits for transactions that were
/// running when it began; past it, it answers what has settled.
pub const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// How far tombstones have been forgotten.
pub async fn forgotten(conn: &mut Conn) -> Result<Forgotten, StoreError> {
    conn.query_one(
        Query::select()
            .columns([ChangeHorizon::PrunedThrough, ChangeHorizon::PrunedBeforeUtc])
            .from(ChangeHorizon::Table),
        |r| {
            Ok(Forgotten {
                through_position: r.i64(0)?,
                before_utc: r.i64(1)?,
            })
        },
    )
    .await
}

/// Where reading changes at or after `since` starts: before the first row stamped
/// `margin` seconds earlier (see `domain::sync::START_MARGIN_SECONDS`). One seek of
/// the `changed_utc` indexes.
pub async fn start_at(
    conn: &mut Conn,
    set: ChangeSet,
    since: i64,
    margin: i64,
) -> Result<Option<SyncCursor>, StoreError> {
    let from = since.saturating_sub(margin);
    let (live_changed, live_position, live_kind) = live_columns(set);
    let live = Query::select()
        .expr(live_position.clone())
        .from(live_table(set))
        .and_where(live_kind.eq(set.kind()))
        .and_where(live_changed.clone().gte(from))
        .order_by_expr(live_changed, Order::Asc)
        .order_by_expr(live_position, Order::Asc)
        .limit(1)
        .take();
    let dead = Query::select()
        .column(ChangeTombstones::Position)
        .from(ChangeTombstones::Table)
        .and_where(Expr::col(ChangeTombstones::Kind).eq(set.kind()))
        .and_where(Expr::col(ChangeTombstones::ChangedUtc).gte(from))
        .order_by(ChangeTombstones::ChangedUtc, Order::Asc)
        .order_by(ChangeTombstones::Position, Order::Asc)
        .limit(1)
        .take();
    let a = conn.query_opt(&live, |r| r.i64(0)).await?;
    let b = conn.query_opt(&dead, |r| r.i64(0)).await?;
    Ok(a.into_iter().chain(b).min().map(|p| SyncCursor {
        position: p.saturating_sub(1),
        id: i64::MAX,
    }))
}

fn live_table(set: ChangeSet) -> sea_query::TableRef {
    match set {
        ChangeSet::Posts(_) => Posts::Table.into(),
        ChangeSet::Terms(_) => Terms::Table.into(),
    }
}

/// `changed_utc`, `change_position` and the kind column of the live rows.
fn live_columns(set: ChangeSet) -> (SimpleExpr, SimpleExpr, SimpleExpr) {
    match set {
        ChangeSet::Posts(_) => (
            Expr::col(Posts::ChangedUtc),
            Expr::col(Posts::ChangePosition),
            Expr::col(Posts::PostType),
        ),
        ChangeSet::Terms(_) => (
            Expr::col(Terms::ChangedUtc),
            Expr::col(Terms::ChangePosition),
            Expr::col(Terms::Taxonomy),
        ),
    }
}

/// The two index ranges that together follow a cursor: the rest of its own
/// position, and the positions after it up to `below`. (A row comparison,
/// `(position, id) > cursor`, is one range in theory; SQLite seeks only on the
/// position and filters the IDs one by one, 70 ms into a position of a million
/// migrated rows, against 0.2 ms for these two.)
#[derive(Clone, Copy)]
enum Part {
    SamePosition,
    LaterPositions,
}

fn range(
    part: Part,
    position: SimpleExpr,
    id: SimpleExpr,
    c: SyncCursor,
    below: i64,
) -> SimpleExpr {
    match part {
        Part::SamePosition => position.eq(c.position).and(id.gt(c.id)),
        Part::LaterPositions => position.clone().gt(c.position).and(position.lt(below)),
    }
}

/// Who may learn of a change to a post, as a row filter.
fn audience_filter(
    audience: Audience,
    ever_public: SimpleExpr,
    author: SimpleExpr,
) -> Option<SimpleExpr> {
    match audience {
        Audience::Everything => None,
        Audience::Public => Some(ever_public.eq(true)),
        Audience::PublicOrAuthor(a) => Some(ever_public.eq(true).or(author.eq(a))),
    }
}

/// The first `limit` changes of a list after `cursor` and below `below`, live rows
/// and tombstones in one (position, ID) order, that `audience` may learn of;
/// `since` keeps only changes at or after that instant.
pub async fn changes_after(
    conn: &mut Conn,
    set: ChangeSet,
    cursor: SyncCursor,
    below: i64,
    since: Option<i64>,
    audience: Audience,
    limit: u64,
) -> Result<Vec<ChangeRow>, StoreError> {
    let mut all = Vec::new();
    for part in [Part::SamePosition, Part::LaterPositions] {
        if matches!(part, Part::SamePosition) && cursor.position >= below {
            continue;
        }
        let live = live_changes(set, part, cursor, below, since, audience, limit);
        all.extend(conn.query(&live, |r| change_row(r, false)).await?);
        let dead = tombstones(set, part, cursor, below, since, audience, limit);
        all.extend(conn.query(&dead, |r| change_row(r, true)).await?);
    }
    all.sort_by_key(|c| c.cursor);
    all.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(all)
}

/// A row of either read: position, ID, when it changed.
fn change_row(r: &super::Row<'_>, deleted: bool) -> Result<ChangeRow, StoreError> {
    Ok(ChangeRow {
        cursor: SyncCursor {
            position: r.i64(0)?,
            id: r.i64(1)?,
        },
        changed_utc: r.i64(2)?,
        deleted,
    })
}

fn live_changes(
    set: ChangeSet,
    part: Part,
    cursor: SyncCursor,
    below: i64,
    since: Option<i64>,
    audience: Audience,
    limit: u64,
) -> SelectStatement {
    let (changed, position, kind) = live_columns(set);
    let mut q = Query::select();
    match set {
        ChangeSet::Posts(_) => {
            q.columns([Posts::ChangePosition, Posts::Id, Posts::ChangedUtc])
                .from(Posts::Table);
            if let Some(f) = audience_filter(
                audience,
                Expr::col(Posts::EverPublic),
                Expr::col(Posts::Author),
            ) {
                q.and_where(f);
            }
        }
        ChangeSet::Terms(_) => {
            q.columns([Terms::ChangePosition, Terms::Id, Terms::ChangedUtc])
                .from(Terms::Table);
        }
    }
    let id: SimpleExpr = match set {
        ChangeSet::Posts(_) => Expr::col(Posts::Id),
        ChangeSet::Terms(_) => Expr::col(Terms::Id),
    };
    q.and_where(kind.eq(set.kind())).and_where(range(
        part,
        position.clone(),
        id.clone(),
        cursor,
        below,
    ));
    if let Some(t) = since {
        q.and_where(changed.gte(t));
    }
    q.order_by_expr(position, Order::Asc)
        .order_by_expr(id, Order::Asc)
        .limit(limit)
        .take()
}

fn tombstones(
    set: ChangeSet,
    part: Part,
    cursor: SyncCursor,
    below: i64,
    since: Option<i64>,
    audience: Audience,
    limit: u64,
) -> SelectStatement {
    let col = |c: ChangeTombstones| -> SimpleExpr { Expr::col(c) };
    let mut q = Query::select();
    q.columns([
        ChangeTombstones::Position,
        ChangeTombstones::Id,
        ChangeTombstones::ChangedUtc,
    ])
    .from(ChangeTombstones::Table)
    .and_where(col(ChangeTombstones::Kind).eq(set.kind()))
    .and_where(range(
        part,
        col(ChangeTombstones::Position),
        col(ChangeTombstones::Id),
        cursor,
        below,
    ));
    if let Some(t) = since {
        q.and_where(col(ChangeTombstones::ChangedUtc).gte(t));
    }
    if let Some(f) = audience_filter(
        audience,
        col(ChangeTombstones::EverPublic),
        col(ChangeTombstones::Author),
    ) {
        q.and_where(f);
    }
    q.order_by(ChangeTombstones::Position, Order::Asc)
        .order_by(ChangeTombstones::Id, Order::Asc)
        .limit(limit)
        .take()
}

/// Stamps these posts as changed (through the triggers) without changing them:
/// their links to a term or organizer that is going away are dropped by cascade
/// or in bulk, where no trigger on `posts` sees it.
async fn touch_posts(conn: &mut Conn, which: SimpleExpr) -> Result<(), StoreError> {
    conn.execute(
        Query::update()
            .table(Posts::Table)
            .value(Posts::ChangePosition, Expr::col(Posts::ChangePosition))
            .and_where(which),
    )
    .await?;
    Ok(())
}

/// Before a term is deleted: the posts that carry it change.
pub async fn touch_posts_of_term(conn: &mut Conn, term_id: i64) -> Result<(), StoreError> {
    touch_posts(
        conn,
        Expr::col(Posts::Id).in_subquery(
            Query::select()
                .column(TermRelationships::PostId)
                .from(TermRelationships::Table)
                .and_where(Expr::col(TermRelationships::TermId).eq(term_id))
                .take(),
        ),
    )
    .await
}

/// Before these posts lose a link no trigger on `posts` sees: they change.
pub async fn touch_posts_with_ids(conn: &mut Conn, ids: &[i64]) -> Result<(), StoreError> {
    touch_posts(conn, Expr::col(Posts::Id).is_in(ids.iter().copied())).await
}

/// Before an organizer is unlinked from its events: those events change.
pub async fn touch_events_of_organizer(
    conn: &mut Conn,
    organizer_id: i64,
) -> Result<(), StoreError> {
    touch_posts(
        conn,
        Expr::col(Posts::Id).in_subquery(
            Query::select()
                .column(EventOrganizers::EventId)
                .from(EventOrganizers::Table)
                .and_where(Expr::col(EventOrganizers::OrganizerId).eq(organizer_id))
                .take(),
        ),
    )
    .await
}

/// Forgets the tombstones of deletes before `before_utc`, and records how far,
/// so that a request from before then is told it cannot be answered exactly.
pub async fn forget_before(conn: &mut Conn, before_utc: i64) -> Result<(), StoreError> {
    let last_forgotten = conn
        .query_one(
            Query::select()
                .expr(Expr::col(ChangeTombstones::Position).max())
                .from(ChangeTombstones::Table)
                .and_where(Expr::col(ChangeTombstones::ChangedUtc).lt(before_utc)),
            |r| r.opt_i64(0),
        )
        .await?;
    let Some(through) = last_forgotten else {
        return Ok(());
    };
    let greatest = |c: ChangeHorizon, v: i64| {
        Expr::case(Expr::col(c).lt(v), Expr::val(v)).finally(Expr::col(c))
    };
    conn.execute(
        Query::update()
            .table(ChangeHorizon::Table)
            .value(
                ChangeHorizon::PrunedThrough,
                greatest(ChangeHorizon::PrunedThrough, through),
            )
            .value(
                ChangeHorizon::PrunedBeforeUtc,
                greatest(ChangeHorizon::PrunedBeforeUtc, before_utc),
            ),
    )
    .await?;
    conn.execute(
        Query::delete()
            .from_table(ChangeTombstones::Table)
            .and_where(Expr::col(ChangeTombstones::ChangedUtc).lt(before_utc)),
    )
    .await?;
    Ok(())
}
