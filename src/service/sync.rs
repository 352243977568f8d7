//! Incremental sync of the event, venue, organizer and term lists: the changes
//! after a cursor (or since an instant), each as the item the caller may read or
//! as a tombstone, and the cursor to go on from (see `domain::sync`).

use std::collections::HashMap;

use super::events::{ShownEvent, readable_links};
use crate::domain::args::SyncArgs;
use crate::domain::post::{Post, PostType, Reveal};
use crate::domain::sync::{
    Audience, ChangeRow, START_MARGIN_SECONDS, SyncCursor, SyncQuery, SyncStart, sync_query,
};
use crate::domain::term::{Taxonomy, Term};
use crate::domain::validation::{Invalid, Problems};
use crate::service::{Asking, Error, Refusal, Service};
use crate::store::sync::{self, ChangeSet};
use crate::store::{Conn, events, linked_unlinks, posts, terms};

/// One change: the item as the caller may read it now, or its tombstone.
pub enum Synced<T> {
    Item(T),
    Deleted { id: i64, modified_utc: i64 },
}

/// One page of changes.
pub struct SyncPage<T> {
    pub query: SyncQuery,
    pub items: Vec<Synced<T>>,
    /// Where the next request goes on from: after this page, or, when there is no
    /// more now, after everything settled so far.
    pub cursor: SyncCursor,
    /// Whether more changes follow now, or may: a long transaction elsewhere in
    /// a PostgreSQL cluster leaves what is settled short of what was written.
    pub more: bool,
}

/// The rows of one page of changes, before their items are read.
struct Rows {
    query: SyncQuery,
    rows: Vec<ChangeRow>,
    cursor: SyncCursor,
    more: bool,
}

impl Rows {
    fn live_ids(&self) -> Vec<i64> {
        self.rows
            .iter()
            .filter(|r| !r.deleted)
            .map(|r| r.cursor.id)
            .collect()
    }

    /// Each row as its item (`found` says which, if readable) or as a tombstone.
    fn into_page<T>(self, mut found: impl FnMut(i64) -> Option<Option<T>>) -> SyncPage<T> {
        let items = self
            .rows
            .iter()
            .filter_map(|r| {
                let gone = Synced::Deleted {
                    id: r.cursor.id,
                    modified_utc: r.changed_utc,
                };
                if r.deleted {
                    return Some(gone);
                }
                // Deleted between the two reads: its tombstone comes later.
                Some(found(r.cursor.id)?.map_or(gone, Synced::Item))
            })
            .collect();
        SyncPage {
            query: self.query,
            items,
            cursor: self.cursor,
            more: self.more,
        }
    }
}

impl Service {
    /// The page of changes a sync request asks for, as rows.
    async fn change_rows(
        &self,
        conn: &mut Conn,
        set: ChangeSet,
        asking: Asking<'_>,
        args: &SyncArgs,
        given: &[&str],
        invalid: &[Invalid],
    ) -> Result<Rows, Error> {
        let mut p = Problems::new(invalid);
        let query = sync_query(
            args,
            given,
            self.zone,
            asking.now,
            self.per_page_max,
            &mut p,
        );
        p.finish::<Error>()?;
        let query = query.ok_or_else(|| Error::invalid("cursor"))?;
        if sync::forgotten(conn).await?.expired(query.start) {
            return Err(Error::Refused(Refusal::SyncExpired));
        }
        let horizon = sync::horizon(conn).await?;
        let below = horizon.below;
        let (from, since) = match query.start {
            SyncStart::Cursor(c) => (c, None),
            SyncStart::Since(t) => {
                let start = sync::start_at(conn, set, t, START_MARGIN_SECONDS).await?;
                (start.unwrap_or(SyncCursor::before(below)), Some(t))
            }
        };
        let audience = Audience::from(asking.caller.visibility());
        let mut rows =
            sync::changes_after(conn, set, from, below, since, audience, query.per_page + 1)
                .await?;
        let full = rows.len() as u64 > query.per_page;
        // A transaction that outlived the wait may still commit changes below the
        // next horizon: the answer says more may follow, so that a reader that
        // wants everything up to now (an export, an import) asks again.
        let more = full || !horizon.settled;
        rows.truncate(usize::try_from(query.per_page).unwrap_or(usize::MAX));
        let cursor = match (full, rows.last()) {
            (true, Some(last)) => last.cursor,
            _ => from.max(SyncCursor::before(below)),
        };
        Ok(Rows {
            query,
            rows,
            cursor,
            more,
        })
    }

