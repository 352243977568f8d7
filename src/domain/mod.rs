//! Types, validation and query semantics. No I/O here.

pub mod dates;
pub mod permissions;
pub mod post;
pub mod slug;
pub mod term;
