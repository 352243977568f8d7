//! Venues and organizers: list, read, create (or find the same one), update,
//! trash, restore and delete.

use crate::domain::args::{LinkedListArgs, OrganizerWriteArgs, VenueWriteArgs};
use crate::domain::event::Total;
use crate::domain::event_input::LinkedDraft;
use crate::domain::linked_input::{LinkedContext, MissingName, read_organizer, read_venue};
use crate::domain::lists;
use crate::domain::post::{LinkedPostQuery, Post, PostType, Reveal, Status, Target};
use crate::domain::validation::{Invalid, Problems};
use crate::service::events::refs::{check_author, check_image};
use crate::service::retry::{detached, with_retry};
use crate::service::{Asking, Condition, Error, Refusal, Service, rights};
use crate::store::{Conn, StoreError, linked_unlinks, posts, sync};

/// The arguments of a venue or organizer write.
#[derive(Clone, Debug)]
pub enum LinkedDraftArgs {
    Venue(Box<VenueWriteArgs>),
    Organizer(Box<OrganizerWriteArgs>),
}

impl LinkedDraftArgs {
    pub fn post_type(&self) -> PostType {
        match self {
            LinkedDraftArgs::Venue(_) => PostType::Venue,
            LinkedDraftArgs::Organizer(_) => PostType::Organizer,
        }
    }

    /// The write read with no I/O; every invalid argument noted in `p`.
    pub fn read(&self, cx: LinkedContext, p: &mut Problems) -> Result<LinkedDraft, Error> {
        let draft = match self {
            LinkedDraftArgs::Venue(a) => read_venue(a, cx, p),
            LinkedDraftArgs::Organizer(a) => read_organizer(a, cx, p),
        };
        draft.map_err(|MissingName(name)| Error::Missing(vec![name]))
    }
}

/// One page of venues or organizers.
pub struct LinkedPage {
    /// The query as read, for the list's URLs.
    pub query: LinkedPostQuery,
    pub posts: Vec<(Post, Reveal)>,
    pub total: Total,
}

/// The venue or organizer a target names; an unknown one is a 400 on its parameter,
/// as is one deleted for good whose events are still being unlinked.
async fn find(conn: &mut Conn, t: PostType, target: &Target) -> Result<Post, Error> {
    let found = match target {
        Target::Id(id) => posts::get(conn, *id).await?,
        Target::Slug(slug) => posts::get_by_slug(conn, t, slug).await?,
    };
    let unknown = || Error::invalid(target.param());
    let post = found
        .filter(|p| p.post_type == Some(t))
        .ok_or_else(unknown)?;
    if !linked_unlinks::deleted_among(conn, [&post])
        .await?
        .is_empty()
    {
        return Err(unknown());
    }
    Ok(post)
}

/// The event whose venue or organizers are listed. One the caller may not read in
/// full (hidden, or behind a password) answers as an unknown ID does: its links
/// would tell what its own representation does not.
async fn visible_event(conn: &mut Conn, asking: Asking<'_>, id: i64) -> Result<i64, Error> {
    let visible = posts::get(conn, id)
        .await?
        .filter(|p| p.post_type == Some(PostType::Event))
        .is_some_and(|p| asking.caller.can_read_in_full(&p, asking.now));
    match visible {
        true => Ok(id),
        false => Err(Error::invalid("event")),
    }
}

