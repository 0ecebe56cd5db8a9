#!/usr/bin/env bash
# Sourced by bench/http.sh and bench/budget.sh: the pieces both need to measure GET/POST
# /v1/decide against the same references, set up in one place so the two scripts always
# describe the same servers (same nginx config, same C reference build and body, same wrk
# request, same CPU accounting).
#
# The caller sets ROOT (repository root) and BENCH ($ROOT/bench), and calls http_stop_all from
# its EXIT trap: every server started here is recorded in HTTP_BENCH_PIDS as soon as it is
# forked, so a failed check right after a start still leaves nothing running.
#
#   http_bench_prepare NAME         all of the below a script needs before it starts servers: deps,
#                                   BIN, CONFIG checked, MHD_REF, TMP (a temp dir navpolicy-NAME.*)
#                                   and the EXIT/INT/TERM traps that stop every server and remove TMP
#   http_bench_deps                 apt-get install what is missing (nginx, wrk, curl, cc, …)
#   http_bench_binary               BIN = $NAVPOLICYD, or the release build (built unless SKIP_BUILD=1)
#   http_build_mhd_reference        MHD_REF = .build/bench/mhd-reference, compiled from bench/mhd-reference.c
#   pick_port [TAKEN…]              a free loopback port not among TAKEN
#   http_decide_request URL         exports DECIDE_PATH and DECIDE_BODY (read by bench/decide.lua)
#   cfg_limit CONFIG KEY DEFAULT    server.KEY of a navpolicyd config
#   cfg_threads CONFIG              navpolicyd's worker thread count for CONFIG
#   http_start_navpolicyd BIN CONFIG PORT LOG       NP_PID, NP_GET_BODY (its GET decide answer)
#   reference_body ANSWER           BODY = the references' body (navpolicyd's answer if nginx can quote it)
#   http_start_nginx DIR PORT WORKERS BODY          NGINX_PID (bench/nginx.conf.template in DIR)
#   http_start_mhd PORT THREADS CONN PER_IP BODY POOL LOG WORK_NS   MHD_STARTED_PID
#   http_wrk PORT METHOD PATH SECONDS CONNECTIONS OUTFILE           wrk -t$THREADS with decide.lua
#   nginx_pids MASTER               the master's pid and its workers', space-separated
#   server_cpu_ticks PID…           "USER SYS" clock ticks used so far by the processes
#   cpu_per_request BEFORE AFTER REQUESTS           "USER_US SYS_US" per request
#   http_bench_settings             DURATION ROUNDS THREADS CONNECTIONS WARMUP CONFIG, defaults filled in
#   http_read_run KEY OUT BEFORE AFTER WHAT   RPS/P50/P99/USR/SYS[KEY] of one wrk run
#   field, ms, ratio, median        reading wrk's BENCH line and summarising

# Functions here set globals for the caller (BIN, MHD_REF, NP_PID, NP_GET_BODY, BODY, …).
# shellcheck disable=SC2034

log() { printf '%s\n' "$*" >&2; }
die() {
    log "bench/${0##*/}: $*"
    exit 1
}

HTTP_BENCH_PIDS=()

# Stops every server this file started, then waits for them (nginx's master takes its workers
# down on SIGTERM).
http_stop_all() {
    local pid
    for pid in "${HTTP_BENCH_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${HTTP_BENCH_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    HTTP_BENCH_PIDS=()
}

# --- dependencies and binaries ---------------------------------------------------------------
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root or sudo to run: $*"
    fi
}

http_bench_deps() {
    local missing=()
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    command -v wrk >/dev/null 2>&1 || missing+=(wrk)
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    command -v cc >/dev/null 2>&1 || missing+=(gcc)
    [ -f /usr/include/microhttpd.h ] || missing+=(libmicrohttpd-dev)
    command -v jq >/dev/null 2>&1 || missing+=(jq)
    if [ "${#missing[@]}" -gt 0 ]; then
        log "installing ${missing[*]} (apt-get)"
        as_root apt-get update -qq || die "apt-get update failed"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
            || die "apt-get install ${missing[*]} failed"
    fi
    NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
}

http_bench_binary() {
    if [ -n "${NAVPOLICYD:-}" ]; then SKIP_BUILD=1; fi
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        log "building release (swift build -c release)"
        swift build -c release >&2 || die "release build failed"
    fi
    BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
    [ -x "$BIN" ] || die "$BIN not found (build first or unset SKIP_BUILD)"
}

# The C reference is rebuilt on every run (it takes well under a second), so it always matches
# bench/mhd-reference.c and the installed libmicrohttpd.
http_build_mhd_reference() {
    MHD_REF="$ROOT/.build/bench/mhd-reference"
    mkdir -p "$ROOT/.build/bench" || die "cannot create .build/bench"
    cc -O2 -Wall -Wextra -o "$MHD_REF" "$BENCH/mhd-reference.c" -lmicrohttpd >&2 \
        || die "building bench/mhd-reference.c failed (needs cc and libmicrohttpd-dev)"
}

