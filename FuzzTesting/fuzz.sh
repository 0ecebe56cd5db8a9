#!/usr/bin/env bash
# Builds the libFuzzer targets (Package.swift adds them when NAVPOLICYD_FUZZ is set) and runs
# each for FUZZ_SECONDS seconds over its checked-in seed corpus plus a working corpus under
# .build/fuzz/corpus. Fails on the first crash (the input is left in .build/fuzz/artifacts)
# or when a target reports no coverage, which would mean it was built without instrumentation.
#
#   FuzzTesting/fuzz.sh [SECONDS] [TARGET...]     e.g. FuzzTesting/fuzz.sh 600 FuzzURL
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${FUZZ_SECONDS:-30}}"
shift || true
all=(FuzzURL FuzzDecide FuzzDecideCost FuzzJSON FuzzConfig FuzzIntake FuzzRequestHead FuzzProxyHeaders FuzzClientHello FuzzCheckRequest FuzzRegex FuzzPolicyImage FuzzURLPattern FuzzPolicyHarness)
targets=("${@:-${all[@]}}")
[[ $# -gt 0 ]] || targets=("${all[@]}")
scratch=.build/fuzz

# The toolchain keeps only the last -sanitize= of a compile job: --sanitize=fuzzer turns on the
# fuzzer link and main, -Xswiftc -sanitize=fuzzer,address instruments for both.
# The build's own status decides: a binary left by an earlier build must not hide a target that no
# longer compiles (stop 48's CI caught FuzzRequestHead that way after local runs had passed).
mkdir -p "$scratch"
for target in "${targets[@]}"; do
    build_log="$scratch/$target.build.log"
    build_status=0
    NAVPOLICYD_FUZZ=1 swift build -c debug --scratch-path "$scratch" --product "$target" \
        --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$build_log" 2>&1 ||
        build_status=$?
    grep -v "warning: Cannot export local symbol" "$build_log" || true
    if [[ $build_status -ne 0 || ! -x "$scratch/debug/$target" ]]; then
        echo "fuzz: $target did not build (exit $build_status)" >&2
        exit 1
    fi
done

mkdir -p "$scratch/artifacts"
# fuzz_one TARGET: one target's run, its report printed when it ends.
fuzz_one() {
    local target=$1
    local corpus="$scratch/corpus/$target"
    local seeds="FuzzTesting/Corpus/$target"
    mkdir -p "$corpus"
    local log="$scratch/$target.log"
    # FuzzDecideCost is about time: inputs up to the 64 KB body limit, and a unit slower than
    # TIMEOUT seconds (ASan build, ~10x release) is a failure, reported like a crash.
    local limits=(-timeout=10 -max_len=8192)
    [[ $target == FuzzDecideCost ]] && limits=(-timeout="${FUZZ_COST_TIMEOUT:-2}" -max_len=65536 -report_slow_units=1)
    local status=0
    ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" SWIFT_BACKTRACE=enable=no \
        "$scratch/debug/$target" -max_total_time="$seconds" "${limits[@]}" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target-" "$corpus" "$seeds" >"$log" 2>&1 ||
        status=$?
    local inited final execs
    inited=$(grep -m1 "INITED" "$log" || true)
    final=$(grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" "$log" | tail -1 || true)
    execs=$(grep -m1 "stat::number_of_executed_units" "$log" | awk '{print $2}' || true)
    # One write, so the reports of targets that end together do not interleave.
    printf 'fuzz: %s for %ss (log %s)\n  %s\n  %s; execs %s; corpus %s files\n' "$target" "$seconds" "$log" \
        "${inited:-no INITED line}" "${final:-no progress line}" "${execs:-?}" "$(find "$corpus" -type f | wc -l)"
    if [[ $status -ne 0 ]]; then
        grep -m3 -E "Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer" "$log" >&2 || true
        echo "fuzz: $target FAILED (exit $status); crashing input in $scratch/artifacts/" >&2
        return 1
    fi
    local cov
    cov=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' <<<"$inited")
    if [[ -z "$cov" || "$cov" -eq 0 ]]; then
        echo "fuzz: $target reports no coverage: not instrumented" >&2
        return 1
    fi
}

# The targets are independent processes, each single-threaded: FUZZ_JOBS of them at once (default:
# one per core), each still for the full FUZZ_SECONDS, so CI's fuzz step takes a share of the time
# with the same coverage per target.
jobs=${FUZZ_JOBS:-$(nproc)}
failed=0
running=0
for target in "${targets[@]}"; do
    if [[ $running -ge $jobs ]]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    fuzz_one "$target" &
    running=$((running + 1))
done
while [[ $running -gt 0 ]]; do
    wait -n || failed=1
    running=$((running - 1))
done
[[ $failed -eq 0 ]] || exit 1
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no crash"
