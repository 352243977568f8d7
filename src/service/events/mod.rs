//! Events: read one, list them, create, update, trash, restore and delete.

mod list;
pub(super) mod refs;
mod stored;
mod write;

use super::retry::{detached, with_retry};
use super::{Asking, Condition, Error, Refusal, Service};
use crate::domain::changes::Changes;
use crate::domain::event::{Event, EventLinks};
use crate::domain::permissions::Caller;
use crate::domain::post::{Post, PostType, Reveal, Status, Target};
use crate::store::{Conn, Store, StoreError, events, posts, sync};

pub use list::{EventPage, Links};
use stored::Stored;

/// An event as its caller may see it: its links (those the caller may read), and
/// how much of it is shown.
#[derive(Clone, Debug)]
pub struct ShownEvent {
    pub event: Event,
    pub links: EventLinks,
    pub reveal: Reveal,
    /// When the clock alone changes what is shown: a scheduled post among the
    /// event and its venue and organizers (left out until then) goes live.
    pub changes_at: Option<i64>,
}

/// The earliest moment a scheduled post among an event and its links goes live.
fn next_change(e: &Event, links: &EventLinks, now: i64) -> Option<i64> {
    let linked = links.venue.iter().chain(&links.organizers);
    std::iter::once(&e.post)
        .chain(linked)
        .filter_map(|p| p.goes_live_at(now))
        .min()
}

/// Leaves out of an event's links the venue and organizers the caller may not read
/// (drafts, private ones): the event is shown, they are not.
pub(super) fn readable_links(mut links: EventLinks, caller: &Caller, now: i64) -> EventLinks {
    links.venue = links.venue.filter(|v| caller.can_read(v, now));
    links.organizers.retain(|o| caller.can_read(o, now));
    links
}

/// The event a target names; an unknown one is a 400 on the target's parameter.
async fn find(conn: &mut Conn, target: &Target) -> Result<Event, Error> {
    let found = match target {
        Target::Id(id) => events::get(conn, *id).await?,
        Target::Slug(slug) => events::get_by_slug(conn, slug).await?,
    };
    found.ok_or_else(|| Error::invalid(target.param()))
}

impl Service {
    /// An event and its links, read with one connection.
    async fn event_with_links(
        &self,
        id: i64,
        param: &str,
        asking: Asking<'_>,
    ) -> Result<(Event, EventLinks), Error> {
        let mut conn = self.store.pool.read().await?;
        let e = events::get(&mut conn, id)
            .await?
            .ok_or_else(|| Error::invalid(param))?;
        let mut links = events::load_links(&mut conn, std::slice::from_ref(&e)).await?;
        let links = links.remove(&id).unwrap_or_default();
        Ok((e, readable_links(links, asking.caller, asking.now)))
    }

    /// An event's links the caller may read, in two statements.
    async fn links_of(&self, e: &Event, asking: Asking<'_>) -> Result<EventLinks, Error> {
        let mut conn = self.store.pool.read().await?;
        let mut links = events::load_links(&mut conn, std::slice::from_ref(e)).await?;
        let links = links.remove(&e.post.id).unwrap_or_default();
        Ok(readable_links(links, asking.caller, asking.now))
    }

    /// One event, if the caller may read it (in full: a password-protected event
    /// needs its password, or the right to edit it).
    pub async fn event(
        &self,
        asking: Asking<'_>,
        target: &Target,
        password: Option<&str>,
    ) -> Result<ShownEvent, Error> {
        let mut conn = self.store.pool.read().await?;
        let e = find(&mut conn, target).await?;
        let caller = asking.caller;
        if e.post.status() == Some(Status::Trash) {
            if !caller.can_edit(&e.post) {
                return Err(Error::Refused(Refusal::NoLongerAvailable));
            }
        } else if !caller.can_read(&e.post, asking.now) {
            return Err(Error::Refused(Refusal::NotAccessible(PostType::Event)));
        }
        let reveal = caller.reveal(&e.post, password);
        if reveal == Reveal::Blanked {
            return Err(Error::Refused(Refusal::PasswordProtected));
        }
        let mut links = events::load_links(&mut conn, std::slice::from_ref(&e)).await?;
        let links = links.remove(&e.post.id).unwrap_or_default();
        Ok(ShownEvent {
            changes_at: next_change(&e, &links, asking.now),
            links: readable_links(links, caller, asking.now),
            event: e,
            reveal,
        })
    }

