#!/usr/bin/env bash
# Builds and runs the whole test suite under one sanitizer: scripts/sanitized-test.sh address|thread.
#
# The suite's live tests start the (sanitized) navpolicyd binary; a report in that child goes
# to its own stderr, which the tests may never show. ASAN_OPTIONS/TSAN_OPTIONS log_path sends
# every process's reports to .build/<sanitizer>/reports/, and this script fails when any
# report was written there, even if every test passed.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer="${1:?usage: scripts/sanitized-test.sh address|thread}"
case "$sanitizer" in
address) scratch=.build/asan ;;
thread) scratch=.build/tsan ;;
*) echo "unknown sanitizer $sanitizer" >&2; exit 2 ;;
esac
reports="$PWD/$scratch/reports"
rm -rf "$reports"
mkdir -p "$reports"
start=$(date +%s)
# -DNAVPOLICYD_SANITIZER_LOCKS: every Mutex becomes a pthread lock TSan can see (Sources/LockSupport).
swift build --build-tests --scratch-path "$scratch" --sanitize="$sanitizer" -Xswiftc -DNAVPOLICYD_SANITIZER_LOCKS
built=$(date +%s)
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=0:suppressions=$PWD/scripts/asan-suppressions.txt:${ASAN_OPTIONS:-}"
# The sanitizers print their own stacks; Swift's backtracer, on a crash, reads other threads'
# stacks wholesale, which ASan reports as a stack-buffer-underflow of its own.
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=0:${TSAN_OPTIONS:-}"
status=0
# Suites that check text against text (executed docs, generated help, the OpenAPI contract, the
# conformance vectors) run in `make test` only: a sanitizer finds memory and thread errors, and
# every code path these suites drive is driven by the suites that stay. Under the sanitizers
# they cost minutes of CI (the conformance vectors alone 95 s under TSan) and add no finding.
text_suites='ExecutedDocsTests|DocsDriftTests|GeneratedTextTests|OpenAPIContractTests|ConformanceVectorTests'
# So do the core's volume suites: thousands of generated chains, patterns and requests through
# safe-Swift code (the regex engine, URLPattern index, analysis, lint, chain index) whose few
# unsafe dependencies (URL parser, matchers, image reader) the other suites and the ASan fuzz
# targets cover. Under ASan they took 9 of the 20 minutes of tests and found nothing a
# sanitizer could.
# The analysis suites (every PolicyAnalysis* and Analysis* suite, core and live) are all of
# this kind: generated chains through the analysis and the engine.
volume_suites='ECMARegexTests|URLPatternIndexTests|URLPatternDifferentialTests|PolicyAnalysis|Analysis[A-Z][A-Za-z0-9]*Tests|UnreachableLintExactnessTests|ChainIndexEquivalenceTests|LintScalingTests|LargeConfigLoadTests'
# Live suites too: the analysis ones (the attack-7 step-bound test on a 2,000-handler body alone
# took 308 s under ASan; the analyze endpoint's threads and disconnects stay covered by
# AnalyzeEndpointHardeningTests) and the large-config loads, whose RSS limits measure the
# allocator, not the sanitizer's shadow memory (425 MB under ASan against a 110 MB limit).
live_volume_suites='LargeConfigLoadLiveTests'
# Serial for the same reason as `make test`: blocked pool threads starve the servers under test.
swift test --skip-build --scratch-path "$scratch" --sanitize="$sanitizer" -Xswiftc -DNAVPOLICYD_SANITIZER_LOCKS --no-parallel \
    --skip "$text_suites|$volume_suites|$live_volume_suites" "${@:2}" || status=$?
end=$(date +%s)
echo "sanitized-test: $sanitizer build $((built - start))s, tests $((end - built))s, exit $status"
if compgen -G "$reports/*" >/dev/null; then
    echo "sanitized-test: $(ls "$reports" | wc -l) report file(s) in $reports:" >&2
    grep -h -m1 -E "^(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer)" "$reports"/* | sort | uniq -c >&2 || true
    exit 1
fi
exit "$status"
