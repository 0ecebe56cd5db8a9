#!/usr/bin/env bash
# HTTP benchmark: navpolicyd vs nginx and vs a C libmicrohttpd server, measured in the same run,
# on loopback.
#
# Builds the release binary, starts navpolicyd on the default config, nginx (`return 200` with a
# JSON body of the same size as a decision) and the C libmicrohttpd reference (bench/mhd-reference.c:
# the same libmicrohttpd options as navpolicyd, a static response built once, i.e. the transport
# limit), then runs wrk against each in alternation: for every round, GET /v1/decide?url=… and
# POST /v1/decide on all three servers back to back, and GET /healthz on navpolicyd (its
# reference is the C server's GET of the same round: the C server answers every path alike).
# Prints requests/s, p50 and p99 per round and endpoint, each server's user and system CPU per
# request (µs: utime and stime of its processes from /proc before and after the wrk run, divided
# by the requests wrk completed; nginx is master + workers), the ratios navpolicyd/nginx and
# navpolicyd/C, and the median ratios and CPU figures across rounds against the targets of
# issue 18. On a shared machine the CPU per request is the load-independent figure: req/s moves
# with whatever else runs, a server's own CPU per request much less.
# The servers, the wrk request and the CPU accounting are set up by bench/lib-http.sh, shared
# with bench/budget.sh.
#
# With SWEEP=1 it then measures GET /v1/decide on all three servers at 16, 64, 256 and 1000
# connections (SWEEP_CONNECTIONS) and prints the ratios per connection count and the
# 1000-vs-64 throughput ratio issue 18 targets (≥ 0.9). Every sweep run also reports the server's
# CPU time per request (perf stat task-clock of the server's processes over the wrk run, divided
# by the requests wrk counted; needs perf, else "-"): on a loaded machine that figure moves much
# less than req/s. A run that falls below a quarter of the same server's best figure at the same
# connection count is flagged as a collapse, with the kernel's TCP counters of that run (nstat:
# listen-queue overflows and drops, SYN cookies, retransmissions; system-wide, so other traffic
# on the machine counts too).
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
#   SWEEP=0          1 = also run the connection sweep (adds ROUNDS × 4 counts × 3 servers × DURATION)
#   SWEEP_CONNECTIONS="16 64 256 1000"            wrk -c values of the sweep
#   CONFIG=config/navpolicy.json                  SKIP_BUILD=1      use the existing release build
#          If more than 256 connections are asked for (CONNECTIONS or the sweep), the script runs
#          navpolicyd on a copy of CONFIG with server.perIPConnectionLimit and
#          server.connectionLimit raised above that count: wrk connects from one address, and the
#          default per-address limit (256) would close the extra connections unanswered.
#   NAVPOLICYD=path  benchmark this binary instead of .build/release/navpolicyd (implies SKIP_BUILD=1;
#                    for A/B runs of a change against the same nginx)
#   NAVPOLICYD_PORT, NGINX_PORT, MHD_PORT         default: free ports picked at random
#   DECIDE_URL=https://app.example.com/home       the URL asked about (GET and POST)
#   KEEP_TMP=1       keep the temp dir (configs, logs, raw wrk output) and print its path
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
cd "$ROOT" || exit 1

# shellcheck source=bench/lib-http.sh
source "$BENCH/lib-http.sh"
http_bench_settings
SWEEP="${SWEEP:-0}"
SWEEP_CONNECTIONS="${SWEEP_CONNECTIONS:-16 64 256 1000}"
DECIDE_URL="${DECIDE_URL:-https://app.example.com/home}"

# Targets from issue 18 (issue 3 asked for POST ≥ 0.6).
GET_TARGET=0.8
POST_TARGET=0.7
P99_TARGET=2.0
HEALTHZ_C_TARGET=0.9
SWEEP_TARGET=0.9

http_bench_prepare bench

NP_PORT="${NAVPOLICYD_PORT:-$(pick_port)}"
NGINX_PORT="${NGINX_PORT:-$(pick_port "$NP_PORT")}"
MHD_PORT="${MHD_PORT:-$(pick_port "$NP_PORT" "$NGINX_PORT")}"
http_decide_request "$DECIDE_URL"

