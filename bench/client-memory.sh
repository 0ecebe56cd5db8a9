#!/usr/bin/env bash
# What the app client costs an iOS extension (issue 42): peak RSS (VmHWM) at launch from the
# shipped bundle file, at a launch with a newer bundle in the cache, and during refresh() from a
# real `navpolicyd serve` serving a newer signed compiled bundle; launch (start of main) to first
# decision; ns per decision. The client is set up exactly as docs/integrations/ios.md shows
# (bench/ClientMemoryBench, libsodium in place of CryptoKit), one process per phase.
#
# Each size is run RUNS times per phase and the median printed, with the same launch through the
# setup ios.md showed before issue 42 (the bundle read into [UInt8]: `--in-memory`) for
# comparison. Targets for 1,000,000 hosts: peak RSS ≤ 60 MB in all three phases, launch to first
# decision ≤ 0.2 s, ns/decision no worse than the in-memory client. A measurement, not a test:
# exit 0 unless setup fails.
#
# Environment: SIZES="10000 100000 1000000" (hosts; prefixes are a tenth) RUNS=3 DECISIONS=200000
#              SKIP_BUILD=1, KEEP_TMP=1, BIN=…/navpolicyd, PROBE=…/ClientMemoryBench (default .build/release).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
: "${SIZES:=10000 100000 1000000}" "${RUNS:=3}" "${DECISIONS:=200000}"

# shellcheck source=bench/lib-daemon.sh
. "$ROOT/bench/lib-daemon.sh"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --product ClientMemoryBench >&2 || die "release build of ClientMemoryBench failed"
fi
bench_setup client-memory.sh
PROBE="${PROBE:-$ROOT/.build/release/ClientMemoryBench}"
[ -x "$PROBE" ] || die "$PROBE not found"

openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null || die "openssl genpkey failed"
KEY="bench:$("$BIN" bundle --public-key --sign "$TMP/key.pem")" || die "no public key"

probe() {  # phase args… → one JSON line appended to $TMP/size-results
    "$PROBE" "$@" >>"$TMP/size-results" 2>>"$TMP/probe.err" || die "ClientMemoryBench $*: $(tail -2 "$TMP/probe.err")"
}

: >"$TMP/results"
for hosts in $SIZES; do
    prefixes=$((hosts / 10))
    : >"$TMP/size-results"
    python3 bench/generate-blocklist.py "$hosts" "$prefixes" "$TMP/v1.json" "$TMP/urls" || die "generator failed"
    # The daemon's policy: one more host (a new revision), signed, a higher policyVersion.
    python3 - "$TMP" <<'PY' || die "config edit failed"
import json, sys
tmp = sys.argv[1]
config = json.load(open(f"{tmp}/v1.json"))
config["handlers"][3]["match"]["hosts"].append("newer.example")
config["server"] = {"watchConfig": False, "bundle": {
    "signingKeyFile": f"{tmp}/key.pem", "keyId": "bench", "policyVersion": 200, "lifetimeSeconds": 31536000}}
json.dump(config, open(f"{tmp}/v2.json", "w"), separators=(",", ":"))
PY
    "$BIN" compile --config "$TMP/v1.json" --output "$TMP/v1.img" >/dev/null || die "compile v1 failed"
    "$BIN" compile --config "$TMP/v2.json" --output "$TMP/v2.img" >/dev/null || die "compile v2 failed"
    "$BIN" bundle --config "$TMP/v1.img" --sign "$TMP/key.pem" --key-id bench --policy-version 100 \
        --lifetime 31536000 --output "$TMP/shipped.bundle" 2>/dev/null || die "bundle failed"
    start_daemon "$TMP/v2.img"
    URL="http://127.0.0.1:$PORT/v1/policy/bundle"
    common=(--shipped "$TMP/shipped.bundle" --key "$KEY" --bundle-url "$URL")
    for run in $(seq 1 "$RUNS"); do
        cache="$TMP/cache-$hosts-$run"
        probe launch "${common[@]}" --cache "$cache" --urls "$TMP/urls" --decisions "$DECISIONS" --in-memory
        probe launch "${common[@]}" --cache "$cache" --urls "$TMP/urls" --decisions "$DECISIONS"
        probe refresh "${common[@]}" --cache "$cache"
        probe launch "${common[@]}" --cache "$cache"
        # The same cached launch checking the shipped bundle in full too, as every launch did
        # before init(configuration:) read only its head when the cached one is newer.
        probe launch "${common[@]}" --cache "$cache" --strict
        rm -rf "$cache"
    done
    stop_daemon
    echo "hosts=$hosts prefixes=$prefixes image_MiB=$(python3 -c "print(f'{$(stat -c %s "$TMP/v1.img") / 1048576:.1f}')")" \
        "bundle_MiB=$(python3 -c "print(f'{$(stat -c %s "$TMP/shipped.bundle") / 1048576:.1f}')")" >>"$TMP/sizes"
    sed "s/^{/{\"hosts\":$hosts,/" "$TMP/size-results" >>"$TMP/results"
done

cat "$TMP/sizes"
python3 - "$TMP/results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def median(values):
    return statistics.median(values) if values else float("nan")
def mb(value):
    return f"{value / 1048576:.1f}"
print("| hosts | phase | peak RSS MB (median) | launch→first decision: CPU s (wall s) | ns/decision | source |")
print("|---|---|---|---|---|---|")
for hosts in sorted({row["hosts"] for row in rows}):
    mine = [row for row in rows if row["hosts"] == hosts]
    phases = [
        # Launch rows: the peak up to the first decision (the timed decisions after it only add
        # the pages they touch); refresh: the peak from just before refresh() to its end.
        ("launch, bundle as [UInt8] (before)", lambda r: r["phase"] == "launch" and r["bundle"] == "bytes", "launchPeakRSSBytes"),
        ("launch, shipped file", lambda r: r["phase"] == "launch" and r["bundle"] == "file" and r["source"] == "shipped", "launchPeakRSSBytes"),
        ("cached launch", lambda r: r["phase"] == "launch" and r["source"] == "cache" and not r.get("strict"), "launchPeakRSSBytes"),
        ("cached launch, init(strict:) (both checked, as before)",
         lambda r: r["phase"] == "launch" and r["source"] == "cache" and r.get("strict"), "launchPeakRSSBytes"),
        ("refresh", lambda r: r["phase"] == "refresh", "peakRSSBytes"),
    ]
    for label, chosen, field in phases:
        picked = [row for row in mine if chosen(row)]
        if not picked:
            continue
        ns = [row["nanosecondsPerDecision"] for row in picked if "nanosecondsPerDecision" in row]
        wall = median([row["launchToFirstDecisionSeconds"] for row in picked])
        cpu = median([row["launchCPUSeconds"] for row in picked])
        source = ", ".join(sorted({str(row.get("sourceAfter", row["source"])) + (
            f" ({row['refresh']}{', ' + row['cache'] if 'cache' in row else ''})" if "refresh" in row else "")
            for row in picked}))
        print(f"| {hosts:,} | {label} | {mb(median([row[field] for row in picked]))} (max {mb(max(row[field] for row in picked))})"
              f" | {cpu:.3f} ({wall:.3f}) | {median(ns):.0f} | {source} |" if ns else
              f"| {hosts:,} | {label} | {mb(median([row[field] for row in picked]))} (max {mb(max(row[field] for row in picked))})"
              f" | {cpu:.3f} ({wall:.3f}) | | {source} |")
PY
