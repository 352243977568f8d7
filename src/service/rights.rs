//! The permission checks every post write makes, in one place for events, venues
//! and organizers.

use super::Error;
use crate::domain::permissions::Caller;
use crate::domain::post::{Post, PostChanges};

/// Checks that the caller may create this post, fills in its author (the caller,
/// unless an editor names another) and scales its status back to what the caller
/// may publish. Returns the caller's user ID.
pub fn claim_new(caller: &Caller, post: &mut PostChanges) -> Result<i64, Error> {
    let author = caller
        .author_of_new(post.author)
        .ok_or_else(|| Error::forbidden(caller))?;
    post.author = Some(author);
    post.status = Some(caller.scale_back(post.status));
    Ok(caller.0.as_ref().map_or(0, |u| u.id))
}

/// Checks that the caller may write these changes of `post` (and name another
/// author only as an editor), and scales a new status back.
pub fn claim_update(caller: &Caller, post: &Post, changes: &mut PostChanges) -> Result<(), Error> {
    if !caller.may_update(post, changes.author) {
        return Err(Error::forbidden(caller));
    }
    if changes.status.is_some() {
        changes.status = Some(caller.scale_back(changes.status));
    }
    Ok(())
}