# --- navpolicyd -----------------------------------------------------------------------------
# Most connections any wrk run opens; above the default per-address limit the config is copied
# with the limits raised (wrk opens every connection from 127.0.0.1).
max_conn="$CONNECTIONS"
if [ "$SWEEP" = 1 ]; then
    for n in $SWEEP_CONNECTIONS; do
        case "$n" in '' | *[!0-9]*) die "SWEEP_CONNECTIONS must be numbers, got '$n'" ;; esac
        [ "$n" -gt "$max_conn" ] && max_conn="$n"
    done
fi
RUN_CONFIG="$CONFIG"
LIMIT_NOTE="server limits as in $CONFIG"
per_ip="$(cfg_limit "$CONFIG" perIPConnectionLimit 256)" || die "cannot read $CONFIG with jq"
conn_limit="$(cfg_limit "$CONFIG" connectionLimit 4096)" || die "cannot read $CONFIG with jq"
# The C reference gets navpolicyd's per-connection memory pool too: libmicrohttpd zeroes the
# whole pool after every request, so its size is part of what each request costs.
pool_bytes="$(cfg_limit "$CONFIG" connectionMemoryLimitBytes 32768)" || die "cannot read $CONFIG with jq"
if { [ "$per_ip" != 0 ] && [ "$max_conn" -gt "$per_ip" ]; } || [ "$max_conn" -gt "$conn_limit" ]; then
    raised=$((max_conn + 64))
    [ "$per_ip" = 0 ] || per_ip="$raised"
    # The per-address limit must stay below the total (the daemon refuses it otherwise).
    [ "$conn_limit" -gt "$raised" ] || conn_limit=$((raised + 64))
    RUN_CONFIG="$TMP/navpolicy.json"
    jq --argjson p "$per_ip" --argjson c "$conn_limit" \
        '.server = ((.server // {}) + {perIPConnectionLimit: $p, connectionLimit: $c})' \
        "$CONFIG" >"$RUN_CONFIG" || die "cannot write the raised-limit config"
    LIMIT_NOTE="$CONFIG copied with server.perIPConnectionLimit=$per_ip connectionLimit=$conn_limit (wrk opens up to $max_conn connections from one address; the default per-address limit is 256)"
fi

http_start_navpolicyd "$BIN" "$RUN_CONFIG" "$NP_PORT" "$TMP/navpolicyd.log"
np_post="$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$DECIDE_BODY" "http://127.0.0.1:$NP_PORT/v1/decide")"
[ "$np_post" = 200 ] || die "navpolicyd POST /v1/decide answered $np_post"

cfg_threads="$(cfg_threads "$CONFIG")"
WORKERS="${WORKERS:-$cfg_threads}"

# --- references -----------------------------------------------------------------------------
# nginx and the C server return navpolicyd's own answer; the C server runs with navpolicyd's
# thread count, connection limits and memory pool, and no per-request work.
reference_body "$NP_GET_BODY"
http_start_nginx "$TMP" "$NGINX_PORT" "$WORKERS" "$BODY"
http_start_mhd "$MHD_PORT" "$cfg_threads" "$conn_limit" "$per_ip" "$BODY" "$pool_bytes" "$TMP/mhd-reference.log" 0
MHD_PID="$MHD_STARTED_PID"
np_health="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$NP_PORT/healthz")"
[ "$np_health" = 200 ] || die "navpolicyd GET /healthz answered $np_health"

# --- measurement ----------------------------------------------------------------------------
# run_wrk SERVER ENDPOINT SECONDS OUTFILE [CONNECTIONS] — leaves wrk's output (with the BENCH
# line) in OUTFILE. SERVER: navpolicyd, nginx or mhd; ENDPOINT: GET, POST or HEALTHZ.
run_wrk() {
    local port method="$2" path="$DECIDE_PATH"
    case "$1" in
        navpolicyd) port="$NP_PORT" ;;
        nginx) port="$NGINX_PORT" ;;
        *) port="$MHD_PORT" ;;
    esac
    if [ "$2" = HEALTHZ ]; then method=GET path=/healthz; fi
    http_wrk "$port" "$method" "$path" "$3" "${5:-$CONNECTIONS}" "$4"
}
server_pids() { # SERVER — the processes whose CPU the server's requests cost
    case "$1" in
        navpolicyd) echo "$NP_PID" ;;
        nginx) nginx_pids "$NGINX_PID" ;;
        *) echo "$MHD_PID" ;;
    esac
}
# measure SERVER ENDPOINT SECONDS OUTFILE LABEL [CONNECTIONS] — run_wrk, then RPS/P50/P99[SERVER]
# from its BENCH line and USR/SYS[SERVER], the server's user and system CPU per request in µs
# (from /proc, so no perf needed: on a shared machine these move far less than req/s);
# wrk errors go to warnings.
measure() {
    local pids before after
    pids="$(server_pids "$1")"
    # shellcheck disable=SC2086 # a space-separated list of pids
    before="$(server_cpu_ticks $pids)"
    run_wrk "$1" "$2" "$3" "$4" "${6:-}"
    # shellcheck disable=SC2086
    after="$(server_cpu_ticks $pids)"
    http_read_run "$1" "$4" "$before" "$after" "$1 $2 ($5)"
    local errs
    errs="$(grep -m1 '^BENCH ' "$4" | grep -o 'err_[a-z]*=[1-9][0-9]*' | tr '\n' ' ')"
    [ -z "$errs" ] || warnings+=("$5 $2 $1: $errs")
}
verdict() { # VALUE OP TARGET
    awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
        ok = (op == ">=") ? (v >= t) : (v <= t); print (ok ? "met" : "NOT met") }'
}

