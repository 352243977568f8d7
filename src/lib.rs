//! A fast, standalone Calendar Events REST server (`calendar/events/v1`).

pub mod api;
pub mod cli;
pub mod config;
pub mod domain;
pub mod http;
pub mod service;
pub mod store;
