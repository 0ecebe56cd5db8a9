#!/usr/bin/env bash
# RSS across reloads: bench/reload-memory.sh [ROUNDS] (default 4). Starts a release navpolicyd
# on 3 handlers, reloads two different 100,000-handler configs alternately ROUNDS times each
# (POST /v1/policy/reload), then the 3-handler config again, and prints RSS after each step
# (see docs/performance.md, "Memory across reloads"). Loopback only; the daemon is stopped at
# the end. Environment: NAVPOLICYD=path (default .build/release/navpolicyd, built if missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${1:-4}"
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
[ -x "$BIN" ] || (cd "$ROOT" && swift build -c release --product navpolicyd >&2)
WORK="$(mktemp -d)"
trap 'kill "${PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
python3 "$ROOT/bench/generate-rules.py" 100000 "$WORK/big-a.json" "$WORK/urls.txt"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
config = json.load(open(f"{work}/big-a.json"))
for handler in config["handlers"]:
    handler["name"] += "-b"  # same shape, different bytes: a real reload, not "unchanged"
json.dump(config, open(f"{work}/big-b.json", "w"))
small = {"defaultDecision": "allow", "intake": {"enabled": False}, "handlers": [
    {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
    {"name": "about", "type": "about", "match": {"paths": ["/about"]}},
    {"name": "blocked", "type": "cancel", "match": {"hosts": ["blocked.example"]}}]}
json.dump(small, open(f"{work}/small.json", "w"))
PY
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cp "$WORK/small.json" "$WORK/active.json"
"$BIN" serve --config "$WORK/active.json" --listen "127.0.0.1:$PORT" 2>"$WORK/daemon.log" &
PID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
rss() { awk '/VmRSS/ { printf "%d MiB", $2 / 1024 }' "/proc/$PID/status"; }
reload() { # reload CONFIG LABEL
    cp "$1" "$WORK/next.json" && mv "$WORK/next.json" "$WORK/active.json"
    result=$(curl -fs -X POST "http://127.0.0.1:$PORT/v1/policy/reload" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["result"])')
    echo "$2: $result, RSS $(rss)"
}
echo "start: RSS $(rss)"
for round in $(seq "$ROUNDS"); do
    reload "$WORK/big-a.json" "100k handlers (a) #$round"
    reload "$WORK/big-b.json" "100k handlers (b) #$round"
done
reload "$WORK/small.json" "back to 3 handlers"
