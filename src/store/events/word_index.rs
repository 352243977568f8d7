//! The index of whole words (SQLite's migration 51, PostgreSQL's 52): the events
//! holding a search word made of ASCII letters and digits, read as those holding a
//! piece of text that holds it (`domain::search_tokens`), where the trigram index
//! would read the entries of each of its trigrams.
//!
//! SQLite chooses between the two indexes inside the statement ([`pieces_query`]).
//! PostgreSQL's plans are made before it runs, for the values it is given: the
//! pieces are looked up first ([`with_pieces`]), and given to the list's statements
//! as constants, whose estimates the index's statistics then make.

use std::borrow::Cow;
use std::collections::BTreeMap;

use sea_query::{Expr, Query};

use crate::domain::event::EventFilter;
use crate::domain::search_tokens::found_by_tokens;
use crate::store::posts::escape_like;
use crate::store::{Backend, Conn, StoreError};

/// The most pieces of the vocabulary a word may be in and be looked up through
/// them: each piece's entries are read, and a word inside many (`the`, in
/// `there`, `other`, `theatre`…) is read at once by its trigrams.
const MAX_PIECES: i64 = 64;

/// The longest piece FTS5 holds whole (`FTS5_MAX_TOKEN_SIZE`): it keeps the first
/// bytes of a longer one, which other pieces may share, so a word inside one is
/// read by its trigrams.
const MAX_PIECE_BYTES: i64 = 32_768;

/// The longest piece PostgreSQL's index holds (migration 52; a GIN entry holds
/// some 2,700 bytes): a word inside a longer one is read by its trigrams.
const POSTGRES_MAX_PIECE_BYTES: i64 = 1_024;

/// PostgreSQL: `eq` with the pieces of the vocabulary holding each of its search
/// words that the index of whole words finds, in at most [`MAX_PIECES`] pieces,
/// none longer than [`POSTGRES_MAX_PIECE_BYTES`] (`EventFilter::search_pieces`).
/// One statement, before the list's; none on SQLite, or without such a word.
pub(super) async fn with_pieces<'a>(
    conn: &mut Conn,
    eq: &'a EventFilter,
) -> Result<Cow<'a, EventFilter>, StoreError> {
    let words: Vec<&String> = eq
        .search_words
        .iter()
        .filter(|w| found_by_tokens(w))
        .collect();
    if conn.backend() != Backend::Postgres || words.is_empty() {
        return Ok(Cow::Borrowed(eq));
    }
    let mut q = Query::select();
    for word in &words {
        q.expr(Expr::cust_with_values(
            format!(
                "(SELECT CASE WHEN count(*) <= {MAX_PIECES} \
                 AND COALESCE(max(octet_length(w.word)), 0) <= {POSTGRES_MAX_PIECE_BYTES} \
                 THEN COALESCE(string_agg(w.word, ' '), '') END \
                 FROM (SELECT word FROM search_words WHERE word LIKE $1 ESCAPE '\\' \
                 LIMIT {MAX_PIECES} + 1) w)"
            ),
            [format!("%{}%", escape_like(word))],
        ));
    }
    let n = words.len();
    let found = conn
        .query_one(&q, |r| {
            (0..n)
                .map(|i| r.opt_string(i))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    let mut pieces = BTreeMap::new();
    for (word, found) in words.into_iter().zip(found) {
        if let Some(found) = found {
            let held = found.split(' ').filter(|p| !p.is_empty());
            pieces.insert(word.clone(), held.map(str::to_string).collect());
        }
    }
    Ok(Cow::Owned(EventFilter {
        search_pieces: pieces,
        ..eq.clone()
    }))
}

/// A search's words looked up in the index of whole words, as SQL and its values.
pub(super) struct PiecesQuery {
    /// Whether every word is in at most [`MAX_PIECES`] pieces, none longer than
    /// [`MAX_PIECE_BYTES`]: the index of whole words is read when it holds, the
    /// trigram index otherwise.
    pub few: (String, Vec<String>),
    /// The FTS5 query of `posts_words`: each word's pieces OR-ed, the words
    /// AND-ed (`""`, which matches nothing, for a word in no piece).
    pub query: (String, Vec<String>),
}

/// The lookup of `words` (lower-cased) in the index of whole words, if it finds
/// every one of them exactly.
pub(super) fn pieces_query(words: &[&str]) -> Option<PiecesQuery> {
    if words.is_empty() || !words.iter().all(|w| found_by_tokens(w)) {
        return None;
    }
    let values: Vec<String> = words
        .iter()
        .flat_map(|w| [format!("\"{w}\""), w.to_string()])
        .collect();
    let few = words
        .iter()
        .map(|_| {
            format!(
                "(SELECT count(*) <= {MAX_PIECES} \
                 AND COALESCE(max(length(CAST(w.word AS BLOB))), 0) <= {MAX_PIECE_BYTES} \
                 FROM {PIECES})"
            )
        })
        .collect::<Vec<_>>()
        .join(" AND ");
    let query = words
        .iter()
        .map(|_| {
            format!(
                "(SELECT COALESCE('(' || group_concat('\"' || w.word || '\"', ' OR ') || ')', \
                 '\"\"') FROM {PIECES})"
            )
        })
        .collect::<Vec<_>>()
        .join(" || ' AND ' || ");
    Some(PiecesQuery {
        few: (format!("({few})"), values.clone()),
        query: (format!("({query})"), values),
    })
}

/// The vocabulary's pieces holding a word, given as its trigram phrase and as
/// itself: the trigram index finds the candidates, folding case as it does, and
/// `instr` keeps those that hold the word as the text's check does.
const PIECES: &str = "search_words w WHERE w.id IN (SELECT rowid FROM search_words_fts \
     WHERE search_words_fts MATCH ?) AND instr(w.word, ?) > 0";
