//! Which events hold a search word: the trigram indexes that find their
//! candidates (SQLite's `posts_fts`, PostgreSQL's `event_search`, and the tables
//! of symbols and of short words beside them), and the checks on each event's own
//! row that a candidate must pass.

use std::collections::BTreeMap;

use sea_query::{Alias, Cond, Expr, ExprTrait, Query, SelectStatement, SimpleExpr};

use crate::domain::event::EventFilter;
use crate::domain::event_keys::{KeyFilter, KeyKind};
use crate::domain::post::{PostType, Visibility};
use crate::domain::search_tokens::found_by_tokens;
use crate::store::Backend;
use crate::store::posts::{self, col, contains};
use crate::store::schema::{EventSearch, Posts};

use super::word_index;

/// Whether the trigram indexes find `word` exactly, as a phrase of its own: it
/// needs three characters. Shorter words the index serves (see [`served`]) are
/// found through their neighbours, and checked again on the row.
pub(super) fn indexed(word: &str) -> bool {
    word.chars().count() >= 3
}

/// How the trigram indexes serve a search word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Served {
    /// A word of three characters or more, looked up as itself.
    Phrase,
    /// A word shorter than a trigram, looked up as the trigrams it makes with the
    /// characters next to it (migration 13): wherever it occurs in a text of three
    /// characters or more, some trigram holds it. A word of two characters is
    /// followed or preceded by one of the characters the text holds
    /// (`search_chars`); a word of one sits in a pair of them the text holds
    /// (`search_pairs`), itself followed or preceded by one. SQLite's index holds
    /// each field apart, so a field of one or two characters has no trigram at
    /// all: those events are few, and found by their own index
    /// (`posts_short_text`). PostgreSQL's text joins its fields with spaces, so
    /// a word in it always has a neighbour; but `pg_trgm` indexes words of letters
    /// and digits, padded with spaces, and a pattern with anything else in it, or
    /// of one character, makes trigrams that say little or nothing of where the
    /// word is: there only words of two ASCII letters or digits are served so
    /// (others are [`Served::Symbols`]).
    Neighbours,
    /// PostgreSQL: a word holding a character other than a lower-case ASCII letter
    /// or digit, which `pg_trgm` extracts no trigram from, or only ones that say
    /// little: looked up as the events holding each run of three characters of it
    /// with such a character in it, or the word itself if shorter
    /// (`event_symbols`, migrations 14 and 15), and checked on their rows. A word
    /// of one letter or digit too, which `event_symbols` holds as it is.
    Symbols,
    /// Not served: checked on each event's row.
    No,
}

/// The statements that add every event's characters and pairs of characters to
/// `search_chars` and `search_pairs` (SQLite: and its words to `posts_words` and
/// `search_words`, migration 51), for a bulk load that did without what keeps
/// them (SQLite's writer as it indexes, PostgreSQL's triggers, see
/// [`SEARCH_KEY_TRIGGERS`]). SQLite's need the server's own connections
/// (`search_grams_of`, `search_words_in`).
pub fn search_grams_fill(backend: Backend) -> &'static [&'static str] {
    match backend {
        Backend::Sqlite => &[
            "INSERT OR IGNORE INTO search_chars (ch) SELECT value FROM json_each((\
             SELECT search_grams_of(1, title, excerpt, description) FROM posts \
             WHERE post_type = 'event'))",
            "INSERT OR IGNORE INTO search_pairs (pair) SELECT value FROM json_each((\
             SELECT search_grams_of(2, title, excerpt, description) FROM posts \
             WHERE post_type = 'event'))",
            "INSERT INTO posts_words(rowid, words) \
             SELECT id, search_words_in(title, excerpt, description) FROM posts \
             WHERE post_type = 'event' AND id NOT IN (SELECT id FROM search_queue) \
             ORDER BY id",
            // One segment, above those its fill made (see migration 51).
            "INSERT INTO posts_words(posts_words) VALUES ('optimize')",
            "INSERT OR IGNORE INTO search_words (word) SELECT value FROM json_each((\
             SELECT search_words_of(title, excerpt, description) FROM posts \
             WHERE post_type = 'event'))",
        ],
        // As migrations 13, 14 and 15 fill them (see there).
        Backend::Postgres => &[
            "INSERT INTO search_chars (ch) \
             SELECT unnest(string_to_array(' abcdefghijklmnopqrstuvwxyz0123456789', NULL)) \
             UNION SELECT DISTINCT regexp_split_to_table(translate(\
             lower(title || ' ' || excerpt || ' ' || description), \
             ' abcdefghijklmnopqrstuvwxyz0123456789', ''), '') \
             FROM posts WHERE post_type = 'event' ON CONFLICT DO NOTHING",
            "INSERT INTO event_symbols (event_id, symbols) \
             SELECT id, search_symbols(title || ' ' || excerpt || ' ' || description) \
             FROM posts WHERE post_type = 'event' \
             ON CONFLICT (event_id) DO UPDATE SET symbols = EXCLUDED.symbols",
            "ANALYZE event_symbols",
        ],
    }
}

