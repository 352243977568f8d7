//! The index of whole words (SQLite's migration 51, PostgreSQL's 52): the events
//! holding a search word made of ASCII letters and digits, read as those holding a
//! piece of text that holds it (`domain::search_tokens`), where the trigram index
//! would read the entries of each of its trigrams.
//!
//! SQLite chooses between the two indexes inside the statement ([`pieces_query`]).
//! PostgreSQL's plans are made before it runs, for the values it is given: the
//! pieces are looked up first ([`with_pieces`]), and given to the list's statements
//! as constants, whose estimates the index's statistics then make.
//!
//! Looked up the same way on SQLite ([`without_crowded`]): the words shorter than a
//! trigram whose neighbours make too many trigrams for its index to be read.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use sea_query::{Expr, Query};

use crate::domain::event::EventFilter;
use crate::domain::search_tokens::found_by_tokens;
use crate::store::events::words::{PAIRS_HOLDING, by_neighbours, indexed};
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

/// `eq` with what the search indexes tell of its words before the list's
/// statements are built: on PostgreSQL the pieces of its index of whole words
/// ([`with_pieces`]), and the short words the trigram index is not read for
/// ([`without_crowded`]). A statement or two, none without such words.
pub(super) async fn with_lookups<'a>(
    conn: &mut Conn,
    eq: &'a EventFilter,
) -> Result<Cow<'a, EventFilter>, StoreError> {
    let eq = match conn.backend() {
        Backend::Postgres => with_pieces(conn, eq).await?,
        Backend::Sqlite => Cow::Borrowed(eq),
    };
    without_crowded(conn, eq).await
}

/// How many trigrams SQLite's index may be given for a word shorter than one, OR-ed
/// (migration 13, `words::Served::Neighbours`): a word of two characters makes two
/// with each character of the text, a word of one two with each of those and each
/// pair of the text holding it. Each costs some 20 µs; a calendar of many distinct
/// characters makes them many (3,000 events of Chinese text: 6,000 for a word of two,
/// 36 million for one, whose query alone took 7.7 s and 1.6 GB to write). Past
/// this, the word is checked on each event's row. PostgreSQL's `LIKE` patterns
/// ([`POSTGRES_MAX_NEIGHBOURS`]) cost more.
const MAX_NEIGHBOUR_TRIGRAMS: i64 = 8_192;

/// How many `LIKE` patterns PostgreSQL's trigram index may be given for a word of
/// two letters or digits, two with each character of the text
/// (`words::postgres_neighbours`), each read as its own trigram's entries: a search
/// of `qx` among 5,000 distinct characters, 10,000 patterns, took 1.7 s in a calendar
/// of 200 events.
/// Venues' and organizers' pairs beside the characters past ASCII are looked up
/// alike (`store::posts::search`).
pub(in crate::store) const POSTGRES_MAX_NEIGHBOURS: i64 = 512;

/// How many of the text's pairs of characters a one-character word may be in and
/// still be looked up beside a phrase: its trigrams' OR reads most of the index
/// where it is common (`jazz e`: 2.3 s, 290 ms with the index's pages cached); at a
/// million events, `q` is in 4 (20 ms with `jazz`), `a` in 43 (160 ms).
const COMMON_CHAR_PAIRS: i64 = 8;

/// `eq` with its words shorter than a trigram that the index is not read for
/// (`EventFilter::search_unindexed`): those whose neighbours make more than
/// [`MAX_NEIGHBOUR_TRIGRAMS`] trigrams (PostgreSQL: [`POSTGRES_MAX_NEIGHBOURS`]
/// patterns), and on SQLite beside a word of three characters or more, a character
/// in more than [`COMMON_CHAR_PAIRS`] pairs. The text's characters are counted up
/// to what the bound needs, then each one-character word's pairs up to what it
/// needs with them. PostgreSQL reads a word of one character otherwise
/// (`event_symbols`).
async fn without_crowded<'a>(
    conn: &mut Conn,
    eq: Cow<'a, EventFilter>,
) -> Result<Cow<'a, EventFilter>, StoreError> {
    let backend = conn.backend();
    let short: Vec<&String> = eq
        .search_words
        .iter()
        .filter(|w| by_neighbours(backend, w))
        .collect();
    if short.is_empty() {
        return Ok(eq);
    }
    let most = match backend {
        Backend::Sqlite => MAX_NEIGHBOUR_TRIGRAMS,
        Backend::Postgres => POSTGRES_MAX_NEIGHBOURS,
    };
    let most_chars = most / 2 + 1;
    let chars = Query::select()
        .expr(Expr::cust(format!(
            "(SELECT count(*) FROM (SELECT 1 FROM search_chars LIMIT {most_chars}) c)"
        )))
        .take();
    let chars = Ord::max(conn.query_one(&chars, |r| r.i64(0)).await?, 1);
    let trigrams = |pairs: i64| chars.saturating_mul(pairs).saturating_mul(2);
    let most_pairs = Ord::max(COMMON_CHAR_PAIRS, most / (2 * chars)) + 1;
    let single: Vec<&String> = short
        .iter()
        .copied()
        .filter(|w| w.chars().count() == 1)
        .collect();
    let mut pairs = vec![0; single.len()];
    if !single.is_empty() {
        let mut q = Query::select();
        for word in &single {
            q.expr(Expr::cust_with_values(
                format!("(SELECT count(*) FROM ({PAIRS_HOLDING} LIMIT {most_pairs}))"),
                [word.as_str(); 3],
            ));
        }
        let n = single.len();
        pairs = conn
            .query_one(&q, |r| {
                (0..n).map(|i| r.i64(i)).collect::<Result<Vec<_>, _>>()
            })
            .await?;
    }
    let beside_phrase = eq.search_words.iter().any(|w| indexed(w));
    let mut crowded: BTreeSet<String> = single
        .into_iter()
        .zip(pairs)
        .filter(|(_, pairs)| {
            (beside_phrase && *pairs > COMMON_CHAR_PAIRS) || trigrams(*pairs) > most
        })
        .map(|(word, _)| word.clone())
        .collect();
    if trigrams(1) > most {
        crowded.extend(
            short
                .into_iter()
                .filter(|w| w.chars().count() == 2)
                .cloned(),
        );
    }
    if crowded.is_empty() {
        return Ok(eq);
    }
    Ok(Cow::Owned(EventFilter {
        search_unindexed: crowded,
        ..eq.into_owned()
    }))
}

