//! The search of venues and organizers: the fields it matches, migration 12's
//! trigram indexes of them and the writer's statements that keep SQLite's, and the
//! candidates a search reads from them before its check on the fields.

use sea_query::{Cond, Expr, ExprTrait, Query, SelectStatement, SimpleExpr};

use super::col;
use super::list::{contains, escape_like, visible_under};
use crate::domain::post::{LinkedPostQuery, PostType};
use crate::store::schema::Posts;
use crate::store::{Backend, Conn, StoreError};

/// The fields a search of venues or organizers matches.
fn searched_columns(t: PostType) -> &'static [Posts] {
    match t {
        PostType::Venue => &[
            Posts::Title,
            Posts::Description,
            Posts::Excerpt,
            Posts::Address,
            Posts::City,
            Posts::Province,
            Posts::State,
            Posts::Stateprovince,
            Posts::Zip,
            Posts::Phone,
        ],
        _ => &[
            Posts::Title,
            Posts::Description,
            Posts::Excerpt,
            Posts::Phone,
            Posts::Email,
            Posts::Website,
        ],
    }
}

/// What migration 12's search indexes hold for a venue: each searched field
/// lower-cased on its own, joined by spaces, so that whatever a field's `LIKE`
/// matches is in it. Tests hold both migrations and [`searched_columns`] to these.
macro_rules! venue_haystack {
    () => {
        "coalesce(lower(title), '') || ' ' || coalesce(lower(description), '') || ' ' || \
         coalesce(lower(excerpt), '') || ' ' || coalesce(lower(address), '') || ' ' || \
         coalesce(lower(city), '') || ' ' || coalesce(lower(province), '') || ' ' || \
         coalesce(lower(state), '') || ' ' || coalesce(lower(stateprovince), '') || ' ' || \
         coalesce(lower(zip), '') || ' ' || coalesce(lower(phone), '')"
    };
}

/// [`venue_haystack`] for an organizer.
macro_rules! organizer_haystack {
    () => {
        "coalesce(lower(title), '') || ' ' || coalesce(lower(description), '') || ' ' || \
         coalesce(lower(excerpt), '') || ' ' || coalesce(lower(phone), '') || ' ' || \
         coalesce(lower(email), '') || ' ' || coalesce(lower(website), '')"
    };
}

/// SQLite's writer indexes the venues and organizers queued for search (migration
/// 12) with these, after a group commits: the queued rows' old entries out, their
/// current text in (none for a deleted row), the queue emptied. Run on the
/// server's connections, whose `lower()` is the one searches are checked with (the
/// benchmark's generator runs them through the store after its bulk load).
pub const INDEX_QUEUED_LINKED: [&str; 3] = [
    "DELETE FROM linked_fts WHERE rowid IN (SELECT id FROM linked_search_queue)",
    concat!(
        "INSERT INTO linked_fts(rowid, haystack) SELECT posts.id, CASE posts.post_type \
         WHEN 'venue' THEN ",
        venue_haystack!(),
        " ELSE ",
        organizer_haystack!(),
        " END || ' ' FROM linked_search_queue queued JOIN posts ON posts.id = queued.id \
         WHERE posts.post_type IN ('venue', 'organizer')"
    ),
    "DELETE FROM linked_search_queue",
];

/// Whether a search of two characters is looked up in the search index.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pairs {
    /// For a pair few entries hold (see [`rare_pair`]).
    Indexed,
    /// Checked on the venues in list order.
    Walked,
}

/// Whether the search index is read for `word` (lower-cased): three characters or
/// more, or two when `pairs` says so.
pub(super) fn indexable(word: &str, pairs: Pairs) -> bool {
    match word.chars().count() {
        2 => pairs == Pairs::Indexed,
        n => n >= TRIGRAM,
    }
}

/// SQLite: how many trigrams, counted once per entry holding them, may begin with
/// a pair for its entries to be read from the index (see [`PAIR_MATCH`]) rather than
/// the venues walked in list order. The walk of a common pair ends with the count's
/// limit (`al`: 28,000 entries; read from the index and sorted, 110 ms, walked, 20);
/// one that no venue holds (`qx`) is answered from the index without reading any
/// (1.4 ms, where the walk read all 20,000 venues of a million events in 80-130).
const RARE_PAIR_ENTRIES: i64 = 2_000;

