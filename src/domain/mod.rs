//! Types, validation and query semantics. No I/O here.

pub mod args;
pub mod changes;
pub mod cost;
pub mod dates;
pub mod event;
pub mod event_input;
pub mod event_keys;
pub mod event_list;
pub mod html;
pub mod ics_import;
pub mod linked_input;
pub mod lists;
pub mod message;
pub mod permissions;
pub mod plain_text;
pub mod post;
pub mod search_tokens;
pub mod slug;
pub mod sync;
pub mod term;
pub mod timezone;
pub mod validation;
pub mod zone_history;
