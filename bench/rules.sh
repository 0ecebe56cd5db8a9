#!/usr/bin/env bash
# Scale benchmark: does deciding stay flat as the rule set grows? (issue 6)
#
# For chains of 10, 1k, 10k and 100k handlers and for one handler holding a 100k-host list,
# all in one run: config load+compile time and resident memory, in-process ns/decision
# (p50/p99, `navpolicyd bench`), and HTTP GET /v1/decide requests/s with wrk as a ratio to
# the 10-handler figure. Then chains of 10, 1,000 and 5,000 handlers with only `match.urlPatterns`
# (URLPATTERN_SIZES; issue 31: the chain index keeps them flat), in-process only, with their
# decision rate as a ratio to the 10-handler one (≥ 0.8 expected at 5,000). Then a reload of the 100k config under wrk load, counting failed
# requests. A measurement, not a test: exit 0 unless setup fails.
#
# Environment: DURATION=5 (seconds per measurement), THREADS=2, CONNECTIONS=32,
#              SIZES="10 1000 10000 100000", SKIP_BUILD=1, KEEP_TMP=1.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
DURATION="${DURATION:-5}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-32}"
SIZES="${SIZES:-10 1000 10000 100000}"

# shellcheck source=bench/lib-daemon.sh
. "$ROOT/bench/lib-daemon.sh"
bench_setup rules.sh
json_field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read())['$1'])"; }
run_wrk() {  # urls-file seconds → BENCH line
    URLS_FILE="$1" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2s" -s bench/decide-corpus.lua "http://127.0.0.1:$PORT" 2>&1 \
        | grep '^BENCH'
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

printf '%-14s %9s %9s %9s %9s %11s %11s %8s\n' config compile_s rss_MB p50_ns p99_ns bench_dec/s http_req/s ratio
base_rps=""
cases=()
for size in $SIZES; do cases+=("$size"); done
cases+=("hostlist-100000")
for case in "${cases[@]}"; do
    size="${case#hostlist-}"
    flag=""; [ "$case" != "$size" ] && flag="--host-list"
    python3 bench/generate-rules.py "$size" "$TMP/$case.json" "$TMP/$case.urls" $flag || die "generator failed"
    local_json="$("$BIN" bench --config "$TMP/$case.json" --urls "$TMP/$case.urls" --duration "$DURATION" --format json)" \
        || die "navpolicyd bench failed on $case"
    compile="$(echo "$local_json" | json_field compileSeconds)"
    p50="$(echo "$local_json" | json_field p50Nanoseconds)"
    p99="$(echo "$local_json" | json_field p99Nanoseconds)"
    dps="$(echo "$local_json" | json_field decisionsPerSecond)"
    start_daemon "$TMP/$case.json"
    rss_kb="$(awk '/VmRSS/ {print $2}' "/proc/$DAEMON_PID/status")"
    line="$(run_wrk "$TMP/$case.urls" "$DURATION")"
    stop_daemon
    rps="$(echo "$line" | field rps)"
    [ -z "$base_rps" ] && base_rps="$rps"
    ratio="$(python3 -c "print(f'{$rps / $base_rps:.2f}')")"
    printf '%-14s %9.3f %9.1f %9s %9s %11s %11s %8s\n' "$case" "$compile" "$(python3 -c "print($rss_kb/1024)")" \
        "$p50" "$p99" "$dps" "$rps" "$ratio"
done

# urlPatterns chains (issue 31): in-process decisions per second, as a ratio to the smallest.
printf '%-20s %11s %9s %9s %8s\n' urlPatterns_config bench_dec/s p50_ns p99_ns ratio
base_dps=""
for size in ${URLPATTERN_SIZES:-10 1000 5000}; do
    python3 bench/generate-rules.py "$size" "$TMP/up-$size.json" "$TMP/up-$size.urls" --url-patterns || die "generator failed"
    local_json="$("$BIN" bench --config "$TMP/up-$size.json" --urls "$TMP/up-$size.urls" --duration "$DURATION" --format json)" \
        || die "navpolicyd bench failed on urlpatterns-$size"
    dps="$(echo "$local_json" | json_field decisionsPerSecond)"
    [ -z "$base_dps" ] && base_dps="$dps"
    printf '%-20s %11s %9s %9s %8s\n' "urlpatterns-$size" "$dps" "$(echo "$local_json" | json_field p50Nanoseconds)" \
        "$(echo "$local_json" | json_field p99Nanoseconds)" "$(python3 -c "print(f'{$dps / $base_dps:.2f}')")"
done

# Reload of the largest chain under load: every request must still succeed.
largest="${cases[${#cases[@]}-2]}"
start_daemon "$TMP/$largest.json"
URLS_FILE="$TMP/$largest.urls" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$((DURATION * 2))s" -s bench/decide-corpus.lua \
    "http://127.0.0.1:$PORT" >"$TMP/reload-wrk.txt" 2>&1 &
WRK_PID=$!
reloads=0; failed_reloads=0
sleep 1
for round in 1 2 3; do
    # Alternate the default decision so every reload is a real change (new revision).
    python3 - "$TMP/$largest.json" "$round" <<'PY'
import json, sys
path, round_ = sys.argv[1], int(sys.argv[2])
config = json.load(open(path))
config["defaultDecision"] = "allow" if round_ % 2 == 0 else "cancel"
json.dump(config, open(path, "w"))
PY
    start="$(date +%s.%N)"
    result="$(curl -s -X POST "http://127.0.0.1:$PORT/v1/policy/reload" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("result"))')"
    end="$(date +%s.%N)"
    # "unchanged" means the file watcher applied this revision first: also a success.
    reloads=$((reloads + 1)); [ "$result" = failed ] && failed_reloads=$((failed_reloads + 1))
    printf 'reload %d of %s: %s in %.2f s\n' "$round" "$largest" "$result" "$(python3 -c "print($end - $start)")"
    sleep 1
done
wait "$WRK_PID"
stop_daemon
line="$(grep '^BENCH' "$TMP/reload-wrk.txt")"
echo "under reload: $(echo "$line" | field requests) requests, $(echo "$line" | field errors) socket errors, $(echo "$line" | field non2xx) non-2xx, $failed_reloads of $reloads reloads failed"
