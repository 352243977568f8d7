//! The use cases: one function per thing a client can ask of the calendar (list,
//! read, create, update, trash, restore, delete events, venues, organizers and
//! terms), whatever view it is asked through. Each takes domain types and who
//! asks, decides visibility and permissions, owns its transactions, retries and
//! batching, keeps term counts right, and answers in domain types. The HTTP
//! layer (and any other view) calls these and nothing in `store`.

mod error;
mod events;
mod linked;
mod retry;
pub(crate) mod rights;
mod terms;
pub mod users;

use std::time::Instant;

pub use error::{Error, Refusal};
pub use events::{EventPage, ShownEvent};
pub use linked::{LinkedDraftArgs, LinkedPage};
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
}

/// Who asks, and when (the second the request is answered for).
#[derive(Clone, Copy)]
pub struct Asking<'a> {
    pub caller: &'a Caller,
    pub now: i64,
}

impl Service {
    pub fn new(store: Store, zone: chrono_tz::Tz, per_page_max: u64) -> Service {
        Service {
            creates: CreateBatcher::new(store.pool.clone()),
            store,
            zone,
            per_page_max,
        }
    }

    /// Opens (creating and migrating if needed) the database `url` names, for the
    /// server's settings.
    pub async fn open(
        url: &str,
        timeout: Option<std::time::Duration>,
        settings: &crate::config::Settings,
    ) -> Result<Service, Error> {
        let store = Store::open_with_timeout(url, timeout).await?;
        Ok(Service::configured(store, settings))
    }

    /// Opens the database for the command line's account commands (and migrations),
    /// with the default settings.
    pub async fn open_for_admin(url: &str) -> Result<Service, Error> {
        let store = Store::open(url).await?;
        Ok(Service::new(store, chrono_tz::Tz::UTC, 50))
    }

    /// The use cases as the server's settings configure them.
    pub fn configured(store: Store, settings: &crate::config::Settings) -> Service {
        Service::new(store, settings.timezone, settings.per_page_max)
    }

    /// The data's version: every committed write, on any instance, changes it.
    pub async fn data_version(&self) -> Result<u64, Error> {
        Ok(self.store.pool.data_version().await?)
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
