//! Creating events in batches: many new events in one transaction and a fixed
//! handful of statements.
//!
//! On its own, a create costs a transaction and about ten statements (the slug
//! lookup, the insert, its relations, the term counts, the commit), and on
//! PostgreSQL every flight of them is a round trip. Under load most of that is
//! per-statement and per-transaction overhead, paid by the database and the server
//! alike. So creates queue here: batches are written one after another (two at
//! once on PostgreSQL), and the creates that arrive meanwhile make up the next,
//! which writes them all with a statement of each kind per 64 rows. At low load a batch
//! holds one create and costs what a create always did; under load the overhead is
//! paid once per batch (measured in `bench/HISTORY.md`).
//!
//! A batch that fails before its commit has written nothing, and its creates are
//! told to write themselves alone, so that each gets its own answer (an error of
//! one create never fails the others). A batch whose commit fails fails all of
//! them: whether it was written cannot be known, and writing again could
//! duplicate it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use sea_query::{Expr, ExprTrait, InsertStatement, Query, Value};
use tokio::sync::oneshot;

use super::db::{self, CommitError, Statement, Unsettled};
use super::events::{self, Footprint, event_from_row};
use super::posts;
use super::schema::Posts;
use super::{Backend, Conn, Pool, StoreError, pieces};
use crate::domain::changes::{Changes, EventState, public_by_status};
use crate::domain::event::Event;
use crate::domain::post::{PostChanges, PostType};
use crate::domain::slug;

/// The most creates one batch writes; bounds its statements' size and its latency.
const MAX_BATCH: usize = 64;

/// Batches written at once. SQLite has one writer, so a second batch would only
/// wait for it, and take creates the first could have written: one. PostgreSQL
/// writes two at once, as it does the batches of several instances: each batch
/// first takes the locks of `events::lock_shared_rows` in one order, so two that would
/// write a shared row (a per-day count, a block, a venue's or an organizer's
/// summary) wait for each other there rather than deadlock half-way through their
/// triggers.
fn runners(backend: Backend) -> usize {
    match backend {
        Backend::Sqlite => 1,
        Backend::Postgres => 2,
    }
}

/// Bound values a batch may hold; both backends take well over this many
/// (SQLite 32,766, PostgreSQL 65,535) even when one more create overshoots it.
const MAX_VALUES: usize = 16_384;

/// A new event, validated, with everything it links to already existing.
pub struct NewEvent {
    pub post: PostChanges,
    /// Its own columns (dates, venue, …), as `events::EventRow::values` gives them.
    pub columns: Vec<(Posts, Value)>,
    pub organizers: Vec<i64>,
    /// Categories and tags, each once.
    pub terms: Vec<i64>,
    /// Whether it counts as published for its terms' counts.
    pub counted: bool,
    /// The moment of its request: its publication date when it gives none.
    pub now: i64,
}

impl NewEvent {
    /// Where its keys are counted (`events::lock_shared_rows`).
    fn footprint(&self) -> Footprint<'_> {
        Footprint::of_columns(&self.columns, &self.organizers)
    }

    /// Roughly how many values it binds.
    fn values(&self) -> usize {
        24 + self.columns.len() + 3 * self.organizers.len() + 2 * self.terms.len()
    }
}

/// A created event, and the counts of the terms its batch linked, as committed.
pub struct Created {
    pub event: Event,
    pub counts: Arc<HashMap<i64, i64>>,
}

/// Why a batch did not create an event.
#[derive(Debug)]
pub enum BatchError {
    /// Nothing of the batch was written: the create should be written alone.
    NotWritten,
    /// The batch's commit failed; whether it was written is unknown.
    Failed(String),
}

/// Queues creates and writes them in batches, [`runners`] at a time.
pub struct CreateBatcher {
    pool: Pool,
    queue: Arc<Mutex<Queue>>,
    runners: usize,
}

