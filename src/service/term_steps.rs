//! The work a term deletion or a category move leaves behind its answer, a batch per
//! transaction: the events of a term set aside are unlinked (`store::term_deletion`),
//! those below a moved category keyed again (`store::category_moves`).

use super::Service;
use crate::store::{Store, StoreError, category_moves, term_deletion};

/// How long a request that left work in steps waits for it before it answers: a term
/// of a few batches is done when the answer comes; the rest goes on behind it.
const WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Failed batches in a row the work tries again, a second apart.
const TRIES: u32 = 5;

impl Service {
    /// Finishes, in the background, the term work under way: that of a request
    /// just answered, or one an instance stopped during (this runs at start-up).
    pub fn finish_term_work(&self) -> tokio::task::JoinHandle<()> {
        let (store, batch) = (self.store.clone(), self.term_batch);
        tokio::spawn(async move {
            if let Err(e) = finish(&store, batch).await {
                tracing::warn!(
                    error = %e,
                    "term work in steps stopped; the next start, term deletion or move resumes it"
                );
            }
        })
    }

    /// Sets the term work going; waits for it a second at most when the request
    /// left some.
    pub(super) async fn follow_term_work(&self, left_some: bool) {
        let work = self.finish_term_work();
        if left_some {
            let _ = tokio::time::timeout(WAIT, work).await;
        }
    }
}

/// Unlinks the events of every term set aside, removing each term once it has none,
/// then keys again the events of every category moved.
async fn finish(store: &Store, batch: u64) -> Result<(), StoreError> {
    let set_aside = {
        let mut conn = store.pool.read().await?;
        term_deletion::set_aside_terms(&mut conn).await?
    };
    for term_id in set_aside {
        in_batches(|| async move {
            let mut tx = store.pool.write().await?;
            let gone = term_deletion::unlink_batch(&mut tx, term_id, batch).await?;
            tx.commit().await?;
            Ok(gone)
        })
        .await?;
    }
    in_batches(|| async move {
        let mut tx = store.pool.write().await?;
        let done = category_moves::rekey_batch(&mut tx, batch).await?;
        tx.commit().await?;
        Ok(done)
    })
    .await
}

/// Runs `batch`, each call in a transaction of its own, until one reports the work
/// done. A batch that fails (a deadlock with a writer of one of its events, a busy
/// database) is tried again a few times before the work gives up.
async fn in_batches<F, Fut>(mut batch: F) -> Result<(), StoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<bool, StoreError>>,
{
    let mut failures = 0;
    loop {
        match batch().await {
            Ok(true) => return Ok(()),
            Ok(false) => failures = 0,
            Err(e) if failures < TRIES => {
                failures += 1;
                tracing::info!(error = %e, "a batch of term work failed; trying again");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
            Err(e) => return Err(e),
        }
    }
}