/// PostgreSQL: how many texts of the list's type [`rare_pair`] reads to tell a
/// common pair from a rare one: the newest, which a walk reads first (2 ms).
const PAIR_PROBE_TEXTS: i64 = 300;

/// PostgreSQL: a pair more texts than one in this many of the probe's hold is
/// walked. Through the index a pair costs each text holding it a check of the
/// regular expression and of the `LIKE`s of the characters past ASCII (see
/// [`pair_candidates`]), twice (the count and the page), where the walk reads fewer
/// venues per match it counts the more hold it. At 20,000 venues: `ub` (6.6 %) 24 ms
/// through the index with no such character, 57 with ten, 62 walked; `ph` (12 %) 29
/// through the index with none, 54 walked; `ey` (27 %) 61 and 28; `al` (95 %) walked
/// in 7.
const COMMON_PAIR_SHARE: i64 = 12;

/// Whether the list's search is two characters that few entries of the search
/// index hold. SQLite: `linked_fts_terms` counts each term's entries. PostgreSQL: a
/// pair of ASCII letters or digits (see [`pair_candidates`]; others are walked),
/// and the share of the newest [`PAIR_PROBE_TEXTS`] venues or organizers that hold
/// it (the index has no count to read, and reading a common pair's matches from it
/// costs more than the walk of them), whatever their status: the walk's own
/// filters leave its pace to the pair.
pub(super) async fn rare_pair(conn: &mut Conn, lq: &LinkedPostQuery) -> Result<Pairs, StoreError> {
    let word = lq.search.as_deref().map(str::to_lowercase);
    let Some(word) = word.filter(|w| w.chars().count() == 2) else {
        return Ok(Pairs::Walked);
    };
    let rare = match conn.backend() {
        Backend::Sqlite => {
            let Some((from, below)) = pair_range(&word) else {
                return Ok(Pairs::Walked);
            };
            let entries = Query::select()
                .expr(Expr::cust_with_values(
                    "coalesce(sum(doc), 0) FROM linked_fts_terms WHERE term >= ? AND term < ?",
                    [from, below],
                ))
                .take();
            conn.query_one(&entries, |r| r.i64(0)).await? <= RARE_PAIR_ENTRIES
        }
        Backend::Postgres if !word.chars().all(served_in_pairs) => false,
        Backend::Postgres if many_chars_past_ascii(conn).await? => false,
        Backend::Postgres => {
            // The type written out, for the partial index of its posts in list order
            // (migration 19): one of two constants.
            let probe = Query::select()
                .expr(Expr::cust_with_values(
                    format!(
                        "count(*) FILTER (WHERE haystack LIKE $1 ESCAPE chr(92)), count(*) \
                         FROM linked_search WHERE id = ANY(ARRAY(SELECT id FROM posts \
                         WHERE post_type = '{}' ORDER BY date_utc DESC, id DESC \
                         LIMIT {PAIR_PROBE_TEXTS}))",
                        lq.post_type.as_str()
                    ),
                    [format!("%{}%", escape_like(&word))],
                ))
                .take();
            let (held, probed) = conn
                .query_one(&probe, |r| Ok((r.i64(0)?, r.i64(1)?)))
                .await?;
            held.saturating_mul(COMMON_PAIR_SHARE) <= probed
        }
    };
    Ok(if rare { Pairs::Indexed } else { Pairs::Walked })
}

