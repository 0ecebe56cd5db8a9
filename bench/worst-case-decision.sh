#!/usr/bin/env bash
# Worst-case cost of one decision (issue 26 item 4): adversarial URLs at the 8 KB request-target
# limit and at 32 KB (URLs are capped there; the longest a 64 KB body carries), decided in process by `navpolicyd bench` (canonicalization included)
# on every shipped config and on adversarial ones (7 pathPrefixes, 2,000 `/*/secretN/*`
# patterns, 2,000 wildcard hosts). Explained decisions are bounded by the same index (see
# LinearMatchingTests and PathSemanticsLiveTests); `bench` times plain ones.
#
# Prints the median and worst ns per decision for each config × URL kind. With BASELINE=path to
# another navpolicyd (e.g. a release build of the previous commit), runs it on the same inputs
# in the same run and prints before/after ratios of the medians.
#
# Exit status: 1 when a decision on a shipped config has a median over LIMIT_NS (1 ms), else 0.
#
#   bench/worst-case-decision.sh                       # ITERATIONS=200 LIMIT_NS=1000000
#   BASELINE=/tmp/old/.build/release/navpolicyd bench/worst-case-decision.sh
set -euo pipefail
cd "$(dirname "$0")/.."
iterations="${ITERATIONS:-200}"
limit="${LIMIT_NS:-1000000}"
binary="${BINARY:-.build/release/navpolicyd}"
baseline="${BASELINE:-}"
work=.build/bench/worst-case
mkdir -p "$work"

if [[ -z "${BINARY:-}" ]]; then
    swift build -c release --product navpolicyd >&2
fi
python3 bench/worst-case-decision.py "$work"

shipped=(config/navpolicy.json "$work"/shipped-*.json)
adversarial=("$work"/config-adv-*.json)

# measure BINARY CONFIG URLFILE: the p50 and max of `navpolicyd bench --format json`.
measure() {
    local bin=$1 config=$2 urls=$3
    "$bin" bench --config "$config" --urls "$urls" --iterations "$iterations" --format json 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print(int(r["p50Nanoseconds"]), int(r["maxNanoseconds"]))'
}

failed=0
printf '%-34s %-26s %12s %12s %12s\n' config url p50_ns max_ns before/after
for config in "${shipped[@]}" "${adversarial[@]}"; do
    is_shipped=0
    [[ " ${shipped[*]} " == *" $config "* ]] && is_shipped=1
    for urls in "$work"/url-*.txt; do
        kind=$(basename "$urls" .txt)
        kind=${kind#url-}
        read -r p50 max < <(measure "$binary" "$config" "$urls")
        ratio=-
        if [[ -n "$baseline" ]] && read -r old _ < <(measure "$baseline" "$config" "$urls"); then
            ratio=$(python3 -c "print(f'{$old / max($p50, 1):.1f}x')")
        fi
        printf '%-34s %-26s %12s %12s %12s\n' "$(basename "$config" .json)" "$kind" "$p50" "$max" "$ratio"
        if [[ $is_shipped -eq 1 && $p50 -gt $limit ]]; then
            echo "worst-case-decision: $config $kind: median ${p50} ns > ${limit} ns" >&2
            failed=1
        fi
    done
done
if [[ $failed -ne 0 ]]; then
    echo "worst-case-decision: FAILED: a decision on a shipped config costs more than ${limit} ns" >&2
    exit 1
fi
echo "worst-case-decision: every shipped-config decision at the request limits is under ${limit} ns (median)"
