#!/usr/bin/env bash
# CPU budget curve: how much user-space CPU per request a libmicrohttpd server may spend on top
# of the bare transport and still reach 0.8× nginx (issue 18's GET target) in the issue's setup
# (wrk -t2 -c64 on the same 2 cores as the server, GET /v1/decide on loopback).
#
# In every round, one after the other (the order reverses between rounds), wrk runs the static
# GET decide request of bench/http.sh against:
#   nginx             `return 200` with navpolicyd's own answer (bench/nginx.conf.template,
#                     worker_processes = navpolicyd's thread count)
#   C +0 ns           bench/mhd-reference.c with navpolicyd's libmicrohttpd options: the transport
#   C +N ns           the same server spinning N ns per request on its worker thread before it
#                     answers (MHD_REFERENCE_WORK_NS), for each N in WORK: a handler of known cost
#   navpolicyd        the daemon on CONFIG
# and prints per round and as medians over the rounds: requests/s ÷ nginx's of the same round
# (median, min, max) and each server's user and system CPU per request in µs (from /proc, as in
# bench/http.sh). The C rows give the curve, ratio against user µs above the C server's own;
# the navpolicyd row is where the daemon sits on it.
#
# A measurement, not a test: it exits 0 whatever it measures; 2 on a bad setting, 1 when nothing
# could be measured (build failed, a server did not start or answered wrongly).
#
# Environment (all optional):
#   DURATION=5      seconds per wrk run           ROUNDS=8          rounds
#   WORK="1000 2000 3000 5000"                    busy waits in ns per request for the C server
#   THREADS=2       wrk threads (-t)              CONNECTIONS=64    wrk connections (-c)
#   WARMUP=2        seconds of warm-up per server before round 1 (0 = none)
#   CONFIG=config/navpolicy.json                  SKIP_BUILD=1      use the existing release build
#   NAVPOLICYD=path benchmark this binary (implies SKIP_BUILD=1)
#   DECIDE_URL=https://app.example.com/home       the URL asked about
#   KEEP_TMP=1      keep the temp dir (configs, logs, raw wrk output) and print its path
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
cd "$ROOT"
# shellcheck source=bench/lib-http.sh
source "$BENCH/lib-http.sh"

DURATION="${DURATION:-5}"
ROUNDS="${ROUNDS:-8}"
WORK="${WORK:-1000 2000 3000 5000}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-64}"
WARMUP="${WARMUP:-2}"
CONFIG="${CONFIG:-config/navpolicy.json}"
DECIDE_URL="${DECIDE_URL:-https://app.example.com/home}"
TARGET=0.8

# A bad setting is the caller's mistake, not a failed measurement: exit 2, as the CLI does.
bad_setting() {
    log "bench/budget.sh: $*"
    exit 2
}
is_count() { case "$1" in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac; }
for setting in DURATION ROUNDS THREADS CONNECTIONS; do
    value="${!setting}"
    if ! is_count "$value" || [ "$value" -lt 1 ]; then bad_setting "$setting must be a positive integer, got '$value'"; fi
done
is_count "$WARMUP" || bad_setting "WARMUP must be a non-negative integer, got '$WARMUP'"
# The C server always runs with no work (the transport itself); WORK adds the other points,
# each once, in the order given.
C_WORK=(0)
for w in $WORK; do
    if ! is_count "$w" || [ "${#w}" -gt 10 ] || [ "$w" -gt 1000000000 ]; then
        bad_setting "WORK must be integers from 0 to 1000000000 (ns per request), got '$w'"
    fi
    w=$((10#$w))
    case " ${C_WORK[*]} " in *" $w "*) ;; *) C_WORK+=("$w") ;; esac
done

http_bench_prepare budget

http_decide_request "$DECIDE_URL"
per_ip="$(cfg_limit "$CONFIG" perIPConnectionLimit 256)" || die "cannot read $CONFIG with jq"
conn_limit="$(cfg_limit "$CONFIG" connectionLimit 4096)" || die "cannot read $CONFIG with jq"
pool_bytes="$(cfg_limit "$CONFIG" connectionMemoryLimitBytes 32768)" || die "cannot read $CONFIG with jq"
threads="$(cfg_threads "$CONFIG")"
# wrk opens every connection from 127.0.0.1; beyond the per-address limit navpolicyd would close
# the extra ones unanswered and the run would measure refusals (bench/http.sh raises the limit
# in a copy of the config for its sweep; this script keeps the config as it is).
if { [ "$per_ip" != 0 ] && [ "$CONNECTIONS" -gt "$per_ip" ]; } || [ "$CONNECTIONS" -gt "$conn_limit" ]; then
    bad_setting "CONNECTIONS=$CONNECTIONS exceeds $CONFIG's server.perIPConnectionLimit ($per_ip) or connectionLimit ($conn_limit)"
fi

# --- servers --------------------------------------------------------------------------------
# Keys: nginx, c0, c1000, …, navpolicyd.
declare -A PORT PIDS LABEL
taken=()
new_port() { # KEY
    PORT[$1]="$(pick_port "${taken[@]}")"
    taken+=("${PORT[$1]}")
}

new_port navpolicyd
http_start_navpolicyd "$BIN" "$CONFIG" "${PORT[navpolicyd]}" "$TMP/navpolicyd.log"
PIDS[navpolicyd]="$NP_PID"
LABEL[navpolicyd]="navpolicyd"

reference_body "$NP_GET_BODY"
new_port nginx
http_start_nginx "$TMP" "${PORT[nginx]}" "$threads" "$BODY"
LABEL[nginx]="nginx"

