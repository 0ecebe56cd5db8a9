#!/usr/bin/env bash
# What a fleet pull costs the pulling daemon (issue 45, item 5): one `navpolicyd serve` publishes a
# signed compiled bundle of HOSTS hosts (bench/generate-blocklist.py; prefixes are a tenth), a
# second one pulls it with `policySource`. Each run the publisher takes a new image (one more
# host, a new revision and a higher policyVersion) and the puller is told to poll at once
# (POST /v1/policy/reload), and the figures of that one swap are taken:
#   swap_s     the puller's own `lastSwapSeconds` (/v1/status): from the staged body to the new
#              policy deciding (map, signature over every byte, image checks, cache install,
#              relay copy, snapshot swap); the download itself is not in it
#   poll_s     the whole reload request: download (loopback) + swap
#   extra_MiB  peak RSS over the run (VmHWM, reset to the current RSS before the poll through
#              /proc/PID/clear_refs) minus the RSS before it
#   ratio      extra_MiB / the image's size: the target is <= 1.5 (and swap_s <= 1 s)
# Medians of RUNS (default 3). A measurement, not a test: exit 0 unless setup fails.
#
# Environment: HOSTS=1000000 RUNS=3 SKIP_BUILD=1 KEEP_TMP=1 BIN=…/navpolicyd (default .build/release).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
: "${HOSTS:=1000000}" "${RUNS:=3}"

# shellcheck source=bench/lib-daemon.sh
. "$ROOT/bench/lib-daemon.sh"
bench_setup policy-source-swap.sh

openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null || die "openssl genpkey failed"
PUBLIC="$("$BIN" bundle --public-key --sign "$TMP/key.pem")" || die "no public key"

python3 bench/generate-blocklist.py "$HOSTS" $((HOSTS / 10)) "$TMP/base.json" "$TMP/urls" || die "generator failed"
image() {  # N → $TMP/vN.img: the base list plus hostN.newer.example, its bundle signed by key.pem as "bench"
    python3 - "$TMP" "$1" <<'PY' || die "config edit failed"
import json, sys
tmp, n = sys.argv[1], sys.argv[2]
config = json.load(open(f"{tmp}/base.json"))
config["handlers"][3]["match"]["hosts"].append(f"host{n}.newer.example")
config["server"] = {"watchConfig": False, "bundle": {"signingKeyFile": f"{tmp}/key.pem", "keyId": "bench"}}
config["intake"] = {"enabled": False}
json.dump(config, open(f"{tmp}/v{n}.json", "w"), separators=(",", ":"))
PY
    "$BIN" compile --config "$TMP/v$1.json" --output "$TMP/v$1.img" >/dev/null || die "compile v$1 failed"
}

image 0
cp "$TMP/v0.img" "$TMP/published.img"
start_daemon "$TMP/published.img"
PUBLISHER_PID=$DAEMON_PID PUBLISHER_PORT=$PORT
cat >"$TMP/puller.json" <<JSON
{"policySource":{"url":"http://127.0.0.1:$PUBLISHER_PORT/v1/policy/bundle","trustedKeys":{"bench":"$PUBLIC"},
  "pollIntervalSeconds":86400,"timeoutSeconds":120,"cacheFile":"$TMP/pulled.bundle"},
 "server":{"watchConfig":false},"intake":{"enabled":false}}
JSON
PULLER_PORT="$(free_port)"
"$BIN" serve --config "$TMP/puller.json" --listen "127.0.0.1:$PULLER_PORT" 2>"$TMP/puller.log" &
PULLER_PID=$!
trap 'kill -TERM $PUBLISHER_PID $PULLER_PID 2>/dev/null; wait 2>/dev/null; bench_cleanup' EXIT
for _ in $(seq 1 1200); do
    curl -fs "http://127.0.0.1:$PULLER_PORT/readyz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fs "http://127.0.0.1:$PULLER_PORT/readyz" >/dev/null || die "puller not ready: $(tail -3 "$TMP/puller.log")"

kib() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$PULLER_PID/status"; }
: >"$TMP/results"
for run in $(seq 1 "$RUNS"); do
    image "$run"
    # The publisher takes the new image (renamed into place, then reloaded).
    cp "$TMP/v$run.img" "$TMP/published.img.new" && mv "$TMP/published.img.new" "$TMP/published.img"
    curl -fs -X POST "http://127.0.0.1:$PUBLISHER_PORT/v1/policy/reload" >/dev/null || die "publisher reload failed"
    # A few decisions first, so the policy deciding has its pages in, as on a serving daemon.
    head -200 "$TMP/urls" | while read -r url; do
        curl -s -o /dev/null -G "http://127.0.0.1:$PULLER_PORT/v1/decide" --data-urlencode "url=$url"
    done
    echo 5 >"/proc/$PULLER_PID/clear_refs" || die "cannot reset VmHWM"
    before=$(kib VmRSS)
    start=$(date +%s.%N)
    answer=$(curl -fs -X POST "http://127.0.0.1:$PULLER_PORT/v1/policy/reload") || die "puller poll failed"
    end=$(date +%s.%N)
    peak=$(kib VmHWM)
    case "$answer" in *'"result":"reloaded"'*) ;; *) die "the poll did not swap: $answer" ;; esac
    swap=$(curl -fs "http://127.0.0.1:$PULLER_PORT/v1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["policySource"]["lastSwapSeconds"])')
    echo "$swap $start $end $before $peak $(stat -c %s "$TMP/v$run.img")" >>"$TMP/results"
done

python3 - "$TMP/results" "$HOSTS" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
swap = [float(r[0]) for r in rows]
poll = [float(r[2]) - float(r[1]) for r in rows]
extra = [(int(r[4]) - int(r[3])) / 1024 for r in rows]
image = [int(r[5]) / 1048576 for r in rows]
ratio = [e / i for e, i in zip(extra, image)]
m = statistics.median
print(f"hosts={int(sys.argv[2]):,} runs={len(rows)} image_MiB={m(image):.1f}")
print(f"swap_s median {m(swap):.3f} (max {max(swap):.3f})  poll_s median {m(poll):.3f} (max {max(poll):.3f})")
print(f"extra_MiB median {m(extra):.1f} (max {max(extra):.1f})  ratio median {m(ratio):.2f} (max {max(ratio):.2f})  target <= 1.5, swap <= 1 s")
PY
