#!/usr/bin/env bash
# Installs the Debian packages navpolicyd builds and tests with, skipping those already present.
# Usage: scripts/install-deps.sh [build|test|perf|bench|wasm]   (test adds the tools the live tests drive;
#   perf what the instruction gate, make perf-gate, counts with; bench adds all of those and the
#   references bench/*.sh measure with; wasm what make wasm builds the WebAssembly engine with)
set -euo pipefail

build_packages=(pkg-config libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev libpq-dev libsodium-dev libnghttp2-dev)
# binutils: readelf for ShippedDependenciesTests; python3-yaml: scripts/check-deploy-manifests.py;
# python3-venv, systemd, prometheus: make deploy-check (venv for the PyPI linters, systemd-analyze, promtool);
# python3-venv also for make conformance (schemathesis and openapi-spec-validator from PyPI);
# bash, zsh, fish, man-db, groff-base: CommandLineTests check the generated completions and man page.
# prometheus: promtool on the live /metrics in VisibilityTests; logrotate: the shipped deploy/logrotate file, run for real.
# postgresql: the throwaway cluster the PostgreSQL intake tests and bench/intake.sh start.
# openssl: generates Ed25519 bundle keys and verifies bundle signatures independently of libsodium.
test_packages=(curl python3 nginx-light chromium binutils python3-yaml python3-venv systemd prometheus logrotate
  bash zsh fish man-db groff-base postgresql openssl)
# make wasm (scripts/build-wasm.sh, issue 43): wasi-libc (malloc, strtod for the module) and compiler-rt's
# wasm32 builtins (128-bit multiply, the long double strtod computes in); the Swift toolchain brings
# the compiler, wasm-ld and the embedded standard library. binaryen: wasm-opt shrinks the linked
# module. nodejs runs the module's node --test suites (chromium, in the test list, its browser test).
wasm_packages=(wasi-libc libclang-rt-dev-wasm32 binaryen nodejs)
# bench/: wrk drives every throughput run; privoxy is bench/proxy.sh's cancel reference and squid
# bench/connect-tunnel.sh's CONNECT reference (nginx-light,
# from the test list, is the origin and the other references); valgrind counts instructions
# (bench/proxy-count.sh instructions, callgrind profiles); linux-perf for the sweep's task-clock and
# `perf record`; gcc builds bench/malloc-count.c and bench/mhd-reference.c; shellcheck lints the
# bench scripts (bench/http.sh, budget.sh and the lib-http.sh they source).
# nghttp2-client: h2load drives the ext_authz gRPC listener's unary Check calls (bench/ext-authz-grpc.sh).
bench_packages=(wrk privoxy squid valgrind linux-perf gcc shellcheck nghttp2-client)
# make perf-gate (bench/instruction-gate.py): valgrind's callgrind counts the instructions, gcc
# builds the allocation counter bench/malloc-count.c, binutils' strip makes the copy valgrind
# reads, python3 runs the gate; bench/proxy-count.sh (the proxy's rows) adds nginx-light (the
# origin) and curl (the client).
perf_packages=(valgrind gcc binutils python3 nginx-light curl)

wanted=("${build_packages[@]}")
case "${1:-build}" in
  test) wanted+=("${test_packages[@]}" "${wasm_packages[@]}") ;;
  perf) wanted+=("${perf_packages[@]}") ;;
  bench) wanted+=("${test_packages[@]}" "${wasm_packages[@]}" "${bench_packages[@]}") ;;
  wasm) wanted+=("${wasm_packages[@]}") ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
