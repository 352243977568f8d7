//! Creating and updating events, each in one transaction that also creates the
//! terms, venue and organizers it names and keeps term counts right.

use std::collections::HashMap;
use std::sync::Arc;

use super::refs::{self, Known};
use super::stored::Stored;
use super::{ShownEvent, find, readable_links};
use crate::domain::args::EventWriteArgs;
use crate::domain::changes::{Changes, EventState, public_by_status};
use crate::domain::event::{
    Event, EventChanges, LinkedRef, TermRef, counts_as_published, recounted_terms,
};
use crate::domain::event_input::{self, InlineReader, WriteContext};
use crate::domain::permissions::Caller;
use crate::domain::post::{ImageRef, PostType, Reveal, Status, Target, Visibility, trashed_slug};
use crate::domain::slug;
use crate::domain::term::Taxonomy;
use crate::domain::validation::{Invalid, Problems};
use crate::service::retry::{Retryable, detached, with_retry};
use crate::service::{Asking, Error, Service, rights};
use crate::store::event_batch::{BatchError, NewEvent};
use crate::store::events::{self, EventRow, Footprint};
use crate::store::{Conn, StoreError, linked_unlinks, posts, terms};

/// Why a write could not complete, beyond database errors.
enum WriteError {
    Store(StoreError),
    Invalid(&'static str),
    Refused(Error),
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> Self {
        WriteError::Store(e)
    }
}

impl From<WriteError> for Error {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Store(s) => s.into(),
            WriteError::Invalid(param) => Error::invalid(param),
            WriteError::Refused(e) => e,
        }
    }
}

impl Retryable for WriteError {
    fn is_conflict(&self) -> bool {
        matches!(self, WriteError::Store(e) if e.is_conflict())
    }
}

/// Who writes: new posts are theirs, and what they name by value is looked up
/// among the posts they may read.
struct Writer {
    id: i64,
    visible: Visibility,
}

impl Writer {
    fn of(caller: &Caller) -> Writer {
        Writer {
            id: caller.0.as_ref().map_or(0, |u| u.id),
            visible: caller.visibility(),
        }
    }
}

async fn linked_id(
    tx: &mut Conn,
    t: PostType,
    r: &LinkedRef,
    writer: &Writer,
    now: i64,
) -> Result<i64, WriteError> {
    match r {
        LinkedRef::Existing(id) => Ok(*id),
        LinkedRef::New(changes, image) => {
            let mut changes = (**changes).clone();
            changes.author.get_or_insert(writer.id);
            changes.status.get_or_insert(Status::Publish);
            let param = if t == PostType::Venue {
                "venue"
            } else {
                "organizer"
            };
            let caller = (writer.id, &writer.visible);
            posts::find_or_create(tx, t, &changes, image.as_ref(), caller, now)
                .await?
                .map_err(|()| WriteError::Invalid(param))
        }
    }
}

/// The venue, organizers and terms a write names, resolved to IDs; new ones are
/// created in the same transaction. `None` leaves a link as it is.
struct Links {
    venue_id: Option<Option<i64>>,
    organizers: Option<Vec<i64>>,
    categories: Option<Vec<i64>>,
    tags: Option<Vec<i64>>,
}

impl Links {
    fn relations(&self) -> events::Relations<'_> {
        events::Relations {
            organizers: self.organizers.as_deref(),
            categories: self.categories.as_deref(),
            tags: self.tags.as_deref(),
        }
    }
}

async fn resolve_links(
    tx: &mut Conn,
    c: &EventChanges,
    writer: &Writer,
    now: i64,
) -> Result<Links, WriteError> {
    let venue_id = match &c.venue {
        Some(Some(r)) => Some(Some(linked_id(tx, PostType::Venue, r, writer, now).await?)),
        Some(None) => Some(None),
        None => None,
    };
    let organizers = match &c.organizers {
        Some(refs) => {
            let mut ids = Vec::with_capacity(refs.len());
            for r in refs {
                ids.push(linked_id(tx, PostType::Organizer, r, writer, now).await?);
            }
            Some(ids)
        }
        None => None,
    };
    let mut terms = [None, None];
    for (slot, (refs, taxonomy)) in terms.iter_mut().zip([
        (&c.categories, Taxonomy::Category),
        (&c.tags, Taxonomy::Tag),
    ]) {
        if let Some(refs) = refs {
            *slot = Some(resolve_terms(tx, taxonomy, refs).await?);
        }
    }
    let [categories, tags] = terms;
    Ok(Links {
        venue_id,
        organizers,
        categories,
        tags,
    })
}