    /// Changes of events since a cursor or instant.
    pub async fn sync_events(
        &self,
        asking: Asking<'_>,
        args: &SyncArgs,
        given: &[&str],
        invalid: &[Invalid],
    ) -> Result<SyncPage<ShownEvent>, Error> {
        let mut conn = self.store.pool.read().await?;
        let set = ChangeSet::Posts(PostType::Event);
        let rows = self
            .change_rows(&mut conn, set, asking, args, given, invalid)
            .await?;
        let found = events::get_many(&mut conn, &rows.live_ids()).await?;
        let mut links = events::load_links(&mut conn, &found).await?;
        drop(conn);
        let mut by_id: HashMap<i64, _> = found.into_iter().map(|e| (e.post.id, e)).collect();
        let (caller, now) = (asking.caller, asking.now);
        Ok(rows.into_page(|id| {
            let e = by_id.remove(&id)?;
            Some(caller.can_read(&e.post, now).then(|| ShownEvent {
                reveal: caller.reveal(&e.post, None),
                links: readable_links(links.remove(&id).unwrap_or_default(), caller, now),
                changes_at: None,
                event: e,
            }))
        }))
    }

    /// Changes of venues or organizers since a cursor or instant.
    pub async fn sync_linked(
        &self,
        asking: Asking<'_>,
        t: PostType,
        args: &SyncArgs,
        given: &[&str],
        invalid: &[Invalid],
    ) -> Result<SyncPage<(Post, Reveal)>, Error> {
        let mut conn = self.store.pool.read().await?;
        let rows = self
            .change_rows(&mut conn, ChangeSet::Posts(t), asking, args, given, invalid)
            .await?;
        let found = posts::get_many(&mut conn, &rows.live_ids()).await?;
        let marked = linked_unlinks::deleted_among(&mut conn, &found).await?;
        drop(conn);
        let mut by_id: HashMap<i64, Post> = found
            .into_iter()
            .filter(|p| p.post_type == Some(t))
            .map(|p| (p.id, p))
            .collect();
        let (caller, now) = (asking.caller, asking.now);
        Ok(rows.into_page(|id| {
            let post = by_id.remove(&id)?;
            // Deleted for good, its row waiting for its last batch: gone.
            let shown = caller.can_read(&post, now) && !marked.contains(&id);
            Some(shown.then(|| {
                let reveal = caller.reveal(&post, None);
                (post, reveal)
            }))
        }))
    }

    /// Changes of categories or tags since a cursor or instant: terms are public,
    /// so every change is an item or a tombstone.
    pub async fn sync_terms(
        &self,
        asking: Asking<'_>,
        tax: Taxonomy,
        args: &SyncArgs,
        given: &[&str],
        invalid: &[Invalid],
    ) -> Result<SyncPage<Term>, Error> {
        let mut conn = self.store.pool.read().await?;
        let rows = self
            .change_rows(
                &mut conn,
                ChangeSet::Terms(tax),
                asking,
                args,
                given,
                invalid,
            )
            .await?;
        let found = terms::get_many(&mut conn, &rows.live_ids()).await?;
        drop(conn);
        let mut by_id: HashMap<i64, Term> = found
            .into_iter()
            .filter(|t| t.taxonomy == tax)
            .map(|t| (t.id, t))
            .collect();
        Ok(rows.into_page(|id| Some(Some(by_id.remove(&id)?))))
    }
}
