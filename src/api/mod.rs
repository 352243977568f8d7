//! The declarative API description: routes, arguments, and what is derived from them.

pub mod args;
pub mod i18n;
pub mod table;
