#!/usr/bin/env bash
# Shows that the differential harness (Tests/Support/PolicyHarness, issue 40) catches a broken
# engine: applies, one at a time, a small deliberate breakage of one match form in ONE engine
# (the index, the pattern automaton, the compiled image, the sorted key tables, explain, the
# analysis), runs the harness's suite (`PolicyHarnessTests`, its default fixed-seed sample) on
# it, and expects it to fail. Prints "caught" or "MISSED" per mutation and a summary; exits 1
# when one is missed, or when the unbroken tree does not pass.
#
# The mutations are made in a copy: the core's sources, the harness and its suite in a package of
# their own under .build/mutants (no C targets, no daemon: a rebuild per mutation recompiles the
# core only). The working tree is never edited, so this can run beside a build of it.
#
#   scripts/mutate-engines.sh            every mutation
#   scripts/mutate-engines.sh --list     their names and what each breaks
#   scripts/mutate-engines.sh NAME...    the named ones
#   scripts/mutate-engines.sh --baseline only build and run the unbroken copy
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work="$root/.build/mutants"
swift_cmd=${SWIFT:-swift}
core_modules=(JSONSupport URLStandard PolicyPatterns NavigationPolicy PolicyAuthoring)

# name|file (under the package)|what it breaks — the edit itself is in mutations.py below.
read -r -d '' mutations_py <<'PY' || true
import sys
M = {
    "index-path-case": ("Sources/NavigationPolicy/Policy/ChainIndex.swift",
        "the index looks paths up without folding case (exact paths, prefixes, pattern keys)",
        "        let folded = request.matchPath.foldedForm\n",
        "        let folded = request.matchPath.textForm\n"),
    "index-host-suffix": ("Sources/NavigationPolicy/Policy/ChainIndex.swift",
        "the index measures a host's parent domains one byte long (no *. suffix is found)",
        "if wildcardSuffixLengths.contains(parent.utf8.count), let list",
        "if wildcardSuffixLengths.contains(parent.utf8.count + 1), let list"),
    "index-address": ("Sources/NavigationPolicy/Policy/ChainIndex.swift",
        "the index offers range and class hosts only to IPv6 addresses",
        "if !byAddress.isEmpty, HostAddress.mayMatch(host, of: request.url) {",
        "if !byAddress.isEmpty, HostAddress.mayMatch(host, of: request.url), host.utf8.first == UInt8(ascii: \"[\") {"),
    "index-url-patterns": ("Sources/NavigationPolicy/Policy/ChainIndex.swift",
        "the index never offers a handler filed under its urlPatterns",
        "        if !byURLPattern.isEmpty { byURLPattern.collect(request, into: &lists) }\n",
        ""),
    "automaton-case-key": ("Sources/NavigationPolicy/Policy/ChainPatterns.swift",
        "the automaton keys caseSensitive handlers' patterns under the folded automaton",
        "rule[position] = paths.caseSensitive ? 2 : 1",
        "rule[position] = 1"),
    "automaton-directory": ("Sources/NavigationPolicy/Policy/ChainPatterns.swift",
        "the automaton drops a pattern's directory form (/a/* no longer matches /a)",
        "for glob in [pattern.glob] + (pattern.directory.map { [$0] } ?? [])",
        "for glob in [pattern.glob]"),
    "automaton-end-case": ("Sources/NavigationPolicy/Policy/ChainPatterns.swift",
        "the automaton's literal-end check compares a folded pattern with the path's own case",
        "let subject = isExact(position) ? path.textForm.utf8 : path.foldedForm.utf8",
        "let subject = path.textForm.utf8"),
    "image-prefix-case": ("Sources/NavigationPolicy/Image/PolicyImageWriter.swift",
        "the image keys a case-insensitive handler's pathPrefixes table unfolded",
        "let key = caseSensitive ? path.text : path.folded",
        "let key = path.text"),
    "image-last-host": ("Sources/NavigationPolicy/Image/PolicyImageWriter.swift",
        "the image drops the last entry of a large hosts list",
        "for (index, value) in hosts.enumerated() {",
        "for (index, value) in hosts.enumerated().dropLast() {"),
    "image-methods": ("Sources/NavigationPolicy/Image/PolicyImageWriter.swift",
        "the image drops the methods of every handler with a table",
        "                guard let section else { continue }\n",
        "                guard let section else { continue }\n                match.remove(\"methods\")\n"),
    "tables-host-suffix": ("Sources/NavigationPolicy/Matching/HostSet.swift",
        "a host table looks a parent domain up among the exact names, not the *. suffixes",
        "MatchHost.anyParentDomain(of: host, { mapped.wildcardSuffixes.contains($0) })",
        "MatchHost.anyParentDomain(of: host, { mapped.exact.contains($0) })"),
    "explain-shadow": ("Sources/NavigationPolicy/Policy/CompiledPolicy.swift",
        "explain forgets the shadow handlers that would have decided",
        "                shadow.append(ShadowResult(link.name, decision))\n                trace.append(\n",
        "                trace.append(\n"),
    "analysis-location": ("Sources/PolicyAuthoring/Analysis/HandlerOutcome.swift",
        "the analysis takes a location template for no location",
        "case (let template?, _): .template(template)",
        "case (_?, _): .none"),
    "analysis-methods": ("Sources/PolicyAuthoring/Analysis/AnalysisDomain.swift",
        "the analysis ignores match.methods",
        "box[Self.method] = matcher.methods.map { set in Self.indices(of: set, in: methods) }",
        "box[Self.method] = nil"),
    "analysis-standard-reading": ("Sources/PolicyAuthoring/Analysis/StandardReading.swift",
        "the analysis takes every urlPatterns entry to read alike in the standard reading",
        "guard let patterns = matcher.urlPatterns else { return true }",
        "guard let patterns = matcher.urlPatterns, patterns.isEmpty else { return true }"),
    "analysis-reading-tie-break": ("Sources/PolicyAuthoring/Analysis/PolicyAnalysis.swift",
        "the analysis forgets that two readings which both cancel go to the handler first in the chain",
        "            let reason = ReadingTieBreak.unknownReason(\n",
        "            false, let reason = ReadingTieBreak.unknownReason(\n"),
}
command = sys.argv[1]
if command == "names":
    print(" ".join(M))
