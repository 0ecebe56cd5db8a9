#!/usr/bin/env bash
# HTTP benchmark: navpolicyd vs nginx, measured in the same run, on loopback.
#
# Builds the release binary, starts navpolicyd on the default config and nginx (`return 200`
# with a JSON body of the same size as a decision), then runs wrk against each in alternation:
# for every round, GET /v1/decide?url=… and POST /v1/decide, navpolicyd and nginx back to back.
# Prints requests/s, p50 and p99 per round and endpoint, the ratios navpolicyd/nginx, and the
# median ratios across rounds against the targets of issue 3.
#
# It is a measurement, not a test: missed targets never change the exit status (0). Only a
# setup failure (build failed, a server did not start or answered wrongly) exits non-zero,
# because then nothing was measured.
#
# Environment (all optional):
#   DURATION=10      seconds per wrk run          ROUNDS=3          rounds
#   THREADS=2        wrk threads (-t)             CONNECTIONS=64    wrk connections (-c)
#   WARMUP=2         seconds of warm-up per server and endpoint before round 1 (0 = none)
#   WORKERS=…        nginx worker_processes; default: navpolicyd's thread count (server.threads
#                    in the config, else one per core, as navpolicyd does)
#   CONFIG=config/navpolicy.json                  SKIP_BUILD=1      use the existing release build
#   NAVPOLICYD=path  benchmark this binary instead of .build/release/navpolicyd (implies SKIP_BUILD=1;
#                    for A/B runs of a change against the same nginx)
#   NAVPOLICYD_PORT, NGINX_PORT                   default: free ports picked at random
#   DECIDE_URL=https://app.example.com/home       the URL asked about (GET and POST)
#   KEEP_TMP=1       keep the temp dir (configs, logs, raw wrk output) and print its path
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
cd "$ROOT" || exit 1

DURATION="${DURATION:-10}"
ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-64}"
WARMUP="${WARMUP:-2}"
CONFIG="${CONFIG:-config/navpolicy.json}"
DECIDE_URL="${DECIDE_URL:-https://app.example.com/home}"

# Targets from issue 3.
GET_TARGET=0.8
POST_TARGET=0.6
P99_TARGET=2.0

log() { printf '%s\n' "$*" >&2; }
die() { log "bench/http.sh: $*"; exit 1; }

# --- dependencies -------------------------------------------------------------------------
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root or sudo to run: $*"
    fi
}
missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]} (apt-get)"
    as_root apt-get update -qq || die "apt-get update failed"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        || die "apt-get install ${missing[*]} failed"
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

# --- build ----------------------------------------------------------------------------------
if [ -n "${NAVPOLICYD:-}" ]; then SKIP_BUILD=1; fi
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    log "building release (swift build -c release)"
    swift build -c release >&2 || die "release build failed"
fi
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
[ -x "$BIN" ] || die "$BIN not found (build first or unset SKIP_BUILD)"
[ -f "$CONFIG" ] || die "config $CONFIG not found"

# --- temp dir and cleanup -------------------------------------------------------------------
TMP="$(mktemp -d "${TMPDIR:-/tmp}/navpolicy-bench.XXXXXX")"
NP_PID=""
NGINX_PID=""
cleanup() {
    for pid in "$NP_PID" "$NGINX_PID"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
    done
    for pid in "$NP_PID" "$NGINX_PID"; do
        [ -n "$pid" ] && wait "$pid" 2>/dev/null
    done
    if [ "${KEEP_TMP:-0}" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 30000))
        port_in_use "$p" || { echo "$p"; return 0; }
    done
    die "no free port found"
}
NP_PORT="${NAVPOLICYD_PORT:-$(pick_port)}"
NGINX_PORT="${NGINX_PORT:-$(pick_port)}"
[ "$NP_PORT" != "$NGINX_PORT" ] || NGINX_PORT="$(pick_port)"