/// The venues or organizers that may contain `word` (lower-cased, see
/// [`indexable`]), from the search index: a superset of those a field of which does.
/// SQLite: the trigram index, and what is still queued for it (at most a batch,
/// see `SQLITE_AFTER_COMMIT`). PostgreSQL: those of `post_type` in `linked_search`
/// (migration 27), whose `LIKE` its trigram index serves and PostgreSQL checks on
/// the stored text.
fn candidates(backend: Backend, post_type: PostType, word: &str) -> SimpleExpr {
    match backend {
        Backend::Sqlite => {
            let (matched, values) = match pair_range(word) {
                Some((from, below)) => (PAIR_MATCH, vec![from, below]),
                None => (
                    "rowid FROM linked_fts WHERE linked_fts MATCH ?",
                    vec![format!("\"{}\"", word.replace('"', "\"\""))],
                ),
            };
            let sql = format!("{matched} UNION ALL SELECT id FROM linked_search_queue");
            col(Posts::Id).in_subquery(
                Query::select()
                    .expr(Expr::cust_with_values(sql, values))
                    .take(),
            )
        }
        // An array of the matches' IDs, computed once: as a semi-join, PostgreSQL
        // expected a few hundred venues of the fields' own `LIKE`s and walked every
        // post's ID in order to meet the index's 1,300 matches (`search=hall` at a
        // million events: 575 ms; the array's lookups: 20 ms).
        Backend::Postgres if word.chars().count() == 2 => pair_candidates(post_type, word),
        Backend::Postgres => Expr::cust_with_values(
            "posts.id = ANY(ARRAY(SELECT id FROM linked_search \
             WHERE haystack LIKE $1 ESCAPE chr(92) AND post_type = $2))",
            [
                format!("%{}%", escape_like(word)),
                post_type.as_str().to_string(),
            ],
        ),
    }
}

/// PostgreSQL: whether the texts hold more characters past ASCII than a pair may be
/// looked up beside (two `LIKE` patterns each, see [`pair_candidates`]; at most
/// `events::POSTGRES_MAX_NEIGHBOURS`): a pair is then walked, through every venue or
/// organizer at most, where the index's patterns would cost more, some 0.17 ms each.
async fn many_chars_past_ascii(conn: &mut Conn) -> Result<bool, StoreError> {
    let most = crate::store::events::POSTGRES_MAX_NEIGHBOURS / 2;
    let q = Query::select()
        .expr(Expr::cust(format!(
            "(SELECT count(*) FROM (SELECT 1 FROM linked_search_chars LIMIT {}) c)",
            most + 1
        )))
        .take();
    Ok(conn.query_one(&q, |r| r.i64(0)).await? > most)
}

