//! Scheduled posts go live at their date: the first request at or after it, on any
//! instance, publishes them (and counts them in their terms) before it reads
//! anything, so no reader ever sees a scheduled post listed while its counts lag.

use tokio::sync::Mutex;

use super::{Error, Service};
use crate::store::events;

/// When the next scheduled post is due, as of one data version.
#[derive(Default)]
pub struct Schedule {
    known: Mutex<Option<(u64, Option<i64>)>>,
}

impl Service {
    /// Publishes the scheduled posts due by `now`, if there are any. Cheap when none
    /// is due: the next due moment is kept per data version, so it is looked up
    /// again only after a write (on any instance).
    pub async fn publish_due(&self, now: i64) -> Result<(), Error> {
        let version = self.store.pool.data_version().await?;
        let mut known = self.schedule.known.lock().await;
        if let Some((v, next)) = *known
            && v == version
            && next.is_none_or(|due| now < due)
        {
            return Ok(());
        }
        let next = {
            let mut conn = self.store.pool.read().await?;
            events::next_due(&mut conn).await?
        };
        if next.is_some_and(|due| due <= now) {
            let mut tx = self.store.pool.write().await?;
            let published = events::publish_due(&mut tx, now).await?;
            tx.commit().await?;
            tracing::debug!(published, "scheduled posts went live");
            // The write made a new version; the next request looks again.
            *known = None;
        } else {
            *known = Some((version, next));
        }
        Ok(())
    }
}
