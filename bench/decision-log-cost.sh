#!/usr/bin/env bash
# What the decision log costs: GET /v1/decide on the same navpolicyd build with the log off and
# with it on (writing to a file, with decisionLog.redactQueryParameters set and the request's
# URL carrying a redacted parameter, so every line is redacted), measured in the same run, in
# alternating rounds. Prints requests/s and p50/p99 per round, the median ratio on/off and the
# target of issue 28 (on/off ≥ 0.9), and each daemon's CPU per request.
#
# A log that cannot keep up drops lines (navpolicyd_decision_log_dropped_total) instead of
# slowing decisions, which would flatter the "on" figure: the script prints the lines written
# and dropped, and a run with drops says so next to the ratio.
#
# It is a measurement, not a test: a missed target never changes the exit status (0); only a
# setup failure does.
#
# Environment (all optional):
#   DURATION=10      seconds per wrk run          ROUNDS=3          rounds (off and on each)
#   THREADS=2        wrk threads (-t)             CONNECTIONS=64    wrk connections (-c)
#   WARMUP=2         seconds of warm-up per daemon before round 1 (0 = none)
#   CONFIG=config/navpolicy.json                  the policy both daemons run
#   REDACT='["code","state","email"]'             decisionLog.redactQueryParameters of the "on" daemon;
#                                                 REDACT='[]' measures the plain log (nothing redacted)
#   DECIDE_URL=https://app.example.com/oauth/callback?code=SECRET123&state=xyz
#   NAVPOLICYD=path  benchmark this binary (implies SKIP_BUILD=1)    SKIP_BUILD=1  use the release build as is
#   KEEP_TMP=1       keep the temp dir (configs, the log, wrk output) and print its path
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
cd "$ROOT" || exit 1

# shellcheck source=bench/lib-http.sh
source "$BENCH/lib-http.sh"
http_bench_settings
REDACT="${REDACT:-[\"code\",\"state\",\"email\"]}"
DECIDE_URL="${DECIDE_URL:-https://app.example.com/oauth/callback?code=SECRET123&state=xyz}"
TARGET=0.9

http_bench_deps
http_bench_binary
[ -f "$CONFIG" ] || die "config $CONFIG not found"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/navpolicy-decision-log.XXXXXX")"
trap http_bench_cleanup EXIT
trap 'exit 130' INT TERM

# The "on" daemon: the same policy with the redaction rule and the largest budget, so lines are
# not dropped for the budget during the run (the file is removed with TMP).
ON_CONFIG="$TMP/navpolicy-log-on.json"
jq --argjson r "$REDACT" '.decisionLog = ((.decisionLog // {}) + {redactQueryParameters: $r, maxBytes: 1099511627776})' \
    "$CONFIG" >"$ON_CONFIG" || die "cannot write $ON_CONFIG (is REDACT a JSON array?)"
LOG_FILE="$TMP/decisions.ndjson"

OFF_PORT="$(pick_port)"
ON_PORT="$(pick_port "$OFF_PORT")"
http_decide_request "$DECIDE_URL"

# start_daemon PORT CONFIG LOG [ARGS…] — sets STARTED_PID
start_daemon() {
    local port="$1" config="$2" log="$3"
    shift 3
    "$BIN" serve --config "$config" --listen "127.0.0.1:$port" "$@" 2>"$log" &
    STARTED_PID=$!
    HTTP_BENCH_PIDS+=("$STARTED_PID")
    wait_for "http://127.0.0.1:$port/healthz" || {
        cat "$log" >&2
        die "navpolicyd on port $port did not start"
    }
    local answer
    answer="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$DECIDE_PATH")"
    [ "$answer" = 200 ] || die "navpolicyd on port $port answered GET $DECIDE_PATH with $answer"
}
start_daemon "$OFF_PORT" "$CONFIG" "$TMP/off.log"
OFF_PID="$STARTED_PID"
start_daemon "$ON_PORT" "$ON_CONFIG" "$TMP/on.log" --decision-log "$LOG_FILE"
ON_PID="$STARTED_PID"
# The redaction is really on: the check request's line holds the marker, not the secret.
sleep 0.5
[ "$REDACT" = "[]" ] || grep -q '"redacted":true' "$LOG_FILE" || die "the decision log of the 'on' daemon has no redacted line: $(head -c 600 "$LOG_FILE")"