nproc_n="$(nproc)"
echo "navpolicyd vs nginx and C libmicrohttpd — $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr), nproc=$nproc_n"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, $ROUNDS rounds; navpolicyd threads=$cfg_threads, nginx worker_processes=$WORKERS, C libmicrohttpd threads=$cfg_threads"
echo "navpolicyd ${BIN#"$ROOT"/} 127.0.0.1:$NP_PORT ($CONFIG), nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') 127.0.0.1:$NGINX_PORT; response body ${#BODY} bytes"
echo "C libmicrohttpd ${MHD_REF#"$ROOT"/} 127.0.0.1:$MHD_PORT (bench/mhd-reference.c, libmicrohttpd $(pkg-config --modversion libmicrohttpd 2>/dev/null || echo '?'): epoll pool of $cfg_threads threads, $pool_bytes-byte connection memory pool, static body, every path)"
echo "limits: $LIMIT_NOTE"
echo "GET  $DECIDE_PATH"
echo "POST /v1/decide $DECIDE_BODY"
echo "GET  /healthz (navpolicyd only; its reference is the C server's GET of the same round)"
echo "note: wrk shares the cores with all servers; read the ratios, not the absolute numbers."
echo

SERVERS="navpolicyd nginx mhd"
REVERSED="mhd nginx navpolicyd"
if [ "$WARMUP" != 0 ]; then
    for ep in GET POST; do
        for srv in $SERVERS; do run_wrk "$srv" "$ep" "$WARMUP" "$TMP/warmup.out"; done
    done
    run_wrk navpolicyd HEALTHZ "$WARMUP" "$TMP/warmup.out"
fi

