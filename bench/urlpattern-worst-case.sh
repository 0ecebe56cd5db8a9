#!/usr/bin/env bash
# Issue 31: the worst cases of `match.urlPatterns` per decision, in process (`navpolicyd bench`):
#   one-host     1,000 entries on one host with a wildcard path (only the query differs): each
#                is a candidate; their components are fixed text or end in `*`, which the fast
#                path matches without the regex engine
#   budget       regexp groups under the config cap (~230 of 250 states) on paths of `a`s: every
#                decision runs into the per-decision regexp budget (50,000 steps) and fails closed
#   attack       the outside attack's `/((?:a?){5000}b)` on its 1,000-byte path: refused by the
#                cap now (the row shows the baseline only, or "refused")
# on a short URL, a 1,000-byte path and an 8 KB one. Prints p50/max ns per decision and, with
# BASELINE=another navpolicyd (e.g. main's release build), the before/after ratio of medians.
# Never an assertion on time: the budget and the fast path are asserted on the step counter by
# URLPatternBudgetTests.
#
#   bench/urlpattern-worst-case.sh
#   BASELINE=/work/main/.build/release/navpolicyd BINARY=.build/release/navpolicyd bench/urlpattern-worst-case.sh
set -euo pipefail
cd "$(dirname "$0")/.."
iterations="${ITERATIONS:-200}"
binary="${BINARY:-.build/release/navpolicyd}"
baseline="${BASELINE:-}"
work=.build/bench/urlpattern-worst-case
mkdir -p "$work"
if [[ -z "${BINARY:-}" ]]; then
    swift build -c release --product navpolicyd >&2
fi

python3 - "$work" <<'PY'
import json, os, sys
out = sys.argv[1]
def chain(handlers):
    return {"defaultDecision": "allow", "handlers": handlers}
configs = {
    "one-host": chain([{"name": f"q{i}", "type": "cancel", "match": {"urlPatterns": [
        {"hostname": "app.example.com", "pathname": "/*", "search": f"id={i}"}]}} for i in range(1000)]),
    "budget": chain([
        {"name": "dear", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/((?:.*a){55}b)"}]}},
        {"name": "dear-allow", "type": "allow", "match": {"urlPatterns": [{"pathname": "/((?:.*a){55}.*)"}]}}]),
    "attack": chain([{"name": "p", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/((?:a?){5000}b)"}]}}]),
}
for name, config in configs.items():
    with open(os.path.join(out, f"config-{name}.json"), "w") as handle:
        json.dump(config, handle)
urls = {
    "short": "https://app.example.com/x?id=999",
    "1k-path": "https://app.example.com/" + "a" * 1000,
    "8k-path": "https://app.example.com/" + "a" * 8000,
}
for name, url in urls.items():
    with open(os.path.join(out, f"url-{name}.txt"), "w") as handle:
        handle.write(url + "\n")
PY

# measure BINARY CONFIG URLFILE: "p50 max" of `navpolicyd bench`, or "refused refused".
measure() {
    local bin=$1 config=$2 urls=$3 iterations=$4
    "$bin" bench --config "$config" --urls "$urls" --iterations "$iterations" --format json 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print(int(r["p50Nanoseconds"]), int(r["maxNanoseconds"]))' ||
        echo "refused refused"
}

printf '%-10s %-8s %12s %12s %12s %12s\n' config url p50_ns max_ns before_p50 before/after
for config in one-host budget attack; do
    for url in short 1k-path 8k-path; do
        # Long paths cost the baseline ~0.1-1 s a decision (the attack: seconds): fewer
        # iterations there say enough.
        n=$iterations
        [[ $url == 1k-path ]] && n=$(( iterations / 10 > 5 ? iterations / 10 : 5 ))
        [[ $url == 8k-path ]] && n=3
        [[ $config == attack ]] && n=3
        read -r p50 max < <(measure "$binary" "$work/config-$config.json" "$work/url-$url.txt" "$n")
        before=- ratio=-
        if [[ -n "$baseline" ]]; then
            read -r before _ < <(measure "$baseline" "$work/config-$config.json" "$work/url-$url.txt" "$n")
            if [[ $before != refused && $p50 != refused ]]; then
                ratio=$(python3 -c "print(f'{$before / max($p50, 1):.1f}x')")
            fi
        fi
        printf '%-10s %-8s %12s %12s %12s %12s\n' "$config" "$url" "$p50" "$max" "$before" "$ratio"
    done
done
