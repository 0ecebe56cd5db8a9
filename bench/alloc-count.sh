#!/usr/bin/env bash
# Heap allocations per request of navpolicyd over HTTP, counted with an LD_PRELOAD malloc
# counter (bench/malloc-count.c): the daemon runs twice per endpoint, once answering BASE
# requests and once BASE + N, and the difference in allocations divided by N is the cost of
# one request (start-up, config load and shutdown cancel out). Requests come from one curl
# process over one keep-alive connection (curl sends Host, User-Agent and Accept).
#
# Usage: bench/alloc-count.sh [N]          (N = 5000 by default)
#   NAVPOLICYD=path   the binary (default .build/release/navpolicyd; build it first)
#   CONFIG=path       the config (default config/navpolicy.json)
# Prints one line per endpoint: "GET /healthz: 7.00 allocations/request".
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N="${1:-5000}"
BASE=200
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
CONFIG="${CONFIG:-$ROOT/config/navpolicy.json}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$ROOT/.build/bench"
cc -O2 -Wall -shared -fPIC -o "$ROOT/.build/bench/malloc-count.so" "$ROOT/bench/malloc-count.c"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# count PATH REQUESTS → total allocations of a daemon run answering REQUESTS × PATH
count() {
    local path="$1" requests="$2" p out pid
    p="$(port)"
    out="$TMP/count.$requests"
    rm -f "$out"
    MALLOC_COUNT_OUT="$out" LD_PRELOAD="$ROOT/.build/bench/malloc-count.so" \
        "$BIN" serve --config "$CONFIG" --listen "127.0.0.1:$p" 2>"$TMP/daemon.log" &
    pid=$!
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$p/healthz" 2>/dev/null && break; sleep 0.1; done
    : >"$TMP/urls"
    for _ in $(seq "$requests"); do echo "url = \"http://127.0.0.1:$p$path\"" >>"$TMP/urls"; done
    curl -s --config "$TMP/urls" >/dev/null
    kill -TERM "$pid"
    wait "$pid" || true
    awk '/^allocations/ {print $2}' "$out"
}

for path in "/healthz" "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Fhome"; do
    base="$(count "$path" "$BASE")"
    more="$(count "$path" $((BASE + N)))"
    awk -v a="$base" -v b="$more" -v n="$N" -v p="$path" \
        'BEGIN { printf "GET %s: %.2f allocations/request (%d vs %d over %d requests)\n", p, (b - a) / n, b, a, n }'
done