#[derive(Default)]
struct Queue {
    /// Batches being written (each one's task also writes a next one).
    running: usize,
    waiting: Vec<Member>,
}

struct Member {
    event: NewEvent,
    reply: oneshot::Sender<Result<(Created, Unsettled), BatchError>>,
    /// Its request's SQLite step counter (`db::SQLITE_VM_STEPS`), if it counts them.
    vm_steps: Option<Arc<AtomicU64>>,
}

impl CreateBatcher {
    pub fn new(pool: Pool) -> CreateBatcher {
        CreateBatcher {
            runners: runners(pool.backend()),
            pool,
            queue: Arc::default(),
        }
    }

    /// Writes `event` with the next batch, and returns once it may be acknowledged.
    /// The write goes on if the caller stops waiting for it.
    pub async fn create(&self, event: NewEvent) -> Result<Created, BatchError> {
        let (created, settled) = self.create_unsettled(event).await?;
        // Each create waits out its batch's commit itself: the batch's task goes
        // on to the next batch meanwhile.
        settled.settle().await;
        Ok(created)
    }

    async fn create_unsettled(&self, event: NewEvent) -> Result<(Created, Unsettled), BatchError> {
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            queue.waiting.push(Member {
                event,
                reply,
                vm_steps: db::vm_step_counter(),
            });
            let start = queue.running < self.runners;
            if start {
                queue.running += 1;
            }
            start
        };
        if start {
            tokio::spawn(run(self.pool.clone(), self.queue.clone()));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(BatchError::Failed("the create batch was abandoned".into())))
    }
}

/// Writes batches until no create is waiting.
async fn run(pool: Pool, queue: Arc<Mutex<Queue>>) {
    /// Should this task be dropped half-way (the runtime shutting down), it no
    /// longer counts as running, so that the next create starts another.
    struct Running(Arc<Mutex<Queue>>, bool);
    impl Drop for Running {
        fn drop(&mut self) {
            if self.1 {
                self.0.lock().unwrap_or_else(|e| e.into_inner()).running -= 1;
            }
        }
    }
    let mut running = Running(queue.clone(), true);
    loop {
        // Requests already under way get to join first: a larger batch costs less per
        // create, and an idle server loses nothing by it.
        tokio::task::yield_now().await;
        let batch = {
            let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
            if q.waiting.is_empty() {
                // Under the lock that queued creates check, so none is left unwritten.
                q.running -= 1;
                running.1 = false;
                return;
            }
            let (mut take, mut values) = (0, 0);
            while take < q.waiting.len() && take < MAX_BATCH && values < MAX_VALUES {
                values += q.waiting[take].event.values();
                take += 1;
            }
            q.waiting.drain(..take).collect::<Vec<_>>()
        };
        // A batch's steps count for the first of its creates that counts them (tests
        // measure one create at a time).
        let vm_steps = batch.iter().find_map(|m| m.vm_steps.clone());
        let (events, replies): (Vec<NewEvent>, Vec<_>) =
            batch.into_iter().map(|m| (m.event, m.reply)).unzip();
        match db::counting_vm_steps(vm_steps, write(&pool, &events)).await {
            Ok((created, counts, settled)) => {
                tracing::trace!(creates = created.len(), "create batch written");
                let counts = Arc::new(counts);
                for (event, reply) in created.into_iter().zip(replies) {
                    let created = Created {
                        event,
                        counts: counts.clone(),
                    };
                    let _ = reply.send(Ok((created, settled)));
                }
            }
            Err(e) => {
                if let BatchError::Failed(reason) = &e {
                    tracing::warn!(%reason, creates = events.len(), "a create batch failed");
                }
                for reply in replies {
                    let _ = reply.send(Err(match &e {
                        BatchError::NotWritten => BatchError::NotWritten,
                        BatchError::Failed(reason) => BatchError::Failed(reason.clone()),
                    }));
                }
            }
        }
    }
}

