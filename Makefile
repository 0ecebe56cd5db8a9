# navpolicyd — the two front-door commands are `make run` and `make test`.
SWIFT ?= swift
CONFIG ?= config/navpolicy.json
URL ?= https://app.example.com/logout

.PHONY: deps test-deps build release run check wasm test-wasm test test-build test-full test-core-portable embedded-check test-tsan test-asan test-release-lifetimes mutate-engines deploy-check conformance conformance-vectors lint format fuzz fuzz-url bench-http perf-gate soak clean

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test
	@scripts/grpc-test-tools.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

LISTEN ?= 127.0.0.1:8080

## run: install, build, and serve the default policy on $(LISTEN) (foreground; Ctrl-C drains and exits).
run: release
	exec .build/release/navpolicyd serve --config $(CONFIG) --listen $(LISTEN)

## check: decide one URL (make check URL=...).
check: release
	.build/release/navpolicyd check --config $(CONFIG) -- '$(URL)'

## test: install, build with warnings as errors, run every test, the shipped policy tests and the
## conformance vectors every port runs (navpolicyd test --vectors, config/conformance/README.md).
## scripts/run-tests.py chooses each suite's process by its tags (docs/testing.md): the suites that
## open no socket in one parallel process, the live ones in NAVPOLICYD_TEST_SHARDS serial processes
## at the same time; volume suites run a fixed-seed sample (make test-full runs every case).
test: test-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target test-build wasm
	scripts/run-tests.py
	.build/debug/navpolicyd test --coverage --fail-under 100 --config $(CONFIG) config/navpolicy.tests.json
	.build/debug/navpolicyd test --vectors config/conformance/*.json
	$(WASM_TESTS)
	scripts/deploy-check.sh .build/debug/navpolicyd

## test-build: the debug build `make test` runs, tests included, warnings as errors. `make test` runs
## it beside `make wasm`: the debug build keeps about one core busy on average and the WebAssembly
## build is one compiler process after another, so side by side they take the time of the longer one.
test-build:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

## wasm: the engine as WebAssembly, in dist/wasm/ (navpolicy.wasm, navpolicy.mjs, navpolicy.d.ts,
## package.json): the core's engine layers compiled with Embedded Swift from the same sources as the
## daemon (scripts/build-wasm.sh, docs/integrations/web.md).
wasm:
	@scripts/install-deps.sh wasm
	scripts/build-wasm.sh

## test-wasm: make wasm, then node's own runner over the module: every conformance vector, the bundle
## checks against `navpolicyd bundle verify`, configs and requests against `navpolicyd check` and
## `validate`, and every vector in headless Chromium (Tests/NavigationPolicyWasmTests; needs the
## debug navpolicyd that make test builds first).
WASM_TESTS = NAVPOLICYD=.build/debug/navpolicyd node --test Tests/NavigationPolicyWasmTests/
test-wasm: wasm
	$(WASM_TESTS)

## test-full: make test with every case of the volume suites (NAVPOLICYD_TEST_VOLUME=full); local, not CI.
test-full: export NAVPOLICYD_TEST_VOLUME = full
test-full: test

## mutate-engines: break one match form in one engine at a time (index, automaton, image, tables, explain,
## analysis) and check that the differential harness (PolicyHarnessTests) fails on each; local, not CI.
mutate-engines:
	scripts/mutate-engines.sh

## test-core-portable: the core's layers (URLStandard, PolicyPatterns, NavigationPolicy, PolicyAuthoring)
## + JSONSupport alone (no C targets, no other modules, imports limited to Swift/Synchronization and the
## layers below) build and pass their whole suite, as apps on iOS/Android embed them.
test-core-portable:
	scripts/check-core-portable.sh

## embedded-check: the core's layers an app links (JSONSupport, URLStandard, PolicyPatterns, NavigationPolicy)
## compile as Embedded Swift for wasm32-unknown-none-wasm, so no key path, value of protocol type or
## _StringProcessing call creeps back (docs/architecture.md, "The core as Embedded Swift"); objects only, no link;
## about 40 s of CPU.
embedded-check:
	scripts/check-embedded.sh

## deploy-check: lint deploy/ with the operators' tools (kubernetes-validate, hadolint, systemd-analyze, promtool).
deploy-check: test-deps
	$(SWIFT) build --product navpolicyd
	scripts/deploy-check.sh .build/debug/navpolicyd

## conformance: docs/openapi.yaml checked with openapi-spec-validator, then schemathesis (pinned, fixed
## seed, bounded examples, every check) against a live daemon without and with tokens; any failure fails.
conformance: test-deps
	# The flags of `make test`, so after it (as in .ci/run) this build has nothing to do.
	$(SWIFT) build --product navpolicyd -Xswiftc -warnings-as-errors
	scripts/conformance.sh .build/debug/navpolicyd

## conformance-vectors: regenerate config/conformance/*.json (the decision vectors every port of the
## engine must pass) from the engine; the suite fails when the committed files differ.
conformance-vectors:
	$(SWIFT) build --product navpolicyd
	scripts/generate-conformance.py --binary .build/debug/navpolicyd

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests FuzzTesting/Sources
	scripts/generate-sanitizer-locks.sh --check

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests FuzzTesting/Sources

## perf-gate: instructions and heap allocations per decision (callgrind, bench/malloc-count.c) on the
## default policy and four representative ones against bench/budgets.json;
## a figure over its budget fails with the figure (bench/instruction-gate.py, docs/performance.md).
## Its binary is the optimized test build's (below), so after test-release-lifetimes (as in .ci/run)
## it builds nothing: -enable-testing changes the counts by under 2%, and no figure is higher than
## in `make release`'s binary (docs/performance.md, "The instruction gate").
## Then the WebAssembly module's decision rate against native in the same run, each ratio above its
## floor (bench/wasm.sh GATE=1; docs/performance.md, "The WebAssembly floor").
perf-gate: test-deps wasm
	@scripts/install-deps.sh perf
	$(RELEASE_TESTING_BUILD)
	bench/instruction-gate.py .build/release-testing/release/navpolicyd
	GATE=1 ROUNDS=3 DECISIONS=300000 BIN=.build/release-testing/release/navpolicyd bash bench/wasm.sh

## test-release-lifetimes: the suites tagged `optimized` in an optimized build: the object-lifetime
## tests, the only place where the leak of issue 12 (releases dropped in a loop without exit) shows,
## and where a buffer or context lent to libmicrohttpd by raw pointer could be released too early;
## and the decision log's allocation count (DecisionLogCostLiveTests), which only an optimized daemon
## says anything about. Own scratch path: -enable-testing and the test bundle make it a different
## build from `make release`. The library code is optimized; the test targets are not (Package.swift).
RELEASE_TESTING_BUILD = $(SWIFT) build -c release --build-tests --scratch-path .build/release-testing -Xswiftc -enable-testing
test-release-lifetimes: test-deps
	$(RELEASE_TESTING_BUILD)
	scripts/run-tests.py --select optimized -c release --scratch-path .build/release-testing

## test-asan / test-tsan: the suites tagged `sanitizerRelevant` (the code with concurrency or C interop,
## and a live smoke per listener; docs/testing.md) with AddressSanitizer / ThreadSanitizer (own scratch
## paths); the live tests start the sanitized navpolicyd, whose reports land in .build/{asan,tsan}/reports.
test-asan: test-deps
	scripts/sanitized-test.sh address

test-tsan: test-deps
	scripts/sanitized-test.sh thread

FUZZ_SECONDS ?= 30

## fuzz: build the libFuzzer targets (FuzzTesting/) with ASan and run each for FUZZ_SECONDS seconds.
fuzz: test-deps
	FuzzTesting/fuzz.sh $(FUZZ_SECONDS)

## fuzz-url: differential fuzzing of the URL parser against ada-url (needs network access to PyPI once).
fuzz-url: build
	python3 -m pip install --quiet ada-url
	python3 scripts/url-differential-fuzz.py --binary .build/debug/navpolicyd --count 20000

## bench-http: wrk against navpolicyd, nginx and a C libmicrohttpd server in the same run (see bench/README.md).
bench-http:
	bench/http.sh

SOAK_SECONDS ?= 600

## soak: mixed load for SOAK_SECONDS on loopback; CSV, PNG plot and pass criteria (bench/soak.sh).
soak:
	bench/soak.sh $(SOAK_SECONDS)

clean:
	rm -rf .build
