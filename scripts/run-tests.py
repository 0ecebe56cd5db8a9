#!/usr/bin/env python3
"""Runs the built test suite as a plan chosen by tags: in-process suites in one parallel process,
live suites in serial shards that run at the same time as it.

    scripts/run-tests.py [--select all|sanitizerRelevant|optimized] [--shards N]
                         [--scratch-path DIR] [-c debug|release] [-- TEST-BUNDLE-ARGS...]
    scripts/run-tests.py --record-weights [--scratch-path DIR]

The plan comes from the test bundle itself (Swift Testing's event stream lists every test with its
tags), so it needs no suite-name regex: a suite is placed by its tags (Tests/Support/TestSelection,
docs/testing.md):
- `.live`, or no `.inProcess` tag in a target that opens sockets (IntegrationTests, HTTPServerTests):
  a serial shard (`--no-parallel`). Its waits block a thread, which in a shared parallel pool would
  starve the servers under test; in its own process it starves nothing. Daemons bind port 0 and each
  process has its own scratch directory (TestScratchSupport), so shards cannot collide.
- everything else (and `.inProcess`): the parallel process.
`--select` keeps only the suites with that tag (the sanitizer runs keep `sanitizerRelevant`, the
optimized build `optimized`). Volume suites run their fixed-seed sample unless
NAVPOLICYD_TEST_VOLUME=full is set (`make test-full`).

Each process writes its log to <scratch>/test-logs/; this prints each process's wall and CPU time,
then the slowest suites, and <scratch>/test-logs/suite-times.tsv keeps every suite's time.
The processes are the built test bundle run directly (what `swift test --skip-build` runs), so the
build must be done: `swift build --build-tests` with the same scratch path and flags first.
Arguments after `--` go to every run of the bundle.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# Targets whose untagged suites may open sockets or start processes that a parallel pool would
# starve: their suites run serially unless tagged `.inProcess`.
LIVE_TARGETS = {"IntegrationTests", "HTTPServerTests"}
BUNDLE = "navpolicydPackageTests.xctest"
# Each live suite's seconds in a cold run of each build, checked in (--record-weights): the
# shards' balance in a fresh clone. Weighed by test count instead, one shard of a cold CI run took
# 208 s and another 111 s; a sanitizer slows suites unevenly (ThreadSanitizer 2.7x one, 1.1x
# another), so each build has its own figures, keyed by its scratch directory.
RECORDED_WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "live-suite-seconds.tsv")


def weights_key(scratch_path):
    """`debug` for the default scratch path, else its last component (`tsan`, `asan`, ...)."""
    name = os.path.basename(os.path.normpath(scratch_path))
    return "debug" if name == ".build" else name


def read_weights(path, key):
    weights = {}
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            build, name, seconds = line.rstrip("\n").split("\t")[:3]
            if build == key:
                weights[name] = float(seconds)
    return weights


def record_weights(times_file, key):
    """Replaces this build's rows of RECORDED_WEIGHTS with the last run's live-suite seconds."""
    if not os.path.exists(times_file):
        print(f"run-tests: no {times_file}: run the suite first", file=sys.stderr)
        return 2
    kept = [line for line in open(RECORDED_WEIGHTS) if line.startswith("#") or line.split("\t")[0] != key] \
        if os.path.exists(RECORDED_WEIGHTS) else []
    header = [line for line in kept if line.startswith("#")]
    rows = [line for line in kept if not line.startswith("#") and line.strip()]
    count = 0
    for line in open(times_file):
        name, process, seconds = line.rstrip("\n").split("\t")[:3]
        if process != "parallel":
            rows.append(f"{key}\t{name}\t{seconds}\n")
            count += 1
    with open(RECORDED_WEIGHTS, "w") as out:
        out.writelines(header + sorted(rows))
    print(f"run-tests: {count} live suites' seconds ({key}) written to {RECORDED_WEIGHTS}")
    return 0


def list_tests(bundle):
    """Every test record of the bundle: id, kind, display name, tags (from the event stream)."""
    with tempfile.TemporaryDirectory() as scratch:
        stream = os.path.join(scratch, "tests.jsonl")
        env = dict(os.environ, SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED="1")
        subprocess.run(
            [bundle, "--testing-library", "swift-testing", "--list-tests", "--event-stream-output-path", stream,
             "--event-stream-version", "0"],
            env=env, check=True, stdout=subprocess.DEVNULL)
        with open(stream) as lines:
            records = [json.loads(line) for line in lines if line.strip()]
    return [r["payload"] for r in records if r.get("kind") == "test"]


def top_suite(test_id):
    """`Target.Suite` of a test id (`Target.Suite/f()`, `Target.Suite.Inner/g()`)."""
    head = test_id.split("/", 1)[0]
    return ".".join(head.split(".")[:2])


def plan(tests, select):
    suites = {}
    for test in tests:
        suite = suites.setdefault(top_suite(test["id"]), {"tags": set(), "tests": 0, "names": set()})
        suite["tags"].update(tag.lstrip(".") for tag in test.get("_tags", test.get("tags", [])) or [])
        if test.get("kind") == "function":
            suite["tests"] += 1
        if test.get("kind") == "suite":
            suite["names"].add(test.get("displayName") or test.get("name"))
    if not any(s["tags"] for s in suites.values()):
        sys.exit("run-tests: the test listing carries no tags; the toolchain's event stream changed (see docs/testing.md)")
    if select != "all":
        suites = {name: s for name, s in suites.items() if select in s["tags"]}
    pool, live = [], []
    for name, suite in sorted(suites.items()):
        target = name.split(".", 1)[0]
        is_live = "live" in suite["tags"] or (target in LIVE_TARGETS and "inProcess" not in suite["tags"])
        (live if is_live else pool).append(name)
    return suites, pool, live


def suite_weight(name, suites, weights):
    """A suite's expected seconds: its recorded or last-run figure, else two seconds a test."""
    return weights.get(name, suites[name]["tests"] * 2.0)


