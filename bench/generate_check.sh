#!/usr/bin/env bash
# The bench's data-set generator, checked on both backends: it loads the schema by its own
# path (triggers off, summaries filled in bulk from the migrations' sections), which the
# server's tests never walk. Generates a small data set on SQLite and on PostgreSQL with the
# debug build, then serves a few lists from each and checks their totals against the data.
#
# usage: bench/generate_check.sh [EVENTS]   (default 2000; PostgreSQL at $CALENDAR_TEST_PG_URL)
set -euo pipefail
cd "$(dirname "$0")/.."

EVENTS=${1:-2000}
PG_URL=${CALENDAR_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
PG_BASE=${PG_URL%/*}
PG_DB=cal_test_generate_$$
PORT=${GENERATE_CHECK_PORT:-18190}
WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null || true
    psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

cargo build --locked --quiet --features bench --bin calendar-bench --bin calendar-events
GEN=target/debug/calendar-bench
SERVER=target/debug/calendar-events

fail() { echo "generate_check: $*" >&2; exit 1; }

# The total a list reports (X-WP-Total), failing on any status but 200.
total_of() {
    local path=$1 headers
    headers=$(curl -s -D - -o /dev/null "http://127.0.0.1:$PORT/calendar/events/v1/$path")
    [[ $(head -1 <<<"$headers") == *" 200"* ]] || fail "GET $path: $(head -1 <<<"$headers")"
    tr -d '\r' <<<"$headers" | awk -F': ' 'tolower($1) == "x-wp-total" {print $2}'
}

check() {
    local backend=$1 url=$2 count_sql=$3
    echo "generate_check: $backend, $EVENTS events"
    "$GEN" generate --database-url "$url" --events "$EVENTS" --replace \
        --summary-json "$WORK/$backend.json" >"$WORK/$backend.log" 2>&1 ||
        { cat "$WORK/$backend.log" >&2; fail "$backend: the generator failed"; }
    RUST_LOG=warn "$SERVER" serve --database-url "$url" --bind "127.0.0.1:$PORT" \
        >"$WORK/$backend.server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
        sleep 0.1
    done
    # Every date, as the lists below ask: the generator spreads events over years.
    local all="start_date=1990-01-01&end_date=2100-01-01"
    local expected got
    local listed="p.post_type = 'event' AND p.status = 'publish' AND NOT p.hide_from_listings"
    expected=$($count_sql "SELECT count(*) FROM posts p WHERE $listed")
    got=$(total_of "events?$all")
    [[ $got == "$expected" ]] || fail "$backend: events total $got, the data lists $expected"
    # A category as its per-day counts give it, against its events' links: a filter on
    # what a password hides leaves protected events out for visitors.
    expected=$($count_sql "WITH RECURSIVE tree(id) AS (
            SELECT CAST(1 AS BIGINT) UNION SELECT t.id FROM terms t JOIN tree ON t.parent = tree.id)
        SELECT count(DISTINCT p.id) FROM posts p
        JOIN term_relationships r ON r.post_id = p.id
        WHERE $listed AND p.password = '' AND r.term_id IN (SELECT id FROM tree)")
    got=$(total_of "events?$all&categories=1")
    [[ $got == "$expected" ]] || fail "$backend: category 1 total $got, its events $expected"
    # A search in terms, which PostgreSQL checks in the search index's copy of them.
    got=$(total_of "events?$all&categories=1&search=the")
    [[ $got -gt 0 ]] || fail "$backend: no event of category 1 holds 'the'"
    # The flags' bits the load's fill gives each own key (migration 41), against the rows,
    # and a list that checks them there (flags on most events drive from the own keys).
    local flags="CASE WHEN p.featured THEN 1 ELSE 0 END + CASE WHEN p.tickets <> '' THEN 2 ELSE 0 END
        + CASE WHEN EXISTS (SELECT 1 FROM posts v WHERE v.id = p.venue_id AND v.post_type = 'venue'
            AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 4 ELSE 0 END"
    got=$($count_sql "SELECT count(*) FROM event_keys k JOIN posts p ON p.id = k.event_id
        WHERE k.kind = 0 AND k.flag_bits <> $flags")
    [[ $got == 0 ]] || fail "$backend: $got own keys whose flag bits differ from their events"
    expected=$($count_sql "SELECT count(*) FROM posts p WHERE $listed AND p.password = '' AND $flags = 4")
    got=$(total_of "events?$all&featured=0&ticketed=0&geoloc=1")
    [[ $got == "$expected" ]] || fail "$backend: unset flags and located, total $got, the data lists $expected"
    # The festival's word, in titles on a month's first three days (UTC) only
    # (bench/vocabulary.rs), and found by a search wherever it is.
    local day_of_month
    case $backend in
        sqlite) day_of_month="CAST(strftime('%d', p.start_utc, 'unixepoch') AS INTEGER)" ;;
        *) day_of_month="EXTRACT(DAY FROM to_timestamp(p.start_utc) AT TIME ZONE 'UTC')" ;;
    esac
    got=$($count_sql "SELECT count(*) FROM posts p
        WHERE p.post_type = 'event' AND p.title LIKE 'Carnival %' AND $day_of_month > 3")
    [[ $got == 0 ]] || fail "$backend: $got events hold the festival's word off its days"
    expected=$($count_sql "SELECT count(*) FROM posts p WHERE $listed AND p.title LIKE 'Carnival %'")
    got=$(total_of "events?$all&search=carnival")
    [[ $expected -gt 0 && $got == "$expected" ]] ||
        fail "$backend: the festival's word, total $got, the data lists $expected"
    # SQLite's index of whole words (migration 51), which the load fills on the
    # server's own connections: every event in it (one row of sizes each), and the
    # festival's word in its vocabulary. A search of a small set seldom reads it.
    if [[ $backend == sqlite ]]; then
        expected=$($count_sql "SELECT count(*) FROM posts WHERE post_type = 'event'")
        got=$($count_sql "SELECT count(*) FROM posts_words_docsize")
        [[ $got == "$expected" ]] || fail "sqlite: $got events in the index of whole words, of $expected"
        got=$($count_sql "SELECT count(*) FROM search_words WHERE word = 'carnival'")
        [[ $got == 1 ]] || fail "sqlite: the festival's word is not in the vocabulary"
    else
        # PostgreSQL's (migration 52), which the load builds again on the rebuilt
        # `event_search`: its index, its triggers, and the word in its vocabulary.
        got=$($count_sql "SELECT count(*) FROM pg_indexes WHERE indexname = 'event_search_pieces'")
        [[ $got == 1 ]] || fail "postgres: the index of whole words is missing"
        got=$($count_sql "SELECT count(*) FROM pg_trigger
            WHERE tgname IN ('search_words_insert', 'search_words_update') AND tgenabled = 'O'")
        [[ $got == 2 ]] || fail "postgres: $got of the vocabulary's 2 triggers are on"
        got=$($count_sql "SELECT count(*) FROM search_words WHERE word = 'carnival'")
        [[ $got == 1 ]] || fail "postgres: the festival's word is not in the vocabulary"
    fi
    # The bench's plans, drawn from the data set.
    "$GEN" manifest --database-url "$url" --out "$WORK/$backend-manifest" >/dev/null
    [[ $(wc -l <"$WORK/$backend-manifest/hostile/kinds.tsv") -ge 20 ]] ||
        fail "$backend: the hostile plan lists too few kinds"
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

sqlite_count() {
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
        "$WORK/sqlite.db" "$1"
}
pg_count() { psql "$PG_BASE/$PG_DB" -qtAX -c "$1"; }

check sqlite "sqlite://$WORK/sqlite.db" sqlite_count
psql "$PG_URL" -qc "CREATE DATABASE $PG_DB" >/dev/null
check postgres "$PG_BASE/$PG_DB" pg_count
echo "generate_check: passed"