/// PostgreSQL: whether a pair of these characters is looked up in the trigram index
/// (see [`pair_candidates`]): ASCII letters and digits, of which `pg_trgm` makes
/// trigrams with their neighbours; beside any other character it sees a word's edge.
fn served_in_pairs(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// PostgreSQL: the venues or organizers holding `pair`, two characters each
/// [`served_in_pairs`], from the trigram index. `pg_trgm` takes no trigram from
/// `LIKE '%qx%'`; but wherever a text holds the pair, a character of the text is
/// next to it (a text joins its fields with spaces), and the pair and that
/// character make a trigram `pg_trgm` looks up. Beside an ASCII character, the
/// texts match a regular expression of the pair beside any of them, from whose
/// class `pg_trgm` takes those trigrams; beside any other, the `LIKE` of the pair
/// and that character, each one the texts hold listed in `linked_search_chars`
/// (migration 36). Not one expression of them all: `pg_trgm` takes no trigram from
/// an expression holding a character past U+07FF, or a class of many. The
/// expression is a subquery's, whose value PostgreSQL plans without, and reads the
/// index; told it, it may expect many matches and read every text.
fn pair_candidates(post_type: PostType, pair: &str) -> SimpleExpr {
    Expr::cust_with_values(
        "posts.id = ANY(ARRAY(\
         SELECT id FROM linked_search WHERE haystack ~ (SELECT $1::text) AND post_type = $2 \
         UNION SELECT id FROM linked_search WHERE haystack LIKE ANY (ARRAY(\
         SELECT '%' || $3 || ch || '%' FROM linked_search_chars \
         UNION ALL SELECT '%' || ch || $3 || '%' FROM linked_search_chars)) \
         AND post_type = $2))",
        [
            pair_beside_ascii(pair),
            post_type.as_str().to_string(),
            pair.to_string(),
        ],
    )
}

/// A regular expression of `pair` (letters or digits) beside any ASCII character.
fn pair_beside_ascii(pair: &str) -> String {
    format!(r"({pair}[\u0001-\u007f])|([\u0001-\u007f]{pair})")
}

/// SQLite: the venue's or organizer's searched fields, each lower-cased and joined
/// by spaces, hold `word` (see `store::sqlite::functions`); an absent field is empty
/// there, as in the search index.
fn fields_hold(t: PostType, word: &str) -> SimpleExpr {
    use sea_query::Iden;
    let fields: Vec<String> = searched_columns(t)
        .iter()
        .map(|c| format!("coalesce(posts.{}, '')", c.unquoted()))
        .collect();
    Expr::cust_with_values(
        format!("search_text_holds(?, {})", fields.join(", ")),
        [word.to_string()],
    )
}

/// SQLite: the entries of the trigram index holding a trigram that begins with a
/// word's two characters. Every entry ends with a space (migration 35), so every two
/// characters of its text begin one of its trigrams: those that begin with the pair
/// are a range of the index's terms (`linked_fts_terms`, see [`pair_range`]), each
/// quoted as a phrase and matched together; none, an empty phrase, which matches
/// nothing.
const PAIR_MATCH: &str = "rowid FROM linked_fts WHERE linked_fts MATCH (\
    SELECT coalesce(group_concat('\"' || replace(term, '\"', '\"\"') || '\"', ' OR '), '\"\"') \
    FROM linked_fts_terms WHERE term >= ? AND term < ?)";

/// The range of terms [`PAIR_MATCH`] reads for a word of two characters: from the
/// pair up to the pair with its second character the next one (past the last
/// character there is none, and every term from the pair on is read).
fn pair_range(word: &str) -> Option<(String, String)> {
    let mut chars = word.chars();
    let (first, second) = (chars.next()?, chars.next()?);
    if chars.next().is_some() {
        return None;
    }
    let below = char::from_u32(u32::from(second) + 1)
        .map(|next| format!("{first}{next}"))
        .unwrap_or_else(|| char::MAX.to_string().repeat(3));
    Some((format!("{first}{second}"), below))
}

/// The fewest characters of a search that the trigram indexes can look up: shorter
/// ones are checked on every venue, as before the indexes.
const TRIGRAM: usize = 3;

/// `word`: the search lower-cased; `indexed`: long enough for the trigram index.
pub(super) fn search_filter(
    q: &mut SelectStatement,
    lq: &LinkedPostQuery,
    backend: Backend,
    word: &str,
    indexed: bool,
) {
    // The index only narrows the rows the fields' own check below is made on, so
    // the answers are those of the check alone, index or not.
    if indexed {
        q.and_where(candidates(backend, lq.post_type, word));
    }
    // Without a space, a search matches a field exactly where it matches the fields
    // each lower-cased and joined by spaces: PostgreSQL's candidates are checked on
    // that text as stored, SQLite's rows as read (`search_text_holds`: one call per
    // row, where ten `lower()`s made and handed back a string each, 9 µs a venue).
    let joined = !word.contains(' ');
    match backend {
        Backend::Postgres if indexed && joined => {}
        Backend::Sqlite if joined => {
            q.and_where(fields_hold(lq.post_type, word));
        }
        _ => {
            let mut any = Cond::any();
            for c in searched_columns(lq.post_type) {
                any = any.add(contains((Posts::Table, *c), word));
            }
            q.cond_where(any);
        }
    }
    // A password-protected venue or organizer is listed with every field blanked,
    // its name too, to those who may not edit it: a search that matched it would
    // tell the searcher what those fields contain, one guess at a time.
    visible_under(q, &lq.visibility, col(Posts::Password).eq(""));
}

#[cfg(test)]
mod tests {
    use sea_query::Iden;

    use super::*;

    /// The haystack [`searched_columns`] call for: each field lower-cased on its own.
    fn haystack_of(t: PostType) -> String {
        searched_columns(t)
            .iter()
            .map(|c| format!("coalesce(lower({}), '')", c.unquoted()))
            .collect::<Vec<_>>()
            .join(" || ' ' || ")
    }

    fn words(sql: &str) -> String {
        sql.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn a_pair_reads_the_terms_that_begin_with_it() {
        assert_eq!(pair_range("al"), Some(("al".into(), "am".into())));
        assert_eq!(pair_range("é "), Some(("é ".into(), "é!".into())));
        let last = pair_range("a\u{10FFFF}").unwrap();
        assert!(last.1.as_str() > "a\u{10FFFF}");
        assert_eq!(pair_range("a"), None);
        assert_eq!(pair_range("all"), None);
    }

    #[test]
    fn postgres_looks_up_pairs_of_ascii_letters_and_digits() {
        assert_eq!(
            pair_beside_ascii("q7"),
            r"(q7[\u0001-\u007f])|([\u0001-\u007f]q7)"
        );
        assert!("az09".chars().all(served_in_pairs));
        assert!(!"A_ é%".chars().any(served_in_pairs));
    }

    #[test]
    fn the_indexed_text_holds_every_searched_field() {
        assert_eq!(venue_haystack!(), haystack_of(PostType::Venue));
        assert_eq!(organizer_haystack!(), haystack_of(PostType::Organizer));
    }

    /// How both migrations compute the text of each venue and organizer.
    fn fill() -> String {
        format!(
            "SELECT id, CASE post_type WHEN 'venue' THEN {} ELSE {} END FROM posts WHERE",
            words(venue_haystack!()),
            words(organizer_haystack!())
        )
    }

    #[test]
    fn postgres_keeps_and_fills_the_haystacks_queries_search() {
        let migration = words(include_str!(
            "../migrations/postgres/0012_linked_search.sql"
        ));
        // In the trigger and in the fill.
        assert_eq!(migration.matches(&fill()).count(), 2, "{}", fill());
        // Migration 27's trigger, which writes each one's type too.
        let typed = words(include_str!(
            "../migrations/postgres/0027_linked_search_types.sql"
        ));
        let typed_fill = fill().replacen("SELECT id,", "SELECT id, post_type,", 1);
        assert!(typed.contains(&typed_fill), "{typed_fill}");
    }

    #[test]
    fn sqlite_fills_the_index_as_the_writer_does() {
        let migration = words(include_str!("../migrations/sqlite/0012_linked_search.sql"));
        assert!(migration.contains(&fill()), "{}", fill());
        // Migration 35 fills it again, each entry ending with a space, as the writer's.
        let padded = fill().replace(" END FROM posts WHERE", " END || ' ' FROM posts WHERE");
        let migration = words(include_str!(
            "../migrations/sqlite/0035_linked_search_pairs.sql"
        ));
        assert!(migration.contains(&padded), "{padded}");
        assert!(words(INDEX_QUEUED_LINKED[1]).contains(" END || ' ' FROM linked_search_queue"));
        let writer = words(INDEX_QUEUED_LINKED[1]);
        assert!(writer.contains(&words(venue_haystack!())));
        assert!(writer.contains(&words(organizer_haystack!())));
    }

    #[test]
    fn every_write_to_a_searched_field_reaches_the_index() {
        let columns = [PostType::Venue, PostType::Organizer]
            .iter()
            .flat_map(|t| searched_columns(*t))
            .map(|c| c.unquoted())
            .collect::<std::collections::BTreeSet<_>>();
        for migration in [
            include_str!("../migrations/sqlite/0012_linked_search.sql"),
            include_str!("../migrations/postgres/0012_linked_search.sql"),
        ] {
            let watched = words(migration)
                .split("AFTER UPDATE OF ")
                .nth(1)
                .and_then(|s| s.split(" ON posts").next())
                .unwrap()
                .split(", ")
                .map(str::to_string)
                .collect::<std::collections::BTreeSet<_>>();
            let watched = watched.iter().map(String::as_str).collect();
            assert!(columns.is_subset(&watched), "{watched:?}");
        }
    }
}