declare -A RPS P50 P99 USR SYS CPU NOTES
# Per-round user / sys µs per request, space-separated, keyed SERVER,ENDPOINT (HEALTHZ for
# navpolicyd's /healthz), for the medians of the summary.
declare -A USR_ALL SYS_ALL
declare -a GET_R GET_P POST_R POST_P GET_CR GET_CP POST_CR POST_CP HZ_CR HZ_CP C_NG_R
TABLE=()
CTABLE=()
warnings=()
for round in $(seq 1 "$ROUNDS"); do
    # Alternate who goes first, so no server always runs on a warmer or cooler machine.
    if [ $((round % 2)) = 1 ]; then order="$SERVERS"; else order="$REVERSED"; fi
    for ep in GET POST; do
        for srv in $order; do
            measure "$srv" "$ep" "$DURATION" "$TMP/r$round-$ep-$srv.out" "round $round"
            USR_ALL[$srv,$ep]+="${USR[$srv]} "
            SYS_ALL[$srv,$ep]+="${SYS[$srv]} "
        done
        r="$(ratio "${RPS[navpolicyd]}" "${RPS[nginx]}")"
        p="$(ratio "${P99[navpolicyd]}" "${P99[nginx]}")"
        cr="$(ratio "${RPS[navpolicyd]}" "${RPS[mhd]}")"
        cp="$(ratio "${P99[navpolicyd]}" "${P99[mhd]}")"
        if [ "$ep" = GET ]; then
            GET_R+=("$r"); GET_P+=("$p"); GET_CR+=("$cr"); GET_CP+=("$cp")
            C_NG_R+=("$(ratio "${RPS[mhd]}" "${RPS[nginx]}")")
        else
            POST_R+=("$r"); POST_P+=("$p"); POST_CR+=("$cr"); POST_CP+=("$cp")
        fi
        printf 'round %d  %-4s  navpolicyd %9.0f req/s  p50 %6s ms  p99 %6s ms  user %6s sys %6s us/req | nginx %9.0f req/s  p50 %6s ms  p99 %6s ms  user %6s sys %6s us/req | ratio req/s %s  p99 %s\n' \
            "$round" "$ep" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
            "${USR[navpolicyd]}" "${SYS[navpolicyd]}" \
            "${RPS[nginx]}" "$(ms "${P50[nginx]}")" "$(ms "${P99[nginx]}")" "${USR[nginx]}" "${SYS[nginx]}" "$r" "$p"
        printf 'round %d  %-4s  %63s | C libmicrohttpd %9.0f req/s  p50 %6s ms  p99 %6s ms  user %6s sys %6s us/req | vs C req/s %s  p99 %s\n' \
            "$round" "$ep" "" "${RPS[mhd]}" "$(ms "${P50[mhd]}")" "$(ms "${P99[mhd]}")" "${USR[mhd]}" "${SYS[mhd]}" "$cr" "$cp"
        TABLE+=("$(printf '| %d | %s | %.0f | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |' \
            "$round" "$ep" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
            "${USR[navpolicyd]}" "${SYS[navpolicyd]}" \
            "${RPS[nginx]}" "$(ms "${P50[nginx]}")" "$(ms "${P99[nginx]}")" "${USR[nginx]}" "${SYS[nginx]}" "$r" "$p")")
        CTABLE+=("$(printf '| %d | %s /v1/decide | %.0f | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |' \
            "$round" "$ep" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
            "${USR[navpolicyd]}" "${SYS[navpolicyd]}" \
            "${RPS[mhd]}" "$(ms "${P50[mhd]}")" "$(ms "${P99[mhd]}")" "${USR[mhd]}" "${SYS[mhd]}" "$cr" "$cp")")
        if [ "$ep" = GET ]; then
            C_GET_RPS="${RPS[mhd]}" C_GET_P50="${P50[mhd]}" C_GET_P99="${P99[mhd]}"
            C_GET_USR="${USR[mhd]}" C_GET_SYS="${SYS[mhd]}"
        fi
    done
    # /healthz: the least navpolicyd's own request path can cost, against the C server's GET
    # of this round (same libmicrohttpd, same options, an answer it built in advance).
    measure navpolicyd HEALTHZ "$DURATION" "$TMP/r$round-healthz.out" "round $round"
    USR_ALL[navpolicyd,HEALTHZ]+="${USR[navpolicyd]} "
    SYS_ALL[navpolicyd,HEALTHZ]+="${SYS[navpolicyd]} "
    cr="$(ratio "${RPS[navpolicyd]}" "$C_GET_RPS")"
    cp="$(ratio "${P99[navpolicyd]}" "$C_GET_P99")"
    HZ_CR+=("$cr"); HZ_CP+=("$cp")
    printf 'round %d  healthz navpolicyd %9.0f req/s  p50 %6s ms  p99 %6s ms  user %6s sys %6s us/req | vs C GET of this round: req/s %s  p99 %s\n' \
        "$round" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
        "${USR[navpolicyd]}" "${SYS[navpolicyd]}" "$cr" "$cp"
    CTABLE+=("$(printf '| %d | GET /healthz | %.0f | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |' \
        "$round" "${RPS[navpolicyd]}" "$(ms "${P50[navpolicyd]}")" "$(ms "${P99[navpolicyd]}")" \
        "${USR[navpolicyd]}" "${SYS[navpolicyd]}" \
        "$C_GET_RPS" "$(ms "$C_GET_P50")" "$(ms "$C_GET_P99")" "$C_GET_USR" "$C_GET_SYS" "$cr" "$cp")")
done

