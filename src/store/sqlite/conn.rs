//! A SQLite connection: a pooled reader, or the writer held inside a write
//! transaction.

use std::ops::Deref;

use super::group_commit::WriterGuard;

pub enum SqliteConn {
    Reader(deadpool::unmanaged::Object<rusqlite::Connection>),
    Writer(WriterGuard),
}

impl SqliteConn {
    /// The writer's guard, if this is the writer.
    pub fn into_writer(self) -> Option<WriterGuard> {
        match self {
            SqliteConn::Writer(guard) => Some(guard),
            SqliteConn::Reader(_) => None,
        }
    }
}

impl Deref for SqliteConn {
    type Target = rusqlite::Connection;
    fn deref(&self) -> &rusqlite::Connection {
        match self {
            SqliteConn::Reader(c) => c,
            SqliteConn::Writer(c) => c,
        }
    }
}
