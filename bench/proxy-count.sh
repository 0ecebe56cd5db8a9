#!/usr/bin/env bash
# Exact per-request costs of the proxy listener, independent of machine load: heap
# allocations (LD_PRELOAD counter, bench/malloc-count.c) or instructions (callgrind) per
# cancelled and per allowed forward-proxied request.
#
# As bench/alloc-count.sh: the daemon runs twice per path, once answering BASE requests and
# once BASE + N, and the difference divided by N is the cost of one request (start-up,
# config load, the first upstream connection and shutdown cancel out). Requests come from one
# curl process over one keep-alive connection to the proxy (`curl -x`); the origin is a
# loopback nginx serving a 54-byte page (as bench/proxy.sh). The counts cover the whole
# daemon process: HTTP layer, decision, proxy, libcurl, libmicrohttpd.
#
# Usage: bench/proxy-count.sh [allocations|instructions] [N]
#   (allocations and N = 2000 by default; instructions runs under valgrind: N = 300 is enough)
#   NAVPOLICYD=path   the binary (default .build/release/navpolicyd; build it first).
#   PROFILE_DIR=dir   keep each run's callgrind output there (instructions only), named
#                     PATH.REQUESTS.callgrind, for `callgrind_annotate --inclusive=yes`: the
#                     per-function difference of the two runs is one request's profile.
#                     For instructions, a `strip --strip-debug` copy is made (valgrind 3.19
#                     cannot read the Swift binary's DWARF 5).
# Prints one line per path: "cancel: 33.00 allocations/request (…)".
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=bench/origin-nginx.sh
source "$ROOT/bench/origin-nginx.sh"
MODE="${1:-allocations}"
case "$MODE" in
    allocations) N="${2:-2000}"; BASE=200 ;;
    instructions) N="${2:-300}"; BASE=50 ;;
    *) echo "usage: $0 [allocations|instructions] [N]" >&2; exit 2 ;;
esac
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
for tool in nginx curl; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }; done
[[ "$MODE" != instructions ]] || command -v valgrind >/dev/null || { echo "missing valgrind" >&2; exit 1; }
TMP="$(mktemp -d /tmp/navpolicyd-proxy-count.XXXXXX)"
chmod 755 "$TMP" # nginx workers run as nobody when started by root
nginx_pid=""
cleanup() {
    [[ -z "$nginx_pid" ]] || kill "$nginx_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$ROOT/.build/bench"
cc -O2 -Wall -shared -fPIC -o "$ROOT/.build/bench/malloc-count.so" "$ROOT/bench/malloc-count.c"
if [[ "$MODE" == instructions ]]; then
    cp "$BIN" "$TMP/navpolicyd"
    strip --strip-debug "$TMP/navpolicyd"
    BIN="$TMP/navpolicyd"
fi

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }

origin_port="$(port)"
origin_nginx_start "$TMP" "$origin_port"
nginx_pid="$origin_nginx_pid"
wait_port "$origin_port"
proxy_bench_policy "$TMP/policy.json"

# count PATH REQUESTS → allocations or instructions of a daemon run answering REQUESTS × PATH
count() {
    local path="$1" requests="$2" api proxy out pid
    api="$(port)"
    proxy="$(port)"
    out="$TMP/count.$requests"
    rm -f "$out" "$out".callgrind
    if [[ "$MODE" == allocations ]]; then
        MALLOC_COUNT_OUT="$out" LD_PRELOAD="$ROOT/.build/bench/malloc-count.so" \
            "$BIN" serve --config "$TMP/policy.json" --listen "127.0.0.1:$api" --proxy-listen "127.0.0.1:$proxy" \
            2>"$TMP/daemon.log" &
    else
        valgrind --tool=callgrind --callgrind-out-file="$out.callgrind" \
            "$BIN" serve --config "$TMP/policy.json" --listen "127.0.0.1:$api" --proxy-listen "127.0.0.1:$proxy" \
            2>"$TMP/daemon.log" &
    fi
    pid=$!
    local started=$SECONDS
    wait_port "$proxy"
    : >"$TMP/urls"
    for _ in $(seq "$requests"); do echo "url = \"http://127.0.0.1:$origin_port$path\"" >>"$TMP/urls"; done
    curl -s -x "127.0.0.1:$proxy" --config "$TMP/urls" >/dev/null
    kill -TERM "$pid"
    wait "$pid" || true
    if [[ "$MODE" == instructions && -n "${PROFILE_DIR:-}" ]]; then
        mkdir -p "$PROFILE_DIR"
        cp "$out.callgrind" "$PROFILE_DIR/${path#/}.$requests.callgrind"
    fi
    local total
    if [[ "$MODE" == allocations ]]; then
        total="$(awk '/^allocations/ {print $2}' "$out")"
    else
        total="$(awk '/^(summary|totals):/ {print $2; exit}' "$out.callgrind")"
    fi
    # The run's wall time (stderr): timer-driven work (idle wake-ups) grows with it, see bench/README.md.
    echo "  $path x $requests: $total $MODE in $((SECONDS - started)) s" >&2
    echo "$total"
}

for entry in "cancel /logout" "allow /page"; do
    name="${entry%% *}"
    path="${entry#* }"
    base="$(count "$path" "$BASE")"
    more="$(count "$path" $((BASE + N)))"
    awk -v a="$base" -v b="$more" -v n="$N" -v p="$name" -v m="$MODE" \
        'BEGIN { printf "%s: %.2f %s/request (%d vs %d over %d requests)\n", p, (b - a) / n, m, b, a, n }'
done
