#!/usr/bin/env bash
# Load test of calendar-events with wrk: builds the release binaries, generates (or reuses)
# a data set, serves a fresh copy of it, runs every scenario at every connection count, and
# writes a JSON and a Markdown report into bench/results/. See bench/README.md.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: bench/run.sh [options]

  --backend sqlite|postgres   database backend (default sqlite)
  --size N                    events in the data set: 1k, 100k, 1m or a number (default 1k)
  --duration SECONDS          per scenario and connection count (default 10)
  --quick                     3-second scenarios, for smoke runs
  --warmup SECONDS            unrecorded load before each scenario, so rows measure
                              warm caches rather than a fresh copy's first reads (default 2; 0: none);
                              the sweep requests each variant of a kind once before timing it
  --connections "16 64"       connection counts to run each scenario at
  --sweep-seconds SECONDS     per kind of the sweep scenario (default 3)
  --scenarios "a b …"         only these scenarios (default: all; see --list)
  --list                      list the scenarios and exit
  --regenerate                generate the data set even if one exists
  --keep-data                 keep a large data set whose migrations or generator changed
                              (an edited comment, say), and record the sources as its own
  --no-build                  use the release binaries as they are
  --port PORT                 port of the server under test (default 18080)
  --pg-url URL                PostgreSQL server, without database
                              (default postgres://postgres@127.0.0.1:5432)
  --data-dir DIR              where data sets live (default <target>/bench-data)
  --keep-copy                 keep the working copy of the database after the run

Environment: BENCH_DATA_DIR, BENCH_PG_URL mirror --data-dir and --pg-url.
USAGE
}

# name | Lua script | path (for static.lua) | what it measures
SCENARIOS=(
    "health|static.lua|/health|GET /health: the bare HTTP stack, no database"
    "events|static.lua|@API/events|GET /events with the default query (today to +2 years, 10 per page)"
    "events_filtered|static.lua|@API/events?@FILTER|GET /events for one month, one category and search=jazz"
    "event_by_id|pick.lua|@API/events/<id>|GET /events/{id}, IDs sampled from the data set"
    "event_by_slug|pick.lua|@API/events/by-slug/<slug>|GET /events/by-slug/{slug}, slugs sampled from the data set"
    "ics|static.lua|@API/events?ical=1|GET /events?ical=1: the default window as an iCalendar feed (up to 1,000 events)"
    "page_month|static.lua|/events/month/|GET /events/month/: this month's calendar page (HTML)"
    "page_event|pick.lua|/event/<slug>/|GET /event/{slug}/: an event's page (HTML), slugs sampled from the data set"
    "venues|static.lua|@API/venues|GET /venues"
    "categories|static.lua|@API/categories|GET /categories"
    "index|static.lua|@API|GET the namespace index"
    "doc|static.lua|@API/doc|GET /doc (the OpenAPI document)"
    "mix_reads|mix_reads.lua|@API/events|the reads of mix alone, in its proportions: its yardstick"
    "post_events|post_event.lua|@API/events|POST /events as an administrator (Basic auth)"
    "edits|edits.lua|@API/events|60% POST /events, 40% edits of existing events (POST /events/{id}: new dates, venue, organizer)"
    "mix|mix.lua|@API/events|90% reads (events, filtered, by ID, by slug) / 10% POST /events"
    "removals|removals.lua|@API/events|40% POST /events/{id} replacing categories and tags, 40% DELETE /events/{id} (trash), 20% DELETE ?force=true; each event removed once"
    "sweep|sweep.lua|-|every list route and parameter and the calendar's pages, values drawn from the data set, one request at a time, response cache off"
    "hostile|-|-|requests at their most expensive (every term, unset flags, last pages, deepest searches), each sent twice, response cache off: against the 1-second bound"
)

BACKEND=sqlite
SIZE=1k
DURATION=10
WARMUP=2
CONNECTIONS="16 64"
SWEEP_SECONDS=3
ONLY=""
REGENERATE=0
KEEP_DATA=0
BUILD=1
PORT=18080
PG_URL=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432}
DATA_DIR=${BENCH_DATA_DIR:-}
KEEP_COPY=0
THREADS=2
API=/calendar/events/v1

