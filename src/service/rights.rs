//! The permission checks every post write makes, in one place for events, venues
//! and organizers.

use super::Error;
use crate::domain::permissions::Caller;
use crate::domain::post::{Post, PostChanges, Status};

/// Checks that the caller may create this post, fills in its author (the caller,
/// unless an editor names another) and scales its status back to what the caller
/// may publish. Returns the caller's user ID.
pub fn claim_new(caller: &Caller, post: &mut PostChanges, now: i64) -> Result<i64, Error> {
    let author = caller
        .author_of_new(post.author)
        .ok_or_else(|| Error::forbidden(caller))?;
    post.author = Some(author);
    post.status = Some(caller.scale_back(post.status));
    // A post scheduled for a moment already past is published, as WordPress does.
    if post.status == Some(Status::Future) && post.date_utc.unwrap_or(now) <= now {
        post.status = Some(Status::Publish);
    }
    Ok(caller.0.as_ref().map_or(0, |u| u.id))
}

/// Checks that the caller may write these changes of `post` (and name another
/// author only as an editor), and scales a new status back.
pub fn claim_update(
    caller: &Caller,
    post: &Post,
    changes: &mut PostChanges,
    now: i64,
) -> Result<(), Error> {
    if !caller.may_update(post, changes.author) {
        return Err(Error::forbidden(caller));
    }
    if changes.status.is_some() {
        changes.status = Some(caller.scale_back(changes.status));
    }
    // A scheduled post whose date is past (or moves into the past) goes live.
    let date_utc = changes.date_utc.unwrap_or(post.date_utc);
    if changes.status.or(post.status()) == Some(Status::Future) && date_utc <= now {
        changes.status = Some(Status::Publish);
    }
    Ok(())
}
