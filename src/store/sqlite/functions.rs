//! The SQL functions every connection of the server has: SQLite's own `lower()`
//! replaced by Unicode folding, a search word's check on an event's text, and the
//! characters and words of the events' search text.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;

use rusqlite::functions::{Aggregate, Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};

use crate::domain::search_tokens;
use crate::store::StoreError;

pub(super) fn register(conn: &rusqlite::Connection) -> Result<(), StoreError> {
    unicode_lower(conn)?;
    conn.create_scalar_function(
        "search_text_holds",
        -1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            let texts = (1..ctx.len()).map(|i| ctx.get_raw(i));
            Ok(search_text_holds(ctx.get_raw(0), texts))
        },
    )?;
    conn.create_aggregate_function(
        "search_grams_of",
        -1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        SearchGramsOf,
    )?;
    conn.create_scalar_function(
        "search_words_in",
        -1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            let texts: Vec<Cow<'_, str>> =
                (0..ctx.len()).filter_map(|i| text_arg(ctx, i)).collect();
            Ok(search_tokens::tokens_text(texts.iter().map(|t| t.as_ref())))
        },
    )?;
    conn.create_aggregate_function(
        "search_words_of",
        -1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        SearchWordsOf,
    )?;
    Ok(())
}

/// Replaces SQLite's `lower()`, which folds ASCII letters only, with Unicode case
/// folding as PostgreSQL's does: searches lower-case their words in Rust, and
/// `search=ünïcødé` must find "Fête Ünïcødé" on both backends. The venue and
/// organizer search index (`linked_fts`, migration 12) holds text lowered by this
/// function, and only the server's own connections write it: a change to what it
/// returns must queue every venue and organizer again (`linked_search_queue`), or
/// searches could miss rows indexed under the old folding.
fn unicode_lower(conn: &rusqlite::Connection) -> Result<(), StoreError> {
    conn.create_scalar_function(
        "lower",
        1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Null => Value::Null,
                ValueRef::Text(bytes) => {
                    let text = text_of(bytes);
                    Value::Text(if text.is_ascii() {
                        text.to_ascii_lowercase()
                    } else {
                        text.to_lowercase()
                    })
                }
                ValueRef::Integer(i) => Value::Text(i.to_string()),
                ValueRef::Real(r) => Value::Text(r.to_string()),
                ValueRef::Blob(b) => Value::Blob(b.to_ascii_lowercase()),
            })
        },
    )?;
    Ok(())
}

/// A text value's bytes as text. SQLite hands over the UTF-8 it was given, which
/// the checked conversion reads a word at a time where the lossy one goes character
/// by character: a search checks thousands of rows' texts per request.
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

thread_local! {
    /// The text [`search_text_holds`] searches, kept between calls: a search
    /// checks thousands of rows, one after the other, on the same thread.
    static HAYSTACK: RefCell<String> = const { RefCell::new(String::new()) };
}

/// `search_text_holds(word, text, …)`: whether `lower(text || ' ' || …)` holds
/// `word`, as `instr()` would tell, but with neither that string nor its
/// lower-cased copy made and handed between SQLite and Rust for every row
/// checked: a search's walk of the window spent most of its time doing so
/// (bench/HISTORY.md). NULL if any argument is, as the expression's would be (or
/// is a blob: the columns it reads hold text).
fn search_text_holds<'a>(
    word: ValueRef<'a>,
    texts: impl Iterator<Item = ValueRef<'a>>,
) -> Option<bool> {
    let ValueRef::Text(word) = word else {
        return None;
    };
    let word = text_of(word);
    HAYSTACK.with_borrow_mut(|haystack| {
        haystack.clear();
        for (i, text) in texts.enumerate() {
            if i > 0 {
                haystack.push(' ');
            }
            match text {
                ValueRef::Text(bytes) => haystack.push_str(&text_of(bytes)),
                ValueRef::Integer(n) => haystack.push_str(&n.to_string()),
                ValueRef::Real(r) => haystack.push_str(&r.to_string()),
                ValueRef::Null | ValueRef::Blob(_) => return None,
            }
        }
        if haystack.is_ascii() {
            haystack.make_ascii_lowercase();
            Some(memchr::memmem::find(haystack.as_bytes(), word.as_bytes()).is_some())
        } else {
            Some(haystack.to_lowercase().contains(word.as_ref()))
        }
    })
}

/// `search_grams_of(n, text, …)`: every run of `n` characters of its text
/// arguments lower-cased (as `lower()` does), over every row, each once, as a JSON
/// array (`search_chars` and `search_pairs`, migration 13). Lower-cased is enough:
/// the search index folds case itself, and searches lower-case their words.
struct SearchGramsOf;