# The common start of bench/http.sh and bench/budget.sh. The EXIT trap stops every server
# started here and removes TMP unless KEEP_TMP=1 (then it prints the path).
http_bench_prepare() { # NAME
    http_bench_deps
    http_bench_binary
    [ -f "$CONFIG" ] || die "config $CONFIG not found"
    http_build_mhd_reference
    TMP="$(mktemp -d "${TMPDIR:-/tmp}/navpolicy-$1.XXXXXX")"
    trap http_bench_cleanup EXIT
    trap 'exit 130' INT TERM
}

# shellcheck disable=SC2317 # called by the EXIT trap
http_bench_cleanup() {
    http_stop_all
    if [ "${KEEP_TMP:-0}" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}

# --- ports, requests, config ----------------------------------------------------------------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() { # [TAKEN…] — ports already chosen for this run but maybe not listening yet
    local p taken
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 30000))
        for taken in "$@"; do [ "$p" != "$taken" ] || continue 2; done
        port_in_use "$p" || {
            echo "$p"
            return 0
        }
    done
    die "no free port found"
}

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

http_decide_request() { # URL
    DECIDE_PATH="/v1/decide?url=$(urlencode "$1")"
    # shellcheck disable=SC2089,SC2090 # the quotes are JSON, meant literally
    DECIDE_BODY="{\"url\":\"$1\",\"method\":\"GET\",\"navigationType\":\"linkActivated\",\"targetFrame\":\"main\"}"
    # shellcheck disable=SC2090
    export DECIDE_PATH DECIDE_BODY
}

wait_for() { # URL — until it answers (any status), at most ~10 s
    for _ in $(seq 1 100); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.1
    done
    return 1
}

cfg_limit() { # CONFIG KEY DEFAULT — server.KEY from CONFIG
    jq -r --arg k "$2" --argjson d "$3" '(.server // {})[$k] // $d' "$1" 2>/dev/null
}

# Threads navpolicyd runs MHD with: server.threads from the config, 0 or absent = one per core.
cfg_threads() { # CONFIG
    local n
    n="$(cfg_limit "$1" threads 0)" || die "cannot read $1 with jq"
    if [ -z "$n" ] || [ "$n" = 0 ]; then n="$(nproc)"; fi
    echo "$n"
}

# --- servers --------------------------------------------------------------------------------
http_start_navpolicyd() { # BIN CONFIG PORT LOG
    local answer
    "$1" serve --config "$2" --listen "127.0.0.1:$3" 2>"$4" &
    NP_PID=$!
    HTTP_BENCH_PIDS+=("$NP_PID")
    wait_for "http://127.0.0.1:$3/healthz" || {
        cat "$4" >&2
        die "navpolicyd did not start"
    }
    curl -s -o /dev/null "http://127.0.0.1:$3/readyz" || true
    answer="$(curl -s -w '\n%{http_code}' "http://127.0.0.1:$3$DECIDE_PATH")"
    [ "${answer##*$'\n'}" = 200 ] || die "navpolicyd GET $DECIDE_PATH answered: $answer"
    NP_GET_BODY="${answer%$'\n'*}"
}

# The body the references return is navpolicyd's own answer to the same request (same bytes,
# same size), unless it holds characters that nginx's quoted string would interpret.
reference_body() { # ANSWER
    BODY="$1"
    # shellcheck disable=SC1003 # '\' is a backslash, not an escaped quote
    case "$BODY" in
        *"'"* | *'$'* | *'\'*)
            BODY='{"decision":"allow","handler":null,"action":null,"location":null,"url":"https://app.example.com/home","decisionId":"00000000-000000000000","policyRevision":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}'
            ;;
    esac
}

http_start_nginx() { # DIR PORT WORKERS BODY — nginx returning BODY, everything it writes in DIR
    local dir="$1" port="$2"
    mkdir -p "$dir/client_body" "$dir/proxy" "$dir/fastcgi" "$dir/uwsgi" "$dir/scgi"
    sed -e "s|@WORKERS@|$3|g" -e "s|@TMP@|$dir|g" -e "s|@PORT@|$port|g" \
        "$BENCH/nginx.conf.template" >"$dir/nginx.conf.1"
    # The body goes in last, with awk, so nothing in it is read as a sed pattern.
    BODY="$4" awk '{ gsub(/@BODY@/, ENVIRON["BODY"]); print }' "$dir/nginx.conf.1" >"$dir/nginx.conf"
    "$NGINX" -q -t -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf" 2>"$dir/nginx-test.log" || {
        cat "$dir/nginx-test.log" "$dir/nginx-error.log" >&2 2>/dev/null
        die "nginx config invalid"
    }
    # shellcheck disable=SC2094 # nginx appends to its error log; so does its stderr until it opens it
    "$NGINX" -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf" 2>>"$dir/nginx-error.log" &
    NGINX_PID=$!
    HTTP_BENCH_PIDS+=("$NGINX_PID")
    http_check_reference nginx "$port" "$dir/nginx-error.log"
}

