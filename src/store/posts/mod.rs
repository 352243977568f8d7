//! Posts shared by all types: venues, organizers, images; the event-specific
//! columns are read and written in `events`.
//!
//! Split by concern: `row` is the shape every post query shares, `read` the
//! lookups, `slugs` unique slugs, `write` inserts and changes, `resolve`
//! the find-or-create of posts named by value, `list` the venue/organizer
//! list and the filter pieces other lists share, and `search` its search. Everything is re-exported here,
//! so callers name `store::posts::…` whatever file an item lives in.

mod list;
mod read;
mod resolve;
mod row;
mod search;
mod slugs;
mod write;

pub(in crate::store) use list::{contains, escape_like, published};
pub use list::{first_linked, list_linked};
pub(in crate::store) use read::select_many;
pub use read::{get, get_by_slug, get_many, next_go_live, type_of};
pub use resolve::{find_duplicate, find_or_create, resolve_image};
pub use row::POST_COLUMN_COUNT;
pub(in crate::store) use row::{
    col, post_from_row, post_type_off_its_index, returning_posts, select_posts,
};
pub use search::INDEX_QUEUED_LINKED;
pub use slugs::unique_slug;
pub(in crate::store) use slugs::{
    slug_base, slug_family, slug_family_parts, slug_lock, wanted_slug,
};
pub use write::{delete, insert, lock_revision, trash, unlink, update};
pub(in crate::store) use write::{insert_statement, insert_values};
