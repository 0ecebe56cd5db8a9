#!/usr/bin/env bash
# Builds the policy engine as WebAssembly into dist/wasm/ (make wasm; issue 43, docs/integrations/web.md):
#
#   navpolicy.wasm        the core's engine layers (JSONSupport, URLStandard, PolicyPatterns,
#                         NavigationPolicy), the daemon's config sections (ConnectionSharing,
#                         PolicySections) and the exports module (Sources/NavigationPolicyWasm),
#                         compiled with Embedded Swift for wasm32 from the same sources as the daemon
#   navpolicy.mjs         the ES module that loads it (browsers, node, Electron, workers)
#   navpolicy-engine.mjs  the same without top-level await (service workers)
#   navpolicy.d.ts, package.json
#
# Each Swift module is compiled whole-module with Embedded Swift (-wmo, no runtime metadata),
# in layer order, to LLVM bitcode in .build/wasm/<flags>/; then wasm-ld optimizes and generates
# code for all of them at once (link-time optimization) and links them with wasi-libc (malloc,
# strtod), compiler-rt's builtins (128-bit multiply, the long double strtod computes in), the
# embedded standard library's Unicode tables, and the C shims (Sources/NavigationPolicyWasm/Shims);
# then Binaryen's wasm-opt shrinks it. The link also writes .build/wasm/<flags>/navpolicy.map
# (wasm-ld -Map: each function's and literal's size, where the bytes go).
# The layers are the ones scripts/check-embedded.sh (make embedded-check) compiles, but not its
# objects: that check builds them -Onone -enable-testing to report every refused construct fast;
# this build optimizes them for size and links them.
# The exports module also compiles the app client's bundle checks (BundleDocument, …) from
# Sources/NavigationPolicyClient, so a bundle is read by the very code the Swift client runs.
#
# Usage: scripts/build-wasm.sh   (SWIFT_OPTIMIZATION=-O for speed over size, default -Osize;
#        SWIFT_LTO= for objects linked as compiled, default llvm-full: docs/performance.md;
#        WASM_BENCH=1 also compiles bench/wasm-engine-loop.swift, an export that decides in a
#        loop inside the module, and writes to .build/wasm-bench/dist instead of dist/wasm:
#        bench/wasm.sh's engine-alone figure, never shipped)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
optimization=${SWIFT_OPTIMIZATION:--Osize}
# Link-time optimization: compiled one by one, each module carries its own copy of every generic
# specialization and inlined helper it uses, and no module can drop what no other one calls; one
# optimization over all of them merges and strips those across modules (docs/performance.md).
lto=${SWIFT_LTO-llvm-full}
bench=${WASM_BENCH:-}
[[ -z $bench || $bench == 1 ]] || { echo "build-wasm: WASM_BENCH is 1 or unset" >&2; exit 2; }
# One folder per flag set, so a build with other flags never links objects compiled with these.
work="$root/.build/wasm/${optimization#-}${lto:+-$lto}${bench:+-bench}"
out="$root/dist/wasm"
[[ -z $bench ]] || out="$root/.build/wasm-bench/dist"
wasi=/usr/lib/wasm32-wasi
builtins=$(ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a 2>/dev/null | sort -V | tail -1 || true)
unicode="$toolchain/lib/swift/embedded/wasm32-unknown-none-wasm/libswiftUnicodeDataTables.a"
# The shadow stack: first in memory (--stack-first), so an overflow runs below address 0 and
# traps instead of writing over the heap's data; 1 MiB holds every recursion the engine allows
# (a regexp's 100 nested groups, a config's 64 nested JSON levels: tests/stack.test.mjs).
stack_bytes=${WASM_STACK_BYTES:-1048576}

for need in "$wasi/libc.a" "$wasi/crt1-reactor.o" "$unicode" "$(command -v wasm-opt || echo wasm-opt)"; do
  [[ -e $need ]] || { echo "build-wasm: $need is missing (scripts/install-deps.sh wasm)" >&2; exit 2; }