def shard(live, suites, count, weights):
    """Longest first onto the lightest shard (weights: suite_weight)."""
    shards = [[] for _ in range(max(1, min(count, len(live))))]
    loads = [0.0] * len(shards)
    for name in sorted(live, key=lambda n: -suite_weight(n, suites, weights)):
        lightest = loads.index(min(loads))
        shards[lightest].append(name)
        loads[lightest] += suite_weight(name, suites, weights)
    return [s for s in shards if s]


def filter_regex(names):
    return "^(" + "|".join(re.escape(n) for n in names) + ")(/|\\.|$)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--select", default="all", help="only suites with this tag (default: all)")
    parser.add_argument("--shards", type=int, default=int(os.environ.get("NAVPOLICYD_TEST_SHARDS", "3")))
    parser.add_argument("--scratch-path", default=".build")
    parser.add_argument("-c", "--configuration", default="debug")
    parser.add_argument("--dry-run", action="store_true", help="print the plan only")
    parser.add_argument("--table", action="store_true", help="print every suite and where it runs (markdown)")
    parser.add_argument("--record-weights", action="store_true",
                        help="write the last run's live-suite seconds of this scratch path's build to "
                             "scripts/live-suite-seconds.tsv (after a cold run)")
    parser.add_argument("swift_test_args", nargs="*", help="more arguments for the test bundle")
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

    bundle = os.path.join(args.scratch_path, args.configuration, BUNDLE)
    tests = list_tests(bundle)
    if args.table:
        print_table(tests)
        return 0
    suites, pool, live = plan(tests, args.select)
    logs = os.path.join(args.scratch_path, "test-logs")
    os.makedirs(logs, exist_ok=True)
    times_file = os.path.join(logs, "suite-times.tsv")
    key = weights_key(args.scratch_path)
    if args.record_weights:
        return record_weights(times_file, key)
    # The checked-in figures, then this scratch path's last run where it has one (same machine).
    weights = read_weights(RECORDED_WEIGHTS, key)
    if os.path.exists(times_file):
        for line in open(times_file):
            name, _, seconds = line.rstrip("\n").split("\t")[:3]
            weights[name] = float(seconds)
    shards = shard(live, suites, args.shards, weights)

    # The bundle itself, as `swift test --skip-build` would run it: two `swift test` processes on
    # one scratch path take turns (SwiftPM holds the .build lock for the whole run), which would
    # serialize the shards again.
    base = [bundle, "--testing-library", "swift-testing"] + args.swift_test_args
    runs = []
    if pool:
        runs.append(("parallel", pool, base + ["--filter", filter_regex(pool)]))
    for index, names in enumerate(shards, 1):
        runs.append((f"live-{index}", names, base + ["--no-parallel", "--filter", filter_regex(names)]))
    volume = os.environ.get("NAVPOLICYD_TEST_VOLUME", "sample")
    print(f"run-tests: {len(suites)} suites ({args.select}, volume {volume}): {len(pool)} in the parallel process, "
          f"{len(live)} live in {len(shards)} serial shard(s)")
    for name, names, _ in runs:
        expected = "" if name == "parallel" else f" (~{sum(suite_weight(n, suites, weights) for n in names):.0f}s)"
        print(f"  {name}: {len(names)} suites{expected}: {' '.join(n.split('.', 1)[1] for n in names)}")
    if args.dry_run:
        return 0

    started = time.monotonic()
    children = {}
    for name, names, command in runs:
        log = open(os.path.join(logs, f"{name}.log"), "w")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        children[process.pid] = (name, names, process, log, time.monotonic())
    failed = []
    results = {}
    while children:
        pid, status, usage = os.wait4(-1, 0)
        if pid not in children:
            continue
        name, names, process, log, begun = children.pop(pid)
        process.returncode = os.waitstatus_to_exitcode(status)
        log.close()
        wall = time.monotonic() - begun
        cpu = usage.ru_utime + usage.ru_stime
        summary = last_summary(os.path.join(logs, f"{name}.log"))
        results[name] = (wall, cpu)
        print(f"run-tests: {name}: exit {process.returncode}, wall {wall:.0f}s, cpu {cpu:.0f}s: {summary}", flush=True)
        if process.returncode != 0:
            failed.append(name)
    total = time.monotonic() - started

    # Per-suite times from the logs ("Suite NAME passed after X seconds"), by id.
    by_display = {}
    for suite_id, suite in suites.items():
        for display in suite["names"]:
            by_display[display] = suite_id
    rows = []
    for name, names, _ in runs:
        for line in open(os.path.join(logs, f"{name}.log"), errors="replace"):
            match = re.search(r'Suite (".*?"|\S+) (?:passed|failed) after ([0-9.]+) seconds', line)
            if match:
                display = match.group(1).strip('"')
                suite_id = by_display.get(display) or next((n for n in names if n.endswith("." + display)), display)
                if suite_id in names:
                    rows.append((suite_id, name, float(match.group(2))))
    with open(times_file, "w") as out:
        for suite_id, name, seconds in sorted(rows):
            tags = ",".join(sorted(suites.get(suite_id, {}).get("tags", [])))
            out.write(f"{suite_id}\t{name}\t{seconds:.1f}\t{tags}\n")
    print(f"run-tests: wall {total:.0f}s; slowest suites (all in {times_file}):")
    for suite_id, name, seconds in sorted(rows, key=lambda r: -r[2])[:12]:
        print(f"  {seconds:7.1f}s  {name:10}  {suite_id}")
    # One plain closing line over every process ("N passed, N failed"): each process prints its
    # own Swift Testing summary, and a reader of the whole run wants the sum.
    tests_run = tests_failed = 0
    for name, _, _ in runs:
        for line in open(os.path.join(logs, f"{name}.log"), errors="replace"):
            match = re.search(r"Test run with (\d+) tests?", line)
            if match:
                tests_run += int(match.group(1))
            if re.match(r'✘ Test (".*?"|\S+) failed after', line):
                tests_failed += 1
    for name in failed:
        log = os.path.join(logs, f"{name}.log")
        print(f"run-tests: {name} FAILED; its failures ({log}):", file=sys.stderr)
        for line in open(log, errors="replace"):
            if re.search(r"✘|error:|Fatal error|failed", line):
                print("  " + line.rstrip()[:400], file=sys.stderr)
    # A process that died without a failing test (a crash, a trap) still counts as a failure.
    tests_failed = max(tests_failed, len(failed))
    print(f"{max(tests_run - tests_failed, 0)} passed, {tests_failed} failed", flush=True)
    return 1 if failed else 0


def print_table(tests):
    """Every suite: its tags and the runs it is part of (docs/testing.md)."""
    suites, pool, _ = plan(tests, "all")
    print("| Suite | Tags | `make test` / CI | Sanitizers (CI) | Optimized build (CI) | `make test-full` |")
    print("|---|---|---|---|---|---|")
    for name, suite in sorted(suites.items()):
        tags = suite["tags"]
        where = "parallel" if name in pool else "live shard"
        if "volume" in tags:
            where += ", sample"
        full = "all cases" if "volume" in tags else "yes"
        print(f"| {name} | {', '.join(sorted(tags)) or '—'} | {where} | {'yes' if 'sanitizerRelevant' in tags else '—'} "
              f"| {'yes' if 'optimized' in tags else '—'} | {full} |")


def last_summary(path):
    summary = "no summary line (crashed?)"
    for line in open(path, errors="replace"):
        if re.search(r"Test run with .* (passed|failed)", line):
            summary = line.strip()
    return summary


if __name__ == "__main__":
    sys.exit(main())