/// The image a write names, resolved to its attachment (`Some(None)` removes it);
/// `None` leaves it as it is.
async fn image_of(
    tx: &mut Conn,
    c: &EventChanges,
    author: i64,
    now: i64,
) -> Result<Option<Option<i64>>, WriteError> {
    match &c.image {
        Some(img) => Ok(Some(
            posts::resolve_image(tx, img, author, now)
                .await?
                .map_err(|()| WriteError::Invalid("image"))?,
        )),
        None => Ok(None),
    }
}

/// The term IDs of a resolved term list, creating the new ones.
async fn resolve_terms(
    conn: &mut Conn,
    taxonomy: Taxonomy,
    refs: &[TermRef],
) -> Result<Vec<i64>, StoreError> {
    let mut ids = Vec::with_capacity(refs.len());
    for r in refs {
        ids.push(match r {
            TermRef::Existing(id) => *id,
            TermRef::New(name) => terms::find_or_insert(conn, taxonomy, name).await?,
        });
    }
    Ok(ids)
}

/// The event's own columns a write sets.
fn event_columns(c: &EventChanges, venue_id: Option<Option<i64>>) -> EventRow<'_> {
    EventRow {
        website: c.website.as_ref().map(|w| w.as_deref()),
        start_utc: c.start_utc,
        end_utc: c.end_utc,
        timezone: c.timezone.as_deref(),
        all_day: c.all_day,
        cost: c.cost.as_deref(),
        hide_from_listings: c.hide_from_listings,
        sticky: c.sticky,
        featured: c.featured,
        post_parent: c.post_parent,
        venue_id,
        tickets: c.tickets.as_deref(),
    }
}

impl Service {
    /// Reads a write (every invalid argument in one 400) and resolves what it names.
    async fn read_write(
        &self,
        asking: Asking<'_>,
        args: &EventWriteArgs,
        invalid: &[Invalid],
        inline: InlineReader<'_>,
        existing: Option<&Event>,
    ) -> Result<(EventChanges, Known), Error> {
        let mut p = Problems::new(invalid);
        let cx = WriteContext {
            now: asking.now,
            site: self.zone,
            existing,
        };
        let draft = event_input::read(args, cx, inline, &mut p);
        let mut conn = self.store.pool.read().await?;
        let existing_id = existing.map(|e| e.post.id);
        let resolved = refs::resolve(&mut conn, asking, draft, existing_id, &mut p).await?;
        p.finish::<Error>()?;
        Ok(resolved)
    }

    /// Creates an event and whatever it names that does not exist yet.
    pub async fn create_event(
        &self,
        asking: Asking<'_>,
        args: &EventWriteArgs,
        invalid: &[Invalid],
        inline: InlineReader<'_>,
    ) -> Result<ShownEvent, Error> {
        let (mut c, known) = self.read_write(asking, args, invalid, inline, None).await?;
        let caller = asking.caller;
        rights::claim_new(caller, &mut c.post, asking.now)?;
        c.post.id = asking.as_id;
        // Presentation flags omitted on create are false, as the running reference reports.
        c.post.show_map.get_or_insert(false);
        c.post.show_map_link.get_or_insert(false);
        for flag in [&mut c.hide_from_listings, &mut c.sticky, &mut c.featured] {
            flag.get_or_insert(false);
        }
        // A batch numbers its events itself: one with its own ID is written alone, as
        // is one that links a post whose events are being unlinked from it.
        let batched = plain_create(&c, asking.now)
            .filter(|_| c.post.id.is_none() && known.unlinking.is_empty());
        let unlinking = &known.unlinking;
        let (event, counts) = match batched {
            Some(new) => match self.creates.create(new).await {
                Ok(created) => (created.event, created.counts),
                Err(BatchError::NotWritten) => self.create_alone(asking, &c, unlinking).await?,
                Err(BatchError::Failed(reason)) => {
                    return Err(StoreError::Unavailable(reason).into());
                }
            },
            None => self.create_alone(asking, &c, unlinking).await?,
        };
        let links = match known.links_of_new(&c, &counts) {
            Some(links) => readable_links(links, caller, asking.now),
            // Links created or found by name in the write: read them as stored.
            None => self.links_of(&event, asking).await?,
        };
        Ok(ShownEvent {
            event,
            links,
            reveal: Reveal::Full,
            changes_at: None,
        })
    }