type Written = (Vec<Event>, HashMap<i64, i64>, Unsettled);

async fn write(pool: &Pool, events: &[NewEvent]) -> Result<Written, BatchError> {
    let not_written = |e: StoreError| {
        tracing::debug!(error = %e, creates = events.len(), "a create batch is written one by one");
        BatchError::NotWritten
    };
    let mut tx = pool.write().await.map_err(not_written)?;
    let (stored, links) = insert_many(&mut tx, events).await.map_err(not_written)?;
    let recounted = events.iter().filter(|e| e.counted).flat_map(|e| &e.terms);
    tx.changes(Changes::events(
        stored.iter().map(|e| e.post.id),
        recounted.copied(),
        stored.iter().zip(events).map(|(e, new)| {
            EventState::new((e.start_utc, e.end_utc), new.terms.iter().copied())
                .with_text(&e.post.title, &e.post.excerpt, &e.post.description)
                .with_links(e.venue_id, &new.organizers)
                .listed(
                    e.post.id,
                    public_by_status(&e.post.status, e.hide_from_listings),
                    true,
                )
        }),
    ));
    if !links.counts.is_empty() {
        events::lock_counts(&mut tx).await.map_err(not_written)?;
    }
    let (counts, settled) = tx
        .commit_after_unsettled(&links.statements, &links.counts, events::count_from_row)
        .await
        .map_err(|e| match e {
            CommitError::NotCommitted(e) => not_written(e),
            CommitError::Unknown(e) => BatchError::Failed(e.to_string()),
        })?;
    Ok((stored, counts.into_iter().collect(), settled))
}

/// What links new events once they are inserted: their relations, and the
/// increments of their terms' counts, which return the counts.
pub struct Links {
    pub statements: Vec<Box<dyn Statement>>,
    pub counts: Vec<Box<dyn Statement>>,
}

/// Inserts `events` in the caller's transaction and returns them as stored, in
/// order, with what links them (to run last, with the commit: see
/// `Tx::commit_after`). One flight of inserts: one per `store::pieces` of up to 64
/// rows, and per set of columns the events set (clients send one shape, so
/// usually one).
pub async fn insert_many(
    conn: &mut Conn,
    events: &[NewEvent],
) -> Result<(Vec<Event>, Links), StoreError> {
    // A batch inserts its events in pieces, each piece's triggers writing the shared
    // rows in their own order: the locks order it with every other writer.
    events::lock_shared_rows(conn, events.iter().map(NewEvent::footprint)).await?;
    let slugs = unique_slugs(conn, events).await?;
    let inserts = grouped_inserts(events, &slugs);
    let inserted = conn.query_all(&inserts, event_from_row).await?;
    let stored = in_slug_order(inserted, &slugs)?;
    let statements = events::insert_relations(
        stored
            .iter()
            .zip(events)
            .map(|(s, e)| (s.post.id, e.organizers.as_slice(), e.terms.as_slice())),
    );
    let mut gained: BTreeMap<i64, i64> = BTreeMap::new();
    for e in events.iter().filter(|e| e.counted) {
        for term in &e.terms {
            *gained.entry(*term).or_default() += 1;
        }
    }
    let counts = events::add_to_counts(&gained);
    Ok((stored, Links { statements, counts }))
}