    /// Moves an event to the trash, or with `force` deletes it for good (editors
    /// only). Answers with the event as it is after (or was before, when deleted).
    pub async fn delete_event(
        &self,
        asking: Asking<'_>,
        target: &Target,
        force: bool,
    ) -> Result<ShownEvent, Error> {
        let e = {
            let mut conn = self.store.pool.read().await?;
            find(&mut conn, target).await?
        };
        let caller = asking.caller;
        if !caller.can_delete(&e.post) || (force && !caller.is_editor()) {
            return Err(Error::forbidden(caller));
        }
        if e.post.status() == Some(Status::Trash) && !force {
            return Err(Error::Refused(Refusal::InTrash(PostType::Event)));
        }
        let param = target.param();
        let before = self.event_with_links(e.post.id, param, asking).await?;
        let store = self.store.clone();
        let (now, post, condition) = (asking.now, e.post.clone(), asking.condition);
        let forget_before = now.saturating_sub(self.tombstone_retention);
        let removal = Removal {
            force,
            now,
            forget_before,
            condition,
            param,
        };
        detached(async move {
            with_retry::<_, StoreError, _, _>(|| remove_once(&store, &post, &removal)).await?
        })
        .await?;
        // Shown as it was, with its links, when it is deleted for good.
        let (event, links) = match force {
            true => before,
            false => self.event_with_links(e.post.id, param, asking).await?,
        };
        Ok(ShownEvent {
            event,
            links,
            reveal: Reveal::Full,
            changes_at: None,
        })
    }
}

/// A trash or a delete of one event, as asked.
struct Removal {
    force: bool,
    now: i64,
    /// Tombstones older than this go with a delete.
    forget_before: i64,
    condition: Condition,
    param: &'static str,
}

/// One attempt at trashing or deleting `post`, in a transaction of its own; `Ok(Err(…))`
/// when the event as stored refuses it. Run again when it loses a race (a conflict).
async fn remove_once(
    store: &Store,
    post: &Post,
    removal: &Removal,
) -> Result<Result<(), Error>, StoreError> {
    let mut tx = store.pool.write().await?;
    // Checked again under the row lock: a concurrent delete may have won the race.
    let Some(stored) = Stored::lock(&mut tx, post.id).await? else {
        return Ok(Err(Error::invalid(removal.param)));
    };
    if let Err(refused) = removal.condition.check(stored.state.revision) {
        return Ok(Err(refused));
    }
    if stored.state.status == Status::Trash.as_str() && !removal.force {
        return Ok(Err(Error::Refused(Refusal::InTrash(PostType::Event))));
    }
    events::lock_shared_rows(&mut tx, [stored.footprint()]).await?;
    let counted = stored.counted();
    let recounted = if counted {
        stored.terms.clone()
    } else {
        Vec::new()
    };
    tx.changes(Changes::events(
        [post.id],
        recounted,
        [stored.event_state()],
    ));
    if removal.force {
        posts::delete(&mut tx, post).await?;
        sync::forget_before(&mut tx, removal.forget_before).await?;
    } else {
        posts::trash(&mut tx, post, removal.now).await?;
    }
    // Last, as every write of an event takes the term counts' lock.
    events::adjust_counts(&mut tx, (&stored.terms, counted), (&[], false)).await?;
    tx.commit().await?;
    Ok(Ok(()))
}
