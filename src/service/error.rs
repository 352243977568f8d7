//! Why a use case did not do what it was asked; `http::error` gives each its status,
//! code and message.

use crate::domain::post::PostType;
use crate::domain::validation::{Invalid, MaybeInvalid};
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("missing parameters")]
    Missing(Vec<&'static str>),
    #[error("invalid parameters")]
    Invalid(Vec<Invalid>),
    /// Not allowed: 401 for anonymous callers, 403 for signed-in ones.
    #[error("forbidden")]
    Forbidden { anonymous: bool },
    /// The post exists but is not for this caller, or not in this state.
    #[error("refused: {0:?}")]
    Refused(Refusal),
    /// A term with this name already exists under the same parent.
    #[error("term exists")]
    TermExists { term_id: i64 },
    /// The database cannot be reached or refuses writes.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// The reference's resource-specific refusals (`event-not-accessible`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A post the caller may not read.
    NotAccessible(PostType),
    /// A trashed event the caller may not edit.
    NoLongerAvailable,
    /// A password-protected event asked for without its password.
    PasswordProtected,
    /// A delete of a post already in the trash.
    InTrash(PostType),
    /// A page past the last one of a post list.
    PageNotFound(PostType),
    /// A conditional write (`If-Match`, `If-Unmodified-Since`) whose validator is
    /// stale: the post changed since the writer read it.
    PreconditionFailed,
    /// An incremental sync from before the tombstones still kept.
    SyncExpired,
}

impl Error {
    pub fn invalid(name: &str) -> Error {
        Error::Invalid(vec![Invalid::param(name)])
    }

    pub fn forbidden(caller: &crate::domain::permissions::Caller) -> Error {
        Error::Forbidden {
            anonymous: caller.is_anonymous(),
        }
    }
}

impl From<Vec<Invalid>> for Error {
    fn from(list: Vec<Invalid>) -> Error {
        Error::Invalid(list)
    }
}

impl From<Invalid> for Error {
    fn from(invalid: Invalid) -> Error {
        Error::Invalid(vec![invalid])
    }
}

impl MaybeInvalid for Error {
    fn into_invalid(self) -> Result<Vec<Invalid>, Self> {
        match self {
            Error::Invalid(list) => Ok(list),
            other => Err(other),
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => Error::Unavailable(m),
            StoreError::Conflict(m) | StoreError::Internal(m) => Error::Internal(m),
        }
    }
}