declare -A RPS P50 P99 USR SYS
measure() { # off|on SECONDS OUTFILE
    local port pid before after
    if [ "$1" = off ]; then port="$OFF_PORT" pid="$OFF_PID"; else port="$ON_PORT" pid="$ON_PID"; fi
    before="$(server_cpu_ticks "$pid")"
    http_wrk "$port" GET "$DECIDE_PATH" "$2" "$CONNECTIONS" "$3"
    after="$(server_cpu_ticks "$pid")"
    http_read_run "$1" "$3" "$before" "$after" "the log $1"
}

metric() { # PORT NAME — one unlabelled sample from /metrics
    curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { print $2 }'
}

echo "decision log cost — $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr), nproc=$(nproc)"
echo "navpolicyd ${BIN#"$ROOT"/} ($CONFIG): log off on 127.0.0.1:$OFF_PORT; log on (--decision-log, redactQueryParameters $REDACT) on 127.0.0.1:$ON_PORT"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, $ROUNDS rounds, GET $DECIDE_PATH"
echo "note: wrk shares the cores with both daemons; read the ratio, not the absolute numbers."
echo

if [ "$WARMUP" != 0 ]; then
    measure off "$WARMUP" "$TMP/warmup.out"
    measure on "$WARMUP" "$TMP/warmup.out"
fi
dropped_before="$(metric "$ON_PORT" navpolicyd_decision_log_dropped_total)"
ratios=()
p99s=()
printf '%-6s %12s %12s %8s   %9s %9s   %9s %9s   %s\n' round "off req/s" "on req/s" "on/off" "off p99" "on p99" \
    "off µs/r" "on µs/r" "(µs/r: user+sys CPU per request)"
for round in $(seq 1 "$ROUNDS"); do
    # Alternate which goes first, so a slow spell on the machine does not always hit the same one.
    if [ $((round % 2)) = 1 ]; then order="off on"; else order="on off"; fi
    for which in $order; do measure "$which" "$DURATION" "$TMP/round-$round-$which.out"; done
    r="$(ratio "${RPS[on]}" "${RPS[off]}")"
    ratios+=("$r")
    p99s+=("$(ratio "${P99[on]}" "${P99[off]}")")
    printf '%-6s %12.0f %12.0f %8s   %7sms %7sms   %9s %9s\n' "$round" "${RPS[off]}" "${RPS[on]}" "$r" \
        "$(ms "${P99[off]}")" "$(ms "${P99[on]}")" \
        "$(awk -v u="${USR[off]}" -v s="${SYS[off]}" 'BEGIN { printf "%.1f", u + s }')" \
        "$(awk -v u="${USR[on]}" -v s="${SYS[on]}" 'BEGIN { printf "%.1f", u + s }')"
done
dropped_after="$(metric "$ON_PORT" navpolicyd_decision_log_dropped_total)"
dropped=$((${dropped_after%.*} - ${dropped_before%.*}))
lines="$(wc -l <"$LOG_FILE")"
secret_lines="$(grep -c 'SECRET123' "$LOG_FILE" || true)"
echo
median_ratio="$(median "${ratios[@]}")"
verdict="$(awk -v v="$median_ratio" -v t="$TARGET" 'BEGIN { print (v >= t) ? "met" : "NOT met" }')"
echo "median on/off req/s: $median_ratio (target ≥ $TARGET: $verdict); median on/off p99: $(median "${p99s[@]}")"
echo "log: $lines lines written ($(du -h "$LOG_FILE" | cut -f1)), $dropped dropped during the rounds, $secret_lines holding the secret"
[ "$dropped" = 0 ] || echo "warning: lines were dropped (the writer could not keep up): the 'on' figure is flattered"
[ "$secret_lines" = 0 ] || [ "$REDACT" = "[]" ] || echo "warning: the secret reached the log"
exit 0