elif command == "list":
    for name, (path, what, _, _) in M.items():
        print(f"{name:28} {path}: {what}")
elif command == "apply":
    name, base = sys.argv[2], sys.argv[3]
    path, what, old, new = M[name]
    text = open(f"{base}/{path}").read()
    if text.count(old) != 1:
        sys.exit(f"mutate-engines: {name}: the text to break occurs {text.count(old)} times in {path}; update the mutation")
    open(f"{base}/{path}", "w").write(text.replace(old, new))
    print(path)
elif command == "describe":
    print(M[sys.argv[2]][1])
PY
mutations() { python3 -c "$mutations_py" "$@"; }

if [[ ${1:-} == --list ]]; then
  mutations list
  exit 0
fi
chosen=()
if [[ ${1:-} != --baseline ]]; then read -r -a chosen <<<"${*:-$(mutations names)}"; fi

# The package: the core, the tags, the harness and its suite.
mkdir -p "$work/Sources" "$work/Tests/Support" "$work/Tests/HarnessTests"
for module in "${core_modules[@]}"; do
  rm -rf "$work/Sources/$module"
  cp -Rp "Sources/$module" "$work/Sources/"   # times kept: an unchanged file is not rebuilt
done
for support in TestSelection PolicyHarness; do
  rm -rf "$work/Tests/Support/$support"
  cp -Rp "Tests/Support/$support" "$work/Tests/Support/"
done
cp -p Tests/NavigationPolicyTests/PolicyHarnessTests.swift "$work/Tests/HarnessTests/"
cat >"$work/Package.swift.new" <<'EOF'
// swift-tools-version:6.0
// Written by scripts/mutate-engines.sh: the core, the differential harness and its suite.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "navigationpolicy-mutants",
    targets: [
        .target(name: "JSONSupport", swiftSettings: strictSettings),
        .target(name: "URLStandard", swiftSettings: strictSettings),
        .target(name: "PolicyPatterns", dependencies: ["URLStandard", "JSONSupport"], swiftSettings: strictSettings),
        .target(
            name: "NavigationPolicy", dependencies: ["URLStandard", "PolicyPatterns", "JSONSupport"],
            swiftSettings: strictSettings),
        .target(
            name: "PolicyAuthoring", dependencies: ["NavigationPolicy", "PolicyPatterns", "URLStandard", "JSONSupport"],
            swiftSettings: strictSettings),
        .target(name: "TestSelection", path: "Tests/Support/TestSelection", swiftSettings: strictSettings),
        .target(
            name: "PolicyHarness", dependencies: ["NavigationPolicy", "PolicyAuthoring", "JSONSupport"],
            path: "Tests/Support/PolicyHarness", swiftSettings: strictSettings),
        .testTarget(
            name: "HarnessTests", dependencies: ["TestSelection", "PolicyHarness", "NavigationPolicy"],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
EOF
# Only replaced when it changed, so SwiftPM does not re-resolve on every run.
if cmp -s "$work/Package.swift.new" "$work/Package.swift"; then rm "$work/Package.swift.new"; else mv "$work/Package.swift.new" "$work/Package.swift"; fi

# run LABEL: builds the package and runs the harness's suite; its log in $work/LABEL.log.
run() {
  local log="$work/$1.log"
  if ! (cd "$work" && "$swift_cmd" build --build-tests) >"$log" 2>&1; then
    echo "build-failed"
    return
  fi
  if (cd "$work" && "$swift_cmd" test --skip-build --filter PolicyHarnessTests) >>"$log" 2>&1; then
    echo "passed"
  else
    echo "failed"
  fi
}

start=$(date +%s)
baseline=$(run baseline)
if [[ $baseline != passed ]]; then
  echo "mutate-engines: the unbroken tree does not pass the harness ($baseline; see $work/baseline.log)" >&2
  exit 1
fi
echo "baseline: $(grep -m1 -o 'policy harness: .*' "$work/baseline.log" || echo passed)"

caught=0
missed=()
for name in "${chosen[@]}"; do
  file=$(mutations apply "$name" "$work")
  outcome=$(run "$name")
  cp "$file" "$work/$file"   # restored (a fresh time stamp, so the next build sees it)
  case $outcome in
    failed)
      caught=$((caught + 1))
      # The first disagreement the harness recorded (`↳ seed …: <engine> decides …` or a refuted claim).
      first=$(grep -oE '↳ [^↳]{0,220}' "$work/$name.log" | grep -v -e 'Testing Library' -e 'Target Platform' | head -1 |
        cut -c5- || true)
      echo "caught  $name: $(mutations describe "$name")${first:+ — e.g. $first}"
      ;;
    passed)
      missed+=("$name")
      echo "MISSED  $name: $(mutations describe "$name")"
      ;;
    *)
      missed+=("$name")
      echo "BROKEN  $name: the mutant does not build (see $work/$name.log)"
      ;;
  esac
done
echo "mutate-engines: ${caught} of ${#chosen[@]} mutations caught ($(($(date +%s) - start)) s)"
[[ ${#missed[@]} -eq 0 ]]
