#!/usr/bin/env bash
# Interleaved A/B runs of two (or more) server binaries on fresh copies of one data set: on a
# shared, noisy machine, only runs made minutes apart compare. Prints one line per run with
# req/s and CPU per request of the server, of PostgreSQL and of the whole machine, and the
# deadlocks PostgreSQL detected. See
# bench/README.md ("Comparing two builds").
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: bench/ab.sh [options] BINARY…

  --backend sqlite|postgres   (default sqlite)
  --size 1k|100k|1m|N         data set, as made by bench/run.sh (default 1k)
  --script NAME.lua           wrk script in bench/lua (default post_event.lua)
  --list event_ids|event_slugs  sample list for pick.lua (default event_ids)
  --path PATH                 URL path for static.lua (default /health)
  --connections "16 64"       (default "16 64")
  --duration SECONDS          per run (default 6), after 2 s of unrecorded load
  --rounds N                  rounds of every binary at every connection count (default 3)
  --port PORT                 (default 18090)
  --server-args "ARGS"        more settings for every server, e.g. "--response-cache-mb 0"

Every run starts the binary on a fresh copy of the data set. The data set must exist: run
bench/run.sh once for the backend and size.
USAGE
}

BACKEND=sqlite SIZE=1k SCRIPT=post_event.lua LIST=event_ids PATH_=/health
CONNECTIONS="16 64" DURATION=6 ROUNDS=3 PORT=18090 SERVER_ARGS=""
BINARIES=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --backend) BACKEND=$2; shift 2 ;;
        --size) SIZE=$2; shift 2 ;;
        --script) SCRIPT=$2; shift 2 ;;
        --list) LIST=$2; shift 2 ;;
        --path) PATH_=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --port) PORT=$2; shift 2 ;;
        --server-args) SERVER_ARGS=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
        *) BINARIES+=("$1"); shift ;;
    esac
