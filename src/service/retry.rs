//! How writes run: to completion whatever the client does, and again when they
//! lose a uniqueness race.

use super::Error;
use crate::store::StoreError;

/// Runs a write to completion even if the client goes away, so a change is
/// never half-applied and its outcome is always logged.
pub async fn detached<T: Send + 'static>(
    fut: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<T, Error> {
    tokio::spawn(crate::store::db::carrying_vm_steps(fut))
        .await
        .map_err(|e| Error::Internal(format!("write task failed: {e}")))?
}

/// Errors that say a write lost a uniqueness race with a concurrent writer.
pub trait Retryable {
    fn is_conflict(&self) -> bool;
}

impl Retryable for StoreError {
    fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Conflict(_))
    }
}

/// Retries a write whose unique slug or term lost a race with a concurrent writer.
pub async fn with_retry<T, E, F, Fut>(mut attempt: F) -> Result<T, Error>
where
    E: Retryable + Into<Error>,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(e) if e.is_conflict() && tries < 4 => tries += 1,
            other => return other.map_err(Into::into),
        }
    }
}