while [[ $# -gt 0 ]]; do
    case $1 in
        --backend) BACKEND=$2; shift 2 ;;
        --size) SIZE=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --quick) DURATION=3; shift ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --sweep-seconds) SWEEP_SECONDS=$2; shift 2 ;;
        --scenarios) ONLY=$2; shift 2 ;;
        --regenerate) REGENERATE=1; shift ;;
        --keep-data) KEEP_DATA=1; shift ;;
        --no-build) BUILD=0; shift ;;
        --port) PORT=$2; shift 2 ;;
        --pg-url) PG_URL=${2%/}; shift 2 ;;
        --data-dir) DATA_DIR=$2; shift 2 ;;
        --keep-copy) KEEP_COPY=1; shift ;;
        --list)
            for s in "${SCENARIOS[@]}"; do
                IFS='|' read -r name _ _ what <<<"$s"
                printf '%-16s %s\n' "$name" "$what"
            done
            exit 0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
done

case $BACKEND in sqlite|postgres) ;; *) echo "--backend is sqlite or postgres" >&2; exit 2 ;; esac
LABEL=$(tr '[:upper:]' '[:lower:]' <<<"$SIZE")
case $LABEL in
    *k) EVENTS=$(( ${LABEL%k} * 1000 )) ;;
    *m) EVENTS=$(( ${LABEL%m} * 1000000 )) ;;
    *[!0-9]*|'') echo "--size is a count such as 1k, 100k, 1m or 5000" >&2; exit 2 ;;
    *) EVENTS=$LABEL ;;
esac
[[ $DURATION =~ ^[0-9]+$ && $DURATION -gt 0 ]] || { echo "--duration is whole seconds" >&2; exit 2; }
[[ $WARMUP =~ ^[0-9]+$ ]] || { echo "--warmup is whole seconds" >&2; exit 2; }
[[ $SWEEP_SECONDS =~ ^[0-9]+$ && $SWEEP_SECONDS -gt 0 ]] || { echo "--sweep-seconds is whole seconds" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# --- tools --------------------------------------------------------------------------------
APT_UPDATED=0
ensure() {
    local cmd=$1 pkg=$2
    command -v "$cmd" >/dev/null 2>&1 && return 0
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    log "installing $pkg (for $cmd)"
    if [[ $APT_UPDATED -eq 0 ]]; then
        "${sudo[@]}" apt-get update -qq >/dev/null
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$pkg" >/dev/null
}
ensure wrk wrk
ensure jq jq
ensure curl curl
[[ $BACKEND == postgres ]] && ensure psql postgresql-client

# --- binaries -----------------------------------------------------------------------------
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | jq -r .target_directory)
SERVER=$TARGET_DIR/release/calendar-events
GEN=$TARGET_DIR/release/calendar-bench
if [[ $BUILD -eq 1 ]]; then
    log "building release binaries"
    cargo build --release --features bench --bin calendar-events --bin calendar-bench
fi
[[ -x $SERVER && -x $GEN ]] || { echo "missing $SERVER or $GEN: build them or drop --no-build" >&2; exit 1; }

# --- data set: a pristine copy, generated once, and a working copy per run ---------------------
DATA_DIR=${DATA_DIR:-$TARGET_DIR/bench-data}
mkdir -p "$DATA_DIR"
GEN_SUMMARY=$DATA_DIR/$BACKEND-$LABEL.generate.json
PG_ADMIN_URL=$PG_URL/postgres
psql_admin() { psql "$PG_ADMIN_URL" -v ON_ERROR_STOP=1 -qtAX "$@"; }

if [[ $BACKEND == sqlite ]]; then
    PRISTINE=$DATA_DIR/sqlite-$LABEL.db
    PRISTINE_URL=sqlite://$PRISTINE
    have_data() { [[ -f $PRISTINE && -f $GEN_SUMMARY ]]; }
    prepare_empty() { rm -f "$GEN_SUMMARY"; }
