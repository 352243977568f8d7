//! The venue and organizer list (one page and its total, under the same filters),
//! its search through the trigram indexes of migration 12, and the filter pieces
//! event and term lists share with it: escaped substring search and the
//! "published by now" rule.

use sea_query::{
    Alias, Cond, Expr, ExprTrait, Func, IntoColumnRef, Order, Query, SelectStatement, SimpleExpr,
};

use super::{col, post_from_row, select_posts};
use crate::domain::event::Total;
use crate::domain::event_keys::KeyKind;
use crate::domain::post::{LinkedPostQuery, Post, PostType, Status, Visibility};
use crate::store::schema::{EventKeys, LinkedEventStats, Posts};
use crate::store::{Backend, Conn, StoreError};

/// Escapes `%` and `_` for a LIKE pattern. Both backends treat `\` as the escape
/// character only when told, so patterns built here are used with `like_escape`.
pub(in crate::store) fn escape_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// `LOWER(column) LIKE '%needle%'` with escaping, for substring search.
pub(in crate::store) fn contains(column: impl IntoColumnRef, needle: &str) -> SimpleExpr {
    let pattern = format!("%{}%", escape_like(&needle.to_lowercase()));
    Expr::expr(Func::lower(Expr::col(column))).like(sea_query::LikeExpr::new(pattern).escape('\\'))
}

/// How a list reads the venues or organizers whose summaries qualify them (see
/// [`summarized`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Summaries {
    Joined,
    AsArray,
}

impl Summaries {
    /// PostgreSQL's, beside a search too short for the trigram index: an array.
    fn of(lq: &LinkedPostQuery, backend: Backend) -> Summaries {
        let unindexed_search = lq
            .search
            .as_deref()
            .is_some_and(|w| w.chars().count() < TRIGRAM);
        match backend == Backend::Postgres && unindexed_search {
            true => Summaries::AsArray,
            false => Summaries::Joined,
        }
    }
}

/// The filters of a venue/organizer list, shared by its page and count queries.
fn linked_filters(
    q: &mut SelectStatement,
    lq: &LinkedPostQuery,
    backend: Backend,
    summaries: Summaries,
    pairs: Pairs,
) {
    let word = lq.search.as_deref().map(str::to_lowercase);
    let indexed = word.as_deref().filter(|w| indexable(w, pairs));
    if backend == Backend::Sqlite && (indexed.is_some() || lq.event.is_some()) {
        // Unindexable (`+`): without statistics SQLite would read every venue through
        // an index on the type and probe the candidates for each (16 ms at 20,000
        // venues for a search's, 2.5 ms for an event's one or two), rather than read
        // the candidates' rows by ID (2 ms; 0.02 ms).
        q.and_where(Expr::cust_with_values(
            "+posts.post_type = ?",
            [lq.post_type.as_str()],
        ));
    } else {
        // The type written out, not bound: the partial index of the type's posts in
        // list order (migration 19) is one SQLite's planner may only choose when it
        // sees the value as it plans, and the server's connections keep the plan made
        // before any value is bound (the query planner stability guarantee, see
        // `store::sqlite`). The value is one of two constants.
        let literal = format!("'{}'", lq.post_type.as_str());
        q.and_where(col(Posts::PostType).eq(Expr::cust(literal)));
    }
    status_filters(q, &lq.statuses, &lq.visibility, lq.now_utc);
    if let Some(word) = &word {
        search_filter(q, lq, backend, word, indexed.is_some());
    }
    event_filters(q, lq, summaries == Summaries::AsArray);
}

/// Which statuses a list shows (any but trash unless some are asked for), and
/// which posts of them the caller may see: shared by every post list.
pub(in crate::store) fn status_filters(
    q: &mut SelectStatement,
    statuses: &[Status],
    visibility: &Visibility,
    now: i64,
) {
    if statuses.is_empty() {
        q.and_where(col(Posts::Status).ne(Status::Trash.as_str()));
    } else {
        q.and_where(col(Posts::Status).is_in(statuses.iter().map(|s| s.as_str())));
    }
    match visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.cond_where(published(now));
        }
        Visibility::PublishedOrOwn(author) => {
            q.cond_where(
                Cond::any()
                    .add(published(now))
                    .add(col(Posts::Author).eq(*author)),
            );
        }
    }
}

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
enum Pairs {
    /// SQLite, for a pair few entries hold (see [`rare_pair`]).
    Indexed,
    /// Checked on the venues in list order.
    Walked,
}

