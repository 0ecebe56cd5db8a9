#!/usr/bin/env bash
# Policy analysis cost (issue 32): two 1,000-handler chains compared (target ≤ 2 s) and a
# 10,000-handler reachability report (target ≤ 5 s), on one core (taskset -c 0).
#
# The chains are bench/generate-rules.py's (exact hosts, wildcards, routes with navigation
# types, route prefixes, behind the default policy's handlers), plus a few overlapping rules
# appended so the search has covers to find: a wildcard over many hosts, a method rule, an
# @internal rule. The compared chain is the same with two adjacent handlers swapped and one
# action changed, so the comparison finds counterexamples (each re-decided by the engine).
# Times include reading and compiling the configs; the compile alone is printed for reference
# (`check` of one URL with the same file). A measurement, not a test: exit 0 unless setup fails.
#
# Environment: NAVPOLICYD=path (default .build/release/navpolicyd; SKIP_BUILD=1 uses it as is),
#              KEEP_TMP=1 keeps the generated configs.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
die() { echo "bench/analysis.sh: $*" >&2; exit 1; }
if [ -z "${NAVPOLICYD:-}" ] && [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --product navpolicyd >&2 || die "release build failed"
fi
BIN="${NAVPOLICYD:-$ROOT/.build/release/navpolicyd}"
[ -x "$BIN" ] || die "$BIN not found"
PIN=(); command -v taskset >/dev/null 2>&1 && PIN=(taskset -c 0)

TMP="$(mktemp -d)"
[ "${KEEP_TMP:-0}" = 1 ] || trap 'rm -rf "$TMP"' EXIT

generate() {  # generate COUNT OUT [mutate]
    python3 bench/generate-rules.py "$1" "$TMP/raw.json" "$TMP/urls.txt" >/dev/null || die "generate-rules.py failed"
    python3 - "$TMP/raw.json" "$2" "${3:-}" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
handlers = config["handlers"]
handlers += [
    {"name": "all-blocked", "type": "cancel", "match": {"hosts": ["*.example"], "methods": ["POST"]}},
    {"name": "internal", "type": "cancel", "match": {"hosts": ["@internal"]}},
    {"name": "puts", "type": "allow", "match": {"methods": ["PUT", "DELETE"]}},
]
if sys.argv[3]:
    middle = len(handlers) // 2
    handlers[middle], handlers[middle + 1] = handlers[middle + 1], handlers[middle]
    handlers[-3]["action"] = "changed"
json.dump(config, open(sys.argv[2], "w"))
PY
}

seconds() {  # seconds COMMAND... : wall time of one run, output discarded
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.2f}')"
}

generate 1000 "$TMP/a1k.json"
generate 1000 "$TMP/b1k.json" mutate
generate 10000 "$TMP/a10k.json"

echo "binary: $BIN ${PIN[*]:+(pinned: ${PIN[*]})}"
echo "load + compile + one decision (check, 1,000):   $(seconds "${PIN[@]}" "$BIN" check --config "$TMP/a1k.json" https://a.example/) s"
echo "compare two 1,000-handler chains (differ):      $(seconds "${PIN[@]}" "$BIN" analyze --config "$TMP/a1k.json" --against "$TMP/b1k.json") s  (target ≤ 2 s)"
echo "compare a 1,000-handler chain with itself:      $(seconds "${PIN[@]}" "$BIN" analyze --config "$TMP/a1k.json" --against "$TMP/a1k.json") s  (target ≤ 2 s)"
"${PIN[@]}" "$BIN" analyze --config "$TMP/a1k.json" --against "$TMP/b1k.json" --format json \
    | python3 -c 'import json,sys; r=json.load(sys.stdin); print("  equivalent=%s differingRegions=%s counterexamples=%d" % (r["equivalent"], r["differingRegions"], len(r["counterexamples"])))'
echo "load + compile + one decision (check, 10,000):  $(seconds "${PIN[@]}" "$BIN" check --config "$TMP/a10k.json" https://a.example/) s"
echo "reachability of a 10,000-handler chain:         $(seconds "${PIN[@]}" "$BIN" analyze --config "$TMP/a10k.json") s  (target ≤ 5 s)"
"${PIN[@]}" "$BIN" analyze --config "$TMP/a10k.json" --format json \
    | python3 -c 'import json,sys; h=json.load(sys.stdin)["handlers"]; print("  handlers=%d reachable=%d unreachable=%d unknown=%d" % (len(h), sum(x["reachable"] is True for x in h), sum(x["reachable"] is False for x in h), sum(x["reachable"] is None for x in h)))'