SERVERS="nginx"
for w in "${C_WORK[@]}"; do
    new_port "c$w"
    http_start_mhd "${PORT[c$w]}" "$threads" "$conn_limit" "$per_ip" "$BODY" "$pool_bytes" "$TMP/mhd-reference-$w.log" "$w"
    PIDS[c$w]="$MHD_STARTED_PID"
    LABEL[c$w]="C +$w ns"
    SERVERS+=" c$w"
done
SERVERS+=" navpolicyd"
# shellcheck disable=SC2086 # split on purpose
REVERSED="$(printf '%s\n' $SERVERS | tac | paste -sd' ' -)"

# --- measuring ------------------------------------------------------------------------------
declare -A RPS USR SYS R_ALL U_ALL S_ALL
warnings=()
# measure KEY OUTFILE SECONDS — wrk against the server; RPS/USR/SYS[KEY] from the run.
measure() {
    local pids before after cpu errs
    if [ "$1" = nginx ]; then pids="$(nginx_pids "$NGINX_PID")"; else pids="${PIDS[$1]}"; fi
    # shellcheck disable=SC2086 # a space-separated list of pids
    before="$(server_cpu_ticks $pids)"
    http_wrk "${PORT[$1]}" GET "$DECIDE_PATH" "$3" "$CONNECTIONS" "$2" || true
    # shellcheck disable=SC2086
    after="$(server_cpu_ticks $pids)"
    if ! grep -q '^BENCH ' "$2"; then
        cat "$2" >&2
        die "wrk produced no result for ${LABEL[$1]}"
    fi
    RPS[$1]="$(field rps "$2")"
    cpu="$(cpu_per_request "$before" "$after" "$(field requests "$2")")"
    USR[$1]="${cpu% *}"
    SYS[$1]="${cpu#* }"
    errs="$(grep -m1 '^BENCH ' "$2" | grep -o 'err_[a-z]*=[1-9][0-9]*' | tr '\n' ' ' || true)"
    [ -z "$errs" ] || warnings+=("${LABEL[$1]}: $errs")
}

echo "CPU budget: static GET /v1/decide against nginx, the C libmicrohttpd server with a per-request busy wait, and navpolicyd — $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr), nproc=$(nproc)"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, $ROUNDS rounds; servers with $threads threads / nginx worker_processes=$threads; response body ${#BODY} bytes"
echo "navpolicyd ${BIN#"$ROOT"/} ($CONFIG); C server ${MHD_REF#"$ROOT"/} (libmicrohttpd $(pkg-config --modversion libmicrohttpd 2>/dev/null || echo '?'), $pool_bytes-byte pool) spinning ${C_WORK[*]} ns per request"
echo "GET  $DECIDE_PATH"
echo "note: wrk shares the cores with the servers; read the ratios and the CPU per request, not the absolute req/s."
echo

if [ "$WARMUP" != 0 ]; then
    for srv in $SERVERS; do measure "$srv" "$TMP/warmup.out" "$WARMUP"; done
fi
for round in $(seq 1 "$ROUNDS"); do
    if [ $((round % 2)) = 1 ]; then order="$SERVERS"; else order="$REVERSED"; fi
    for srv in $order; do
        measure "$srv" "$TMP/r$round-$srv.out" "$DURATION"
    done
    for srv in $SERVERS; do
        r="$(ratio "${RPS[$srv]}" "${RPS[nginx]}")"
        R_ALL[$srv]+="$r "
        U_ALL[$srv]+="${USR[$srv]} "
        S_ALL[$srv]+="${SYS[$srv]} "
        printf 'round %d  %-12s %9.0f req/s  %s x nginx  user %6s  sys %6s us/req\n' \
            "$round" "${LABEL[$srv]}" "${RPS[$srv]}" "$r" "${USR[$srv]}" "${SYS[$srv]}"
    done
done

lowest() { printf '%s\n' "$@" | sort -g | head -1; }
highest() { printf '%s\n' "$@" | sort -g | tail -1; }
# shellcheck disable=SC2086 # the per-server lists are space-separated on purpose
c0_user="$(median ${U_ALL[c0]})"
echo
echo "Summary (markdown; medians over $ROUNDS rounds; req/s ÷ nginx's of the same round; server CPU in µs per request; \"user above C +0\" = the server's median user µs/req minus the bare C server's):"
echo
echo "| server | req/s ÷ nginx | min | max | user µs/req | sys µs/req | user above C +0 |"
echo "|---|---|---|---|---|---|---|"
budget="none"
budget_ns=-1
for srv in $SERVERS; do
    # shellcheck disable=SC2086
    {
        med="$(median ${R_ALL[$srv]})"
        user="$(median ${U_ALL[$srv]})"
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "${LABEL[$srv]}" "$med" \
            "$(lowest ${R_ALL[$srv]})" "$(highest ${R_ALL[$srv]})" "$user" "$(median ${S_ALL[$srv]})" \
            "$(if [ "$srv" = nginx ]; then echo -; else awk -v u="$user" -v c="$c0_user" 'BEGIN { printf "%+.2f", u - c }'; fi)"
    }
    case "$srv" in
        c*)
            if [ "${srv#c}" -gt "$budget_ns" ] && awk -v m="$med" -v t="$TARGET" 'BEGIN { exit !(m >= t) }'; then
                budget_ns="${srv#c}"
                budget="${LABEL[$srv]} (user $user µs/req)"
            fi
            ;;
    esac
done
echo
echo "Largest C busy wait still at ≥ $TARGET× nginx (median): $budget; bare C server: user $c0_user µs/req."

if [ "${#warnings[@]}" -gt 0 ]; then
    echo
    echo "warnings (wrk errors, err_status = non-2xx/3xx answers):"
    printf '  %s\n' "${warnings[@]}"
fi
exit 0