/// PostgreSQL: the share of the events whose pieces hold some piece of `w`, as the
/// index's statistics give it (`pg_stats` of `event_search_pieces`, the most
/// common pieces' frequencies, summed; 0 for pieces rarer than those, or before the
/// first `ANALYZE`).
const PIECES_SHARE: &str = "(SELECT COALESCE(sum(f.freq), 0) FROM pg_stats s, \
     unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS f(elem, freq) \
     WHERE s.schemaname = current_schema() AND s.tablename = 'event_search_pieces' \
     AND f.elem IN (SELECT word FROM w))";

/// PostgreSQL: the largest share of the events a word's pieces may be in for it to
/// be read through them. Every row the index's bitmap gives on a page it could not
/// keep exact (past `work_mem`), and every row a plan reads without the index, is
/// checked by computing its pieces again, some 90 µs each: `salsa`, in 42 % of a
/// million events, counted to 10,000 took 2.1 s so, where the trigrams' check is a
/// `LIKE` of the stored text. `carnival`, in 5 %, has an exact bitmap.
const POSTGRES_MAX_PIECES_SHARE: f64 = 0.06;

/// PostgreSQL: `eq` with the pieces of the vocabulary holding each of its search
/// words that the index of whole words finds, in at most [`MAX_PIECES`] pieces,
/// none longer than [`POSTGRES_MAX_PIECE_BYTES`], in at most
/// [`POSTGRES_MAX_PIECES_SHARE`] of the events (`EventFilter::search_pieces`), and
/// the share of the events expected to hold them all
/// (`EventFilter::search_pieces_share`).
async fn with_pieces<'a>(
    conn: &mut Conn,
    eq: &'a EventFilter,
) -> Result<Cow<'a, EventFilter>, StoreError> {
    let words: Vec<&String> = eq
        .search_words
        .iter()
        .filter(|w| found_by_tokens(w))
        .collect();
    if words.is_empty() {
        return Ok(Cow::Borrowed(eq));
    }
    let mut q = Query::select();
    for word in &words {
        let held = || format!("%{}%", escape_like(word));
        q.expr(Expr::cust_with_values(
            format!(
                "({} SELECT CASE WHEN count(*) <= {MAX_PIECES} \
                 AND COALESCE(max(octet_length(w.word)), 0) <= {POSTGRES_MAX_PIECE_BYTES} \
                 AND {PIECES_SHARE} <= {POSTGRES_MAX_PIECES_SHARE} \
                 THEN COALESCE(string_agg(w.word, ' '), '') END FROM w)",
                holding()
            ),
            [held()],
        ))
        .expr(Expr::cust_with_values(
            format!(
                "({} SELECT CAST({PIECES_SHARE} AS DOUBLE PRECISION))",
                holding()
            ),
            [held()],
        ));
    }
    let n = words.len();
    let found = conn
        .query_one(&q, |r| {
            (0..n)
                .map(|i| Ok((r.opt_string(2 * i)?, r.opt_f64(2 * i + 1)?)))
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .await?;
    let mut pieces = BTreeMap::new();
    let mut share = 1.0;
    for (word, (found, word_share)) in words.into_iter().zip(found) {
        if let Some(found) = found {
            let held = found.split(' ').filter(|p| !p.is_empty());
            pieces.insert(word.clone(), held.map(str::to_string).collect());
            share *= word_share.unwrap_or(0.0);
        }
    }
    Ok(Cow::Owned(EventFilter {
        search_pieces_share: if pieces.is_empty() { 0.0 } else { share },
        search_pieces: pieces,
        ..eq.clone()
    }))
}

/// PostgreSQL: the vocabulary's pieces holding a word (`$1`, a `LIKE` pattern), up
/// to one more than [`MAX_PIECES`], as the table `w`.
fn holding() -> String {
    format!(
        "WITH w AS (SELECT word FROM search_words WHERE word LIKE $1 ESCAPE '\\' \
         LIMIT {MAX_PIECES} + 1)"
    )
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
                 FROM {})",
                pieces()
            )
        })
        .collect::<Vec<_>>()
        .join(" AND ");
    let query = words
        .iter()
        .map(|_| {
            format!(
                "(SELECT COALESCE('(' || group_concat('\"' || w.word || '\"', ' OR ') || ')', \
                 '\"\"') FROM {})",
                pieces()
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
/// itself, up to one more than [`MAX_PIECES`], as the table `w`: the trigram index
/// finds the candidates, folding case as it does, and `instr` keeps those that
/// hold the word as the text's check does. Read in the trigram index's order and
/// cut at the bound: a vocabulary grows with every distinct piece written, and a
/// word inside many of them (`art`, in 53,000 of 600,000 pieces) cost 20 ms at
/// each of a search's lookups, read whole, against 0.05 ms so.
fn pieces() -> String {
    format!(
        "(SELECT w.word FROM search_words_fts f CROSS JOIN search_words w ON w.id = f.rowid \
         WHERE search_words_fts MATCH ? AND instr(w.word, ?) > 0 LIMIT {}) w",
        MAX_PIECES + 1
    )
}