/// Whether the search index is read for `word` (lower-cased): three characters or
/// more, or two when `pairs` says so.
fn indexable(word: &str, pairs: Pairs) -> bool {
    match word.chars().count() {
        2 => pairs == Pairs::Indexed,
        n => n >= TRIGRAM,
    }
}

/// How many trigrams, counted once per entry holding them, may begin with a pair
/// for its entries to be read from the index (see [`PAIR_MATCH`]) rather than the
/// venues walked in list order. The walk of a common pair ends with the count's
/// limit (`al`: 28,000 entries; read from the index and sorted, 110 ms, walked, 20);
/// one that no venue holds (`qx`) is answered from the index without reading any
/// (1.4 ms, where the walk read all 20,000 venues of a million events in 80-130).
const RARE_PAIR_ENTRIES: i64 = 2_000;

/// SQLite: whether the list's search is two characters that begin few of the index's
/// trigrams (`linked_fts_terms` counts each term's entries).
async fn rare_pair(conn: &mut Conn, lq: &LinkedPostQuery) -> Result<Pairs, StoreError> {
    let word = lq.search.as_deref().map(str::to_lowercase);
    let range = word.as_deref().and_then(pair_range);
    let Some((from, below)) = range.filter(|_| conn.backend() == Backend::Sqlite) else {
        return Ok(Pairs::Walked);
    };
    let entries = Query::select()
        .expr(Expr::cust_with_values(
            "coalesce(sum(doc), 0) FROM linked_fts_terms WHERE term >= ? AND term < ?",
            [from, below],
        ))
        .take();
    Ok(match conn.query_one(&entries, |r| r.i64(0)).await? {
        n if n <= RARE_PAIR_ENTRIES => Pairs::Indexed,
        _ => Pairs::Walked,
    })
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
fn search_filter(
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
    let unprotected = col(Posts::Password).eq("");
    match lq.visibility {
        Visibility::All => {}
        Visibility::Published => {
            q.and_where(unprotected);
        }
        Visibility::PublishedOrOwn(author) => {
            q.cond_where(
                Cond::any()
                    .add(unprotected)
                    .add(col(Posts::Author).eq(author)),
            );
        }
    }
}

/// The kind of key a venue or organizer is to its events.
fn linked_kind(t: PostType) -> i64 {
    crate::store::events::key_code(match t {
        PostType::Venue => KeyKind::Venue,
        _ => KeyKind::Organizer,
    })
}

/// The listed venue's or organizer's key rows in `event_keys` (alias `ev`), with
/// `extra`: one range of its primary key, whatever the number of events.
fn linked_events(t: PostType, extra: SimpleExpr) -> SelectStatement {
    let kind = linked_kind(t);
    let ev = Alias::new("ev");
    Query::select()
        .expr(Expr::cust("1"))
        .from_as(EventKeys::Table, ev.clone())
        .and_where(Expr::col((ev.clone(), EventKeys::Kind)).eq(kind))
        .and_where(Expr::col((ev, EventKeys::Value)).equals((Posts::Table, Posts::Id)))
        .and_where(extra)
        .take()
}

/// `event`, `has_events` and `only_with_upcoming`; `as_array`: see [`summarized`].
fn event_filters(q: &mut SelectStatement, lq: &LinkedPostQuery, as_array: bool) {
    let summarized = |summaries| summarized(as_array, summaries);
    let ev = |c: EventKeys| Expr::col((Alias::new("ev"), c));
    if let Some(event_id) = lq.event {
        // From the event's keys, not a probe of every venue's.
        q.and_where(
            col(Posts::Id).in_subquery(
                Query::select()
                    .column(EventKeys::Value)
                    .from(EventKeys::Table)
                    .and_where(Expr::col(EventKeys::EventId).eq(event_id))
                    .and_where(Expr::col(EventKeys::Kind).eq(linked_kind(lq.post_type)))
                    .take(),
            ),
        );
    }
    if let Some(has) = lq.has_events {
        let with_events = stats(lq.post_type, Expr::col(LinkedEventStats::Counted).gt(0));
        q.and_where(if has {
            summarized(with_events)
        } else {
            col(Posts::Id).not_in_subquery(with_events)
        });
    }
    if lq.only_with_upcoming {
        let latest = |c: LinkedEventStats| stats(lq.post_type, Expr::col(c).gte(lq.now_utc));
        match lq.visibility {
            Visibility::All => {
                q.and_where(summarized(latest(LinkedEventStats::ListedLast)));
            }
            Visibility::Published => {
                q.and_where(summarized(latest(LinkedEventStats::PublicLast)));
            }
            // Published events, or the author's own: not summarized, so looked for.
            Visibility::PublishedOrOwn(author) => {
                let visible =
                    ev(EventKeys::Status)
                        .eq(Status::Publish.as_str())
                        .or(ev(EventKeys::Author)
                            .eq(author)
                            .and(ev(EventKeys::Status).ne(Status::Trash.as_str())));
                let upcoming = visible
                    .and(ev(EventKeys::StartUtc).gte(lq.now_utc))
                    .and(ev(EventKeys::Hidden).eq(false));
                q.and_where(crate::store::exists(linked_events(lq.post_type, upcoming)));
            }
        }
    }
}

/// The post is one of the venues or organizers `summaries` selects; `as_array`: as
/// an array of their IDs computed once, each looked up by ID (PostgreSQL, beside a
/// search too short for the trigram index). As a semi-join, expecting a few hundred
/// venues of such a search's `LIKE`s, PostgreSQL merged the summaries with every
/// post's ID in order (`venues?only_with_upcoming=1&search=e` at a million events:
/// 950 ms; as an array, 100); without a search, or beside the trigram index's own
/// array of candidates, the semi-join is the faster (20 and 28 ms, against 77 and
/// 1,360).
fn summarized(as_array: bool, summaries: SelectStatement) -> SimpleExpr {
    if !as_array {
        return col(Posts::Id).in_subquery(summaries);
    }
    // The subquery is written in parentheses: `ARRAY (SELECT …)`.
    Expr::cust_with_expr(
        "posts.id = ANY(ARRAY $1)",
        SimpleExpr::SubQuery(None, Box::new(summaries.into())),
    )
}

/// The venues or organizers whose summary of their events (`linked_event_stats`,
/// migration 7) meets `cond`.
fn stats(t: PostType, cond: SimpleExpr) -> SelectStatement {
    Query::select()
        .column(LinkedEventStats::Value)
        .from(LinkedEventStats::Table)
        .and_where(Expr::col(LinkedEventStats::Kind).eq(linked_kind(t)))
        .and_where(cond)
        .take()
}

/// `status = 'publish'`, or a scheduled post whose date has passed.
pub(in crate::store) fn published(now: i64) -> Cond {
    Cond::any()
        .add(col(Posts::Status).eq(Status::Publish.as_str()))
        .add(
            col(Posts::Status)
                .eq(Status::Future.as_str())
                .and(col(Posts::DateUtc).lte(now)),
        )
}

/// One page of venues or organizers, newest first, and the total.
pub async fn list_linked(
    conn: &mut Conn,
    lq: &LinkedPostQuery,
) -> Result<(Vec<Post>, Total), StoreError> {
    let backend = conn.backend();
    let may_scan = lq.search.is_some()
        || lq.event.is_some()
        || lq.has_events.is_some()
        || lq.only_with_upcoming;
    crate::store::sqlite::scanning(backend, may_scan, linked_page_and_total(conn, lq)).await
}

/// The count of the list's posts; a search's up to its `count_limit` or the end of
/// the asked page, whichever is further. A word of one or two characters, which no
/// trigram index serves, is common (`a`: 19,000 of 20,000 venues at a million
/// events): counting every match read and checked every venue (96 ms on SQLite, 150
/// on PostgreSQL), where the first thousand take a twentieth of them.
fn linked_count(
    lq: &LinkedPostQuery,
    backend: Backend,
    pairs: Pairs,
) -> (SelectStatement, Option<u64>) {
    let mut matching = Query::select();
    matching
        .column((Posts::Table, Posts::Id))
        .from(Posts::Table);
    linked_filters(
        &mut matching,
        lq,
        backend,
        Summaries::of(lq, backend),
        pairs,
    );
    let limit = lq.search.as_ref().map(|_| {
        let enough = lq.page.saturating_mul(lq.per_page);
        Ord::max(Ord::max(lq.count_limit, 1), enough)
    });
    let mut count = Query::select();
    match limit {
        None => {
            count
                .expr(Expr::col((Posts::Table, Posts::Id)).count())
                .from(Posts::Table);
            linked_filters(&mut count, lq, backend, Summaries::of(lq, backend), pairs);
        }
        Some(limit) => {
            // One past the limit tells a count that reached it from one that ended.
            matching.limit(limit.saturating_add(1));
            count
                .expr(Expr::cust("COUNT(*)"))
                .from_subquery(matching, Alias::new("matching"));
        }
    }
    (count, limit)
}

async fn linked_page_and_total(
    conn: &mut Conn,
    lq: &LinkedPostQuery,
) -> Result<(Vec<Post>, Total), StoreError> {
    let pairs = rare_pair(conn, lq).await?;
    let (count, limit) = linked_count(lq, conn.backend(), pairs);
    let counted = u64::try_from(conn.query_one(&count, |r| r.i64(0)).await?).unwrap_or(0);
    let total = match limit {
        Some(limit) if counted > limit => Total::at_least(limit),
        _ => Total::exact(counted),
    };
    // A page past the last one is empty; its offset may not even fit a database integer.
    let offset = (lq.page - 1).saturating_mul(lq.per_page);
    if offset >= counted {
        return Ok((Vec::new(), total));
    }
    // The page's IDs first, then its rows: sorting whole rows, SQLite read and copied
    // every matching venue (descriptions and all) to keep ten, 20 times slower at
    // 20,000 venues. The index on (post_type, status, date_utc, id) answers the IDs.
    let mut ids = Query::select();
    ids.column((Posts::Table, Posts::Id)).from(Posts::Table);
    // Many matches, of a search too short for the index: walked in list order, the
    // summaries probed for each, the page's are soon found (`venues?
    // only_with_upcoming=1&search=a` at a million events: 0.5 ms, where the array's
    // 20,000 venues were read and sorted in 67); few are better read from the array
    // and sorted.
    let summaries = match total.at_least {
        true => Summaries::Joined,
        false => Summaries::of(lq, conn.backend()),
    };
    linked_filters(&mut ids, lq, conn.backend(), summaries, pairs);
    ids.order_by((Posts::Table, Posts::DateUtc), Order::Desc)
        .order_by((Posts::Table, Posts::Id), Order::Desc)
        .limit(lq.per_page)
        .offset(offset);
    let mut page = select_posts();
    page.and_where(col(Posts::Id).in_subquery(ids))
        .order_by((Posts::Table, Posts::DateUtc), Order::Desc)
        .order_by((Posts::Table, Posts::Id), Order::Desc);
    let posts = conn.query(&page, post_from_row).await?;
    Ok((posts, total))
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
    fn summaries_read_as_an_array_are_one_array() {
        let mut q = Query::select();
        q.column(Posts::Id).from(Posts::Table).and_where(summarized(
            true,
            stats(PostType::Venue, Expr::col(LinkedEventStats::Counted).gt(0)),
        ));
        let sql = q.to_string(sea_query::PostgresQueryBuilder);
        assert!(
            sql.contains(r#"posts.id = ANY(ARRAY (SELECT "value" FROM "linked_event_stats""#),
            "{sql}"
        );
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
