// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Test code is not optimized, in any configuration. The optimized test build
// (make test-release-lifetimes, whose binary make perf-gate measures too) exists to optimize the
// library code the tests drive: that is where the optimizer may end a lifetime early. Optimizing
// the test targets themselves cost most of that build's time and tests nothing the product runs.
let testSettings: [SwiftSetting] = strictSettings + [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "navpolicyd",
    products: [
        .executable(name: "navpolicyd", targets: ["navpolicyd"]),
        .library(name: "NavigationPolicy", targets: ["NavigationPolicy"]),
        .library(name: "NavigationPolicyClient", targets: ["NavigationPolicyClient"]),
        .library(name: "NavigationPolicyClientSodium", targets: ["NavigationPolicyClientSodium"]),
    ],
    targets: [
        // Pure Swift JSON value, parser and writer shared by the core and the front ends.
        .target(name: "JSONSupport", swiftSettings: strictSettings),

        // The policy core, in layers (docs/architecture.md); every layer is pure Swift: no I/O, no C
        // (scripts/check-core-portable.sh). Lowest first:
        // the WHATWG URL Standard's parser and records, and UTS #46 IDNA on generated Unicode tables.
        .target(name: "URLStandard", dependencies: ["JSONSupport"], swiftSettings: strictSettings),
        // The patterns a policy is written in: the linear-time ECMAScript regex subset, URLPattern,
        // and the path match form (MatchPath) both compare against.
        .target(name: "PolicyPatterns", dependencies: ["URLStandard", "JSONSupport"], swiftSettings: strictSettings),
        // The engine: request model, matching, handlers, config compiler, the chain and the compiled
        // image it decides from. Re-exports the two layers below, so `import NavigationPolicy` is
        // all an app or the daemon writes.
        .target(
            name: "NavigationPolicy", dependencies: ["URLStandard", "PolicyPatterns", "JSONSupport"],
            swiftSettings: strictSettings),
        // The authoring tools above the engine: reachability analysis, lint, diff and coverage. The
        // daemon and the command line link it; an app does not (NavigationPolicyClient).
        .target(
            name: "PolicyAuthoring", dependencies: ["NavigationPolicy", "PolicyPatterns", "URLStandard", "JSONSupport"],
            swiftSettings: strictSettings),

        // The engine inside an app (issue 15): policy bundles from the daemon (ETag, signature,
        // last good copy on disk), local decisions, and the platform-independent app glue.
        // Foundation only on Apple platforms and Android; on Linux also libcurl, its own bundle
        // transport (corelibs URLSession cannot bound a hostile answer: CurlBundleDownload).
        .target(
            name: "NavigationPolicyClient",
            dependencies: ["NavigationPolicy", "JSONSupport", .target(name: "CCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: strictSettings),

        // The daemon's config sections beside the chain (server, intake, decisionLog, proxy,
        // extAuthz): their settings and validation rules, pure, so a core-only build (WebAssembly,
        // an app) refuses exactly the configs the daemon refuses (DaemonConfigSections).
        .target(
            name: "PolicySections", dependencies: ["NavigationPolicy", "URLStandard", "JSONSupport", "ConnectionSharing"],
            swiftSettings: strictSettings),

        // The HTTP model every transport serves: the request, the response (typed status, one body
        // enum), header fields, streamed bodies, and the one responder protocol with its result;
        // shared by the server, the proxy's origin client and any other transport, so that none
        // depends on another.
        .target(name: "HTTPTypes", dependencies: ["JSONSupport", "LockSupport"], swiftSettings: strictSettings),
        // A pthread lock with Mutex's shape: what `Mutex` means in sanitizer builds (TSan cannot see
        // Synchronization.Mutex's futex calls on Linux; see Sources/LockSupport).
        .target(name: "LockSupport", swiftSettings: strictSettings),

        // The fair share of a listener's connections between client networks (IPv4 /24, IPv6 /64):
        // one pure rule that the HTTP listeners and the gRPC listener both apply at accept.
        .target(name: "ConnectionSharing", swiftSettings: strictSettings),

        // The one socket layer under every listener and the CONNECT tunnel: IP addresses parsed
        // and printed, listen sockets bound (SO_REUSEADDR, dual-stack IPv6) or adopted from
        // systemd, stopped, accepted from, and outgoing connects; the system calls in a tiny C shim.
        .target(name: "CSockets"),
        .target(name: "NetworkSockets", dependencies: ["CSockets"], swiftSettings: strictSettings),

        // libmicrohttpd, its non-variadic C shim, and a Swift HTTP server on top that knows nothing of policies.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CMHDShim", dependencies: ["CMicroHTTPD", "CSockets"]),
        .target(
            name: "HTTPServer",
            dependencies: [
                "CMicroHTTPD", "CMHDShim", "CSockets", "NetworkSockets", "ConnectionSharing", "HTTPTypes", "JSONSupport",
                "LockSupport",
            ],
            swiftSettings: strictSettings),

        // SQLite for the durable share-intake store.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libpq for the PostgreSQL intake store that several replicas share.
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Share intake: payload formats, web-URL rules, the IntakeStore protocol, its SQLite and PostgreSQL stores.
        .target(
            name: "ShareIntake",
            dependencies: ["NavigationPolicy", "PolicySections", "JSONSupport", "CSQLite", "CPostgres", "LockSupport"],
            swiftSettings: strictSettings),

        // libcurl (typed setopt wrappers in the module's header) and the proxy's origin client on top.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // splice(2) for the CONNECT tunnel's relay (Glibc hides it behind _GNU_SOURCE); its sockets
        // are NetworkSockets'.
        .target(name: "CTunnel"),
        .target(
            name: "PolicyProxy", dependencies: ["CCurl", "CTunnel", "NetworkSockets", "HTTPTypes", "LockSupport"],
            swiftSettings: strictSettings),

        // libsodium: Ed25519 for signed policy bundles and SHA-256 (the one crypto library, from Debian).
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // Ed25519 signing and verification of policy bundles, and the key formats (PEM PKCS#8
        // private keys, raw/base64 public keys), and SHA-256 for policy revisions; shared by the
        // daemon, the command line and the client's tests.
        .target(name: "BundleSigning", dependencies: ["CSodium", "PolicySections"], swiftSettings: strictSettings),
        // The client's signature check with libsodium (apps on Apple platforms use CryptoKit instead).
        .target(
            name: "NavigationPolicyClientSodium", dependencies: ["NavigationPolicyClient", "BundleSigning"],
            swiftSettings: strictSettings),

        // libnghttp2 (HTTP/2 framing, HPACK, flow control) and the unary gRPC server on top of it
        // that the Envoy ext_authz gRPC listener runs (h2c); knows nothing of policies.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .target(
            name: "GRPCServer", dependencies: ["CNGHTTP2", "ConnectionSharing", "NetworkSockets", "LockSupport", "HTTPTypes"],
            swiftSettings: strictSettings),
        // The protobuf messages of Envoy's ext_authz gRPC API and the gRPC health protocol: a strict
        // pure-Swift codec for exactly the fields the listener reads and writes (fuzzed on its own).
        .target(name: "ExtAuthzProtocol", swiftSettings: strictSettings),

        // The daemon: policy store and reload, HTTP API, share intake endpoints, metrics, logs.
        .target(
            name: "PolicyService",
            dependencies: [
                "NavigationPolicy", "PolicyAuthoring", "PolicySections", "HTTPServer", "JSONSupport", "ShareIntake",
                "PolicyProxy", "LockSupport", "BundleSigning", "GRPCServer", "ExtAuthzProtocol", "NetworkSockets",
                // `policySource`: libcurl fetches, and the app client's checks of a pulled bundle.
                "CCurl", "NavigationPolicyClient", "NavigationPolicyClientSodium",
            ],
            swiftSettings: strictSettings),
        // The command-line front end: every command declared once (options, help, man page,
        // completions derived from the declarations), parsed and validated in-process.
        .target(
            name: "NavpolicydCommands",
            dependencies: [
                "NavigationPolicy", "PolicyAuthoring", "PolicyService", "JSONSupport", "ShareIntake", "BundleSigning",
                "NavigationPolicyClient", "NavigationPolicyClientSodium", "LockSupport",
            ],
            swiftSettings: strictSettings),
        // The executable: only hands its arguments to NavpolicydCommands.
        .executableTarget(name: "navpolicyd", dependencies: ["NavpolicydCommands"], swiftSettings: strictSettings),
        // The app client as docs/integrations/ios.md sets it up, measured (peak RSS, launch to
        // first decision) by bench/client-memory.sh and run by ClientFileBackedLiveTests from
        // beside the navpolicyd under test (`swift build --build-tests` builds both).
        .executableTarget(
            name: "ClientMemoryBench", dependencies: ["NavigationPolicyClient", "NavigationPolicyClientSodium"],
            path: "bench/ClientMemoryBench", swiftSettings: strictSettings),

        // The per-process scratch directory the test targets that write files share (not a test
        // target itself: a library only test targets depend on).
        .target(name: "TestScratchSupport", path: "Tests/Support/TestScratchSupport", swiftSettings: strictSettings),
        // The tags that choose where a suite runs and the volume suites' size knob (docs/testing.md);
        // every test target depends on it, so a tag means the same in all of them.
        .target(name: "TestSelection", path: "Tests/Support/TestSelection", swiftSettings: strictSettings),
        // The differential harness (issue 40): seeded random policies and requests decided by every
        // engine and held to the linear scan, and the analysis's claims held to the engine. A library
        // so the core's tests, the client's tests and the fuzz target share it; the client's adapter
        // is apart, since the core's tests build without Foundation's networking.
        .target(
            name: "PolicyHarness", dependencies: ["NavigationPolicy", "PolicyAuthoring", "JSONSupport"],
            path: "Tests/Support/PolicyHarness", swiftSettings: strictSettings),
        .target(
            name: "PolicyHarnessClient", dependencies: ["PolicyHarness", "NavigationPolicy", "NavigationPolicyClient"],
            path: "Tests/Support/PolicyHarnessClient", swiftSettings: strictSettings),

        // Resources: the WPT URL and IDNA conformance data (provenance in Resources/README-*.txt).
        .testTarget(
            name: "NavigationPolicyTests",
            dependencies: [
                "TestSelection", "URLStandard", "PolicyPatterns", "NavigationPolicy", "PolicyAuthoring", "JSONSupport",
                "PolicyHarness",
            ],
            resources: [.copy("Resources")], swiftSettings: testSettings),
        .testTarget(
            name: "NavigationPolicyClientTests",
            dependencies: [
                "TestSelection", "NavigationPolicyClient", "NavigationPolicy", "JSONSupport", "PolicyHarness",
                "PolicyHarnessClient",
            ],
            swiftSettings: testSettings),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["TestSelection", "HTTPServer", "CMicroHTTPD", "JSONSupport", "LockSupport", "NetworkSockets"],
            swiftSettings: testSettings),
        .testTarget(
            name: "PolicyProxyTests", dependencies: ["TestSelection", "PolicyProxy", "HTTPServer"], swiftSettings: testSettings),
        // The ext_authz protobuf codec against bytes from the real Python protobuf, and the gRPC
        // server's per-stream rules; no sockets.
        .testTarget(
            name: "ExtAuthzGRPCTests", dependencies: ["TestSelection", "ExtAuthzProtocol", "GRPCServer", "HTTPTypes"],
            swiftSettings: testSettings),
        // NavigationPolicy for its plain-Swift BLAKE2b, held to libsodium's (BLAKE2bDifferentialTests).
        .testTarget(
            name: "BundleSigningTests", dependencies: ["TestSelection", "BundleSigning", "NavigationPolicy"],
            swiftSettings: testSettings),
        .testTarget(
            name: "ShareIntakeTests",
            dependencies: [
                "TestSelection", "ShareIntake", "NavigationPolicy", "JSONSupport", "CSQLite", "LockSupport", "TestScratchSupport",
            ],
            swiftSettings: testSettings),
        // The service layer driven in-process with HTTPRequest values: no sockets, so it runs in parallel.
        .testTarget(
            name: "PolicyServiceTests",
            dependencies: [
                "TestSelection",
                "PolicyService", "PolicySections", "HTTPServer", "NavigationPolicy", "JSONSupport", "ShareIntake",
                "BundleSigning", "TestScratchSupport", "LockSupport", "ExtAuthzProtocol", "GRPCServer",
                "NavigationPolicyClient", "NavigationPolicyClientSodium",
            ],
            swiftSettings: testSettings),
        // The command line parsed, validated and rendered in-process: no process is started.
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "TestSelection", "NavpolicydCommands", "NavigationPolicy", "PolicyService", "LockSupport", "TestScratchSupport",
            ],
            swiftSettings: testSettings),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "TestSelection",
                "navpolicyd", "PolicyService", "ShareIntake", "JSONSupport", "CSQLite", "LockSupport", "NavigationPolicy",
                "NavigationPolicyClient", "NavigationPolicyClientSodium", "BundleSigning", "TestScratchSupport",
            ],
            swiftSettings: testSettings),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (FuzzTesting/), one per parser that reads bytes from outside. They exist only