done
[[ -n $builtins ]] || { echo "build-wasm: compiler-rt's wasm32 builtins are missing (scripts/install-deps.sh wasm)" >&2; exit 2; }
mkdir -p "$work" "$out"

# The flags of the package's targets (Package.swift strictSettings) and of Embedded Swift.
swift_flags=(
  -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded -wmo "$optimization"
  -parse-as-library -swift-version 6 -package-name navpolicyd
  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -Xfrontend -disable-stack-protector -I "$work" -warnings-as-errors ${lto:+-lto=$lto}
)

# compile MODULE FILE...: one module's object and .swiftmodule, unless the object is newer than
# its sources and every object compiled before it (the modules it may import). After a change of
# the flags in swift_flags, rm -rf .build/wasm.
built=()
compile() {
  local module=$1
  shift
  local input
  if [[ -e $work/$module.o ]]; then
    for input in "$@" "${built[@]}"; do
      [[ $input -nt $work/$module.o ]] && break
      input=
    done
    if [[ -z $input ]]; then
      built+=("$work/$module.o")
      return
    fi
  fi
  swiftc "${swift_flags[@]}" -module-name "$module" -emit-module -emit-module-path "$work/$module.swiftmodule" \
    -c -o "$work/$module.o" "$@"
  built+=("$work/$module.o")
}

sources() { find "Sources/$1" -name '*.swift' | sort; }

# PolicySections (with ConnectionSharing, which it checks connection limits with) holds the
# daemon's config sections and their validators: fromConfig refuses what `navpolicyd validate` refuses.
for module in JSONSupport URLStandard PolicyPatterns NavigationPolicy ConnectionSharing PolicySections; do
  mapfile -t files < <(sources "$module")
  compile "$module" "${files[@]}"
done
# The client's bundle checks, compiled into the exports module (they need no Foundation).
client_files=(BundleDocument.swift BundleKeyChoice.swift BundleRejection.swift BundleSigningHead.swift BundleText.swift CompiledBundleHead.swift)
mapfile -t files < <(sources NavigationPolicyWasm)
[[ -z $bench ]] || files+=(bench/wasm-engine-loop.swift)
compile NavigationPolicyWasm "${files[@]}" "${client_files[@]/#/Sources/NavigationPolicyClient/}"
# Debian's wasi-libc headers are in /usr/include/wasm32-wasi, where clang's WASI driver looks under --sysroot=/usr.
"$toolchain/bin/clang" --target=wasm32-wasi --sysroot=/usr -O2 \
  -Wall -Werror -c Sources/NavigationPolicyWasm/Shims/wasm-shims.c -o "$work/wasm-shims.o"

"$toolchain/bin/wasm-ld" \
  "$work"/{JSONSupport,URLStandard,PolicyPatterns,NavigationPolicy,ConnectionSharing,PolicySections,NavigationPolicyWasm,wasm-shims}.o \
  "$wasi/crt1-reactor.o" -L"$wasi" -lc "$unicode" "$builtins" \
  --no-entry --export=_initialize -z stack-size="$stack_bytes" --stack-first --gc-sections --strip-all \
  -Map="$work/navpolicy.map" -o "$work/navpolicy.wasm"
# Binaryen's size passes over the linked module: 1.43 MB → 1.25 MB at -Osize, as fast (docs/performance.md).
wasm-opt -Oz --enable-bulk-memory --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int \
  "$work/navpolicy.wasm" -o "$out/navpolicy.wasm"

javascript=Sources/NavigationPolicyWasm/JavaScript
cp "$javascript/navpolicy.mjs" "$javascript/navpolicy-engine.mjs" "$javascript/navpolicy.d.ts" "$out/"
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/NavpolicydCommands/CommandLineTool.swift)
sed "s/@VERSION@/$version/" "$javascript/package.json.in" > "$out/package.json"
size=$(stat -c %s "$out/navpolicy.wasm")
gzipped=$(gzip -9 -c "$out/navpolicy.wasm" | wc -c)
echo "${out#"$root/"}/navpolicy.wasm: $size bytes, $gzipped gzipped ($optimization${lto:+, LTO $lto}${bench:+, with the bench export})"