# The C reference with navpolicyd's thread count, connection limits and memory pool, answering
# BODY; WORK_NS is its per-request busy wait (MHD_REFERENCE_WORK_NS, 0 = none).
http_start_mhd() { # PORT THREADS CONNECTION_LIMIT PER_IP_LIMIT BODY POOL_BYTES LOG WORK_NS
    MHD_REFERENCE_WORK_NS="$8" "$MHD_REF" "$1" "$2" "$3" "$4" "$5" "$6" 2>"$7" &
    MHD_STARTED_PID=$!
    HTTP_BENCH_PIDS+=("$MHD_STARTED_PID")
    http_check_reference "the C reference" "$1" "$7" "$5"
}

# Waits for a reference server on PORT and checks that GET and POST /v1/decide answer 200 (and
# GET with exactly EXPECTED_BODY when given); otherwise prints LOG and stops the run.
http_check_reference() { # NAME PORT LOG [EXPECTED_BODY]
    local get post
    wait_for "http://127.0.0.1:$2/v1/decide" || {
        cat "$3" >&2
        die "$1 did not start"
    }
    get="$(curl -s -w '\n%{http_code}' "http://127.0.0.1:$2$DECIDE_PATH")"
    post="$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "$DECIDE_BODY" "http://127.0.0.1:$2/v1/decide")"
    if [ "${get##*$'\n'}" != 200 ] || [ "$post" != 200 ] || { [ $# -ge 4 ] && [ "${get%$'\n'*}" != "$4" ]; }; then
        die "$1 answered GET '$get', POST $post (want 200${4:+ and the body})"
    fi
}

# --- measuring ------------------------------------------------------------------------------
http_wrk() { # PORT METHOD PATH SECONDS CONNECTIONS OUTFILE — wrk's output, with its BENCH line
    DECIDE_METHOD="$2" DECIDE_PATH="$3" wrk -t"${THREADS:-2}" -c"$5" -d"${4}s" --latency \
        -s "$BENCH/decide.lua" "http://127.0.0.1:$1/v1/decide" >"$6" 2>&1
}

nginx_pids() { # MASTER — nginx's requests cost the workers' CPU (and a little of the master's)
    { echo "$1"; pgrep -P "$1" || true; } | paste -sd' ' -
}

CLK_TCK="$(getconf CLK_TCK)"

# Fields 14 and 15 (utime, stime) of /proc/PID/stat. A process's own stat file already sums all
# its threads, including threads that ended, which adding up /proc/PID/task/*/stat would miss;
# nginx's workers are separate processes, hence nginx_pids. The command name (field 2) may hold
# blanks and parentheses, so the fields are counted from after its last ')'.
server_cpu_ticks() { # PID…
    local pid line user=0 sys=0
    local -a f
    for pid in "$@"; do
        read -r line <"/proc/$pid/stat" || die "process $pid is gone (a server stopped during the run)"
        read -r -a f <<<"${line##*) }"
        # f[0] is field 3 (state), so field 14 is f[11] and field 15 is f[12].
        user=$((user + f[11]))
        sys=$((sys + f[12]))
    done
    echo "$user $sys"
}

cpu_per_request() { # BEFORE AFTER REQUESTS — "USER_US SYS_US" of server CPU per request
    awk -v b="$1" -v a="$2" -v n="$3" -v hz="$CLK_TCK" 'BEGIN {
        split(b, x, " "); split(a, y, " ")
        if (n > 0) printf "%.2f %.2f", (y[1] - x[1]) * 1e6 / hz / n, (y[2] - x[2]) * 1e6 / hz / n
        else print "nan nan" }'
}

# The run settings every wrk benchmark shares, with their defaults (the caller's environment wins).
http_bench_settings() {
    DURATION="${DURATION:-10}"
    ROUNDS="${ROUNDS:-3}"
    THREADS="${THREADS:-2}"
    CONNECTIONS="${CONNECTIONS:-64}"
    WARMUP="${WARMUP:-2}"
    CONFIG="${CONFIG:-config/navpolicy.json}"
}

# Reads one wrk run into the caller's associative arrays, under KEY: RPS, P50, P99 from its BENCH
# line, USR and SYS (µs of server CPU per request) from the CPU ticks before and after it.
http_read_run() { # KEY OUTFILE BEFORE AFTER WHAT — WHAT names the run if wrk printed no result
    grep -q '^BENCH ' "$2" || {
        cat "$2" >&2
        die "wrk produced no result for $5"
    }
    local cpu
    RPS[$1]="$(field rps "$2")"
    P50[$1]="$(field p50_us "$2")"
    P99[$1]="$(field p99_us "$2")"
    cpu="$(cpu_per_request "$3" "$4" "$(field requests "$2")")"
    USR[$1]="${cpu% *}"
    SYS[$1]="${cpu#* }"
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