impl Service {
    /// One page of venues or organizers the caller may see, newest first.
    pub async fn list_linked(
        &self,
        asking: Asking<'_>,
        t: PostType,
        args: &LinkedListArgs,
        invalid: &[Invalid],
    ) -> Result<LinkedPage, Error> {
        let mut p = Problems::new(invalid);
        let (page, per_page) =
            lists::page_and_size(args.page, args.per_page, self.per_page_max, &mut p);
        let search = p
            .check(lists::nonempty("search", args.search.as_deref()))?
            .flatten();
        let sees_unpublished = asking.caller.can_create_posts();
        let statuses = p.check(lists::statuses(args.status.as_deref(), sees_unpublished))?;
        let mut conn = self.store.pool.read().await?;
        let event = match args.event {
            Some(id) => p.check(visible_event(&mut conn, asking, id).await)?,
            None => None,
        };
        p.finish::<Error>()?;
        let counts_events = args.has_events.is_some() || args.only_with_upcoming;
        let kept_links = counts_events && linked_unlinks::any_kept(&mut conn).await?;
        let query = LinkedPostQuery {
            post_type: t,
            page,
            per_page,
            search: search.map(str::to_string),
            event,
            has_events: args.has_events,
            only_with_upcoming: args.only_with_upcoming,
            kept_links,
            statuses: statuses.unwrap_or_default(),
            visibility: asking.caller.visibility(),
            now_utc: asking.now,
            count_limit: self.search_count_limit,
        };
        let (items, total) = posts::list_linked(&mut conn, &query).await?;
        if items.is_empty() && page > 1 {
            return Err(Error::Refused(Refusal::PageNotFound(t)));
        }
        let posts = items
            .into_iter()
            .map(|p| {
                let reveal = asking.caller.reveal(&p, None);
                (p, reveal)
            })
            .collect();
        Ok(LinkedPage {
            query,
            posts,
            total,
        })
    }

    /// The newest `most` venues or organizers the caller may see, uncounted: the
    /// choices a calendar page offers to filter by.
    pub async fn linked_choices(
        &self,
        asking: Asking<'_>,
        t: PostType,
        most: u64,
    ) -> Result<Vec<Post>, Error> {
        let query = LinkedPostQuery {
            post_type: t,
            page: 1,
            per_page: most.clamp(1, self.per_page_max),
            search: None,
            event: None,
            has_events: None,
            only_with_upcoming: false,
            kept_links: false,
            statuses: Vec::new(),
            visibility: asking.caller.visibility(),
            now_utc: asking.now,
            count_limit: self.search_count_limit,
        };
        let mut conn = self.store.pool.read().await?;
        Ok(posts::first_linked(&mut conn, &query).await?)
    }

    /// One venue or organizer, if the caller may read it.
    pub async fn linked(
        &self,
        asking: Asking<'_>,
        t: PostType,
        target: &Target,
        password: Option<&str>,
    ) -> Result<(Post, Reveal), Error> {
        let mut conn = self.store.pool.read().await?;
        let post = find(&mut conn, t, target).await?;
        if !asking.caller.can_read(&post, asking.now) {
            return Err(Error::Refused(Refusal::NotAccessible(t)));
        }
        let reveal = asking.caller.reveal(&post, password);
        Ok((post, reveal))
    }

    /// Reads a write and checks what it names.
    async fn read_linked_write(
        &self,
        asking: Asking<'_>,
        args: &LinkedDraftArgs,
        invalid: &[Invalid],
        creating: bool,
    ) -> Result<LinkedDraft, Error> {
        let mut p = Problems::new(invalid);
        let cx = LinkedContext {
            now: asking.now,
            site: self.zone,
            creating,
        };
        let draft = args.read(cx, &mut p)?;
        let mut conn = self.store.pool.read().await?;
        p.check(check_author(&mut conn, draft.changes.author).await)?;
        p.check(check_image(&mut conn, asking, draft.image.as_ref()).await)?;
        p.finish::<Error>()?;
        Ok(draft)
    }

    /// Creates a venue or organizer, or answers with the one the caller may read
    /// whose every given field is the same.
    pub async fn create_linked(
        &self,
        asking: Asking<'_>,
        args: &LinkedDraftArgs,
        invalid: &[Invalid],
    ) -> Result<Post, Error> {
        let t = args.post_type();
        let LinkedDraft { mut changes, image } =
            self.read_linked_write(asking, args, invalid, true).await?;
        let caller = asking.caller;
        let writer = rights::claim_new(caller, &mut changes, asking.now)?;
        changes.id = asking.as_id;
        let (store, now, visible) = (self.store.clone(), asking.now, caller.visibility());
        detached(async move {
            with_retry::<_, StoreError, _, _>(|| async {
                let mut tx = store.pool.write().await?;
                let who = (writer, &visible);
                let Ok(id) =
                    posts::find_or_create(&mut tx, t, &changes, image.as_ref(), who, now).await?
                else {
                    return Ok(Err(()));
                };
                let post = posts::get(&mut tx, id).await?.ok_or_else(|| {
                    StoreError::Internal(format!("post {id} vanished in its create"))
                })?;
                tx.commit().await?;
                Ok(Ok(post))
            })
            .await?
            .map_err(|()| Error::invalid("image"))
        })
        .await
    }