else
    PRISTINE_DB=calendar_bench_$LABEL
    PRISTINE_URL=$PG_URL/$PRISTINE_DB
    have_data() {
        [[ -f $GEN_SUMMARY && $(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$PRISTINE_DB'") == 1 ]]
    }
    prepare_empty() {
        rm -f "$GEN_SUMMARY"
        psql_admin -c "DROP DATABASE IF EXISTS $PRISTINE_DB WITH (FORCE)"
        psql_admin -c "CREATE DATABASE $PRISTINE_DB"
    }
fi

# A data set made under other migrations (they are edited in place during development) or by
# another generator would silently benchmark a stale schema. Migrations only added since (each
# file it was made with unchanged, per SOURCES_FILE) are run on it. A file changed since is
# regenerated for a small data set; a large one (regenerating a million events takes the better
# part of an hour) is neither thrown away nor used until --regenerate or --keep-data says which.
SOURCES=(src/store/migrations/*/*.sql bench/generate.rs bench/vocabulary.rs bench/rows.rs bench/tables.rs bench/load.rs)
SOURCE_HASH=$(cat "${SOURCES[@]}" | sha256sum | cut -c1-16)
# Taken now, with the hash: a data set records the sources it was made from, not those of the
# end of its generation, which an edit during a long one would have changed (the data set then
# passed for migrated, and the run's server migrated its copy at start, past the wait for it).
SOURCE_SUMS=$(sha256sum "${SOURCES[@]}")
HASH_FILE=$DATA_DIR/$BACKEND-$LABEL.source-hash
SOURCES_FILE=$DATA_DIR/$BACKEND-$LABEL.sources
LARGE_DATA=100000
record_sources() {
    echo "$SOURCE_SUMS" >"$SOURCES_FILE"
    echo "$SOURCE_HASH" >"$HASH_FILE"
}
if [[ $REGENERATE -eq 0 ]] && have_data && [[ $(cat "$HASH_FILE" 2>/dev/null) != "$SOURCE_HASH" ]]; then
    CHANGED=$(sha256sum --check "$SOURCES_FILE" 2>/dev/null | grep -v ': OK$' || true)
    if [[ -f $SOURCES_FILE && -z $CHANGED ]]; then
        log "migrations were added since the data set was made: migrating it"
        "$SERVER" migrate --database-url "$PRISTINE_URL"
        record_sources
    elif [[ $KEEP_DATA -eq 1 ]]; then
        log "keeping the data set (--keep-data) though its sources changed: migrating it"
        "$SERVER" migrate --database-url "$PRISTINE_URL"
        record_sources
    elif [[ $EVENTS -lt $LARGE_DATA ]]; then
        log "the migrations or the generator changed since the data set was made: regenerating"
        REGENERATE=1
    else
        echo "the $BACKEND data set of $EVENTS events was made from other sources:" >&2
        echo "${CHANGED:-  (no record of its sources: $SOURCES_FILE)}" >&2
        echo "pass --regenerate to rebuild it, or --keep-data if the change leaves it valid" >&2
        exit 2
    fi
fi

GENERATED=false
if [[ $REGENERATE -eq 1 ]] || ! have_data; then
    log "generating $EVENTS events on $BACKEND"
    prepare_empty
    # The summary file is written last, so its presence marks a complete data set.
    "$GEN" generate --database-url "$PRISTINE_URL" --events "$EVENTS" --replace \
        --summary-json "$GEN_SUMMARY.tmp"
    mv "$GEN_SUMMARY.tmp" "$GEN_SUMMARY"
    record_sources
    GENERATED=true
else
    log "reusing the $BACKEND data set of $EVENTS events (--regenerate to rebuild it)"
fi

# Write scenarios add events; each run starts from an untouched copy so runs compare, and
# every row of a write scenario gets a fresh one (see fresh_data below).
if [[ $BACKEND == sqlite ]]; then
    WORK=$DATA_DIR/run-sqlite-$LABEL.db
    WORK_URL=sqlite://$WORK
    DB_BYTES=$(stat -c %s "$PRISTINE")
    drop_copy() { rm -f "$WORK" "$WORK-wal" "$WORK-shm"; }
    # Written to disk before the server starts: otherwise the first write's checkpoint
    # fsyncs the gigabytes the copy left dirty in the OS cache, and a write row measures that.
    make_copy() { drop_copy; cp "$PRISTINE" "$WORK" && sync "$WORK"; }
else
    WORK_DB=${PRISTINE_DB}_run
    WORK_URL=$PG_URL/$WORK_DB
    DB_BYTES=$(psql_admin -c "SELECT pg_database_size('$PRISTINE_DB')")
    drop_copy() { psql_admin -c "DROP DATABASE IF EXISTS $WORK_DB WITH (FORCE)" || true; }
    # The copy's files written to disk by a checkpoint, as SQLite's copy is synced (above).
    make_copy() {
        drop_copy
        psql_admin -c "CREATE DATABASE $WORK_DB TEMPLATE $PRISTINE_DB"
        psql_admin -c "CHECKPOINT"
    }
fi
make_copy

SERVER_PID=""
stop_server() {
    if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=""
}
cleanup() {
    stop_server
    if [[ $KEEP_COPY -eq 0 ]]; then drop_copy; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS=$ROOT/bench/results
RUN_DIR=$RESULTS/$STAMP-$BACKEND-$LABEL
mkdir -p "$RUN_DIR"
MANIFEST=$RUN_DIR/manifest
"$GEN" manifest --database-url "$WORK_URL" --out "$MANIFEST" >/dev/null
TOP_CATEGORY=$(jq -r '.top_category.id' "$MANIFEST/manifest.json")

# One month (the next calendar month), the busiest category and a word in ~2% of titles.
MONTH_START=$(date -u -d "$(date -u +%Y-%m-01) +1 month" +%Y-%m-%d)
MONTH_END=$(date -u -d "$MONTH_START +1 month -1 day" +%Y-%m-%d)
FILTER="start_date=$MONTH_START%2000:00:00&end_date=$MONTH_END%2023:59:59&categories=$TOP_CATEGORY&search=jazz"

# --- server -------------------------------------------------------------------------------
BASE=http://127.0.0.1:$PORT
if curl -s -o /dev/null --max-time 2 "$BASE/"; then
    echo "something already listens on 127.0.0.1:$PORT; pick another --port" >&2
    exit 1
fi

start_server() {
    # Logging at warn: the benchmark measures the server, not its request log.
    RUST_LOG=warn "$SERVER" serve --database-url "$WORK_URL" --bind "127.0.0.1:$PORT" "$@" \
        >>"$RUN_DIR/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 150); do
        curl -s -o /dev/null --max-time 2 "$BASE$API" && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$RUN_DIR/server.log" >&2; echo "the server exited" >&2; exit 1; }
        sleep 0.2
    done
    curl -s -o /dev/null --max-time 2 "$BASE$API" || { echo "the server did not come up" >&2; exit 1; }
}

# A write row measures writes into the data set as generated, not into one that the rows
# before it grew (a 1k set holds ~90k events after 20 s of POSTs): the server restarts on a
# fresh copy first. IDs, slugs and terms in the manifest are the same in every copy.
DATA_WRITTEN=false
fresh_data() {
    [[ $DATA_WRITTEN == true ]] || return 0
    log "restarting the server on a fresh copy of the data set"
    stop_server
    make_copy
    # The manifest's application password was made in the copy it was read from.
    "$GEN" manifest --database-url "$WORK_URL" --out "$MANIFEST" >/dev/null
    start_server
    DATA_WRITTEN=false
}

LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
log "starting the server on $BASE ($BACKEND, $EVENTS events; load average $LOAD_START)"
start_server

CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
rss_kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$SERVER_PID/status"; }
# Writing 5 to clear_refs resets VmHWM (Linux ≥ 4.0), so each peak is the scenario's own.
HWM_RESETS=true
reset_hwm() { { echo 5 >"/proc/$SERVER_PID/clear_refs"; } 2>/dev/null || HWM_RESETS=false; }

# PostgreSQL does the queries in its own processes: the backends serving the run's database.
declare -A DB_TICKS=()
db_pids() {
    [[ $BACKEND == postgres ]] || return 0
    psql_admin -c "SELECT pid FROM pg_stat_activity WHERE datname = '$WORK_DB' AND pid <> pg_backend_pid()"
}
db_ticks_snapshot() {
    DB_TICKS=()
    local pid
    for pid in $(db_pids); do
        DB_TICKS[$pid]=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    done
}
# CPU ticks the backends used since the snapshot; a backend started since counts in full.
db_ticks_since() {
    local pid now total=0
    for pid in $(db_pids); do
        now=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
        total=$((total + now - ${DB_TICKS[$pid]:-0}))
    done
    echo "$total"
}

status_of() { curl -s -o /dev/null -w '%{http_code}' --max-time 30 "$@"; }
# The manifest's administrator credentials, as a request header.
admin_authorization() { echo "Authorization: $(head -n1 "$MANIFEST/authorization")"; }

# --- the sweep: each kind of request, one at a time, uncached --------------------------------
SWEEP_ROWS=$RUN_DIR/sweep.ndjson
: >"$SWEEP_ROWS"
# Requests each path of a kind once, unrecorded, and prints the slowest time in ms (null with
# --warmup 0). A served database's pages are in the OS cache; a fresh copy's are not, and
# without this a kind of few requests in its seconds (several terms) reports its first reads
# as its p99. The report keeps the slowest of them, so a cold read is still seen.
sweep_first_pass() {
    local caller=$1 paths=$2 path
    [[ $WARMUP -gt 0 ]] || { echo null; return; }
    local auth=()
    [[ $caller == administrator ]] && auth=(-H "$(admin_authorization)")
    # A request that fails counts as the 30 s it may take.
    while IFS= read -r path; do
        curl -s -o /dev/null -w '%{time_total}\n' --max-time 30 "${auth[@]}" "$BASE$path" || echo 30
    done <"$paths" | sort -g | tail -n1 | awk '{ printf "%.2f\n", $1 * 1000 }'
}
# Restarts the server with its response cache off, on a fresh copy when a write scenario
# grew the data set.
restart_uncached() {
    log "$1: restarting the server with its response cache off"
    stop_server
    [[ $DATA_WRITTEN == true ]] && { make_copy; "$GEN" manifest --database-url "$WORK_URL" --out "$MANIFEST" >/dev/null; }
    DATA_WRITTEN=false
    start_server --response-cache-mb 0
}
run_sweep() {
    restart_uncached sweep
    local kind caller file report first cold
    while IFS=$'\t' read -r kind caller file; do
        report=$RUN_DIR/sweep-$kind.json
        first=$(head -n1 "$MANIFEST/sweep/$file")
        cold=$(sweep_first_pass "$caller" "$MANIFEST/sweep/$file")
        env BENCH_MANIFEST="$MANIFEST" BENCH_API="$API" BENCH_REPORT="$report" \
            BENCH_SWEEP_PATHS="sweep/$file" BENCH_CALLER="$caller" LUA_PATH="$ROOT/bench/lua/?.lua;;" \
            wrk -t1 -c1 -d"${SWEEP_SECONDS}s" --timeout 30s -s "$ROOT/bench/lua/sweep.lua" "$BASE" \
            >"$RUN_DIR/sweep-$kind.wrk.txt" 2>&1 ||
            { cat "$RUN_DIR/sweep-$kind.wrk.txt" >&2; echo "wrk failed" >&2; exit 1; }
        kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 50 "$RUN_DIR/server.log" >&2; echo "the server died during the sweep ($kind)" >&2; exit 1; }
        jq -c --arg kind "$kind" --arg caller "$caller" --arg example "$first" \
            --argjson variants "$(wc -l <"$MANIFEST/sweep/$file")" --argjson cold "$cold" \
            '{kind: $kind, caller: $caller, example: $example, variants: $variants,
              first_pass_max_ms: $cold} + .' \
            "$report" >>"$SWEEP_ROWS"
        jq -r '"  sweep \(.kind): \(.requests) requests, p50 \(.latency_ms.p50) ms, p99 \(.latency_ms.p99) ms, max \(.latency_ms.max) ms, first pass max \(.first_pass_max_ms) ms, non-2xx \(.errors.non2xx), timeouts \(.errors.timeout)"' \
            <<<"$(tail -n1 "$SWEEP_ROWS")" >&2
    done <"$MANIFEST/sweep/kinds.tsv"
    stop_server
    start_server
}

# --- hostile requests: each at its most expensive, sent twice, uncached ---------------------
HOSTILE_ROWS=$RUN_DIR/hostile.ndjson
: >"$HOSTILE_ROWS"
# The deepest page of 50 a search answers: the server's default `--search-depth`
# (10,000 matches) over 50.
SEARCH_LAST_PAGE=200
# The path with `page=last` replaced by the list's last page (X-WP-TotalPages of its
# page 1; page 1 of an empty list); of a search whose total is a floor
# (`X-Calendar-Total: at-least`), the last page its depth reaches.
resolve_last_page() {
    local path=$1 headers pages
    shift
    [[ $path == *page=last* ]] || { echo "$path"; return; }
    headers=$(curl -s -D - -o /dev/null --max-time 60 "$@" "$BASE${path/page=last/page=1}" | tr -d '\r')
    pages=$(awk -F': ' 'tolower($1) == "x-wp-totalpages" { print $2 }' <<<"$headers")
    [[ ${pages:-0} -ge 1 ]] || pages=1
    if grep -qi '^x-calendar-total: at-least' <<<"$headers" || [[ $path == *search=* && $pages -gt $SEARCH_LAST_PAGE ]]; then
        pages=$SEARCH_LAST_PAGE
    fi
    echo "${path/page=last/page=$pages}"
}
# "status seconds" of one request; one that fails counts as the 60 s it may take.
timed() { curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 60 "$@" || echo "000 60"; }
run_hostile() {
    restart_uncached hostile
    local kind caller file path auth status first again
    while IFS=$'\t' read -r kind caller file; do
        auth=()
        [[ $caller == administrator ]] && auth=(-H "$(admin_authorization)")
        while IFS= read -r path; do
            path=$(resolve_last_page "$path" "${auth[@]}")
            read -r status first <<<"$(timed "${auth[@]}" "$BASE$path")"
            read -r _ again <<<"$(timed "${auth[@]}" "$BASE$path")"
            kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 50 "$RUN_DIR/server.log" >&2; echo "the server died during hostile ($kind)" >&2; exit 1; }
            jq -nc --arg kind "$kind" --arg caller "$caller" --arg path "$path" --arg status "$status" \
                --argjson first "$first" --argjson again "$again" \
                '{kind: $kind, caller: $caller, path: $path, status: ($status | tonumber),
                  first_ms: ($first * 1000 | round), again_ms: ($again * 1000 | round)}' >>"$HOSTILE_ROWS"
            jq -r '"  hostile \(.kind): \(.status) in \(.first_ms) ms, again \(.again_ms) ms: \(.path)"' \
                <<<"$(tail -n1 "$HOSTILE_ROWS")" >&2
        done <"$MANIFEST/hostile/$file"
    done <"$MANIFEST/hostile/kinds.tsv"
    stop_server
    start_server
}

# --- scenarios ----------------------------------------------------------------------------
ROWS=$RUN_DIR/rows.ndjson
: >"$ROWS"
selected() { [[ -z $ONLY ]] || [[ " $ONLY " == *" $1 "* ]]; }

for entry in "${SCENARIOS[@]}"; do
    IFS='|' read -r name script path what <<<"$entry"
    selected "$name" || continue
    # Quoted replacements: bash 5.2 would otherwise put the matched text in place of '&'.
    path=${path//@API/"$API"}
    path=${path//@FILTER/"$FILTER"}
    env_vars=(BENCH_MANIFEST="$MANIFEST" BENCH_API="$API" BENCH_FILTER_QUERY="$FILTER" BENCH_THREADS="$THREADS")
    if [[ $name == sweep ]]; then
        run_sweep
        continue
    fi
    if [[ $name == hostile ]]; then
        run_hostile
        continue
    fi
    # One request first: a scenario that answers an error would measure the error path.
    case $name in
        event_by_id)
            env_vars+=(BENCH_LIST=event_ids BENCH_PREFIX="$API/events/")
            code=$(status_of "$BASE$API/events/$(head -n1 "$MANIFEST/event_ids")") ;;
        event_by_slug)
            env_vars+=(BENCH_LIST=event_slugs BENCH_PREFIX="$API/events/by-slug/")
            code=$(status_of "$BASE$API/events/by-slug/$(head -n1 "$MANIFEST/event_slugs")") ;;
        page_event)
            env_vars+=(BENCH_LIST=event_slugs BENCH_PREFIX="/event/" BENCH_SUFFIX="/")
            code=$(status_of "$BASE/event/$(head -n1 "$MANIFEST/event_slugs")/") ;;
        post_events|mix|edits|removals)
            code=$(status_of -X POST -H "$(admin_authorization)" \
                -H 'Content-Type: application/json' \
                -d "{\"title\":\"Preflight\",\"start_date\":\"$MONTH_START 10:00:00\",\"end_date\":\"$MONTH_START 11:00:00\",\"status\":\"draft\"}" \
                "$BASE$API/events") ;;
        *) code=$(status_of "$BASE$path") ;;
    esac
    if [[ $code != 2* ]]; then
        # Measuring how fast the server says no would be meaningless.
        if [[ $name == health && $code == 404 ]]; then
            note="GET /health answers 404 (not implemented yet)"
        else
            note="the first request answered HTTP $code"
        fi
        log "skipping $name: $note"
        jq -nc --arg name "$name" --arg what "$what" --arg path "$path" --arg note "$note" \
            '{scenario: $name, description: $what, path: $path, skipped: $note}' >>"$ROWS"
        continue
    fi

    writes=false
    [[ $name == post_events || $name == mix || $name == edits || $name == removals ]] && writes=true
    # Writes skip the warm-up: it would grow the data set the rows are meant to measure.
    if [[ $WARMUP -gt 0 && $writes == false ]]; then
        # A fresh copy starts with cold page caches (PostgreSQL's shared buffers above all):
        # the first requests of a run would otherwise weigh on its p99.
        log "$name: warming up for ${WARMUP}s"
        env "${env_vars[@]}" BENCH_REPORT=/dev/null LUA_PATH="$ROOT/bench/lua/?.lua;;" \
            wrk -t"$THREADS" -c"${CONNECTIONS%% *}" -d"${WARMUP}s" --timeout 10s \
            -s "$ROOT/bench/lua/$script" "$BASE${path%%<*}" >/dev/null 2>&1 || true
    fi
    for c in $CONNECTIONS; do
        [[ $writes == true ]] && fresh_data
        log "$name: $c connections, ${DURATION}s"
        report=$RUN_DIR/$name-c$c.json
        reset_hwm
        ticks_before=$(cpu_ticks)
        db_ticks_snapshot
        load_before=$(cut -d' ' -f1 /proc/loadavg)
        env "${env_vars[@]}" BENCH_REPORT="$report" LUA_PATH="$ROOT/bench/lua/?.lua;;" \
            wrk -t"$THREADS" -c"$c" -d"${DURATION}s" --timeout 10s \
            -s "$ROOT/bench/lua/$script" "$BASE${path%%<*}" >"$RUN_DIR/$name-c$c.wrk.txt" 2>&1 ||
            { cat "$RUN_DIR/$name-c$c.wrk.txt" >&2; echo "wrk failed" >&2; exit 1; }
        ticks_after=$(cpu_ticks)
        [[ $writes == true ]] && DATA_WRITTEN=true
        db_ticks=$(db_ticks_since)
        kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 50 "$RUN_DIR/server.log" >&2; echo "the server died during $name" >&2; exit 1; }
        jq -c --arg name "$name" --arg what "$what" --arg path "$path" \
            --argjson c "$c" --argjson hwm "$(rss_kb VmHWM)" --argjson rss "$(rss_kb VmRSS)" \
            --argjson cpu "$(awk -v t=$((ticks_after - ticks_before)) -v hz="$CLK_TCK" -v d="$DURATION" 'BEGIN {printf "%.2f", t / hz / d}')" \
            --argjson load "$load_before" \
            --argjson db_cpu "$(if [[ $BACKEND == postgres ]]; then awk -v t="$db_ticks" -v hz="$CLK_TCK" -v d="$DURATION" 'BEGIN {printf "%.2f", t / hz / d}'; else echo null; fi)" \
            '{scenario: $name, description: $what, path: $path, connections: $c} + .
             + {server_rss_peak_kb: $hwm, server_rss_end_kb: $rss, server_cpu_cores: $cpu,
                server_cpu_ms_per_request: (if .rps > 0 then ($cpu * 1000 / .rps * 1000 | round) / 1000 else null end),
                postgres_cpu_cores: $db_cpu,
                load1_before: $load}' "$report" >>"$ROWS"
        jq -r '"  \(.rps|floor) req/s, p50 \(.latency_ms.p50) ms, p99 \(.latency_ms.p99) ms, non-2xx \(.errors.non2xx), RSS peak \(.server_rss_peak_kb/1024|floor) MiB"' \
            <<<"$(tail -n1 "$ROWS")" >&2
    done
done

# --- reports ------------------------------------------------------------------------------
GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -z $(git status --porcelain -- src Cargo.toml Cargo.lock 2>/dev/null) ]] || GIT_COMMIT="$GIT_COMMIT+dirty"
if [[ $BACKEND == postgres ]]; then
    DB_VERSION="PostgreSQL $(psql_admin -c 'SHOW server_version')"
else
    DB_VERSION="SQLite (bundled)"
fi
MEM_GIB=$(awk '/^MemTotal:/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
CPU_MODEL=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)

JSON_OUT=$RESULTS/$STAMP-$BACKEND-$LABEL.json
MD_OUT=$RESULTS/$STAMP-$BACKEND-$LABEL.md
jq -n --slurpfile rows "$ROWS" --slurpfile sweep "$SWEEP_ROWS" --slurpfile hostile "$HOSTILE_ROWS" --slurpfile gen "$GEN_SUMMARY" \
    --arg stamp "$STAMP" --arg backend "$BACKEND" --arg db "$DB_VERSION" \
    --argjson events "$EVENTS" --argjson db_bytes "$DB_BYTES" --argjson generated "$GENERATED" \
    --argjson duration "$DURATION" --argjson threads "$THREADS" --argjson warmup "$WARMUP" \
    --arg commit "$GIT_COMMIT" --argjson nproc "$(nproc)" --arg cpu "$CPU_MODEL" \
    --argjson mem "$MEM_GIB" --arg kernel "$(uname -r)" --arg filter "$FILTER" \
    --argjson hwm_resets "$HWM_RESETS" --argjson load "$LOAD_START" --argjson sweep_seconds "$SWEEP_SECONDS" \
    '{run: $stamp, backend: $backend, database: $db, events: $events, database_bytes: $db_bytes,
      data_set: ($gen[0] + {generated_this_run: $generated}),
      wrk: {threads: $threads, duration_s: $duration, warmup_s: $warmup}, filter_query: $filter,
      rss_peak_per_scenario: $hwm_resets, commit: $commit,
      machine: {nproc: $nproc, cpu: $cpu, memory_gib: $mem, kernel: $kernel,
                load1_at_start: $load},
      results: $rows, sweep: {seconds_per_kind: $sweep_seconds, kinds: $sweep},
      hostile: $hostile}' >"$JSON_OUT"

jq -r '
  def f1: (. * 10 | round) / 10;
  def f2: (. * 100 | round) / 100;
  "## \(.backend), \(.events) events — \(.run)",
  "",
  "Commit \(.commit); \(.database); data set \(.database_bytes / 1048576 | f1) MiB. " +
  "Machine: \(.machine.nproc) CPUs (\(.machine.cpu)), \(.machine.memory_gib) GiB, Linux \(.machine.kernel). " +
  "wrk -t\(.wrk.threads), \(.wrk.duration_s) s per row after \(.wrk.warmup_s // 0) s of warm-up per scenario; client and server share the machine " +
  "(1-minute load average \(.machine.load1_at_start) when the run started).",
  "",
  "| scenario | conns | req/s | p50 ms | p99 ms | non-2xx | socket errors | server CPU (cores) | CPU ms/req | PostgreSQL CPU (cores) | RSS peak MiB |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  (.results[] |
    if .skipped then "| \(.scenario) | – | – | – | – | – | – | – | – | – | skipped: \(.skipped) |"
    else "| \(.scenario) | \(.connections) | \(.rps | floor) | \(.latency_ms.p50 | f2) | \(.latency_ms.p99 | f2) | \(.errors.non2xx) | \(.errors.connect + .errors.read + .errors.write + .errors.timeout) | \(.server_cpu_cores) | \(.server_cpu_ms_per_request // "–") | \(.postgres_cpu_cores // "–") | \(.server_rss_peak_kb / 1024 | f1) |"
    end),
  (if (.sweep.kinds | length) > 0 then
    "",
    "Sweep: each kind for \(.sweep.seconds_per_kind) s, one request at a time (wrk -t1 -c1), response cache off; its paths cycle through the values drawn from the data set, each requested once before (its slowest: first pass).",
    "",
    "| kind | caller | example | variants | requests | p50 ms | p99 ms | max ms | first pass max ms | non-2xx | timeouts |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    (.sweep.kinds[] |
      "| \(.kind) | \(.caller) | `\(.example)` | \(.variants) | \(.requests) | \(.latency_ms.p50 | f2) | \(.latency_ms.p99 | f2) | \(.latency_ms.max | f2) | \(.first_pass_max_ms // "–") | \(.errors.non2xx) | \(.errors.timeout) |"),
    "",
    (.sweep.kinds as $k | [$k[] | select(.latency_ms.p50 > 20 or .latency_ms.p99 > 100)] as $missed |
      "Against the targets of issue 23, set for 1M events (p50 ≤ 20 ms, p99 ≤ 100 ms): \($missed | length) of \($k | length) kinds miss" +
      (if ($missed | length) > 0 then " (\([$missed[] | "`\(.kind)` \(.latency_ms.p50 | f1) / \(.latency_ms.p99 | f1)"] | join(", ")))" else "" end) +
      "; sum of p50s \([$k[] | .latency_ms.p50] | add | f1) ms.")
  else empty end),
  (if (.hostile | length) > 0 then
    "",
    "Hostile requests: each sent twice, one at a time, response cache off; `page=last` is the list'"'"'s last page. Issue 23'"'"'s bound: no request over 1 s of server time.",
    "",
    "| kind | caller | requests | slowest ms | again ms | non-2xx | slowest request |",
    "|---|---|---:|---:|---:|---:|---|",
    (.hostile | group_by(.kind) | sort_by(-(map([.first_ms, .again_ms] | max) | max))[] |
      (max_by([.first_ms, .again_ms] | max)) as $worst |
      "| \(.[0].kind) | \(.[0].caller) | \(length) | \($worst.first_ms) | \($worst.again_ms) | \(map(select(.status >= 300)) | length) | `\($worst.path | if length > 160 then .[:160] + "…" else . end)` |"),
    "",
    ([.hostile[] | select(([.first_ms, .again_ms] | max) > 1000)] as $over |
      "Over 1 s: \($over | length) of \(.hostile | length) requests" +
      (if ($over | length) > 0 then " (\([$over[] | .kind] | unique | join(", ")))" else "" end) + ".")
  else empty end)
' "$JSON_OUT" >"$MD_OUT"
rm -f "$ROWS" "$SWEEP_ROWS" "$HOSTILE_ROWS"
log "wrote $JSON_OUT and $MD_OUT"
cat "$MD_OUT"
