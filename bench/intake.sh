#!/usr/bin/env bash
# Share-intake write throughput: 64 concurrent clients POST distinct URLs to /v1/intake for
# DURATION seconds, once with group commit (the default) and once with one transaction per
# request (intake.groupCommit=false) — the same durability (WAL, synchronous=FULL, answer
# after COMMIT) in both — in the same run, on the same disk. Prints items/s and p99 for both
# and their ratio. Needs wrk; the database lives under bench/results/ (a real disk, never tmpfs,
# so fsync costs what it costs in production).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
PORT=${PORT:-18480}
command -v wrk >/dev/null || { echo "bench/intake.sh needs wrk (apt-get install wrk)" >&2; exit 1; }

swift build -c release >/dev/null
binary=.build/release/navpolicyd
results=bench/results/intake-$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"

run() { # run NAME GROUP_COMMIT
  local name=$1 group=$2 dir="$results/$1"
  mkdir -p "$dir"
  printf '{"defaultDecision":"allow","handlers":[{"name":"logout","type":"logout","match":{"paths":["/logout"]}}],"intake":{"groupCommit":%s,"database":"%s/intake.sqlite3"}}\n' \
    "$group" "$PWD/$dir" >"$dir/config.json"
  "$binary" serve --config "$dir/config.json" --listen "127.0.0.1:$PORT" 2>"$dir/daemon.log" &
  local pid=$!
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.05; done
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/intake.lua "http://127.0.0.1:$PORT" -- "$name" \
    >"$dir/wrk.txt"
  curl -fs "http://127.0.0.1:$PORT/metrics" | grep '^navpolicyd_intake' >"$dir/metrics.txt" || true
  kill -TERM "$pid"; wait "$pid" || true
  local line; line=$(grep '^RESULT' "$dir/wrk.txt")
  local requests non2xx seconds p99
  requests=$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$line")
  non2xx=$(sed -E 's/.*non2xx=([0-9]+).*/\1/' <<<"$line")
  seconds=$(sed -E 's/.*seconds=([0-9.]+).*/\1/' <<<"$line")
  p99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$line")
  local commits writes
  commits=$(awk '/^navpolicyd_intake_commits_total/ {print $2}' "$dir/metrics.txt")
  writes=$(awk '/^navpolicyd_intake_committed_writes_total/ {print $2}' "$dir/metrics.txt")
  local items_per_second; items_per_second=$(awk -v r="$requests" -v e="$non2xx" -v s="$seconds" 'BEGIN {printf "%.0f", (r - e) / s}')
  printf '%-26s items/s=%-7s p99=%-8s ms  non-2xx=%-4s commits=%s (mean batch %s)\n' "$name" "$items_per_second" "$p99" "$non2xx" \
    "${commits:-?}" "$(awk -v c="${commits:-0}" -v w="${writes:-0}" 'BEGIN {printf "%.1f", c ? w / c : 0}')"
  echo "$items_per_second $p99" >"$dir/summary"
}

echo "intake benchmark: $CONNECTIONS connections, ${DURATION}s each, results in $results"
run baseline-per-request false
run group-commit true
read -r base_rate base_p99 <"$results/baseline-per-request/summary"
read -r group_rate group_p99 <"$results/group-commit/summary"
awk -v g="$group_rate" -v b="$base_rate" -v gp="$group_p99" -v bp="$base_p99" \
  'BEGIN {printf "group commit vs one transaction per request: %.1fx items/s, p99 %.2fx\n", g / b, gp / bp}'
