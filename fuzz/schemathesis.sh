#!/usr/bin/env bash
# Schema fuzzing: runs schemathesis against the server's own OpenAPI document
# (GET /calendar/events/v1/doc), once anonymously and once as an administrator.
#
#   bash fuzz/schemathesis.sh [SERVER_BINARY]     (default target/debug/calendar-events)
#
# It builds nothing: pass a binary that exists (`cargo build` or `cargo test` makes the
# debug one). A temporary SQLite database gets an administrator and a little data (a venue,
# an organizer, a category, a tag, a few events) whose IDs and slugs are fed to schemathesis
# as dictionaries, so path parameters often name things that exist. The server listens on a
# free port of 127.0.0.1 only, logs to a file, and is stopped on exit.
#
# Checks: no 5xx, every status code, content type, header and body as the document says,
# and a per-request timeout (a hang is a failure). Exit status is non-zero on any failure.
#
# Environment:
#   FUZZ_MAX_EXAMPLES   test cases per operation in the fuzzing phase (default 30: both runs
#                       take about 2 minutes on 2 cores with a debug build, which is what CI
#                       runs). Release check: a release binary, more examples, both backends:
#                         FUZZ_MAX_EXAMPLES=500 bash fuzz/schemathesis.sh target/release/calendar-events
#                         FUZZ_MAX_EXAMPLES=500 FUZZ_BACKEND=postgres bash fuzz/schemathesis.sh target/release/calendar-events
#   FUZZ_BACKEND        sqlite (default: a temporary file) or postgres (a temporary database
#                       on FUZZ_PG_URL, default postgres://postgres@127.0.0.1:5432, dropped after).
#   FUZZ_MAX_TIME       wall-clock budget of each run in seconds (default: none). Note that
#                       with a budget, schemathesis keeps fuzzing until it is spent.
#   FUZZ_SEED           seed for reproducible runs (default: random; printed).
#   FUZZ_WORKERS        concurrent schemathesis workers (default 1). With 2, Hypothesis
#                       parses lambdas' source on two threads at once, and Python 3.11.7's
#                       AST parser is not safe for that: a run could die of "SystemError:
#                       AST constructor recursion depth mismatch" with every case passed.
#                       One worker is as fast on two cores the server shares (57 s a run
#                       against 65 s).
#   FUZZ_REQUEST_TIMEOUT  seconds before a request counts as hung (default 10).
#   FUZZ_KEEP           1 keeps the work directory (database, logs, reports) after the run.
#   FUZZ_RUNS           which runs: "anonymous admin" (default), or one of them.
#   FUZZ_REPORT         schemathesis report formats (default junit; e.g. junit,har), kept with FUZZ_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
BIN=${1:-target/debug/calendar-events}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-30}
MAX_TIME=${FUZZ_MAX_TIME:-}
SEED=${FUZZ_SEED:-$RANDOM$RANDOM}
WORKERS=${FUZZ_WORKERS:-1}
REQUEST_TIMEOUT=${FUZZ_REQUEST_TIMEOUT:-10}
RUNS=${FUZZ_RUNS:-anonymous admin}
API=/calendar/events/v1

if [[ ! -x $BIN ]]; then
    echo "fuzz: no server binary at $BIN (run cargo build first)" >&2
    exit 2
fi
BIN=$(realpath "$BIN")

# schemathesis, pinned; installed only when missing or of another version.
if ! command -v schemathesis >/dev/null ||
    [[ $(schemathesis --version 2>/dev/null) != *" $SCHEMATHESIS_VERSION" ]]; then
    echo "fuzz: installing schemathesis $SCHEMATHESIS_VERSION"
    python3 -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

WORK=$(mktemp -d -t calendar-fuzz.XXXXXX)
LOG="$WORK/server.log"
SERVER_PID=""
PG_DB=""
case ${FUZZ_BACKEND:-sqlite} in
sqlite) DB_URL="sqlite://$WORK/calendar.db" ;;
postgres)
    PG_URL=${FUZZ_PG_URL:-postgres://postgres@127.0.0.1:5432}
    PG_DB="calendar_fuzz_$$"
    psql "$PG_URL/postgres" -qc "CREATE DATABASE $PG_DB" >/dev/null
    DB_URL="$PG_URL/$PG_DB"
    ;;
*)
    echo "fuzz: FUZZ_BACKEND is sqlite or postgres" >&2
    exit 2
    ;;
esac
# shellcheck disable=SC2317 # (invoked by the EXIT trap)
cleanup() {
    local rc=$?
    if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ -n $PG_DB ]]; then
        psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null || true
    fi
    if [[ $rc -ne 0 || ${FUZZ_KEEP:-0} == 1 ]]; then
        echo "fuzz: work directory kept: $WORK (server log: $LOG)"
    else
        rm -rf "$WORK"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT$API"

