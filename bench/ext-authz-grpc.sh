#!/usr/bin/env bash
# bench/ext-authz-grpc.sh: the ext_authz gRPC Check against GET /v1/decide, same daemon, same run.
#
#   h2load (Debian nghttp2-client) drives unary envoy.service.auth.v3.Authorization/Check calls:
#     a prebuilt length-prefixed CheckRequest (-d), content-type application/grpc, te: trailers,
#     STREAMS concurrent streams (H2_CONNECTIONS connections x STREAMS/H2_CONNECTIONS streams each);
#   wrk drives GET /v1/decide for the same URL with STREAMS connections.
# Rounds alternate (Check, decide, Check, decide, ...) so drift on a shared machine hits both.
# Prints per round and the medians: requests/s of each, the ratio Check/decide, Check's p99
# (from h2load's per-request log), decide's p99 (wrk --latency), and the daemon's CPU time per
# request for each (user+sys from /proc, load-independent where requests/s on a shared machine
# are not). Targets (issue 30): ratio >= 0.8 and Check p99 <= 1 ms at 64 streams;
# BENCH_ENFORCE=1 exits 1 when one is missed. In a closed loop the mean latency is
# streams / throughput (Little's law): 64 streams at under 64,000 calls/s cannot have a mean,
# let alone a p99, under 1 ms; the script prints that bound beside the p99.
#
# Environment: NAVPOLICYD (binary; default the release build, built unless SKIP_BUILD=1),
# DURATION (s per run, 10), ROUNDS (3), STREAMS (64), H2_CONNECTIONS (2), LOAD_THREADS (2:
# h2load's -t and wrk's -t, so neither load generator is held to one core).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-64}
H2_CONNECTIONS=${H2_CONNECTIONS:-2}
LOAD_THREADS=${LOAD_THREADS:-2}
URL_HOST=app.example.com
URL_PATH=/home
die() {
    echo "bench/ext-authz-grpc.sh: $*" >&2
    exit 1
}

