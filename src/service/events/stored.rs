//! An event as a write transaction finds it, under its row lock: what an update, a
//! trash or a delete moves it from.

use crate::domain::changes::{EventState, public_by_status};
use crate::domain::event::counts_as_published;
use crate::store::events::{self, CountedState, Footprint};
use crate::store::{Conn, StoreError};

pub(super) struct Stored {
    pub id: i64,
    pub state: CountedState,
    /// Its own categories and tags.
    pub terms: Vec<i64>,
    pub organizers: Vec<i64>,
}

impl Stored {
    /// Reads the event, locking its row on PostgreSQL so that concurrent writes of
    /// it see each other; `None` when it no longer exists.
    pub async fn lock(conn: &mut Conn, id: i64) -> Result<Option<Stored>, StoreError> {
        let Some(state) = events::lock_state(conn, id).await? else {
            return Ok(None);
        };
        let (terms, organizers) = events::term_and_organizer_ids(conn, id).await?;
        Ok(Some(Stored {
            id,
            state,
            terms,
            organizers,
        }))
    }

    /// Where its keys are counted (`events::lock_shared_rows`).
    pub fn footprint(&self) -> Footprint<'_> {
        let s = &self.state;
        Footprint::stored(s.span, s.venue_id, &self.organizers)
    }

    /// Whether its terms count it.
    pub fn counted(&self) -> bool {
        let s = &self.state;
        counts_as_published(&s.status, s.date_utc, s.modified_utc)
    }

    /// It as the change log records the state a write leaves.
    pub fn event_state(&self) -> EventState {
        let s = &self.state;
        EventState::new(s.span, self.terms.iter().copied())
            .with_text(&s.title, &s.excerpt, &s.description)
            .with_links(s.venue_id, &self.organizers)
            .listed(self.id, public_by_status(&s.status, s.hidden), false)
    }
}