/// PostgreSQL's triggers that keep `search_chars` and `event_symbols`. Not those
/// of `event_search`, which a bulk load keeps row by row as it keeps the trigram
/// index.
pub const SEARCH_KEY_TRIGGERS: [&str; 5] = [
    "search_chars_insert",
    "search_chars_update",
    "event_symbols_insert",
    "event_symbols_update",
    "event_symbols_delete",
];

/// Whether the trigram index reads `word` as the trigrams it makes with the
/// characters next to it ([`Served::Neighbours`]).
pub(super) fn by_neighbours(backend: Backend, word: &str) -> bool {
    served(backend, word) == Served::Neighbours
}

fn served(backend: Backend, word: &str) -> Served {
    if backend == Backend::Postgres && word.chars().any(is_symbol) {
        return Served::Symbols;
    }
    match word.chars().count() {
        0 => Served::No,
        1 if backend == Backend::Sqlite => Served::Neighbours,
        1 => Served::Symbols,
        2 => Served::Neighbours,
        _ => Served::Phrase,
    }
}

/// Whether the trigram index serves every word as itself ([`Served::Phrase`]), so
/// that a search's matches are its `LIKE`s alone, none a lookup of neighbours or
/// symbols in other tables.
pub(super) fn phrases_only(backend: Backend, words: &[String]) -> bool {
    words.iter().all(|w| served(backend, w) == Served::Phrase)
}

