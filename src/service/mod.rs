//! The use cases: one function per thing a client can ask of the calendar (list,
//! read, create, update, trash, restore, delete events, venues, organizers and
//! terms), whatever view it is asked through. Each takes domain types and who
//! asks, decides visibility and permissions, owns its transactions, retries and
//! batching, keeps term counts right, and answers in domain types. The HTTP
//! layer (and any other view) calls these and nothing in `store`.

mod error;
mod events;
pub mod failures;
mod linked;
mod retry;
pub(crate) mod rights;
mod schedule;
mod steps;
mod sync;
mod terms;
pub mod users;

use std::time::Instant;

pub use error::{Error, Refusal};
pub use events::{EventPage, Links, ShownEvent};
pub use linked::{LinkedDraftArgs, LinkedPage};
pub use sync::{SyncPage, Synced};
pub use terms::TermPage;

use crate::domain::permissions::Caller;
use crate::store::Store;
use crate::store::event_batch::CreateBatcher;

/// The calendar's use cases over one database.
pub struct Service {
    store: Store,
    /// Event creates, written in batches under load.
    creates: CreateBatcher,
    /// The site zone: for dates without an offset and the default list window.
    zone: chrono_tz::Tz,
    /// The largest page a list returns.
    per_page_max: u64,
    /// How many matches a search of events, venues or organizers counts.
    search_count_limit: u64,
    search_depth: u64,
    /// When the next scheduled post goes live.
    schedule: schedule::Schedule,
    /// Failed authentications.
    failures: failures::Failures,
    /// Seconds the tombstones of deletes are kept for incremental sync.
    tombstone_retention: i64,
    step_batch: u64,
}

/// Who asks, and when (the second the request is answered for).
#[derive(Clone, Copy)]
pub struct Asking<'a> {
    pub caller: &'a Caller,
    pub now: i64,
    /// What a conditional write asks of the post it changes.
    pub condition: Condition,
    /// The ID a create gives the new item: an import keeping its source's IDs
    /// (`None`: the next free one).
    pub as_id: Option<i64>,
}

impl<'a> Asking<'a> {
    /// A plain request of `caller` at `now`: no condition, no ID of its own.
    pub fn of(caller: &'a Caller, now: i64) -> Asking<'a> {
        Asking {
            caller,
            now,
            condition: Condition::default(),
            as_id: None,
        }
    }
}

/// A conditional write's condition, checked under the write's lock: the post it
/// changes is still at the revision the writer read (`If-Match`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Condition {
    pub if_revision: Option<i64>,
}

impl Condition {
    /// Whether a post at `revision` may be written.
    pub fn check(self, revision: i64) -> Result<(), Error> {
        match self.if_revision {
            Some(expected) if expected != revision => {
                Err(Error::Refused(Refusal::PreconditionFailed))
            }
            _ => Ok(()),
        }
    }
}

impl Service {
    pub fn new(store: Store, settings: &crate::config::Settings) -> Service {
        let failures = failures::Failures::new(
            store.backend(),
            settings.auth_failure_limit,
            settings.auth_failure_window,
        );
        Service {
            creates: CreateBatcher::new(store.pool.clone()),
            store,
            zone: settings.timezone,
            per_page_max: settings.per_page_max,
            search_count_limit: settings.search_count_limit,
            search_depth: settings.search_depth,
            schedule: schedule::Schedule::default(),
            failures,
            tombstone_retention: settings.tombstone_retention_secs,
            step_batch: settings.step_batch.max(1),
        }
    }

    /// Opens (creating and migrating if needed) the database `url` names, for the
    /// server's settings.
    pub async fn open(
        url: &str,
        timeout: Option<std::time::Duration>,
        settings: &crate::config::Settings,
    ) -> Result<Service, Error> {
        let store = Store::open_with(url, &settings.store_options(timeout)).await?;
        Ok(Service::new(store, settings))
    }

    /// Opens the database for the command line's account commands (and migrations).
    pub async fn open_for_admin(url: &str) -> Result<Service, Error> {
        let store = Store::open(url).await?;
        let settings = crate::config::Settings::default();
        Ok(Service::new(store, &settings))
    }

    /// The use cases as the server's settings configure them.
    pub fn configured(store: Store, settings: &crate::config::Settings) -> Service {
        Service::new(store, settings)
    }

    /// The data's version: every committed write, on any instance, changes it.
    pub async fn data_version(&self) -> Result<u64, Error> {
        Ok(self.store.pool.data_version().await?)
    }

    /// What writes changed after `cursor`, up to data version `version` at least,
    /// with the counts of the terms they recounted (as of then or later).
    pub async fn catch_up(
        &self,
        cursor: &mut crate::store::changes::ChangeCursor,
        version: u64,
    ) -> Result<crate::store::changes::CaughtUp, crate::store::StoreError> {
        let mut caught = self.store.pool.catch_up(cursor, version).await?;
        if let Some(changes) = caught.changes.as_ref().filter(|c| !c.terms.is_empty()) {
            let mut conn = self.store.pool.read().await?;
            caught.counts = crate::store::terms::counts(&mut conn, &changes.terms).await?;
        }
        Ok(caught)
    }

    /// When the next scheduled post goes live, after `now`.
    pub async fn next_go_live(&self, now: i64) -> Result<Option<i64>, Error> {
        let mut conn = self.store.pool.read().await?;
        Ok(crate::store::posts::next_go_live(&mut conn, now).await?)
    }
}

/// Runs a request's work with a deadline: SQLite stops its reads there.
pub fn with_deadline<T>(
    deadline: Instant,
    work: impl Future<Output = T>,
) -> impl Future<Output = T> {
    crate::store::db::DEADLINE.scope(deadline, work)
}

impl Service {
    /// The local ID an imported item of this kind and source became, if any.
    pub async fn imported_as(&self, kind: &str, source: &str) -> Result<Option<i64>, Error> {
        let mut conn = self.store.pool.read().await?;
        Ok(crate::store::imports::local_id(&mut conn, kind, source).await?)
    }

    /// Records that an item of this kind and source was imported as `local`.
    pub async fn record_import(&self, kind: &str, source: &str, local: i64) -> Result<(), Error> {
        let mut tx = self.store.pool.write().await?;
        crate::store::imports::record(&mut tx, kind, source, local).await?;
        // Nothing a cached answer is computed from.
        tx.changes(crate::domain::changes::Changes::nothing());
        tx.commit().await?;
        Ok(())
    }

    /// Whether the calendar holds no post and no term yet.
    pub async fn calendar_is_empty(&self) -> Result<bool, Error> {
        let mut conn = self.store.pool.read().await?;
        Ok(crate::store::imports::calendar_is_empty(&mut conn).await?)
    }

    /// Makes the next automatic IDs follow these (`store::imports::number_after`).
    pub async fn number_after(&self, posts: i64, terms: i64) -> Result<(), Error> {
        let mut tx = self.store.pool.write().await?;
        crate::store::imports::number_after(&mut tx, posts, terms).await?;
        tx.changes(crate::domain::changes::Changes::nothing());
        tx.commit().await?;
        Ok(())
    }
}