    /// Creates an event in a transaction of its own, with whatever it names that
    /// does not exist yet; returns it and the counts of its terms. Its links to the
    /// posts of `unlinking` still queued are kept from their batches.
    async fn create_alone(
        &self,
        asking: Asking<'_>,
        c: &EventChanges,
        unlinking: &[i64],
    ) -> Result<(Event, Arc<HashMap<i64, i64>>), Error> {
        let Some(user) = asking.caller.0.clone() else {
            return Err(Error::Forbidden { anonymous: true });
        };
        let store = self.store.clone();
        let now = asking.now;
        let c = Arc::new(c.clone());
        let writer = Writer::of(asking.caller);
        let unlinking = unlinking.to_vec();
        let (event, counts) = detached(async move {
            with_retry::<_, WriteError, _, _>(|| async {
                let mut tx = store.pool.write().await?;
                let queued = linked_unlinks::share_queued(&mut tx, &unlinking).await?;
                let image_id = image_of(&mut tx, &c, user.id, now).await?.flatten();
                let links = resolve_links(&mut tx, &c, &writer, now).await?;
                let columns = event_columns(&c, links.venue_id).values();
                let organizers = links.organizers.as_deref().unwrap_or_default();
                let footprint = Footprint::of_columns(&columns, organizers);
                events::lock_shared_rows(&mut tx, [footprint]).await?;
                let event = events::insert(&mut tx, &c.post, image_id, columns, now).await?;
                linked_unlinks::keep_links(&mut tx, &queued, event.post.id).await?;
                let status = c.post.status.unwrap_or(Status::Draft);
                let date = c.post.date_utc.unwrap_or(now);
                let counted = counts_as_published(status.as_str(), date, now);
                let relations = links.relations();
                if !c.names_new_links() {
                    let terms = events::distinct_terms(&relations);
                    let recounted = if counted { terms.clone() } else { Vec::new() };
                    let p = &event.post;
                    let public = public_by_status(&p.status, event.hide_from_listings);
                    let state = EventState::new((event.start_utc, event.end_utc), terms)
                        .with_text(&p.title, &p.excerpt, &p.description)
                        .with_links(event.venue_id, organizers)
                        .listed(p.id, public, true);
                    tx.changes(Changes::events([event.post.id], recounted, [state]));
                }
                let counts =
                    events::commit_new_event_links(tx, event.post.id, &relations, counted).await?;
                Ok((event, counts.into_iter().collect::<HashMap<_, _>>()))
            })
            .await
        })
        .await?;
        Ok((event, Arc::new(counts)))
    }

    /// Updates an event; with a `status`, a trashed event is restored.
    pub async fn update_event(
        &self,
        asking: Asking<'_>,
        target: &Target,
        args: &EventWriteArgs,
        invalid: &[Invalid],
        inline: InlineReader<'_>,
    ) -> Result<ShownEvent, Error> {
        let existing = {
            let mut conn = self.store.pool.read().await?;
            find(&mut conn, target).await?
        };
        let (mut c, known) = self
            .read_write(asking, args, invalid, inline, Some(&existing))
            .await?;
        rights::claim_update(asking.caller, &existing.post, &mut c.post, asking.now)?;
        trash_slug(&mut c, &existing);
        let param = target.param();
        self.write_update(asking, existing.clone(), c, known.unlinking, param)
            .await?;
        let (event, links) = self
            .event_with_links(existing.post.id, param, asking)
            .await?;
        Ok(ShownEvent {
            event,
            links,
            reveal: Reveal::Full,
            changes_at: None,
        })
    }