gr="$(median "${GET_R[@]}")"; gp="$(median "${GET_P[@]}")"
pr="$(median "${POST_R[@]}")"; pp="$(median "${POST_P[@]}")"
echo
echo "Results (markdown; latencies in ms, server CPU in µs per request, ratios navpolicyd/nginx):"
echo
echo "| round | endpoint | navpolicyd req/s | p50 | p99 | user µs/req | sys µs/req | nginx req/s | p50 | p99 | user µs/req | sys µs/req | req/s ratio | p99 ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${TABLE[@]}"
echo
echo "Against the C libmicrohttpd server (markdown; latencies in ms, server CPU in µs per request, ratios navpolicyd/C; /healthz against the C GET of the same round):"
echo
echo "| round | endpoint | navpolicyd req/s | p50 | p99 | user µs/req | sys µs/req | C libmicrohttpd req/s | p50 | p99 | user µs/req | sys µs/req | req/s ratio | p99 ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${CTABLE[@]}"
echo
# cpu_cols SERVER ENDPOINT — "user | sys": medians over rounds of the µs per request
# shellcheck disable=SC2086 # the lists are space-separated on purpose
cpu_cols() { printf '%s | %s' "$(median ${USR_ALL[$1,$2]})" "$(median ${SYS_ALL[$1,$2]})"; }
echo "Summary (median over $ROUNDS rounds; server CPU in µs per request: first the server measured — navpolicyd, or the C server in the last row — then the reference in \"vs\"):"
echo
echo "| endpoint | vs | req/s ratio | target | | p99 ratio | target | | user µs/req | sys µs/req | vs: user µs/req | sys µs/req |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
echo "| GET /v1/decide | nginx | $gr | ≥ $GET_TARGET | $(verdict "$gr" '>=' "$GET_TARGET") | $gp | ≤ $P99_TARGET | $(verdict "$gp" '<=' "$P99_TARGET") | $(cpu_cols navpolicyd GET) | $(cpu_cols nginx GET) |"
echo "| POST /v1/decide | nginx | $pr | ≥ $POST_TARGET | $(verdict "$pr" '>=' "$POST_TARGET") | $pp | ≤ $P99_TARGET | $(verdict "$pp" '<=' "$P99_TARGET") | $(cpu_cols navpolicyd POST) | $(cpu_cols nginx POST) |"
echo "| GET /v1/decide | C libmicrohttpd | $(median "${GET_CR[@]}") | | | $(median "${GET_CP[@]}") | | | $(cpu_cols navpolicyd GET) | $(cpu_cols mhd GET) |"
echo "| POST /v1/decide | C libmicrohttpd | $(median "${POST_CR[@]}") | | | $(median "${POST_CP[@]}") | | | $(cpu_cols navpolicyd POST) | $(cpu_cols mhd POST) |"
hz="$(median "${HZ_CR[@]}")"
echo "| GET /healthz | C libmicrohttpd | $hz | ≥ $HEALTHZ_C_TARGET | $(verdict "$hz" '>=' "$HEALTHZ_C_TARGET") | $(median "${HZ_CP[@]}") | | | $(cpu_cols navpolicyd HEALTHZ) | $(cpu_cols mhd GET) |"
echo "| (C libmicrohttpd GET) | nginx | $(median "${C_NG_R[@]}") | | | | | | $(cpu_cols mhd GET) | $(cpu_cols nginx GET) |"