/// The inserts of `events` under `slugs`: rows setting the same columns together,
/// in pieces of one insert each.
fn grouped_inserts(events: &[NewEvent], slugs: &[String]) -> Vec<Box<dyn Statement>> {
    let mut rows: Vec<Option<Vec<(Posts, Value)>>> = events
        .iter()
        .zip(slugs)
        .map(|(e, slug)| {
            Some(posts::insert_values(
                PostType::Event,
                &e.post,
                None,
                e.columns.clone(),
                e.now,
                slug.clone(),
            ))
        })
        .collect();
    // Rows go in the order of the per-day counts' key, which the insert's triggers
    // update: concurrent batches on PostgreSQL then lock those rows in one order,
    // instead of deadlocking on a pair of days each holds.
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&i| events[i].footprint().days());
    let mut inserts: Vec<Box<dyn Statement>> = Vec::new();
    for (n, &i) in order.iter().enumerate() {
        let Some(first) = rows[i].take() else {
            continue;
        };
        // The rows that set the same columns as this one, in pieces of one insert each.
        let columns: Vec<Posts> = first.iter().map(|(c, _)| *c).collect();
        let mut group = vec![first];
        for &j in &order[n + 1..] {
            let same = rows[j]
                .as_ref()
                .is_some_and(|r| r.iter().map(|(c, _)| *c).eq(columns.iter().copied()));
            if same && let Some(row) = rows[j].take() {
                group.push(row);
            }
        }
        for piece in pieces(&group) {
            inserts.push(Box::new(insert_posts(&columns, piece)));
        }
    }
    inserts
}

/// The inserted events in the order of their `slugs`.
fn in_slug_order(inserted: Vec<Event>, slugs: &[String]) -> Result<Vec<Event>, StoreError> {
    let index: HashMap<&str, usize> = slugs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut stored: Vec<Option<Event>> = slugs.iter().map(|_| None).collect();
    // Neither backend promises RETURNING's order; the slugs are unique.
    for event in inserted {
        let at = index
            .get(event.post.slug.as_str())
            .copied()
            .ok_or_else(|| {
                StoreError::Internal(format!("inserted an unexpected slug {}", event.post.slug))
            })?;
        stored[at] = Some(event);
    }
    stored
        .into_iter()
        .map(|e| e.ok_or_else(|| StoreError::Internal("an inserted event was not returned".into())))
        .collect()
}

/// One insert of these rows, which all set `columns`, returning them as stored.
fn insert_posts(columns: &[Posts], rows: &[Vec<(Posts, Value)>]) -> InsertStatement {
    let mut insert = Query::insert();
    insert.into_table(Posts::Table).columns(columns.to_vec());
    for row in rows {
        insert.values_panic(row.iter().map(|(_, v)| Expr::val(v.clone())));
    }
    insert.returning(Query::returning().exprs(events::returning_events()));
    insert
}

/// A unique slug for each event, chosen in order, as one create after another
/// would: one statement reads every base's family.
async fn unique_slugs(conn: &mut Conn, events: &[NewEvent]) -> Result<Vec<String>, StoreError> {
    let bases: Vec<String> = events
        .iter()
        .map(|e| posts::slug_base(PostType::Event, &posts::wanted_slug(&e.post)))
        .collect();
    let mut distinct: Vec<&str> = bases.iter().map(String::as_str).collect();
    // Sorted, so writers on other instances take the locks in the same order.
    distinct.sort_unstable();
    distinct.dedup();
    for base in &distinct {
        conn.lock_key(&posts::slug_lock(PostType::Event, base))
            .await?;
    }
    let mut scope = Query::select();
    scope
        .column(Posts::Slug)
        .from(Posts::Table)
        .and_where(Expr::col(Posts::PostType).eq(PostType::Event.as_str()));
    let families: Vec<Box<dyn Statement>> = pieces(&distinct)
        .map(|bases| {
            let mut parts = bases
                .iter()
                .flat_map(|base| posts::slug_family_parts(&scope, Posts::Slug, base));
            let mut family = parts.next().expect("a piece is never empty");
            for part in parts {
                family.union(sea_query::UnionType::All, part);
            }
            Box::new(family) as Box<dyn Statement>
        })
        .collect();
    let mut taken: HashSet<String> = conn
        .query_all(&families, |r| r.string(0))
        .await?
        .into_iter()
        .collect();
    Ok(bases
        .iter()
        .map(|base| {
            let slug = slug::unique_in(base, |s| taken.contains(s));
            taken.insert(slug.clone());
            slug
        })
        .collect())
}