    /// Updates a venue or organizer; with a `status`, a trashed one is restored.
    /// Its events stay unlinked from it, as the trash left them: a restore before
    /// the trash's last batch answers at once, and until that batch no read shows
    /// the post's events (`store::linked_unlinks`).
    pub async fn update_linked(
        &self,
        asking: Asking<'_>,
        target: &Target,
        args: &LinkedDraftArgs,
        invalid: &[Invalid],
    ) -> Result<Post, Error> {
        let t = args.post_type();
        let post = {
            let mut conn = self.store.pool.read().await?;
            find(&mut conn, t, target).await?
        };
        let LinkedDraft { mut changes, image } =
            self.read_linked_write(asking, args, invalid, false).await?;
        let caller = asking.caller;
        rights::claim_update(caller, &post, &mut changes, asking.now)?;
        let (store, now, condition) = (self.store.clone(), asking.now, asking.condition);
        let author = caller.0.as_ref().map_or(0, |u| u.id);
        let param = target.param();
        detached(async move {
            with_retry::<_, StoreError, _, _>(|| async {
                let mut tx = store.pool.write().await?;
                // Deleted for good once its events are unlinked: as good as gone.
                if linked_unlinks::is_being_deleted(&mut tx, post.id).await? {
                    return Ok(Ok(None));
                }
                if check_revision(&mut tx, post.id, condition).await?.is_err() {
                    return Ok(Err(Declined::Stale));
                }
                let image_id = match &image {
                    Some(img) => match posts::resolve_image(&mut tx, img, author, now).await? {
                        Ok(id) => Some(id),
                        Err(()) => return Ok(Err(Declined::Image)),
                    },
                    None => None,
                };
                posts::update(&mut tx, &post, &changes, image_id, Vec::new(), now).await?;
                // Read in the transaction: read after the commit, a concurrent delete
                // could have removed it already.
                let written = posts::get(&mut tx, post.id).await?;
                tx.commit().await?;
                Ok(Ok(written))
            })
            .await?
            .map_err(|declined| match declined {
                Declined::Image => Error::invalid("image"),
                Declined::Stale => Error::Refused(Refusal::PreconditionFailed),
            })?
            // Deleted concurrently, before this write: the target names nothing now.
            .ok_or_else(|| Error::invalid(param))
        })
        .await
    }

    /// Moves a venue or organizer to the trash (unlinking it from its events), or
    /// with `force` deletes it for good (editors only). One of more events than a
    /// batch is trashed at once and unlinked in steps (`store::linked_unlinks`); its
    /// deletion for good trashes it first, and the batch that unlinks its last event
    /// deletes it: the answer waits a second at most.
    pub async fn delete_linked(
        &self,
        asking: Asking<'_>,
        t: PostType,
        target: &Target,
        force: bool,
    ) -> Result<Post, Error> {
        let post = {
            let mut conn = self.store.pool.read().await?;
            find(&mut conn, t, target).await?
        };
        let caller = asking.caller;
        if !caller.can_delete(&post) || (force && !caller.is_editor()) {
            return Err(Error::forbidden(caller));
        }
        let in_trash = post.status() == Some(Status::Trash);
        let (condition, now) = (asking.condition, asking.now);
        if !force {
            if in_trash {
                return Err(Error::Refused(Refusal::InTrash(t)));
            }
            let (trashed, in_steps) = self.trash_linked(&post, condition, now).await?;
            self.follow_work_in_steps(in_steps).await;
            return trashed.ok_or_else(|| Error::invalid(target.param()));
        }
        let queue_first = !in_trash && self.has_many_events(&post).await?;
        if self
            .delete_linked_now(&post, condition, now, queue_first)
            .await?
        {
            self.follow_work_in_steps(true).await;
        }
        // Shown as it was when it is deleted for good.
        Ok(post)
    }

