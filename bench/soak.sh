#!/usr/bin/env bash
# Soak: bench/soak.sh [DURATION_SECONDS] (default 600). Mixed load against one navpolicyd on
# loopback (see bench/soak.py for the mix), sampled once a second into a CSV, plotted to a PNG
# (RSS, open fds, p99 over time). Exits 0 when every pass criterion of issue 12 holds:
# no unexpected answer, no crash, RSS and fds within 10% over the last 80% of the run, p99
# of the last minute within 2x of the first. Bounded: the daemon is stopped at the end.
#
# Environment: SKIP_BUILD=1 (use the existing release build), NAVPOLICYD=path (that binary),
# IDLE=200 idle keep-alive connections, WORKERS=6 load threads, RESULTS=dir (default
# bench/results/soak-TIMESTAMP). Installs gnuplot (apt-get, gnuplot-nox) when it is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DURATION="${1:-600}"
RESULTS="${RESULTS:-bench/results/soak-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$RESULTS"
RESULTS="$(cd "$RESULTS" && pwd)"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "soak: installing gnuplot-nox (apt-get)" >&2
    as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends gnuplot-nox >/dev/null || echo "soak: no gnuplot; the CSV is still written" >&2
fi
if [ -n "${NAVPOLICYD:-}" ]; then SKIP_BUILD=1; fi
if [ "${SKIP_BUILD:-0}" != 1 ]; then swift build -c release >&2; fi
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
PROXY_PORT=$(free_port)
TOKEN="soak-$(date +%s%N)"
config() { # config EXTRA_HANDLER_NAME
    cat <<JSON
{"defaultDecision": "allow",
 "handlers": [
   {"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}},
   {"name": "$1", "type": "cancel", "match": {"hosts": ["blocked.example"]}},
   {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example"]}}
 ],
 "server": {"perIPConnectionLimit": 0, "idleTimeoutSeconds": 3600, "watchIntervalMilliseconds": 500},
 "intake": {"database": "$RESULTS/intake.sqlite3"},
 "proxy": {"allowInternalDestinations": true}}
JSON
}
config soak-a >"$RESULTS/config-a.json"
config soak-b >"$RESULTS/config-b.json"
cp "$RESULTS/config-a.json" "$RESULTS/navpolicy.json"

NAVPOLICY_ADMIN_TOKEN="$TOKEN" "$BIN" serve --config "$RESULTS/navpolicy.json" --listen "127.0.0.1:$PORT" \
    --proxy-listen "127.0.0.1:$PROXY_PORT" 2>"$RESULTS/daemon.log" &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 200); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null || { echo "soak: daemon did not start" >&2; cat "$RESULTS/daemon.log" >&2; exit 1; }

echo "soak: ${DURATION}s against pid $PID (port $PORT, proxy $PROXY_PORT); results in $RESULTS"
status=0
python3 bench/soak.py pid="$PID" port="$PORT" proxy_port="$PROXY_PORT" duration="$DURATION" \
    config="$RESULTS/navpolicy.json" config_a="$RESULTS/config-a.json" config_b="$RESULTS/config-b.json" \
    token="$TOKEN" csv="$RESULTS/soak.csv" idle="${IDLE:-200}" workers="${WORKERS:-6}" | tee "$RESULTS/summary.txt" ||
    status=$?
count() { grep -c "$1" "$RESULTS/daemon.log" || true; }
echo "soak: reloads $(count '"event":"policy.reloaded"') applied, $(count '"event":"policy.unchanged"') unchanged," \
    "$(count '"result":"failed"') failed"

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<PLOT
set terminal pngcairo size 1000,900 font ",10"
set output "$RESULTS/soak.png"
set datafile separator ","
set key autotitle columnhead
set multiplot layout 3,1 title "navpolicyd soak (${DURATION} s, mixed load)"
set xlabel "seconds"
set ylabel "RSS (MiB)"
plot "$RESULTS/soak.csv" using 1:(\$2/1024) with lines title "RSS"
set ylabel "open fds / threads"
plot "$RESULTS/soak.csv" using 1:3 with lines title "fds", "" using 1:4 with lines title "threads"
set ylabel "p99 (ms)"
plot "$RESULTS/soak.csv" using 1:11 with lines title "p99 per second"
unset multiplot
PLOT
    echo "soak: plot $RESULTS/soak.png"
fi
exit "$status"