// when NAVPOLICYD_FUZZ is set, so `swift build` and `make test` never see them; `make fuzz`
// sets it and builds them with the fuzzer and address sanitizers in their own scratch path.
// They live in this package, not a separate one, so that they reach the few internal entry points
// they need (the request-head checks, the match forms, the linear chain) through `package`
// access instead of making those public API and exporting a library product per module.
if Context.environment["NAVPOLICYD_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzURL", ["NavigationPolicy", "URLStandard"]),
        ("FuzzDecide", ["NavigationPolicy", "JSONSupport"]),
        ("FuzzDecideCost", ["NavigationPolicy", "JSONSupport"]),
        ("FuzzJSON", ["JSONSupport"]),
        ("FuzzConfig", ["NavigationPolicy", "JSONSupport", "PolicyService"]),
        ("FuzzIntake", ["ShareIntake", "NavigationPolicy"]),
        ("FuzzRequestHead", ["HTTPServer", "HTTPTypes"]),
        ("FuzzProxyHeaders", ["PolicyProxy", "HTTPServer", "HTTPTypes"]),
        ("FuzzClientHello", ["PolicyProxy"]),
        ("FuzzCheckRequest", ["ExtAuthzProtocol"]),
        ("FuzzRegex", ["NavigationPolicy", "PolicyPatterns"]),
        ("FuzzURLPattern", ["NavigationPolicy", "PolicyPatterns", "JSONSupport"]),
        ("FuzzPolicyImage", ["NavigationPolicy", "PolicyService"]),
        ("FuzzPolicyHarness", ["PolicyHarness", "PolicyHarnessClient", "NavigationPolicy"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: target.name, dependencies: target.dependencies, path: "FuzzTesting/Sources/\(target.name)",
                swiftSettings: strictSettings))
    }
}