    /// Writes an update in a transaction of its own; its links to the posts of
    /// `unlinking` still queued are kept from their batches.
    async fn write_update(
        &self,
        asking: Asking<'_>,
        target: Event,
        c: EventChanges,
        unlinking: Vec<i64>,
        param: &'static str,
    ) -> Result<(), Error> {
        let store = self.store.clone();
        let now = asking.now;
        let writer = Writer::of(asking.caller);
        let condition = asking.condition;
        detached(async move {
            with_retry::<_, WriteError, _, _>(|| async {
                let mut tx = store.pool.write().await?;
                // Before the event's row, as a batch of one of them takes them.
                let queued = linked_unlinks::share_queued(&mut tx, &unlinking).await?;
                linked_unlinks::keep_links(&mut tx, &queued, target.post.id).await?;
                let image_id = image_of(&mut tx, &c, writer.id, now).await?;
                // Counts move from the stored state, which a concurrent write may have changed.
                let Some(stored) = Stored::lock(&mut tx, target.post.id).await? else {
                    return Err(WriteError::Invalid(param));
                };
                let before = &stored.state;
                condition
                    .check(before.revision)
                    .map_err(WriteError::Refused)?;
                let links = resolve_links(&mut tx, &c, &writer, now).await?;
                let span = (
                    c.start_utc.unwrap_or(before.span.0),
                    c.end_utc.unwrap_or(before.span.1),
                );
                let venue = links.venue_id.unwrap_or(before.venue_id);
                let organizers = links.organizers.as_deref().unwrap_or(&stored.organizers);
                let after = Footprint::stored(span, venue, organizers);
                // Both where its keys are counted and where they will be.
                events::lock_shared_rows(&mut tx, [stored.footprint(), after]).await?;
                let own = event_columns(&c, links.venue_id).values();
                posts::update(&mut tx, &target.post, &c.post, image_id, own, now).await?;
                let status = c.post.status.map_or(before.status.as_str(), |s| s.as_str());
                let date = c.post.date_utc.unwrap_or(before.date_utc);
                let published = counts_as_published(status, date, now);
                let id = stored.id;
                let relations = links.relations();
                events::set_relations(&mut tx, id, &relations, events::Existing::Replace).await?;
                let terms = if relations.categories.is_some() && relations.tags.is_some() {
                    events::distinct_terms(&relations)
                } else {
                    events::term_ids(&mut tx, id).await?
                };
                let was = stored.counted();
                events::adjust_counts(&mut tx, (&stored.terms, was), (&terms, published)).await?;
                if !c.names_new_links() {
                    let recounted = recounted_terms((&stored.terms, was), (&terms, published));
                    let public =
                        public_by_status(status, c.hide_from_listings.unwrap_or(before.hidden));
                    let written = updated_state(&stored, &c, span, (venue, organizers), &terms)
                        .listed(id, public, true);
                    tx.changes(Changes::events(
                        [id],
                        recounted,
                        [stored.event_state(), written],
                    ));
                }
                tx.commit().await?;
                Ok(())
            })
            .await
        })
        .await
    }
}

/// The event as an update leaves it, for the change log: the changes over what was
/// stored, at these dates, venue and organizers, with these terms.
fn updated_state(
    stored: &Stored,
    c: &EventChanges,
    span: (i64, i64),
    (venue, organizers): (Option<i64>, &[i64]),
    terms: &[i64],
) -> EventState {
    let text = |new: &Option<String>, old: &str| new.clone().unwrap_or_else(|| old.to_string());
    let s = &stored.state;
    EventState::new(span, terms.iter().copied())
        .with_text(
            &text(&c.post.title, &s.title),
            &text(&c.post.excerpt, &s.excerpt),
            &text(&c.post.description, &s.description),
        )
        .with_links(venue, organizers)
}

/// An event in the trash frees its slug, whether DELETE or an update put it there;
/// editing a trashed event without naming a status leaves it in the trash.
fn trash_slug(c: &mut EventChanges, existing: &Event) {
    let was_trashed = existing.post.status() == Some(Status::Trash);
    let in_trash = c.post.status.map_or(was_trashed, |s| s == Status::Trash);
    if in_trash && (c.post.slug.is_some() || !was_trashed) {
        let base = c
            .post
            .slug
            .take()
            .map(|s| slug::slugify(&s))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| existing.post.slug.clone());
        c.post.slug = Some(trashed_slug(&base));
    }
}

/// The create as a batch can write it: one that links only to what exists and
/// names no image. `None` for the others, which create what they name.
fn plain_create(c: &EventChanges, now: i64) -> Option<NewEvent> {
    let existing = |r: &LinkedRef| match r {
        LinkedRef::Existing(id) => Some(*id),
        LinkedRef::New(..) => None,
    };
    let term_ids = |refs: &Option<Vec<TermRef>>| -> Option<Vec<i64>> {
        refs.iter()
            .flatten()
            .map(|r| match r {
                TermRef::Existing(id) => Some(*id),
                TermRef::New(_) => None,
            })
            .collect()
    };
    if c.image.as_ref().is_some_and(|i| *i != ImageRef::None) {
        return None;
    }
    let venue_id = match &c.venue {
        Some(Some(r)) => Some(Some(existing(r)?)),
        Some(None) => Some(None),
        None => None,
    };
    let organizers = c
        .organizers
        .iter()
        .flatten()
        .map(existing)
        .collect::<Option<Vec<i64>>>()?;
    let (categories, tags) = (term_ids(&c.categories)?, term_ids(&c.tags)?);
    let terms = events::distinct_terms(&events::Relations {
        organizers: None,
        categories: Some(&categories),
        tags: Some(&tags),
    });
    let status = c.post.status.unwrap_or(Status::Draft);
    Some(NewEvent {
        post: c.post.clone(),
        columns: event_columns(c, venue_id).values(),
        organizers,
        terms,
        counted: counts_as_published(status.as_str(), c.post.date_utc.unwrap_or(now), now),
        now,
    })
}
