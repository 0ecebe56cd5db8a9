#!/usr/bin/env bash
# What the decision log costs per GET /v1/decide, independent of machine load: instructions
# (callgrind) or heap allocations (LD_PRELOAD counter, bench/malloc-count.c) per request of
# the same release build with the log off, on without redaction (plain) and on with every line
# redacted. bench/decision-log-cost.sh measures the same in requests/s, which on a shared
# machine is noise; these counts are not.
#
# As bench/proxy-count.sh: each daemon runs twice, once answering BASE requests and once
# BASE + N, and the difference divided by N is the cost of one request (start-up, config
# load and shutdown cancel out). Requests come from one curl process over one keep-alive
# connection. The counts cover the whole process, every thread: libmicrohttpd, the request
# thread and the decision log's writer thread (its write(2) calls included, not the kernel's
# work in them).
#
# Usage: bench/decision-log-count.sh [instructions|allocations] [N]
#   (instructions and N = 500 by default; allocations: N = 5000)
#   NAVPOLICYD=path   the binary (default .build/release/navpolicyd; build it first).
#                     For instructions, a `strip --strip-debug` copy is made (valgrind 3.19
#                     cannot read the Swift binary's DWARF 5).
#   CONFIG=path       the policy (default config/navpolicy.json)
#   REDACT='["code","state","email"]'   decisionLog.redactQueryParameters of the redacted run
#   DECIDE_URL=https://app.example.com/oauth/callback?code=SECRET123&state=xyz
#   MODES="off plain redacted"          which runs
# Prints one line per run: "plain: 61234.56 instructions/request (…)" and the difference to off.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE="${1:-instructions}"
case "$MODE" in
    instructions) N="${2:-500}"; BASE=50 ;;
    allocations) N="${2:-5000}"; BASE=200 ;;
    *) echo "usage: $0 [instructions|allocations] [N]" >&2; exit 2 ;;
esac
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
CONFIG="${CONFIG:-$ROOT/config/navpolicy.json}"
REDACT="${REDACT:-[\"code\",\"state\",\"email\"]}"
DECIDE_URL="${DECIDE_URL:-https://app.example.com/oauth/callback?code=SECRET123&state=xyz}"
MODES="${MODES:-off plain redacted}"
for tool in curl jq python3; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }; done
[[ "$MODE" != instructions ]] || command -v valgrind >/dev/null || { echo "missing valgrind" >&2; exit 1; }
[[ -x "$BIN" ]] || { echo "no binary at $BIN (swift build -c release --product navpolicyd)" >&2; exit 1; }
TMP="$(mktemp -d /tmp/navpolicyd-decision-log-count.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
if [[ "$MODE" == allocations ]]; then
    mkdir -p "$ROOT/.build/bench"
    cc -O2 -Wall -shared -fPIC -o "$ROOT/.build/bench/malloc-count.so" "$ROOT/bench/malloc-count.c"
else
    cp "$BIN" "$TMP/navpolicyd"
    strip --strip-debug "$TMP/navpolicyd"
    BIN="$TMP/navpolicyd"
fi
jq '.decisionLog = ((.decisionLog // {}) + {redactQueryParameters: []})' "$CONFIG" >"$TMP/plain.json"
jq --argjson r "$REDACT" '.decisionLog = ((.decisionLog // {}) + {redactQueryParameters: $r})' "$CONFIG" >"$TMP/redacted.json"
ENCODED="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$DECIDE_URL")"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# count off|plain|redacted REQUESTS → instructions or allocations of a daemon run answering them
count() {
    local which="$1" requests="$2" p out pid config args=()
    p="$(port)"
    out="$TMP/count.$which.$requests"
    rm -f "$out" "$TMP/decisions.ndjson"
    case "$which" in
        off) config="$CONFIG" ;;
        *) config="$TMP/$which.json" args=(--decision-log "$TMP/decisions.ndjson") ;;
    esac
    if [[ "$MODE" == allocations ]]; then
        MALLOC_COUNT_OUT="$out" LD_PRELOAD="$ROOT/.build/bench/malloc-count.so" \
            "$BIN" serve --config "$config" --listen "127.0.0.1:$p" "${args[@]}" 2>"$TMP/daemon.log" &
    else
        valgrind --tool=callgrind --callgrind-out-file="$out" \
            "$BIN" serve --config "$config" --listen "127.0.0.1:$p" "${args[@]}" 2>"$TMP/daemon.log" &
    fi
    pid=$!
    for _ in $(seq 600); do curl -s -o /dev/null "http://127.0.0.1:$p/healthz" 2>/dev/null && break; sleep 0.1; done
    : >"$TMP/urls"
    for _ in $(seq "$requests"); do echo "url = \"http://127.0.0.1:$p/v1/decide?url=$ENCODED\"" >>"$TMP/urls"; done
    curl -s --config "$TMP/urls" >/dev/null
    kill -TERM "$pid"
    wait "$pid" || true
    if [[ "$which" != off ]]; then
        # The measurement counts only if every line reached the file, redacted as asked.
        local lines
        lines="$(wc -l <"$TMP/decisions.ndjson")"
        [[ "$lines" == "$requests" ]] || { echo "$which: $lines lines logged for $requests requests" >&2; exit 1; }
        if [[ "$which" == redacted ]] && grep -q -v '"redacted":true' "$TMP/decisions.ndjson"; then
            echo "redacted: a line is not redacted: $(grep -v -m1 '"redacted":true' "$TMP/decisions.ndjson")" >&2
            exit 1
        fi
    fi
    if [[ "$MODE" == allocations ]]; then
        awk '/^allocations/ {print $2}' "$out"
    else
        awk '/^(summary|totals):/ {print $2; exit}' "$out"
    fi
}

echo "decision log cost per GET /v1/decide?url=$DECIDE_URL ($MODE, N=$N, ${BIN#"$ROOT"/})"
off=""
for which in $MODES; do
    base="$(count "$which" "$BASE")"
    more="$(count "$which" $((BASE + N)))"
    per="$(awk -v a="$base" -v b="$more" -v n="$N" 'BEGIN { printf "%.2f", (b - a) / n }')"
    [[ "$which" != off ]] || off="$per"
    extra=""
    [[ -z "$off" || "$which" == off ]] || extra="$(awk -v p="$per" -v o="$off" 'BEGIN { printf ", %+.2f vs off", p - o }')"
    echo "$which: $per $MODE/request ($more vs $base over $N requests$extra)"
done