urlencode() {
    local s="$1" out="" c i
    for ((i = 0; i < ${#s}; i++)); do
        c="${s:i:1}"
        case "$c" in
            [a-zA-Z0-9.~_-]) out+="$c" ;;
            *) out+="$(printf '%%%02X' "'$c")" ;;
        esac
    done
    printf '%s' "$out"
}
export DECIDE_PATH="/v1/decide?url=$(urlencode "$DECIDE_URL")"
export DECIDE_BODY="{\"url\":\"$DECIDE_URL\",\"method\":\"GET\",\"navigationType\":\"linkActivated\",\"targetFrame\":\"main\"}"

wait_for() { # URL — until it answers (any status), at most ~10 s
    for _ in $(seq 1 100); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.1
    done
    return 1
}

# --- navpolicyd -----------------------------------------------------------------------------
"$BIN" serve --config "$CONFIG" --listen "127.0.0.1:$NP_PORT" 2>"$TMP/navpolicyd.log" &
NP_PID=$!
wait_for "http://127.0.0.1:$NP_PORT/healthz" || { cat "$TMP/navpolicyd.log" >&2; die "navpolicyd did not start"; }
curl -s -o /dev/null "http://127.0.0.1:$NP_PORT/readyz" || true

NP_GET_BODY="$(curl -s -w '\n%{http_code}' "http://127.0.0.1:$NP_PORT$DECIDE_PATH")"
[ "${NP_GET_BODY##*$'\n'}" = 200 ] || die "navpolicyd GET $DECIDE_PATH answered: $NP_GET_BODY"
NP_GET_BODY="${NP_GET_BODY%$'\n'*}"
np_post="$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$DECIDE_BODY" "http://127.0.0.1:$NP_PORT/v1/decide")"
[ "$np_post" = 200 ] || die "navpolicyd POST /v1/decide answered $np_post"

# Threads navpolicyd runs MHD with: server.threads from the config, 0 or absent = one per core.
cfg_threads="$(tr -d '\n' <"$CONFIG" | grep -o '"threads"[[:space:]]*:[[:space:]]*[0-9]*' | grep -o '[0-9]*$' | head -1)"
if [ -z "$cfg_threads" ] || [ "$cfg_threads" = 0 ]; then cfg_threads="$(nproc)"; fi
WORKERS="${WORKERS:-$cfg_threads}"

# --- nginx ----------------------------------------------------------------------------------
# The body nginx returns is navpolicyd's own answer to the same request (same bytes, same size),
# unless it holds characters that nginx's quoted string would interpret.
BODY="$NP_GET_BODY"
case "$BODY" in
    *"'"* | *'$'* | *'\'*)
        BODY='{"decision":"allow","handler":null,"action":null,"location":null,"url":"https://app.example.com/home","decisionId":"00000000-000000000000","policyRevision":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}'
        ;;
esac
mkdir -p "$TMP/client_body" "$TMP/proxy" "$TMP/fastcgi" "$TMP/uwsgi" "$TMP/scgi"
sed -e "s|@WORKERS@|$WORKERS|g" -e "s|@TMP@|$TMP|g" -e "s|@PORT@|$NGINX_PORT|g" \
    "$BENCH/nginx.conf.template" >"$TMP/nginx.conf.1"
# The body goes in last, with awk, so nothing in it is read as a sed pattern.
BODY="$BODY" awk '{ gsub(/@BODY@/, ENVIRON["BODY"]); print }' "$TMP/nginx.conf.1" >"$TMP/nginx.conf"
"$NGINX" -q -t -p "$TMP" -e "$TMP/nginx-error.log" -c "$TMP/nginx.conf" 2>"$TMP/nginx-test.log" \
    || { cat "$TMP/nginx-test.log" "$TMP/nginx-error.log" >&2 2>/dev/null; die "nginx config invalid"; }
"$NGINX" -p "$TMP" -e "$TMP/nginx-error.log" -c "$TMP/nginx.conf" 2>>"$TMP/nginx-error.log" &
NGINX_PID=$!
wait_for "http://127.0.0.1:$NGINX_PORT/v1/decide" || { cat "$TMP/nginx-error.log" >&2; die "nginx did not start"; }
ng_get="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$NGINX_PORT$DECIDE_PATH")"
ng_post="$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$DECIDE_BODY" "http://127.0.0.1:$NGINX_PORT/v1/decide")"
[ "$ng_get" = 200 ] && [ "$ng_post" = 200 ] || die "nginx answered GET $ng_get, POST $ng_post (want 200)"

# --- measurement ----------------------------------------------------------------------------
# run_wrk SERVER ENDPOINT SECONDS OUTFILE — leaves wrk's output (with the BENCH line) in OUTFILE.
run_wrk() {
    local port
    if [ "$1" = navpolicyd ]; then port="$NP_PORT"; else port="$NGINX_PORT"; fi
    DECIDE_METHOD="$2" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${3}s" --latency -s "$BENCH/decide.lua" \
        "http://127.0.0.1:$port/v1/decide" >"$4" 2>&1
}
field() { # FIELD FILE — a key=value from the BENCH line
    grep -m1 '^BENCH ' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }
median() { # numbers as arguments
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
verdict() { # VALUE OP TARGET
    awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
        ok = (op == ">=") ? (v >= t) : (v <= t); print (ok ? "met" : "NOT met") }'
}

nproc_n="$(nproc)"
echo "navpolicyd vs nginx — $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr), nproc=$nproc_n"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, $ROUNDS rounds; navpolicyd threads=$cfg_threads, nginx worker_processes=$WORKERS"
echo "navpolicyd ${BIN#$ROOT/} 127.0.0.1:$NP_PORT ($CONFIG), nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') 127.0.0.1:$NGINX_PORT; response body ${#BODY} bytes"
echo "GET  $DECIDE_PATH"
echo "POST /v1/decide $DECIDE_BODY"
echo "note: wrk shares the cores with both servers; read the ratios, not the absolute numbers."
echo

if [ "$WARMUP" != 0 ]; then
    for ep in GET POST; do
        for srv in navpolicyd nginx; do run_wrk "$srv" "$ep" "$WARMUP" "$TMP/warmup.out"; done
    done
fi

declare -A RPS P50 P99
declare -a GET_R GET_P POST_R POST_P
TABLE=()
warnings=()
for round in $(seq 1 "$ROUNDS"); do
    # Alternate who goes first, so neither server always runs on a warmer or cooler machine.
    if [ $((round % 2)) = 1 ]; then order="navpolicyd nginx"; else order="nginx navpolicyd"; fi
    for ep in GET POST; do
        for srv in $order; do
            out="$TMP/r$round-$ep-$srv.out"
            run_wrk "$srv" "$ep" "$DURATION" "$out"
            if ! grep -q '^BENCH ' "$out"; then
                cat "$out" >&2
                die "wrk produced no result for $srv $ep (round $round)"
            fi
            RPS[$srv]="$(field rps "$out")"
            P50[$srv]="$(field p50_us "$out")"
            P99[$srv]="$(field p99_us "$out")"
            errs="$(grep -m1 '^BENCH ' "$out" | grep -o 'err_[a-z]*=[1-9][0-9]*' | tr '\n' ' ')"
            [ -z "$errs" ] || warnings+=("round $round $ep $srv: $errs")
        done
        r="$(ratio "${RPS[navpolicyd]}" "${RPS[nginx]}")"
        p="$(ratio "${P99[navpolicyd]}" "${P99[nginx]}")"
        if [ "$ep" = GET ]; then GET_R+=("$r"); GET_P+=("$p"); else POST_R+=("$r"); POST_P+=("$p"); fi
        printf 'round %d  %-4s  navpolicyd %9.0f req/s  p50 %6s ms  p99 %6s ms | nginx %9.0f req/s  p50 %6s ms  p99 %6s ms | ratio req/s %s  p99 %s\n' \
            "$round" "$ep" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
            "${RPS[nginx]}" "$(ms "${P50[nginx]}")" "$(ms "${P99[nginx]}")" "$r" "$p"
        TABLE+=("$(printf '| %d | %s | %.0f | %s | %s | %.0f | %s | %s | %s | %s |' \
            "$round" "$ep" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
            "${RPS[nginx]}" "$(ms "${P50[nginx]}")" "$(ms "${P99[nginx]}")" "$r" "$p")")
    done
done

gr="$(median "${GET_R[@]}")"; gp="$(median "${GET_P[@]}")"
pr="$(median "${POST_R[@]}")"; pp="$(median "${POST_P[@]}")"
echo
echo "Results (markdown; latencies in ms, ratios navpolicyd/nginx):"
echo
echo "| round | endpoint | navpolicyd req/s | p50 | p99 | nginx req/s | p50 | p99 | req/s ratio | p99 ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${TABLE[@]}"
echo
echo "Summary (median over $ROUNDS rounds):"
echo
echo "| endpoint | req/s ratio | target | | p99 ratio | target | |"
echo "|---|---|---|---|---|---|---|"
echo "| GET /v1/decide | $gr | ≥ $GET_TARGET | $(verdict "$gr" '>=' "$GET_TARGET") | $gp | ≤ $P99_TARGET | $(verdict "$gp" '<=' "$P99_TARGET") |"
echo "| POST /v1/decide | $pr | ≥ $POST_TARGET | $(verdict "$pr" '>=' "$POST_TARGET") | $pp | ≤ $P99_TARGET | $(verdict "$pp" '<=' "$P99_TARGET") |"
if [ "${#warnings[@]}" -gt 0 ]; then
    echo
    echo "warnings (wrk errors; err_status = non-2xx/3xx answers):"
    printf '  %s\n' "${warnings[@]}"
fi
exit 0