PASSWORD=$("$BIN" user create fuzz-admin --role administrator --database-url "$DB_URL" | tail -n 1)
AUTH="fuzz-admin:$PASSWORD"

# The request timeout is above schemathesis's, so a hang shows up as a client timeout.
# Schemathesis fills the declared security schemes with made-up credentials, thousands of
# failed logins from one address: the lock-out (tested in tests/auth_limits.rs) would turn
# the rest of both runs into 429s, so this server allows them all.
RUST_LOG=${RUST_LOG:-warn} "$BIN" --database-url "$DB_URL" --bind "127.0.0.1:$PORT" \
    --request-timeout-secs $((REQUEST_TIMEOUT * 2)) --auth-failure-limit 4000000000 >"$LOG" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || {
        echo "fuzz: server exited at start" >&2
        cat "$LOG" >&2
        exit 1
    }
    sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health" || {
    echo "fuzz: server did not answer /health within 10 s" >&2
    exit 1
}

# ---- seed data -----------------------------------------------------------------------
post() { # post PATH JSON → prints the created object's id
    local body
    body=$(curl -sS -u "$AUTH" -H 'Content-Type: application/json' -d "$2" "$BASE/$1")
    python3 -c 'import json, sys; print(json.loads(sys.argv[1])["id"])' "$body" 2>/dev/null || {
        echo "fuzz: seeding POST $1 failed: $body" >&2
        exit 1
    }
}
slug_of() { # slug_of PATH → the slug of the object at PATH
    curl -fsS -u "$AUTH" "$BASE/$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["slug"])'
}
VENUE=$(post venues '{"venue": "Fuzz Hall", "city": "Springfield", "address": "1 Main St", "geo_lat": 48.85, "geo_lng": 2.35}')
ORGANIZER=$(post organizers '{"organizer": "Fuzz Org", "email": "org@example.com", "phone": "555"}')
CATEGORY=$(post categories '{"name": "Fuzz Category", "description": "cat"}')
SUBCATEGORY=$(post categories "{\"name\": \"Fuzz Sub\", \"parent\": $CATEGORY}")
TAG=$(post tags '{"name": "fuzz-tag"}')
day() { date -u -d "+$1 days" +%F; }
EVENTS=()
EVENTS+=("$(post events "{\"title\": \"Fuzz One\", \"start_date\": \"$(day 1) 10:00:00\", \"end_date\": \"$(day 1) 12:00:00\",
  \"venue\": $VENUE, \"organizer\": [$ORGANIZER], \"categories\": [$CATEGORY], \"tags\": [$TAG], \"cost\": \"20\$\",
  \"tickets\": [{\"name\": \"Seat\", \"url\": \"https://example.com/t\", \"price\": \"20\", \"currency\": \"USD\"}]}")")
EVENTS+=("$(post events "{\"title\": \"Fuzz Two\", \"start_date\": \"$(day 3) 18:00:00\", \"end_date\": \"$(day 3) 20:00:00\",
  \"all_day\": false, \"featured\": true, \"categories\": [$SUBCATEGORY], \"timezone\": \"Europe/Paris\"}")")
EVENTS+=("$(post events "{\"title\": \"Fuzz Draft\", \"start_date\": \"$(day 5)\", \"end_date\": \"$(day 6)\", \"status\": \"draft\"}")")
EVENTS+=("$(post events "{\"title\": \"Fuzz Secret\", \"start_date\": \"$(day 7) 09:00:00\", \"end_date\": \"$(day 7) 11:00:00\", \"password\": \"open\"}")")
EVENTS+=("$(post events "{\"title\": \"Fuzz Image\", \"start_date\": \"$(day 9) 09:00:00\", \"end_date\": \"$(day 9) 10:00:00\",
  \"image\": \"https://example.com/poster.png\", \"organizer\": [{\"organizer\": \"Inline Org\"}]}")")
EVENT_SLUG=$(slug_of "events/${EVENTS[0]}")
VENUE_SLUG=$(slug_of "venues/$VENUE")
ORGANIZER_SLUG=$(slug_of "organizers/$ORGANIZER")

# Dictionaries of existing IDs and slugs: schemathesis draws path parameters from them half
# of the time and generates the rest (which exercises the 400/404 answers).
CONFIG="$WORK/schemathesis.toml"
ids() { local IFS=,; echo "$*"; }
cat >"$CONFIG" <<TOML
[dictionaries]
event-ids = { values = [$(ids "${EVENTS[@]}")] }
venue-ids = { values = [$VENUE] }
organizer-ids = { values = [$ORGANIZER] }
term-ids = { values = [$CATEGORY, $SUBCATEGORY, $TAG] }
event-slugs = { values = ["$EVENT_SLUG"] }
venue-slugs = { values = ["$VENUE_SLUG"] }
organizer-slugs = { values = ["$ORGANIZER_SLUG"] }

[[operations]]
include-path-regex = "^/events/[{]id[}]"
parameters = { "path.id" = { dictionary = "event-ids", probability = 0.5 } }

[[operations]]
include-path-regex = "^/events/by-slug/"
parameters = { "path.slug" = { dictionary = "event-slugs", probability = 0.5 } }

[[operations]]
include-path-regex = "^/venues/[{]id[}]"
parameters = { "path.id" = { dictionary = "venue-ids", probability = 0.5 } }

[[operations]]
include-path-regex = "^/venues/by-slug/"
parameters = { "path.slug" = { dictionary = "venue-slugs", probability = 0.5 } }

[[operations]]
include-path-regex = "^/organizers/[{]id[}]"
parameters = { "path.id" = { dictionary = "organizer-ids", probability = 0.5 } }

[[operations]]
include-path-regex = "^/organizers/by-slug/"
parameters = { "path.slug" = { dictionary = "organizer-slugs", probability = 0.5 } }

[[operations]]
include-path-regex = "^/(categories|tags)/"
parameters = { "path.id" = { dictionary = "term-ids", probability = 0.5 } }
TOML

echo "fuzz: server 127.0.0.1:$PORT (pid $SERVER_PID, ${FUZZ_BACKEND:-sqlite}), seed $SEED, max examples $MAX_EXAMPLES${MAX_TIME:+, max time ${MAX_TIME}s}"

CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance
SUMMARY=()
FAILED=0
PASSED_CASES=0
FAILURES=0
for run in $RUNS; do
    args=(--config-file "$CONFIG" run "$BASE/doc"
        --checks "$CHECKS"
        --max-examples "$MAX_EXAMPLES"
        --request-timeout "$REQUEST_TIMEOUT"
        --seed "$SEED"
        --workers "$WORKERS"
        --generation-database none
        --suppress-health-check all
        --no-color
        --report "${FUZZ_REPORT:-junit}" --report-dir "$WORK/report-$run")
    [[ -n $MAX_TIME ]] && args+=(--max-time "$MAX_TIME")
    case $run in
    anonymous) ;;
    admin) args+=(--auth "$AUTH") ;;
    *)
        echo "fuzz: unknown run $run" >&2
        exit 2
        ;;
    esac
    start=$SECONDS
    out="$WORK/$run.out"
    set +e
    schemathesis "${args[@]}" >"$out" 2>&1
    rc=$?
    set -e
    elapsed=$((SECONDS - start))
    # schemathesis sums up its test cases as "N generated, N passed" or
    # "N generated, K found M unique failures".
    cases=$(grep -E '^ +[0-9]+ generated' "$out" | tail -n 1 | sed -E 's/^ +//' || true)
    generated=$(sed -nE 's/^([0-9]+) generated.*/\1/p' <<<"$cases")
    failing=$(sed -nE 's/.* ([0-9]+) found .*/\1/p' <<<"$cases")
    unique=$(sed -nE 's/.* ([0-9]+) unique failures?.*/\1/p' <<<"$cases")
    PASSED_CASES=$((PASSED_CASES + ${generated:-0} - ${failing:-0}))
    if [[ $rc -ne 0 ]]; then
        FAILED=1
        FAILURES=$((FAILURES + ${unique:-1}))
        cat "$out"
    fi
    SUMMARY+=("fuzz $run: $([[ $rc -eq 0 ]] && echo ok || echo FAILED) in ${elapsed}s, ${cases:-no summary from schemathesis} (exit $rc)")
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "fuzz: the server died during the $run run" >&2
        tail -n 50 "$LOG" >&2
        FAILED=1
        break
    fi
done

if grep -qE 'panicked|ERROR' "$LOG"; then
    echo "fuzz: the server logged errors or panics:" >&2
    grep -E 'panicked|ERROR' "$LOG" | head -n 20 >&2
    FAILED=1
fi

printf '%s\n' "${SUMMARY[@]}"
# Test cases that passed, and distinct failures (a dead or erroring server counts as one).
if [[ $FAILED -ne 0 && $FAILURES -eq 0 ]]; then FAILURES=1; fi
echo "fuzz: $PASSED_CASES passed, $FAILURES failed"
exit "$FAILED"