done
[[ ${#BINARIES[@]} -ge 1 ]] || { usage >&2; exit 2; }
for b in "${BINARIES[@]}"; do [[ -x $b ]] || { echo "not an executable: $b" >&2; exit 2; }; done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps | jq -r .target_directory)
DATA_DIR=${BENCH_DATA_DIR:-$TARGET_DIR/bench-data}
GEN=$TARGET_DIR/release/calendar-bench
PG_URL=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432}
LABEL=$(tr '[:upper:]' '[:lower:]' <<<"$SIZE")
WORK=$(mktemp -d)
MANIFEST=$WORK/manifest
BASE=http://127.0.0.1:$PORT
API=/calendar/events/v1
SERVER_PID=""

if [[ $BACKEND == sqlite ]]; then
    PRISTINE=$DATA_DIR/sqlite-$LABEL.db
    PRISTINE_NAME=$PRISTINE
    [[ -f $PRISTINE ]] || { echo "no data set $PRISTINE: run bench/run.sh first" >&2; exit 1; }
    URL=sqlite://$WORK/run.db
    fresh_copy() { rm -f "$WORK"/run.db*; cp "$PRISTINE" "$WORK/run.db"; }
    drop_copy() { rm -f "$WORK"/run.db*; }
    db_ticks() { echo 0; }
    deadlocks() { echo "-"; }
else
    COPY=calendar_ab_$LABEL
    PRISTINE_NAME=calendar_bench_$LABEL
    URL=$PG_URL/$COPY
    psql_admin() { psql "$PG_URL/postgres" -v ON_ERROR_STOP=1 -qtAX "$@"; }
    fresh_copy() {
        psql_admin -c "DROP DATABASE IF EXISTS $COPY WITH (FORCE)" >/dev/null
        psql_admin -c "CREATE DATABASE $COPY TEMPLATE calendar_bench_$LABEL" >/dev/null
    }
    drop_copy() { psql_admin -c "DROP DATABASE IF EXISTS $COPY WITH (FORCE)" >/dev/null || true; }
    # CPU ticks of the PostgreSQL backends serving the copy.
    db_ticks() {
        local t=0 pid
        for pid in $(psql_admin -c "SELECT pid FROM pg_stat_activity WHERE datname = '$COPY'"); do
            t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
        done
        echo "$t"
    }
    # The deadlocks PostgreSQL detected in the copy. Backends report theirs when they exit
    # at the latest, so this waits for the stopped server's to go.
    deadlocks() {
        for _ in $(seq 100); do
            [[ $(psql_admin -c "SELECT count(*) FROM pg_stat_activity WHERE datname = '$COPY'") == 0 ]] && break
            sleep 0.1
        done
        psql_admin -c "SELECT deadlocks FROM pg_stat_database WHERE datname = '$COPY'"
    }
fi

stop_server() {
    if [[ -n $SERVER_PID ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=""
}
cleanup() { stop_server; drop_copy; rm -rf "$WORK"; }
trap cleanup EXIT

machine_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
HZ=$(getconf CLK_TCK)
NCPU=$(nproc)

run_one() {
    local bin=$1 conns=$2
    fresh_copy
    "$GEN" manifest --database-url "$URL" --out "$MANIFEST" >/dev/null
    # shellcheck disable=SC2086 # the extra settings are meant to split into words
    RUST_LOG=warn "$bin" serve --database-url "$URL" --bind "127.0.0.1:$PORT" $SERVER_ARGS >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    # A build that adds a migration applies it to the copy before it listens, which can take
    # minutes at 1M; a server that exits meanwhile has failed.
    until curl -s -o /dev/null "$BASE/health"; do
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; echo "$bin exited before it listened" >&2; exit 1; }
        sleep 0.1
    done
    # An older build starts on a schema a newer build migrated, with only a warning: its runs
    # would measure the newer schema, not its own. The pristine set must be as old as the oldest
    # build compared (bench/README.md, "Comparing two builds").
    if grep -q "migrations this build does not know" "$WORK/server.log"; then
        echo "$bin is older than the schema of $PRISTINE_NAME: regenerate the data set with it" >&2
        exit 1
    fi
    # mix.lua's filtered list, as bench/run.sh builds it.
    local month_start month_end filter
    month_start=$(date -u -d "$(date -u +%Y-%m-01) +1 month" +%Y-%m-%d)
    month_end=$(date -u -d "$month_start +1 month -1 day" +%Y-%m-%d)
    filter="start_date=$month_start%2000:00:00&end_date=$month_end%2023:59:59"
    filter+="&categories=$(jq -r '.top_category.id' "$MANIFEST/manifest.json")&search=jazz"
    local env=(BENCH_MANIFEST="$MANIFEST" BENCH_API="$API" BENCH_LIST="$LIST"
        BENCH_PREFIX="$API/events/$([[ $LIST == event_slugs ]] && echo by-slug/)"
        BENCH_FILTER_QUERY="$filter")
    local url=$BASE
    [[ $SCRIPT == static.lua ]] && url=$BASE$PATH_
    (cd "$ROOT/bench/lua" && env "${env[@]}" wrk -t2 -c"$conns" -d2s -s "$SCRIPT" "$url" >/dev/null)
    local s0 d0 m0 w0 s1 d1 m1 w1 out
    s0=$(server_ticks) d0=$(db_ticks) m0=$(machine_ticks) w0=$(date +%s%N)
    out=$(cd "$ROOT/bench/lua" && env "${env[@]}" wrk -t2 -c"$conns" -d"${DURATION}s" -s "$SCRIPT" "$url")
    w1=$(date +%s%N) s1=$(server_ticks) d1=$(db_ticks) m1=$(machine_ticks)
    stop_server
    local rps non p99 locked
    locked=$(deadlocks)
    rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
    non=$(awk '/Non-2xx/{print $NF}' <<<"$out")
    p99=$(grep -o '"p99":[0-9.]*' <<<"$out" | cut -d: -f2)
    awk -v b="$(basename "$bin")" -v c="$conns" -v r="$rps" -v d="$DURATION" -v hz="$HZ" -v p99="${p99:-?}" \
        -v s="$((s1 - s0))" -v g="$((d1 - d0))" -v m="$((m1 - m0))" -v n="${non:-0}" -v cpus="$NCPU" \
        -v wall="$(((w1 - w0) / 1000000))" -v dl="$locked" 'BEGIN {
        per = 1000 / (hz * r * d)
        printf "%-20s c=%-3s %8.0f req/s  p99 %s ms  server %.3f ms/req  db %.3f ms/req  machine %.3f ms/req  idle %.2f cores  non-2xx %s  deadlocks %s\n",
            b, c, r, p99, s * per, g * per, m * per, cpus - m * 1000 / (hz * wall), n, dl }'
}

echo "# $BACKEND $LABEL, $SCRIPT, ${DURATION}s runs, $(date -u +%FT%TZ), load $(cut -d' ' -f1 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
    for conns in $CONNECTIONS; do
        for bin in "${BINARIES[@]}"; do
            run_one "$bin" "$conns"
        done
    done
done