# --- connection sweep -------------------------------------------------------------------------
if [ "$SWEEP" = 1 ]; then
    declare -A SW_RPS SW_P99 SW_NG SW_C SW_CPU SW_USR SW_SYS SW_BEST
    # CPU per request needs perf (software task-clock only, so it works in VMs without hardware
    # counters) and permission to attach to our own processes.
    HAVE_PERF=0
    if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -p "$MHD_PID" -o /dev/null -- sleep 0.1 2>/dev/null; then
        HAVE_PERF=1
    fi
    HAVE_NSTAT=0
    command -v nstat >/dev/null 2>&1 && HAVE_NSTAT=1
    # sweep_run SERVER OUTFILE LABEL CONNECTIONS — measure with perf stat and nstat around it;
    # sets CPU_US (µs of server CPU per request, or -) and NSTAT_NOTE (non-zero TCP counters).
    sweep_run() {
        local perf_pid="" task_ms requests
        CPU_US="-" NSTAT_NOTE=""
        [ "$HAVE_NSTAT" = 1 ] && nstat -n >/dev/null 2>&1
        if [ "$HAVE_PERF" = 1 ]; then
            perf stat -x, -e task-clock -p "$(server_pids "$1" | tr ' ' ,)" -o "$2.perf" 2>/dev/null &
            perf_pid=$!
        fi
        measure "$1" GET "$DURATION" "$2" "$3" "$4"
        if [ -n "$perf_pid" ]; then
            kill -INT "$perf_pid" 2>/dev/null
            wait "$perf_pid" 2>/dev/null
            task_ms="$(awk -F, '$3 == "task-clock" { print $1 }' "$2.perf" 2>/dev/null)"
            requests="$(field requests "$2")"
            if [ -n "$task_ms" ] && [ "${requests:-0}" -gt 0 ]; then
                CPU_US="$(awk -v t="$task_ms" -v n="$requests" 'BEGIN { printf "%.1f", t * 1000 / n }')"
            fi
        fi
        if [ "$HAVE_NSTAT" = 1 ]; then
            NSTAT_NOTE="$(nstat -z 2>/dev/null | awk '$1 ~ /^(TcpExtListenOverflows|TcpExtListenDrops|TcpExtSyncookiesSent|TcpExtTCPReqQFullDrop|TcpExtTCPTimeouts|TcpRetransSegs|TcpExtTCPSynRetrans)$/ && $2 > 0 { printf "%s=%s ", $1, $2 }')"
        fi
    }
    echo
    echo "Connection sweep: GET /v1/decide, wrk -t$THREADS -cN -d${DURATION}s, $ROUNDS rounds (limits: $LIMIT_NOTE)"
    [ "$HAVE_PERF" = 1 ] || echo "(perf not usable here: no CPU-per-request figures)"
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then order="$SERVERS"; else order="$REVERSED"; fi
        for n in $SWEEP_CONNECTIONS; do
            for srv in $order; do
                sweep_run "$srv" "$TMP/sweep-r$round-c$n-$srv.out" "sweep round $round c=$n" "$n"
                SW_RPS[$srv,$n]+="${RPS[$srv]} "
                SW_P99[$srv,$n]+="${P99[$srv]} "
                SW_USR[$srv,$n]+="${USR[$srv]} "
                SW_SYS[$srv,$n]+="${SYS[$srv]} "
                [ "$CPU_US" = - ] || SW_CPU[$srv,$n]+="$CPU_US "
                CPU[$srv]="$CPU_US"
                # Per round, for the 1000-vs-64 ratio.
                SW_RPS[$srv,$n,$round]="${RPS[$srv]}"
                # A collapse (the 256-connection rounds of issue 18 that fell to a few hundred
                # req/s): far below this server's best at this count so far, in either order.
                best="${SW_BEST[$srv,$n]:-0}"
                if awk -v r="${RPS[$srv]}" -v b="$best" 'BEGIN { exit !(b > 0 && r < b / 4) }'; then
                    warnings+=("sweep round $round c=$n $srv: collapse, ${RPS[$srv]} req/s against ${best} in an earlier round; TCP counters of the run: ${NSTAT_NOTE:-none}")
                elif awk -v r="${RPS[$srv]}" -v b="$best" 'BEGIN { exit !(b > 0 && b < r / 4) }'; then
                    warnings+=("sweep round $round c=$n $srv: an earlier round collapsed, ${best} req/s against ${RPS[$srv]} now")
                fi
                if awk -v r="${RPS[$srv]}" -v b="$best" 'BEGIN { exit !(r > b) }'; then SW_BEST[$srv,$n]="${RPS[$srv]}"; fi
                NOTES[$srv]="$NSTAT_NOTE"
            done
            SW_NG[$n]+="$(ratio "${RPS[navpolicyd]}" "${RPS[nginx]}") "
            SW_C[$n]+="$(ratio "${RPS[navpolicyd]}" "${RPS[mhd]}") "
            printf 'sweep round %d  c=%-5s navpolicyd %9.0f req/s  p99 %7s ms  cpu %5s us/req (user %s sys %s) | nginx %9.0f  p99 %7s ms  cpu %5s (user %s sys %s) | C %9.0f  p99 %7s ms  cpu %5s (user %s sys %s) | vs nginx %s  vs C %s\n' \
                "$round" "$n" "${RPS[navpolicyd]}" "$(ms "${P99[navpolicyd]}")" "${CPU[navpolicyd]}" "${USR[navpolicyd]}" "${SYS[navpolicyd]}" \
                "${RPS[nginx]}" "$(ms "${P99[nginx]}")" "${CPU[nginx]}" "${USR[nginx]}" "${SYS[nginx]}" \
                "${RPS[mhd]}" "$(ms "${P99[mhd]}")" "${CPU[mhd]}" "${USR[mhd]}" "${SYS[mhd]}" "$(ratio "${RPS[navpolicyd]}" "${RPS[nginx]}")" \
                "$(ratio "${RPS[navpolicyd]}" "${RPS[mhd]}")"
            for srv in $SERVERS; do
                [ -z "${NOTES[$srv]}" ] || printf '    tcp counters during %s: %s\n' "$srv" "${NOTES[$srv]}"
            done
        done
    done
    # shellcheck disable=SC2086 # unquoted on purpose: a space-separated list
    med_ms() { ms "$(median $1)"; }
    echo
    # shellcheck disable=SC2086 # unquoted on purpose, as above
    med_cpu() { if [ -z "$1" ]; then echo -; else median $1; fi; }
    echo "Sweep (markdown; medians over $ROUNDS rounds; req/s, p99 in ms, server CPU in µs per request — CPU from perf task-clock, user and sys from /proc; ratios are medians of the per-round navpolicyd/reference ratios):"
    echo
    echo "| connections | navpolicyd req/s | p99 | CPU | user | sys | nginx req/s | p99 | CPU | user | sys | C libmicrohttpd req/s | p99 | CPU | user | sys | vs nginx | vs C |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for n in $SWEEP_CONNECTIONS; do
        # shellcheck disable=SC2086
        printf '| %s | %.0f | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |\n' "$n" \
            "$(median ${SW_RPS[navpolicyd,$n]})" "$(med_ms "${SW_P99[navpolicyd,$n]}")" "$(med_cpu "${SW_CPU[navpolicyd,$n]:-}")" \
            "$(median ${SW_USR[navpolicyd,$n]})" "$(median ${SW_SYS[navpolicyd,$n]})" \
            "$(median ${SW_RPS[nginx,$n]})" "$(med_ms "${SW_P99[nginx,$n]}")" "$(med_cpu "${SW_CPU[nginx,$n]:-}")" \
            "$(median ${SW_USR[nginx,$n]})" "$(median ${SW_SYS[nginx,$n]})" \
            "$(median ${SW_RPS[mhd,$n]})" "$(med_ms "${SW_P99[mhd,$n]}")" "$(med_cpu "${SW_CPU[mhd,$n]:-}")" \
            "$(median ${SW_USR[mhd,$n]})" "$(median ${SW_SYS[mhd,$n]})" \
            "$(median ${SW_NG[$n]})" "$(median ${SW_C[$n]})"
    done
    if [[ " $SWEEP_CONNECTIONS " == *" 64 "* && " $SWEEP_CONNECTIONS " == *" 1000 "* ]]; then
        echo
        echo "Throughput at 1000 connections ÷ at 64 (median of the per-round ratios; issue 18 target for navpolicyd ≥ $SWEEP_TARGET):"
        echo
        echo "The last column is the load-robust view of the same question: server CPU per request at 1000"
        echo "connections ÷ at 64 (medians); 1.00 means a connection costs nothing while it waits."
        echo
        echo "| server | 1000-vs-64 req/s | target | | CPU per request 1000 ÷ 64 |"
        echo "|---|---|---|---|---|"
        for srv in $SERVERS; do
            rs=()
            for round in $(seq 1 "$ROUNDS"); do
                rs+=("$(ratio "${SW_RPS[$srv,1000,$round]}" "${SW_RPS[$srv,64,$round]}")")
            done
            v="$(median "${rs[@]}")"
            cpu_ratio=-
            if [ -n "${SW_CPU[$srv,64]:-}" ] && [ -n "${SW_CPU[$srv,1000]:-}" ]; then
                # shellcheck disable=SC2086
                cpu_ratio="$(ratio "$(median ${SW_CPU[$srv,1000]})" "$(median ${SW_CPU[$srv,64]})")"
            fi
            case "$srv" in
                navpolicyd) echo "| navpolicyd | $v | ≥ $SWEEP_TARGET | $(verdict "$v" '>=' "$SWEEP_TARGET") | $cpu_ratio |" ;;
                nginx) echo "| nginx | $v | | | $cpu_ratio |" ;;
                *) echo "| C libmicrohttpd | $v | | | $cpu_ratio |" ;;
            esac
        done
    else
        echo "(1000-vs-64 not computed: SWEEP_CONNECTIONS lacks 64 or 1000)"
    fi
fi

if [ "${#warnings[@]}" -gt 0 ]; then
    echo
    echo "warnings (wrk errors, err_status = non-2xx/3xx answers; sweep runs that collapsed):"
    printf '  %s\n' "${warnings[@]}"
fi
exit 0
