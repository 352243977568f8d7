//! Events: their columns, relations (terms, venue, organizers), term counts,
//! and the list query. A page of events costs four statements whatever its
//! size: the page, the count, the terms, and the linked venues/organizers.
//!
//! Split by concern: `row` is the event row's shape, `read` the reads of
//! events and their links, `write` the writes of an event's own row,
//! `relations` its organizers and terms, `term_counts` the per-term counts
//! its writes keep right, `shared_rows` the locks that order its writers,
//! `list` the list query, and `each_day` the lists of a month's days. Everything is re-exported
//! here, so callers name `store::events::…` whatever file an item lives in.

mod each_day;
mod keys;
mod list;
mod read;
mod relations;
mod row;
mod schedule;
mod search;
mod shared_rows;
mod term_counts;
mod word_index;
mod words;
mod write;

pub use each_day::list_ids_each;
pub(in crate::store) use keys::code as key_code;
pub use list::{Listed, list, list_spans, venues_in_box};
pub use read::{get, get_by_slug, get_many, load_links, load_venues, terms_and_posts};
pub use relations::{
    Existing, Relations, distinct_terms, set_relations, term_and_organizer_ids, term_ids,
};
pub(in crate::store) use relations::{insert_relations, relation_statements};
pub use row::EventRow;
pub(in crate::store) use row::{event_from_row, returning_events, select_events};
pub use schedule::{next_due, publish_due};
pub use shared_rows::{Footprint, lock_events_of_batch, lock_shared_rows};
pub(in crate::store) use term_counts::{add_to_counts, count_from_row, lock_counts};
pub use term_counts::{adjust_counts, commit_new_event_links};
pub(in crate::store) use word_index::POSTGRES_MAX_NEIGHBOURS;
pub use words::{SEARCH_KEY_TRIGGERS, search_grams_fill};
pub use write::{CountedState, insert, lock_state};