/// A symbol of PostgreSQL's `event_symbols`: any character but the space,
/// ASCII's lower-case letters and its digits.
fn is_symbol(c: char) -> bool {
    !(c == ' ' || c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// The events whose title, excerpt or description contains `word` (lower-cased), as
/// a subquery of their IDs: from the trigram indexes where they serve the word,
/// else through `LIKE` on every event.
pub(super) fn matching_events(backend: Backend, eq: &EventFilter, word: &str) -> SelectStatement {
    let words = [word.to_string()];
    if served(backend, word) != Served::No && !eq.search_unindexed.contains(word) {
        return words_matches(backend, &words, eq).expect("the word is served");
    }
    let mut q = Query::select();
    q.column((Posts::Table, Posts::Id))
        .from(Posts::Table)
        .and_where(col(Posts::PostType).eq(PostType::Event.as_str()))
        .and_where(haystack("posts").like(like(word)));
    q
}

/// The IDs of the events whose text holds every search word of `eq` the index
/// serves (see [`served`]), as the search index finds them, each once, in no
/// particular order and one at a time: `None` when it serves no word. Words the
/// index cannot serve are the caller's.
pub(super) fn index_matches(backend: Backend, eq: &EventFilter) -> Option<SelectStatement> {
    words_matches(backend, &eq.search_words, eq)
}

/// [`index_matches`] of `words`, with what was looked up for them before the list's
/// statements: the pieces PostgreSQL's index of whole words reads for some
/// (`EventFilter::search_pieces`), and the short words SQLite's is not read for
/// (`EventFilter::search_unindexed`).
fn words_matches(
    backend: Backend,
    words: &[String],
    looked_up: &EventFilter,
) -> Option<SelectStatement> {
    let pieces = &looked_up.search_pieces;
    let words: Vec<(&String, Served)> = words
        .iter()
        .map(|w| (w, served(backend, w)))
        .filter(|(w, s)| *s != Served::No && !looked_up.search_unindexed.contains(*w))
        .collect();
    if words.is_empty() {
        return None;
    }
    if backend == Backend::Postgres {
        // Every event's text, whatever its status: the matches' keys are looked up
        // next, and they say which events a list shows.
        let mut q = Query::select();
        q.expr_as(
            Expr::col((EventSearch::Table, EventSearch::Id)),
            Alias::new("id"),
        )
        .from(EventSearch::Table);
        let by_pieces = words.iter().any(|(w, _)| pieces.contains_key(*w));
        for (word, served) in words {
            if !pieces.contains_key(word) && inside_pieces(word, pieces) {
                continue;
            }
            q.and_where(match (served, pieces.get(word)) {
                (_, Some(pieces)) => holds_pieces(pieces),
                // A word of the index of whole words it found too common (or inside
                // too many pieces) is checked on the rows of the other words' pieces,
                // not given to the trigram index: each row of the two bitmaps AND-ed
                // is checked for every word, and the pieces' check computes the row's
                // pieces again (see `word_index::POSTGRES_MAX_PIECES_SHARE`), 90 µs
                // for each of `salsa jazz`'s thousands (bench/HISTORY.md, "2026-12-07,
                // night"). Any other word's trigrams are AND-ed with the pieces: such a
                // word may be rare, and its candidates few, unless it is inside each of
                // the pieces, where it holds for each of their rows.
                _ if by_pieces && found_by_tokens(word) => {
                    text_holds(Backend::Postgres, "event_search", word)
                }
                (Served::Neighbours, _) => postgres_neighbours(word),
                (Served::Symbols, _) => postgres_symbols(word),
                _ => Expr::col((EventSearch::Table, EventSearch::Haystack)).like(like(word)),
            });
        }
        return Some(q);
    }
    Some(sqlite_index_matches(&words))
}

/// [`index_matches`] on PostgreSQL, of the events starting within `range` (each
/// bound when given), checked on each candidate's row before its keys are looked
/// up (598 of the 1,599 candidates `jazz`'s count read fell outside the default
/// dates, at a million events). With `by_start_index`, PostgreSQL may AND the
/// trigram index's bitmap with the start index's (migration 26) where that reads
/// fewer rows; without, no index serves the bounds (`+`): for dates holding most
/// events it chose that AND too, whose bitmap of 667,000 events took 122 ms.
pub(super) fn dated_index_matches(
    eq: &EventFilter,
    range: (Option<i64>, Option<i64>),
    by_start_index: bool,
) -> Option<SelectStatement> {
    let mut q = index_matches(Backend::Postgres, eq)?;
    let start = || match by_start_index {
        true => Expr::col((EventSearch::Table, EventSearch::StartUtc)),
        false => Expr::cust("+event_search.start_utc"),
    };
    if let Some(from) = range.0 {
        q.and_where(start().gte(from));
    }
    if let Some(to) = range.1 {
        q.and_where(start().lte(to));
    }
    Some(q)
}

/// PostgreSQL: the events whose text holds every word, as one set, `None` when no
/// word is long enough for the trigram index ([`indexed`]): the index's matches of
/// those that are, with the shorter words checked on the rows it gives. A set of a
/// short word alone holds nearly every event (`a`), and PostgreSQL, which cannot
/// tell how many, hashed it whole beside the other words' sets: the 200th page of 50
/// of `salsa a` at a million events took 6.2 s so, `jazz a` 2.9 s.
pub(super) fn one_set(eq: &EventFilter) -> Option<SelectStatement> {
    let words = &eq.search_words;
    let long: Vec<String> = words.iter().filter(|w| indexed(w)).cloned().collect();
    let mut set = words_matches(Backend::Postgres, &long, eq)?;
    for word in words.iter().filter(|w| !indexed(w)) {
        set.and_where(text_holds(Backend::Postgres, "event_search", word));
    }
    Some(set)
}

/// PostgreSQL: `matches` (of [`index_matches`] or [`dated_index_matches`]) with what
/// a list checks of each event, read from its row under the names of `event_keys`'
/// columns (see `keys::listed_matches`).
pub(super) fn with_listed_columns(mut matches: SelectStatement) -> SelectStatement {
    matches.expr_as(
        Expr::col((EventSearch::Table, EventSearch::Id)),
        Alias::new("event_id"),
    );
    for column in [
        EventSearch::StartUtc,
        EventSearch::EndUtc,
        EventSearch::Status,
        EventSearch::Protected,
        EventSearch::Hidden,
        EventSearch::Author,
    ] {
        matches.column((EventSearch::Table, column));
    }
    matches
}

/// PostgreSQL: the event meets `key` as its row of `event_search` says, where the row
/// holds what the key filters on: a term (or a term below one), a flag set or unset
/// among those the row holds beside its terms (migration 54), or a term's flagged
/// key, both. Checked by the indexes of the row, whose entries of each event hold its
/// terms beside its text's, so that a flag set narrows the candidates as a term does.
pub(super) fn held_on_row(key: &KeyFilter) -> Option<SimpleExpr> {
    let flag = |kind: KeyKind| holds_terms(&[-super::keys::code(kind)]);
    match key.kind {
        KeyKind::Term => Some(holds_terms(&key.values)),
        KeyKind::Featured | KeyKind::Ticketed => match key.values[..] {
            [1] => Some(flag(key.kind)),
            [0] => Some(flag(key.kind).not()),
            _ => None,
        },
        KeyKind::FeaturedTerm => Some(holds_terms(&key.values).and(flag(KeyKind::Featured))),
        KeyKind::TicketedTerm => Some(holds_terms(&key.values).and(flag(KeyKind::Ticketed))),
        KeyKind::Every | KeyKind::Venue | KeyKind::Organizer | KeyKind::Located => None,
    }
}

/// PostgreSQL: the event holds one of `terms` or a term below one (or a flag's
/// negated code), as its row of `event_search` says (migrations 29 and 54).
fn holds_terms(terms: &[i64]) -> SimpleExpr {
    // One array literal, of integers only: sea-query writes a bracketed `ARRAY[…]`
    // as it stands, leaving placeholders in it unnumbered.
    let terms: Vec<String> = terms.iter().map(i64::to_string).collect();
    Expr::cust_with_values(
        "event_search.terms && ($1::text)::bigint[]",
        [format!("{{{}}}", terms.join(","))],
    )
}

/// PostgreSQL: the event's text holds one of `pieces`, as its index of whole
/// words finds it (migration 52): no event, for none. As one array literal of
/// quoted pieces, which hold no quote, backslash or comma (see
/// `domain::search_tokens`), and are read as they are, `null` too.
fn holds_pieces(pieces: &[String]) -> SimpleExpr {
    let quoted: Vec<String> = pieces.iter().map(|p| format!("\"{p}\"")).collect();
    Expr::cust_with_values(
        "search_pieces(event_search.haystack) && ($1::text)::text[]",
        [format!("{{{}}}", quoted.join(","))],
    )
}

/// Whether `word` is inside each of some other word's pieces (`zz` in those of `jazz`):
/// every event that other word's pieces find holds it. Checked through the trigram
/// index beside them, such a word's candidates are all of theirs, each checked by
/// computing its pieces again (`jazz zz`: 136 ms, page 100 over all dates 569 ms).
fn inside_pieces(word: &str, pieces: &BTreeMap<String, Vec<String>>) -> bool {
    pieces
        .values()
        .any(|held| !held.is_empty() && held.iter().all(|piece| piece.contains(word)))
}

/// `LIKE` any of the patterns of a two-character word and each character of the
/// text before or after it, which `pg_trgm` looks up one trigram each.
fn postgres_neighbours(word: &str) -> SimpleExpr {
    let escaped = posts::escape_like(word);
    Expr::cust_with_values(
        format!(
            "event_search.haystack LIKE ANY (ARRAY(\
             SELECT '%' || $1 || {CHAR_ESCAPED} || '%' FROM search_chars \
             UNION ALL SELECT '%' || {CHAR_ESCAPED} || $1 || '%' FROM search_chars))"
        ),
        [escaped],
    )
}

/// The events whose text holds `word`: those holding each of its runs of
/// characters with a symbol in it (see [`symbol_keys`]), checked on their rows.
/// Not its `LIKE`: `pg_trgm` reads a symbol as a word's edge, so the trigrams it
/// takes from the word's letters may be as common as a letter, while PostgreSQL
/// estimates them rare (`.q`: 100 events expected, 244,000 read).
fn postgres_symbols(word: &str) -> SimpleExpr {
    let keys = symbol_keys(word);
    // The array is appended to, not written `ARRAY[…]`: sea_query reads brackets
    // as a quoted name and leaves the values in them unbound.
    let array: String = (1..=keys.len())
        .map(|n| format!(" || ${n}::text"))
        .collect();
    let holding = Expr::cust_with_values(
        format!(
            "event_search.id IN (SELECT event_id FROM event_symbols \
             WHERE symbols @> ('{{}}'::text[]{array}))"
        ),
        keys,
    );
    Cond::all()
        .add(text_holds(Backend::Postgres, "event_search", word))
        .add(holding)
        .into()
}

/// What `event_symbols` holds of `word`: the word itself if it is one or two
/// characters, else each run of three characters of it with a symbol in it
/// (migration 15). Not its pairs: every description holds `.<` and `<p`, none
/// `.<p`.
fn symbol_keys(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut keys: Vec<String> = match chars.len() {
        0..=2 => vec![word.to_string()],
        _ => chars
            .windows(3)
            .filter(|run| run.iter().any(|c| is_symbol(*c)))
            .map(|run| run.iter().collect())
            .collect(),
    };
    keys.sort();
    keys.dedup();
    keys
}

/// A character of `search_chars`, escaped for `LIKE` as `posts::escape_like` does
/// (`chr(92)` is the backslash, spelled out so that no SQL tokenizer reads it as
/// escaping the quote after it).
const CHAR_ESCAPED: &str = "replace(replace(replace(ch, chr(92), chr(92) || chr(92)), \
     '%', chr(92) || '%'), '_', chr(92) || '_')";

/// SQLite: the index's matches, the queued events not yet in it (see
/// `SQLITE_AFTER_COMMIT`), and, for a word shorter than a trigram, the events
/// holding it in a field of one or two characters, which the index cannot (see
/// [`Served::Neighbours`]).
fn sqlite_index_matches(words: &[(&String, Served)]) -> SelectStatement {
    let (query, match_values) = sqlite_match_query(words);
    let (mut sql, mut values) = sqlite_phrase_matches(words, &query, &match_values);
    // Events written since the last indexing batch wait in `search_queue`, not
    // yet in the index: they are scanned. CROSS JOIN keeps SQLite from scanning
    // `posts` for the few queued rows.
    let queued = on_text(&haystack_sql("unindexed"), words.len());
    sql.push_str(&format!(
        " UNION ALL SELECT queued.id FROM search_queue queued \
         CROSS JOIN posts unindexed ON unindexed.id = queued.id WHERE {queued}"
    ));
    values.extend(words.iter().map(|(w, _)| like_pattern(w)));
    if words.iter().any(|(_, s)| *s == Served::Neighbours) {
        let short = on_text(&haystack_sql("short"), words.len());
        sql.push_str(&format!(
            " UNION ALL SELECT short.id FROM posts short INDEXED BY posts_short_text \
             WHERE {SHORT_TEXT} AND {short} \
             AND NOT EXISTS (SELECT 1 FROM search_queue WHERE id = short.id) \
             AND NOT EXISTS (SELECT 1 FROM posts_fts WHERE posts_fts MATCH {query} \
             AND rowid = short.id)"
        ));
        values.extend(words.iter().map(|(w, _)| like_pattern(w)));
        values.extend(match_values);
    }
    Query::select()
        .expr(Expr::cust_with_values(sql, values))
        .take()
}

/// The matches of the search index, as SQL selecting `id` and its values: of the
/// index of whole words for words it finds (see `word_index`), each in few of
/// its pieces, else of the trigram index (`query`, `match_values`).
fn sqlite_phrase_matches(
    words: &[(&String, Served)],
    query: &str,
    match_values: &[String],
) -> (String, Vec<String>) {
    let trigrams = format!("rowid AS id FROM posts_fts WHERE posts_fts MATCH {query}");
    let phrases: Option<Vec<&str>> = words
        .iter()
        .map(|(w, s)| (*s == Served::Phrase).then_some(w.as_str()))
        .collect();
    let Some(pieces) = phrases.and_then(|p| word_index::pieces_query(&p)) else {
        return (trigrams, match_values.to_vec());
    };
    let (few, few_values) = pieces.few;
    let (pieces_query, pieces_values) = pieces.query;
    // Each index is given a query that matches nothing (`""`) unless it is the
    // one read: a condition beside the MATCH would be tested on each of its
    // rows, after the index had read them all.
    let sql = format!(
        "rowid AS id FROM posts_words \
         WHERE posts_words MATCH (CASE WHEN {few} THEN {pieces_query} ELSE '\"\"' END) \
         UNION ALL SELECT rowid FROM posts_fts \
         WHERE posts_fts MATCH (CASE WHEN {few} THEN '\"\"' ELSE {query} END)"
    );
    let mut values = few_values.clone();
    values.extend(pieces_values);
    values.extend(few_values);
    values.extend_from_slice(match_values);
    (sql, values)
}

/// The FTS5 query of every word, AND-ed, as SQL and its values: a word of three
/// characters or more is a phrase; a shorter one, the trigrams it makes with its
/// neighbours (see [`Served::Neighbours`]), OR-ed (`""`, which matches nothing,
/// when the text holds none). A short word whose neighbours make too many trigrams
/// is not given here (`word_index::with_lookups`), and is checked on the rows.
fn sqlite_match_query(words: &[(&String, Served)]) -> (String, Vec<String>) {
    let mut phrases = Vec::new();
    let mut others = Vec::new();
    let mut values = Vec::new();
    let mut other_values = Vec::new();
    for (word, served) in words {
        match served {
            Served::Neighbours if word.chars().count() == 1 => {
                others.push(neighbours(&format!(
                    "(SELECT replace(pair, '\"', '\"\"') AS q FROM ({PAIRS_HOLDING}))"
                )));
                other_values.extend([word.to_string(), word.to_string(), word.to_string()]);
            }
            Served::Neighbours => {
                others.push(neighbours("(SELECT ? AS q)"));
                other_values.push(word.replace('"', "\"\""));
            }
            _ => {
                phrases.push("?".to_string());
                values.push(format!("\"{}\"", word.replace('"', "\"\"")));
            }
        }
    }
    let query = phrases
        .into_iter()
        .chain(others)
        .collect::<Vec<_>>()
        .join(" || ' AND ' || ");
    values.extend(other_values);
    (format!("({query})"), values)
}

/// SQLite: the pairs of characters the text holds (`search_pairs`) that hold a
/// character, given three times: those starting with it, a range of the table's
/// key, and those ending with it, from its index by the second (migration 53). A
/// pair of it twice comes twice: with a `UNION`, a count up to a limit read every
/// pair first.
pub(super) const PAIRS_HOLDING: &str = "SELECT pair FROM search_pairs \
     WHERE pair >= ? AND pair <= ? || char(1114111) \
     UNION ALL SELECT pair FROM search_pairs WHERE substr(pair, 2) = ?";

/// The FTS5 query OR-ing each of `grams` (quoted for a phrase) with each character
/// of the text after and before it.
fn neighbours(grams: &str) -> String {
    format!(
        "(SELECT COALESCE('(' || group_concat('\"' || g.q || c.q || '\" OR \"' || c.q || g.q || '\"', \
         ' OR ') || ')', '\"\"') FROM {grams} g \
         CROSS JOIN (SELECT replace(ch, '\"', '\"\"') AS q FROM search_chars) c)"
    )
}

/// Every one of `n` `LIKE ?` on `haystack`.
fn on_text(haystack: &str, n: usize) -> String {
    vec![format!("{haystack} LIKE ? ESCAPE '\\'"); n].join(" AND ")
}

fn like_pattern(word: &str) -> String {
    format!("%{}%", posts::escape_like(word))
}

/// The events with a field of one or two characters, as `posts_short_text`
/// (migration 13) holds them: named, as SQLite, knowing nothing of how few they
/// are, would rather read every event of the index on the type.
const SHORT_TEXT: &str = "short.post_type = 'event' AND (length(short.title) IN (1, 2) \
     OR length(short.excerpt) IN (1, 2) OR length(short.description) IN (1, 2))";

/// What a search matches in, as the trigram indexes hold it, for `posts` under
/// the given name.
fn haystack(table: &str) -> Expr {
    Expr::cust(haystack_sql(table))
}

/// What a search matches in, lower-cased.
fn haystack_sql(table: &str) -> String {
    format!("LOWER({})", text_sql(table))
}

/// The text a search matches in: the fields `search_text_holds` is given, in this
/// order, on SQLite (see [`text_holds`]).
fn text_sql(table: &str) -> String {
    format!("({table}.title || ' ' || {table}.excerpt || ' ' || {table}.description)")
}

/// `LIKE '%word%'`, escaped.
fn like(word: &str) -> sea_query::LikeExpr {
    sea_query::LikeExpr::new(like_pattern(word)).escape('\\')
}

/// `word` is in the text of the event row `p` (see [`text_row`]): as a position
/// (`instr`, `strpos`), not a pattern, so that PostgreSQL cannot answer it with the
/// trigram index. Checking one row, it sometimes estimated a short word rare enough
/// to AND its trigram index with the primary key for each row, and a `LIKE` that
/// `pg_trgm` extracts no trigram from reads the whole index (four milliseconds a
/// row).
pub(super) fn on_row(backend: Backend, word: &str) -> SimpleExpr {
    text_holds(backend, "p", word)
}

/// `word` is in the text of the row under the given name: of `posts` on SQLite, of
/// `event_search` on PostgreSQL.
fn text_holds(backend: Backend, table: &str, word: &str) -> SimpleExpr {
    let sql = match backend {
        // The same test without the lowered text made for each row (see
        // `store::sqlite::functions`).
        Backend::Sqlite => {
            format!("search_text_holds(?, {table}.title, {table}.excerpt, {table}.description)")
        }
        // Lower-cased as it was written (migration 25).
        Backend::Postgres => format!("strpos({table}.haystack, $1) > 0"),
    };
    Expr::cust_with_values(sql, [word.to_string()])
}

/// The event's row that its searched text is read from, under the name `p`, holds
/// `cond`: its `posts` row on SQLite, its `event_search` row on PostgreSQL (see
/// [`on_row`], [`title_holds`]). One row, looked up by the ID of the key row `d`, as
/// `keys::event_row` does.
pub(super) fn text_row(backend: Backend, cond: SimpleExpr) -> SimpleExpr {
    match backend {
        Backend::Sqlite => super::keys::event_row(cond),
        Backend::Postgres => super::keys::row_of(EventSearch::Table, EventSearch::Id, cond),
    }
}

/// The title of the event row `p` (see [`text_row`]) holds `word`: all that a
/// search may match of a protected event for those who may not read it.
pub(super) fn title_holds(backend: Backend, word: &str) -> SimpleExpr {
    let p = Alias::new("p");
    match backend {
        Backend::Sqlite => contains((p, Posts::Title), word),
        Backend::Postgres => {
            Expr::cust_with_values("strpos(p.protected_title, $1) > 0", [word.to_string()])
        }
    }
}

/// The event row `p` (see [`text_row`]) is of an event without a password.
fn unprotected(backend: Backend) -> SimpleExpr {
    match backend {
        Backend::Sqlite => Expr::col((Alias::new("p"), Posts::Password)).eq(""),
        Backend::Postgres => Expr::col((Alias::new("p"), EventSearch::ProtectedTitle)).is_null(),
    }
}

/// Every search word is in the text of the event row `p` (see [`text_row`]), and a
/// protected event, for those who may not read it, matches on its title alone:
/// matching its hidden text would tell them what that text contains.
pub(super) fn text_on_row(backend: Backend, eq: &EventFilter) -> SimpleExpr {
    let mut all = Cond::all();
    for word in &eq.search_words {
        all = all.add(on_row(backend, word));
        if eq.visibility != Visibility::All {
            all = all.add(
                Cond::any()
                    .add(unprotected(backend))
                    .add(title_holds(backend, word)),
            );
        }
    }
    all.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_looked_up_by_the_runs_of_three_they_are_in() {
        assert_eq!(symbol_keys("€"), ["€"]);
        assert_eq!(symbol_keys("c#"), ["c#"]);
        assert_eq!(symbol_keys("c++"), ["c++"]);
        assert_eq!(symbol_keys("...."), ["..."]);
        assert_eq!(symbol_keys("p.m."), [".m.", "p.m"]);
        assert_eq!(symbol_keys(".<p"), [".<p"]);
        assert_eq!(symbol_keys("a-.b:"), ["-.b", ".b:", "a-."]);
        assert_eq!(symbol_keys("cafés"), ["afé", "fés"]);
        assert!(symbol_keys("jazz").is_empty());
    }

    #[test]
    fn postgres_serves_words_of_symbols_and_sqlite_its_trigrams() {
        let pg = |w| served(Backend::Postgres, w);
        assert!(pg("€") == Served::Symbols && pg("c#") == Served::Symbols);
        assert!(pg("dj") == Served::Neighbours && pg("a") == Served::Symbols);
        assert!(served(Backend::Sqlite, "€") == Served::Neighbours);
        assert!(served(Backend::Sqlite, "c++") == Served::Phrase);
    }
}
