//! Types, validation and query semantics. No I/O here.

pub mod cost;
pub mod dates;
pub mod event;
pub mod html;
pub mod permissions;
pub mod post;
pub mod slug;
pub mod term;
pub mod timezone;