if ! command -v h2load >/dev/null || ! command -v wrk >/dev/null; then scripts/install-deps.sh bench; fi
scripts/grpc-test-tools.sh
PYTHON=$ROOT/.build/grpc-tools/bin/python3
BIN=${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}
if [[ -z ${NAVPOLICYD:-} && ${SKIP_BUILD:-0} != 1 ]]; then swift build -c release --product navpolicyd >&2; fi
[[ -x $BIN ]] || die "no binary at $BIN"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/navpolicy-ext-authz-grpc.XXXXXX")
DAEMON_PID=""
cleanup() {
    [[ -n $DAEMON_PID ]] && kill -TERM "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

NAVPOLICY_DATA_DIR=$TMP/data "$BIN" serve --config config/navpolicy.json --listen 127.0.0.1:0 \
    --ext-authz-grpc-listen 127.0.0.1:0 2>"$TMP/daemon.log" &
DAEMON_PID=$!
API_PORT="" GRPC_PORT=""
for _ in $(seq 1 500); do
    API_PORT=$(grep -o '"event":"listening","address":"127.0.0.1:[0-9]*' "$TMP/daemon.log" | grep -o '[0-9]*$' || true)
    GRPC_PORT=$(grep '"event":"ext_authz_grpc.listening"' "$TMP/daemon.log" | grep -o '"address":"127.0.0.1:[0-9]*' | grep -o '[0-9]*$' || true)
    [[ -n $API_PORT && -n $GRPC_PORT ]] && break
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.02
done
[[ -n $API_PORT && -n $GRPC_PORT ]] || die "the daemon did not start: $(cat "$TMP/daemon.log")"

# The same navigation both ways, answered the same (allow) before anything is timed.
"$PYTHON" scripts/ext-authz-grpc-client.py request-body "$TMP/check.bin" GET https "$URL_HOST" "$URL_PATH"
check=$("$PYTHON" scripts/ext-authz-grpc-client.py check "$GRPC_PORT" GET https "$URL_HOST" "$URL_PATH")
[[ $check == *'"allowed": true'* ]] || die "Check did not allow: $check"
DECIDE="http://127.0.0.1:$API_PORT/v1/decide?url=https%3A%2F%2F$URL_HOST$URL_PATH"
curl -sf "$DECIDE" | grep -q '"decision":"allow"' || die "GET /v1/decide did not allow"

# The daemon's user+sys clock ticks so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$DAEMON_PID/stat"; }
# Microseconds of daemon CPU per request between two tick counts.
cpu_per_request() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", (b - a) * 1e6 / hz / n}'; }

run_check() { # ROUND → "RPS P99_MS CPU_US"
    local log=$TMP/h2load-$1.log before after
    before=$(cpu_ticks)
    h2load -t "$LOAD_THREADS" -D "$DURATION" --warm-up-time 1 -c "$H2_CONNECTIONS" -m $((STREAMS / H2_CONNECTIONS)) \
        -d "$TMP/check.bin" -H 'content-type: application/grpc' -H 'te: trailers' --log-file="$log" \
        "http://127.0.0.1:$GRPC_PORT/envoy.service.auth.v3.Authorization/Check" >"$TMP/h2load-$1.out"
    after=$(cpu_ticks)
    grep -q " 0 failed, 0 errored" "$TMP/h2load-$1.out" || die "h2load reported failures: $(grep requests: "$TMP/h2load-$1.out")"
    local rps p99 count
    rps=$(sed -n 's/^finished in [0-9.]*s, \([0-9.]*\) req\/s.*/\1/p' "$TMP/h2load-$1.out")
    # Requests done include the warm-up second's, which the CPU ticks include too.
    count=$(sed -n 's/^requests: [0-9]* total, [0-9]* started, \([0-9]*\) done.*/\1/p' "$TMP/h2load-$1.out")
    # --log-file: start time (µs), status, elapsed (µs) per request.
    p99=$(awk '{print $3}' "$log" | sort -n | awk '{a[NR]=$1} END {i=int(NR*0.99); if (i<1) i=1; printf "%.3f", a[i]/1000}')
    echo "$rps $p99 $(cpu_per_request "$before" "$after" "$count")"
}
run_decide() { # → "RPS P99_MS CPU_US"
    local before after
    before=$(cpu_ticks)
    wrk -t "$LOAD_THREADS" -c "$STREAMS" -d "${DURATION}s" --latency "$DECIDE" >"$TMP/wrk.out"
    after=$(cpu_ticks)
    local rps p99 count
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$TMP/wrk.out")
    p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.3f", v}' "$TMP/wrk.out")
    count=$(awk '/requests in/ {print $1}' "$TMP/wrk.out")
    echo "$rps $p99 $(cpu_per_request "$before" "$after" "$count")"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratios=() check_p99=() decide_p99=() check_rps=() decide_rps=() check_cpu=() decide_cpu=()
echo "Check (h2load, $H2_CONNECTIONS connections x $((STREAMS / H2_CONNECTIONS)) streams) vs GET /v1/decide (wrk, $STREAMS connections), ${DURATION}s runs"
for round in $(seq 1 "$ROUNDS"); do
    read -r crps cp99 ccpu < <(run_check "$round")
    read -r drps dp99 dcpu < <(run_decide)
    ratio=$(awk -v c="$crps" -v d="$drps" 'BEGIN {printf "%.2f", c/d}')
    printf 'round %d: Check %8.0f req/s p99 %6.3f ms %5.1f us CPU | decide %8.0f req/s p99 %6.3f ms %5.1f us CPU | ratio %s\n' \
        "$round" "$crps" "$cp99" "$ccpu" "$drps" "$dp99" "$dcpu" "$ratio"
    ratios+=("$ratio") check_p99+=("$cp99") decide_p99+=("$dp99") check_rps+=("$crps") decide_rps+=("$drps")
    check_cpu+=("$ccpu") decide_cpu+=("$dcpu")
done
mratio=$(printf '%s\n' "${ratios[@]}" | median)
mp99=$(printf '%s\n' "${check_p99[@]}" | median)
mcheck=$(printf '%s\n' "${check_rps[@]}" | median)
printf 'median: Check %.0f req/s, decide %.0f req/s, ratio %s (target >= 0.8); Check p99 %s ms (target <= 1), decide p99 %s ms\n' \
    "$mcheck" "$(printf '%s\n' "${decide_rps[@]}" | median)" "$mratio" "$mp99" \
    "$(printf '%s\n' "${decide_p99[@]}" | median)"
printf 'median daemon CPU per request: Check %s us, decide %s us; closed-loop mean latency bound %s streams / %.0f calls/s = %.3f ms\n' \
    "$(printf '%s\n' "${check_cpu[@]}" | median)" "$(printf '%s\n' "${decide_cpu[@]}" | median)" "$STREAMS" "$mcheck" \
    "$(awk -v s="$STREAMS" -v x="$mcheck" 'BEGIN {printf "%.3f", s / x * 1000}')"
met=$(awk -v r="$mratio" -v p="$mp99" 'BEGIN {print (r >= 0.8 && p <= 1.0) ? "yes" : "no"}')
echo "targets met: $met"
[[ $met == yes || ${BENCH_ENFORCE:-0} != 1 ]]