type Grams = (usize, HashSet<String>);

impl Aggregate<Grams, String> for SearchGramsOf {
    fn init(&self, ctx: &mut Context<'_>) -> rusqlite::Result<Grams> {
        let n: i64 = ctx.get(0)?;
        Ok((usize::try_from(n).unwrap_or(1).clamp(1, 3), HashSet::new()))
    }

    fn step(&self, ctx: &mut Context<'_>, (n, grams): &mut Grams) -> rusqlite::Result<()> {
        let mut gram = String::new();
        for i in 1..ctx.len() {
            if let ValueRef::Text(bytes) = ctx.get_raw(i) {
                let chars: Vec<char> = text_of(bytes).to_lowercase().chars().collect();
                for window in chars.windows(*n) {
                    gram.clear();
                    gram.extend(window);
                    if !grams.contains(&gram) {
                        grams.insert(gram.clone());
                    }
                }
            }
        }
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, grams: Option<Grams>) -> rusqlite::Result<String> {
        json_array(grams.map(|(_, g)| g).unwrap_or_default())
    }
}

/// `search_words_of(text, …)`: the pieces of its text arguments that the index
/// of whole words holds (`domain::search_tokens`), over every row, each once, as
/// a JSON array: the vocabulary of the events indexed (`search_words`,
/// migration 51).
struct SearchWordsOf;

impl Aggregate<HashSet<String>, String> for SearchWordsOf {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<HashSet<String>> {
        Ok(HashSet::new())
    }

    fn step(&self, ctx: &mut Context<'_>, words: &mut HashSet<String>) -> rusqlite::Result<()> {
        let texts: Vec<Cow<'_, str>> = (0..ctx.len()).filter_map(|i| text_arg(ctx, i)).collect();
        words.extend(search_tokens::text_tokens(texts.iter().map(|t| t.as_ref())));
        Ok(())
    }

    fn finalize(
        &self,
        _: &mut Context<'_>,
        words: Option<HashSet<String>>,
    ) -> rusqlite::Result<String> {
        json_array(words.unwrap_or_default())
    }
}

/// A text argument of a function, if it is one.
fn text_arg<'a>(ctx: &'a Context<'_>, i: usize) -> Option<Cow<'a, str>> {
    match ctx.get_raw(i) {
        ValueRef::Text(bytes) => Some(text_of(bytes)),
        _ => None,
    }
}

/// A set of strings as a sorted JSON array.
fn json_array(set: HashSet<String>) -> rusqlite::Result<String> {
    let mut items: Vec<String> = set.into_iter().collect();
    items.sort_unstable();
    serde_json::to_string(&items).map_err(|e| rusqlite::Error::UserFunctionError(e.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_text_holds_answers_as_instr_of_the_lowered_text() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let texts = [
            ("Jazz Night", "", "<p>Salsa &amp; more</p>"),
            ("FÊTE ÜNÏCØDÉ", "ΣΟΦΟΣ", "Straße"),
            ("a", "b", "c"),
            ("", "", ""),
        ];
        let words = [
            "jazz",
            "night s",
            "salsa",
            "&amp;",
            "fête",
            "ünïcødé",
            "σοφος",
            "σοφος ",
            "ß",
            "a b",
            "b c",
            "c",
            "",
            " ",
            "zeppelin",
            "jazz night",
        ];
        for (title, excerpt, description) in texts {
            for word in words {
                let (ours, expected): (Option<bool>, Option<bool>) = conn
                    .query_row(
                        "SELECT search_text_holds(?1, ?2, ?3, ?4), \
                         instr(lower(?2 || ' ' || ?3 || ' ' || ?4), ?1) > 0",
                        (word, title, excerpt, description),
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .unwrap();
                assert_eq!(
                    ours, expected,
                    "{word:?} in {title:?} {excerpt:?} {description:?}"
                );
            }
        }
        let null: Option<bool> = conn
            .query_row("SELECT search_text_holds('a', 'a', NULL)", [], |r| r.get(0))
            .unwrap();
        assert_eq!(null, None);
    }

    #[test]
    fn text_is_read_as_the_lossy_conversion_reads_it() {
        for bytes in [
            &b"plain"[..],
            "FÊTE Straße".as_bytes(),
            b"a\xffb",
            b"caf\xc3",
            b"",
        ] {
            assert_eq!(text_of(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
        assert!(matches!(text_of("Straße".as_bytes()), Cow::Borrowed(_)));
    }
}
