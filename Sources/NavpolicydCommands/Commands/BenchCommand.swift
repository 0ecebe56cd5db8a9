import Foundation
import JSONSupport
import NavigationPolicy
import NavigationPolicyClient
import PolicyService

/// `navpolicyd bench`: in-process decision speed over a URL corpus, no HTTP involved.
///
/// Each decision is timed on its own (monotonic clock, ~20 ns overhead) so percentiles are
/// real; canonicalization (URL parsing) is included because every front end pays it.
package struct BenchCommand: ParsableCommand {
    static let urls = Option.text(
        "urls", "FILE", kind: .file,
        help: "one URL per line to decide (default: a built-in mix of hits and misses for the default policy)")
    static let duration = Option.decimal(
        "duration", "S", in: DecimalRange(0, 3600, includesLowerBound: false), phrase: "seconds between 0 and 3600",
        help: "decide round-robin for S seconds", default: "5")
    static let iterations = Option.integer(
        "iterations", "N", in: 0...Int.max, phrase: "a whole number",
        help: "make exactly N decisions instead (for allocation counting under valgrind --tool=dhat)")
    static let format = OutputFormat.option(default: .text, text: "the table")
    /// The spelling `bench` had before `--format json`, which every other command uses: still
    /// accepted (scripts keep working), with a warning on stderr naming the replacement.
    static let json = Flag("json", help: "deprecated: the same as --format json (prints a warning)")
    static let client = Flag(
        "client",
        help:
            "decide through NavigationPolicyClient, as an app does: the config's bundle is loaded and compiled by the client (timed)"
    )
    static let compiled = Flag(
        "compiled",
        help:
            "with --client: the bundle carries the compiled image (the config compiled now, as bundle --compiled does), which the client maps and checks instead of compiling; implied by an image --config"
    )

    package static let declaration = CommandDeclaration(
        name: "bench",
        summary: "Measure in-process decision speed (ns/decision p50/p99, decisions/s)",
        discussion: """
            Loads and compiles the policy (timed), then decides the URLs of FILE round-robin.
            Prints compile time, resident memory, ns per decision (p50, p90, p99, max) and
            decisions per second. On a terminal, a progress line on stderr counts the decisions.
            """,
        notes: "Exit status: 0; 2 for an invalid config, URL file or flag.",
        options: [
            ConfigOptions.config.declaration, ConfigOptions.maxBytes.declaration, urls.declaration, duration.declaration,
            iterations.declaration, format.declaration, json.declaration, client.declaration, compiled.declaration,
        ],
        exclusiveGroups: [ExclusiveGroup(["format", "json"], isRequired: false)])

    package var configPath: String?
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var urlsPath: String?
    package var duration: Double
    package var iterations: Int?
    package var printsJSON: Bool
    /// `--json` was given: ``run(_:)`` warns that it is deprecated.
    package var usesDeprecatedJSONFlag: Bool
    package var throughClient: Bool
    /// `--compiled`: the client's bundle carries the compiled image (layout 3) rather than JSON.
    package var compiledBundle: Bool

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        urlsPath = arguments[Self.urls]
        duration = arguments[Self.duration] ?? 5
        iterations = arguments[Self.iterations]
        usesDeprecatedJSONFlag = arguments[Self.json]
        printsJSON = usesDeprecatedJSONFlag || arguments[Self.format] == OutputFormat.json.rawValue
        throughClient = arguments[Self.client]
        compiledBundle = arguments[Self.compiled]
    }

    static let builtInURLs = [
        "https://app.example.com/home", "https://app.example.com/logout", "https://app.example.com/%6Cogout",
        "https://pay.example.com/checkout?order=42", "https://app.example.com/about", "https://cdn.example.net/a/b/c.js",
        "https://APP.example.com/account/../sign_out;x=1", "https://partner.example.org/landing?utm_source=app",
    ]

    /// The size cap's value (flag or environment) is checked before anything runs.
    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
        if compiledBundle, !throughClient { throw .usage("--compiled needs --client") }
    }

    package func run(_ output: Output) -> Int32 {
        if usesDeprecatedJSONFlag {
            output.err("navpolicyd bench: --json is deprecated; use --format json, as every other command does")
        }
        let path = ConfigLoader.resolvePath(flag: configPath)
        let compileStart = ContinuousClock.now
        let policy: CompiledPolicy
        do {
            policy = try ConfigLoader.load(path, maxBytes: maxConfigBytes, for: .deciding)
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        let compileSeconds = (ContinuousClock.now - compileStart).seconds
        // With --client: the bundle the daemon would serve for this config, loaded by the client.
        var client: NavigationPolicyClient?
        var bundleLoadSeconds = 0.0
        var bundleIsCompiled = false
        /// The peak resident memory the client's load added (nil where /proc cannot reset the peak).
        var clientPeakBytes: Int?
        if throughClient {
            guard let bytes = try? ConfigLoader.read(path, maxBytes: maxConfigBytes), let built = bundle(of: bytes) else {
                output.err("navpolicyd bench: config \(path): the bundle could not be built")
                return ExitCode.usage
            }
            bundleIsCompiled = built.isCompiled
            // Shipped as a file, as docs/integrations/ios.md ships it: the client maps it, and
            // what it costs is measured as the peak it adds over what the bench already holds.
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("navpolicyd-bench-\(UUID().uuidString).bundle")
            do {
                try Data(built.bundle.bytes).write(to: file)
            } catch {
                output.err("navpolicyd bench: \(file.path): \(error.localizedDescription)")
                return ExitCode.usage
            }
            defer { try? FileManager.default.removeItem(at: file) }
            let residentBefore = Self.statusBytes("VmRSS:")
            let resetsPeak = Self.resetPeakResident()
            let loadStart = ContinuousClock.now
            let loaded = NavigationPolicyClient(configuration: .init(shippedBundle: .init(contentsOf: file)))
            bundleLoadSeconds = (ContinuousClock.now - loadStart).seconds
            clientPeakBytes = resetsPeak ? max(0, Self.statusBytes("VmHWM:") - residentBefore) : nil
            guard loaded.revision != nil else {
                output.err("navpolicyd bench: the client refused the bundle: \(loaded.startupIssues)")
                return ExitCode.usage
            }
            client = loaded
        }

        var urls = Self.builtInURLs
        if let urlsPath {
            guard let text = try? String(contentsOfFile: urlsPath, encoding: .utf8) else {
                output.err("navpolicyd bench: --urls \(urlsPath): cannot be read")
                return ExitCode.usage
            }
            urls = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
            guard !urls.isEmpty else {
                output.err("navpolicyd bench: --urls \(urlsPath): no URLs")
                return ExitCode.usage
            }
        }
        let requests = urls.map { NavigationRequest(url: $0) }
        for (request, url) in zip(requests, urls) where (try? CanonicalRequest(request)) == nil {
            output.err("navpolicyd bench: not a valid URL: \(url)")
            return ExitCode.usage
        }

        var samples: [UInt32] = []
        samples.reserveCapacity(min(iterations ?? 4_000_000, 4_000_000))
        var cancels = 0
        let started = ContinuousClock.now
        let deadline = started.advanced(by: .seconds(duration))
        var index = 0
        var decided = 0
        while true {
            if let iterations {
                if decided >= iterations { break }
            } else if decided & 1023 == 0, ContinuousClock.now >= deadline {
                break
            }
            if decided & 0xFFFF == 0, output.showsProgress { output.progress("\(decided) decisions…") }
            decided += 1
            let request = requests[index]
            index = index + 1 == requests.count ? 0 : index + 1
            let before = Self.monotonicNanoseconds()
            let decision = client.map { $0.decide(request) } ?? (try? policy.decide(request))
            let after = Self.monotonicNanoseconds()
            if decision?.verdict == .cancel { cancels += 1 }
            if samples.count < 4_000_000 { samples.append(UInt32(clamping: after &- before)) }
        }
        let elapsed = (ContinuousClock.now - started).seconds
        output.endProgress()
        samples.sort()
        func percentile(_ fraction: Double) -> Int {
            samples.isEmpty ? 0 : Int(samples[min(samples.count - 1, Int(Double(samples.count) * fraction))])
        }
        let result: JSONObject = [
            "config": .string(path),
            "handlers": .number(Double(policy.links.count)),
            "compileSeconds": .number(compileSeconds),
            "path": .string(throughClient ? "client" : "engine"),
            "bundleLoadSeconds": .number(bundleLoadSeconds),
            "bundleLayout": throughClient ? .string(bundleIsCompiled ? "compiled" : "json") : .null,
            "rssBytes": .number(Double(Self.statusBytes("VmRSS:"))),
            "clientLoadPeakBytes": clientPeakBytes.map { .number(Double($0)) } ?? .null,
            "urls": .number(Double(urls.count)),
            "decisions": .number(Double(decided)),
            "cancelled": .number(Double(cancels)),
            "p50Nanoseconds": .number(Double(percentile(0.50))),
            "p90Nanoseconds": .number(Double(percentile(0.90))),
            "p99Nanoseconds": .number(Double(percentile(0.99))),
            "maxNanoseconds": .number(Double(samples.last ?? 0)),
            "decisionsPerSecond": .number(elapsed > 0 ? (Double(decided) / elapsed).rounded() : 0),
        ]
        if printsJSON {
            output.out(result.serializedJSON)
        } else {
            output.out("config        \(path) (\(policy.links.count) handlers)")
            output.out(String(format: "load+compile  %.3f s", compileSeconds))
            if throughClient {
                output.out(
                    String(format: "bundle load   %.3f ms", bundleLoadSeconds * 1000)
                        + (bundleIsCompiled
                            ? " (NavigationPolicyClient: compiled bundle, checked and used in place)"
                            : " (NavigationPolicyClient: parse + compile)"))
                if let clientPeakBytes {
                    output.out(
                        String(
                            format: "client peak   +%.1f MB over what was resident (the shipped bundle file, as ios.md loads it)",
                            Double(clientPeakBytes) / 1_048_576))
                }
            }
            output.out(String(format: "resident      %.1f MB", Double(Self.statusBytes("VmRSS:")) / 1_048_576))
            output.out("decisions     \(decided) over \(urls.count) URLs (\(cancels) cancelled)")
            output.out(
                "ns/decision   p50 \(percentile(0.5))  p90 \(percentile(0.9))  p99 \(percentile(0.99))  max \(samples.last ?? 0)")
            output.out(
                String(
                    format: "throughput    %.0f decisions/s (one thread, timer included)", Double(decided) / max(elapsed, 1e-9)))
        }
        return ExitCode.success
    }

    /// The bundle the daemon would serve for `bytes`, unsigned: a compiled bundle (layout 3) for
    /// an image or with `--compiled` (the JSON compiled now), else a JSON bundle; nil when the
    /// bytes do not make one (the config was already loaded, so this is rare).
    private func bundle(of bytes: [UInt8]) -> (bundle: PolicyService.PolicyBundle, isCompiled: Bool)? {
        let stamp = PolicyService.PolicyBundle.Stamp.make(
            issuedAt: Int(Date().timeIntervalSince1970), settings: BundleSettings(), signingKey: nil, previousVersion: nil)
        var image: [UInt8]? = PolicyImage.hasMagic(bytes) ? bytes : nil
        if compiledBundle, image == nil { image = try? PolicyImageFile.compile(config: bytes) }
        if let image {
            return PolicyService.PolicyBundle.make(
                compiledImage: image, revision: PolicyService.PolicyBundle.revision(of: image), stamp: stamp,
                signingKey: nil
            ).map { ($0, true) }
        }
        return PolicyService.PolicyBundle.make(
            configBytes: bytes, revision: PolicyService.PolicyBundle.revision(of: bytes), stamp: stamp, signingKey: nil
        ).map { ($0, false) }
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// A line of /proc/self/status (`VmRSS:`, `VmHWM:`) in bytes; 0 where unavailable.
    private static func statusBytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// Resets VmHWM to the current resident size (Linux ≥ 4.0: `5` to /proc/self/clear_refs), so
    /// the peak read next is the peak since now; false where the kernel does not allow it.
    private static func resetPeakResident() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
