#!/usr/bin/env bash
# The engine compiles as Embedded Swift for WebAssembly (issue 43), from the sources the daemon and
# the apps build: a check that key paths, values of protocol type (`any P`), metatypes of protocols,
# `Mirror`, Foundation and the `_StringProcessing` string APIs cannot creep back into the core.
#
# The core's layers that an app and the WebAssembly build link (JSONSupport, URLStandard,
# PolicyPatterns, NavigationPolicy, and the daemon's config sections in ConnectionSharing and
# PolicySections, which the WebAssembly build validates configs with; not PolicyAuthoring, which
# only helps write a policy) are
# compiled one module at a time, lowest first, as Package.swift layers them, for
# `-target wasm32-unknown-none-wasm -enable-experimental-feature Embedded -wmo`, to objects (no
# link: the WebAssembly package's build links, with -Osize). Two flags differ from that build, on
# purpose: `-Onone`, since Embedded Swift reports what it refuses in its mandatory passes whatever
# the optimization (NavigationPolicy takes 21 s of CPU instead of 51 s with -Osize), and
# `-enable-testing`, which keeps internal functions that nothing in the module calls yet: without
# it they are dropped before they are checked, and a key path in one would only fail once used.
# The Embedded standard library ships with the toolchain, so nothing is installed. The rules the
# core follows are in docs/architecture.md ("The core as Embedded Swift").
#
# Objects and module files go to .build/embedded. Usage: scripts/check-embedded.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swiftc_cmd=${SWIFTC:-swiftc}
out=.build/embedded
start=$(date +%s)

# Lowest first: each module imports only those before it (Package.swift's dependencies).
layers=(JSONSupport URLStandard PolicyPatterns NavigationPolicy ConnectionSharing PolicySections)
flags=(
  -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded
  -wmo -Onone -enable-testing -parse-as-library
  # The embedded runtime has no stack-protector symbols (__stack_chk_guard) to link against.
  -Xfrontend -disable-stack-protector
  # The package's settings (Package.swift's strictSettings, Swift 6 mode, `package` access).
  -swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -package-name navpolicyd
  -warnings-as-errors
  -I "$out"
)
mkdir -p "$out"
for layer in "${layers[@]}"; do
  mapfile -t sources < <(find "Sources/$layer" -name '*.swift' | LC_ALL=C sort)
  if ! "$swiftc_cmd" "${flags[@]}" -module-name "$layer" -emit-module -emit-module-path "$out/$layer.swiftmodule" \
    -c "${sources[@]}" -o "$out/$layer.o"; then
    echo "embedded-check: $layer does not compile as Embedded Swift; the rules are in docs/architecture.md (\"The core as Embedded Swift\")" >&2
    exit 1
  fi
done
echo "embedded-check: ${layers[*]} compile as Embedded Swift for wasm32-unknown-none-wasm ($(($(date +%s) - start)) s)"
