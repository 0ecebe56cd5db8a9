#!/usr/bin/env bash
# The policy core builds and passes its whole test suite with no C and no platform module.
#
# Apps embed `NavigationPolicy` (issue 15) on iOS, macOS and Android, where none of the daemon's
# C libraries exist. The core is four layers (issue 39, docs/architecture.md): URLStandard,
# PolicyPatterns, NavigationPolicy (the engine) and PolicyAuthoring, over JSONSupport. This builds
# them in a throwaway package that contains only their sources and Tests/NavigationPolicyTests, so
# no C target and no other module can be in the graph, runs the tests there, and fails if a
# source file of a core module imports anything but the standard library, Synchronization and
# the core modules below its own layer (Foundation, Glibc, Musl, Darwin, Android and Dispatch
# differ or are missing across those platforms; a layer importing one above it would be a cycle
# the build reports less clearly). Tests may use Foundation: every platform the apps target ships
# it, and the tests never ship.
#
# The package lives in .build/core-portable (cp -a keeps file times, so a second run rebuilds only
# what changed). Usage: scripts/check-core-portable.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work="$root/.build/core-portable"
swift_cmd=${SWIFT:-swift}
start=$(date +%s)

# The core's modules are named here once; what each may import (the layers below it) and the
# throwaway package's targets are read from Package.swift, so the layering is declared in one
# place and this check cannot drift from it. A core module depending on anything outside the core
# (a C target, the daemon) fails here.
core_modules=(JSONSupport URLStandard PolicyPatterns NavigationPolicy PolicyAuthoring ConnectionSharing PolicySections)
core_tests=NavigationPolicyTests
read -r -d '' graph_script <<'PY' || true
import json, sys
tests, core = sys.argv[1], sys.argv[2:]
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
# The test-only libraries the core's tests use: the tags, and the differential harness over the core's engines.
support = {"TestSelection", "PolicyHarness"}
allowed = set(core) | support
def direct(name):
    deps = targets[name].get("target_dependencies") or []
    outside = [d for d in deps if d not in allowed or (d in support and name not in (tests, "PolicyHarness"))]
    if outside or targets[name].get("product_dependencies"):
        sys.exit(f"core-portable: {name} depends on {outside or targets[name]['product_dependencies']}, outside the core")
    return deps
def below(name):
    seen, stack = [], list(direct(name))
    while stack:
        dep = stack.pop()
        if dep not in seen:
            seen.append(dep)
            stack.extend(direct(dep))
    return seen
# "below MODULE A|B" lines for the import check, then the manifest's target lines.
for name in core:
    print("below", name, "|".join(below(name)))
quoted = lambda names: ", ".join(f'"{n}"' for n in names)
for name in core:
    print(f'        .target(name: "{name}", dependencies: [{quoted(direct(name))}], swiftSettings: strictSettings),')
print('        .target(name: "TestSelection", path: "Tests/Support/TestSelection", swiftSettings: strictSettings),')
print(f'        .target(name: "PolicyHarness", dependencies: [{quoted(direct("PolicyHarness"))}], path: "Tests/Support/PolicyHarness", swiftSettings: strictSettings),')
print(f'        .testTarget(name: "{tests}", dependencies: [{quoted(direct(tests))}], resources: [.copy("Resources")], swiftSettings: strictSettings),')
PY
graph=$("$swift_cmd" package describe --type json | python3 -c "$graph_script" "$core_tests" "${core_modules[@]}")
declare -A below=()
while read -r word module layers; do if [[ $word == below ]]; then below[$module]=$layers; fi; done <<<"$graph"
manifest_targets=$(grep -v '^below ' <<<"$graph")

# 1. Imports: only the standard library (implicit), Synchronization and the layers below.
core_dirs=()
for module in "${core_modules[@]}"; do core_dirs+=("Sources/$module"); done
bad=0
for module in "${core_modules[@]}"; do
  allowed="^(Swift|Synchronization${below[$module]:+|${below[$module]}})\$"
  while IFS= read -r line; do
    file=${line%%:*}
    rest=${line#*:}
    number=${rest%%:*}
    text=${rest#*:}
    imported=$(sed -E 's/^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\7/' <<<"$text")
    if ! [[ $imported =~ $allowed ]]; then
      echo "core-portable: $file:$number imports $imported (a core module may import only Swift, Synchronization and the core layers below it: ${below[$module]:-none})" >&2
      bad=1
    fi
  done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]' \
    --include='*.swift' "Sources/$module" || true)
done
# `canImport` would let a file compile differently per platform and hide a platform module.
if grep -rn 'canImport' --include='*.swift' "${core_dirs[@]}" >&2; then
  echo "core-portable: the core must not branch on canImport" >&2
  bad=1
fi
[[ $bad -eq 0 ]] || exit 1

# 2. A package with only the core and its tests.
mkdir -p "$work"
rm -rf "$work/Sources" "$work/Tests"
mkdir -p "$work/Sources" "$work/Tests"
cp -a "${core_dirs[@]}" "$work/Sources/"
cp -a Tests/NavigationPolicyTests "$work/Tests/"
# The tests' tags and volume knob, and the differential harness (test-only libraries).
mkdir -p "$work/Tests/Support"
cp -a Tests/Support/TestSelection Tests/Support/PolicyHarness "$work/Tests/Support/"
cat >"$work/Package.swift.new" <<EOF
// swift-tools-version:6.0
// Written by scripts/check-core-portable.sh: the core alone, no C targets, no other modules.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "navigationpolicy-core",
    products: [.library(name: "NavigationPolicy", targets: ["NavigationPolicy"])],
    targets: [
$manifest_targets
    ],
    swiftLanguageModes: [.v6]
)
EOF
# Only replace the manifest when it changed, so SwiftPM does not re-resolve on every run.
if ! cmp -s "$work/Package.swift.new" "$work/Package.swift"; then mv "$work/Package.swift.new" "$work/Package.swift"; else rm "$work/Package.swift.new"; fi

# 3. The graph really is just these targets (a manifest edit above cannot sneak one in).
targets=$(cd "$work" && "$swift_cmd" package describe --type json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted(t["name"] + ":" + t["type"] for t in d["targets"])))
print(" ".join(sorted(d.get("dependencies", []) and ["has-dependencies"] or [])))')
expected=$(printf '%s\n' "${core_modules[@]/%/:library}" "TestSelection:library" "PolicyHarness:library" "$core_tests:test" | LC_ALL=C sort | tr '\n' ' ')
expected=${expected% }
if [[ "$(head -1 <<<"$targets")" != "$expected" || -n "$(sed -n 2p <<<"$targets")" ]]; then
  echo "core-portable: unexpected package graph: $targets" >&2
  exit 1
fi

# 4. Build without warnings and run the whole core suite (in parallel: it opens no socket; its
# volume suites run their fixed-seed sample unless NAVPOLICYD_TEST_VOLUME=full).
(cd "$work" && "$swift_cmd" build --build-tests -Xswiftc -warnings-as-errors && "$swift_cmd" test --skip-build)
echo "core-portable: the core layers (${core_modules[*]}) build and pass their tests alone ($(($(date +%s) - start)) s)"