    /// Whether the venue or organizer has more events than a batch.
    async fn has_many_events(&self, post: &Post) -> Result<bool, Error> {
        let mut conn = self.store.pool.read().await?;
        Ok(linked_unlinks::links_beyond(&mut conn, post, self.step_batch).await?)
    }

    /// Moves the post to the trash, and unlinks its events or queues it to be
    /// unlinked in steps: the post as trashed (`None` if it was deleted meanwhile),
    /// and whether it was queued.
    async fn trash_linked(
        &self,
        post: &Post,
        condition: Condition,
        now: i64,
    ) -> Result<(Option<Post>, bool), Error> {
        let (store, batch, target) = (self.store.clone(), self.step_batch, post.clone());
        // Run again when it loses a race: unlinking its events can meet a write of
        // one of them on PostgreSQL, which then aborts one of the two.
        detached(async move {
            with_retry::<_, StoreError, _, _>(|| async {
                let mut tx = store.pool.write().await?;
                if let Err(stale) = check_revision(&mut tx, target.id, condition).await? {
                    return Ok(Err(stale));
                }
                posts::trash(&mut tx, &target, now).await?;
                let in_steps = linked_unlinks::links_beyond(&mut tx, &target, batch).await?;
                if in_steps {
                    linked_unlinks::queue(&mut tx, target.id).await?;
                } else {
                    posts::unlink(&mut tx, &target).await?;
                }
                let trashed = posts::get(&mut tx, target.id).await?;
                tx.commit().await?;
                Ok(Ok((trashed, in_steps)))
            })
            .await?
        })
        .await
    }

    /// Deletes the post for good, with what links to it; or, when its events are
    /// still being unlinked in steps, or are to be (`queue_first`: more than a
    /// batch), queues and marks it for the batch that unlinks the last one to delete
    /// it (`store::linked_unlinks`), moving it to the trash in the same transaction.
    /// Whether it was marked.
    async fn delete_linked_now(
        &self,
        post: &Post,
        condition: Condition,
        now: i64,
        queue_first: bool,
    ) -> Result<bool, Error> {
        let (store, target) = (self.store.clone(), post.clone());
        let forget_before = now.saturating_sub(self.tombstone_retention);
        detached(async move {
            with_retry::<_, StoreError, _, _>(|| async {
                let mut tx = store.pool.write().await?;
                // The queue's row before the post's, as the batches and the writes
                // of the post take them; the post as the caller sent it checked
                // before the mark moves it to the trash.
                let queued = match queue_first {
                    true => linked_unlinks::queue(&mut tx, target.id)
                        .await
                        .map(|()| true)?,
                    false => linked_unlinks::lock_queued(&mut tx, target.id).await?,
                };
                if let Err(stale) = check_revision(&mut tx, target.id, condition).await? {
                    return Ok(Err(stale));
                }
                let in_steps =
                    queued && linked_unlinks::delete_when_unlinked(&mut tx, &target, now).await?;
                if !in_steps {
                    posts::delete(&mut tx, &target).await?;
                    sync::forget_before(&mut tx, forget_before).await?;
                }
                tx.commit().await?;
                Ok(Ok(in_steps))
            })
            .await?
        })
        .await
    }
}

/// A conditional write's check of the post's revision, in its transaction.
async fn check_revision(
    tx: &mut Conn,
    id: i64,
    condition: Condition,
) -> Result<Result<(), Error>, StoreError> {
    if condition.if_revision.is_none() {
        return Ok(Ok(()));
    }
    let now_at = posts::lock_revision(tx, id).await?;
    Ok(condition.check(now_at.unwrap_or(-1)))
}

/// Why an update's transaction wrote nothing, though the store did not fail.
enum Declined {
    /// The image it names cannot be used.
    Image,
    /// The post changed since the conditional writer read it.
    Stale,
}
