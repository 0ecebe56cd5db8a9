#!/usr/bin/env bash
# Builds the test suite under one sanitizer and runs its sanitizer-relevant suites: scripts/sanitized-test.sh address|thread.
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
# Only the suites tagged `sanitizerRelevant` (Tests/Support/TestSelection, docs/testing.md): the
# code with concurrency or C interop (HTTP server, proxy and tunnels, gRPC, decision log, metrics,
# reload, stores) and a live smoke per listener. A sanitizer finds memory and thread errors; the
# rest of the suite compares text or pushes volume through safe-Swift core code, whose few unsafe
# dependencies (URL parser, matchers, image reader) the ASan fuzz targets cover. Running all of it
# twice more cost CI 20 minutes and found nothing a sanitizer could.
# scripts/run-tests.py runs them the way `make test` does: in-process suites in parallel, live ones
# in serial shards at the same time (blocked pool threads would starve the servers under test).
# Four shards, not make test's three: these live suites mostly wait (a cold TSan run used 88 s of
# CPU in 166 s of wall on two cores), so a fourth shard shortens the wall without crowding them.
scripts/run-tests.py --select sanitizerRelevant --scratch-path "$scratch" \
    --shards "${NAVPOLICYD_SANITIZER_SHARDS:-4}" -- "${@:2}" || status=$?
end=$(date +%s)
echo "sanitized-test: $sanitizer build $((built - start))s, tests $((end - built))s, exit $status"
if compgen -G "$reports/*" >/dev/null; then
    echo "sanitized-test: $(ls "$reports" | wc -l) report file(s) in $reports:" >&2
    grep -h -m1 -E "^(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer)" "$reports"/* | sort | uniq -c >&2 || true
    exit 1
fi
exit "$status"
