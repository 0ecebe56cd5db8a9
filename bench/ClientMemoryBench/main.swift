// The app client as docs/integrations/ios.md sets it up (a shipped bundle file, a cache
// directory, trusted keys, refresh from the daemon), measured the way an iOS extension's limit
// sees it: peak resident memory (VmHWM) and the time from the start of `main` to the first
// decision. Driven by bench/client-memory.sh and by ClientFileBackedLiveTests (issue 42).
//
// Usage: ClientMemoryBench PHASE --shipped FILE --key ID:BASE64 [--cache DIR] [--bundle-url URL]
//            [--url URL] [--urls FILE --decisions N] [--in-memory] [--strict]
//   PHASE launch   make the client, decide --url once, then (with --urls) N decisions timed
//   PHASE refresh  make the client, decide once, reset the peak, refresh(), decide again
//   --mappings N   also list the N mappings holding the most resident memory at the end
//   --in-memory    ship the bundle as bytes read into [UInt8] (the setup ios.md showed before
//                  issue 42) instead of ShippedBundle(contentsOf:)
//   --strict       make the client with init(strict:), which checks the shipped bundle in full
//                  even when a newer cached one decides (what every launch did before a cached
//                  launch read only the shipped bundle's head)
//   --max-file-bytes N  no file this process writes may grow past N bytes (RLIMIT_FSIZE, the
//                  write then fails with EFBIG): shows a refresh never writes more than that
//   --refresh-timeout S  the client's refreshTimeout (default: the client's own)
// Prints one JSON object. Exit 0 when it ran (whatever the client decided), 2 on bad usage.
import Foundation
import NavigationPolicy
import NavigationPolicyClient
import NavigationPolicyClientSodium

let started = ContinuousClock.now

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ClientMemoryBench: \(message)\n".utf8))
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
guard let phase = arguments.popFirst(), phase == "launch" || phase == "refresh" else {
    fail("the first argument is launch or refresh")
}
var options: [String: String] = [:]
var inMemory = false
var strict = false
while let name = arguments.popFirst() {
    if name == "--in-memory" || name == "--strict" {
        if name == "--in-memory" { inMemory = true } else { strict = true }
        continue
    }
    guard name.hasPrefix("--"), let value = arguments.popFirst() else { fail("\(name): expected --NAME VALUE") }
    options[String(name.dropFirst(2))] = value
}
if let maxFileBytes = options["max-file-bytes"] {
    guard let bytes = rlim_t(maxFileBytes) else { fail("--max-file-bytes N") }
    // A write past the limit fails with EFBIG instead of killing the process with SIGXFSZ.
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: bytes, rlim_max: bytes)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit(RLIMIT_FSIZE) failed") }
}
guard let shippedPath = options["shipped"], let key = options["key"] else { fail("--shipped and --key are required") }
let keyParts = key.split(separator: ":", maxSplits: 1)
guard keyParts.count == 2, let verifier = try? SodiumBundleVerifier(publicKeyBase64: String(keyParts[1])) else {
    fail("--key ID:BASE64")
}

/// User + system CPU seconds of this process so far (all threads, from the start of the process).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// `value`, or JSON null.
func orNull(_ value: Any?) -> Any { value ?? NSNull() }

/// A field of /proc/self/status in bytes.
func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
    else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

/// The `count` mappings with the most resident memory now (/proc/self/smaps): where it goes.
func largestMappings(_ count: Int) -> [String] {
    // FileHandle, not String(contentsOfFile:): /proc files say they are empty, and a short read
    // (one page of smaps) would end the latter.
    guard let data = try? FileHandle(forReadingAtPath: "/proc/self/smaps")?.readToEnd() else { return [] }
    let smaps = String(decoding: data, as: UTF8.self)
    var found: [(name: String, kilobytes: Int)] = []
    var name = ""
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if let first = fields.first, first.contains("-"), fields.count >= 5 {
            name = fields.count >= 6 ? String(fields[5]) : "[anonymous]"
        } else if fields.first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
            found.append((name, kilobytes))
        }
    }
    var byName: [String: Int] = [:]
    for entry in found { byName[entry.name, default: 0] += entry.kilobytes }
    return byName.sorted { $0.value > $1.value }.prefix(count).map { "\($0.value) kB \($0.key)" }
}

/// VmHWM := VmRSS now (Linux ≥ 4.0), so the next VmHWM is the peak of what follows.
func resetPeak() {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
    try? handle.write(contentsOf: Data("5".utf8))
    try? handle.close()
}

// The client exactly as docs/integrations/ios.md makes it (makePolicyClient), with libsodium in
// place of CryptoKit.
let shippedURL = URL(fileURLWithPath: shippedPath)
let shipped: NavigationPolicyClient.ShippedBundle
if inMemory {
    guard let data = try? Data(contentsOf: shippedURL) else { fail("\(shippedPath): cannot be read") }
    let signatureText = (try? String(contentsOf: shippedURL.appendingPathExtension("sig"), encoding: .utf8)) ?? ""
    shipped = .init(
        bytes: [UInt8](data),
        signature: Data(base64Encoded: signatureText.trimmingCharacters(in: .whitespacesAndNewlines)).map { [UInt8]($0) })
} else {
    shipped = .init(contentsOf: shippedURL)
}
var configuration = NavigationPolicyClient.Configuration(
    bundleURL: options["bundle-url"].flatMap(URL.init(string:)),
    shippedBundle: shipped,
    cacheDirectory: options["cache"].map { URL(fileURLWithPath: $0, isDirectory: true) },
    trustedKeys: [String(keyParts[0]): verifier])
if let refreshTimeout = options["refresh-timeout"] {
    guard let seconds = TimeInterval(refreshTimeout), seconds > 0 else { fail("--refresh-timeout SECONDS") }
    configuration.refreshTimeout = seconds
}
let client: NavigationPolicyClient
do {
    client = try strict ? NavigationPolicyClient(strict: configuration) : NavigationPolicyClient(configuration: configuration)
} catch {
    fail("the shipped bundle is refused: \(error)")
}
let first = client.decide(NavigationRequest(url: options["url"] ?? "https://site12345.example/home"))
let launchSeconds = (ContinuousClock.now - started).seconds
let launchCPUSeconds = cpuSeconds()

var result: [String: Any] = [
    "phase": phase,
    "bundle": inMemory ? "bytes" : "file",
    "strict": strict,
    "source": orNull(client.source?.rawValue),
    "policyVersion": orNull(client.policyVersion),
    "revision": orNull(client.revision),
    "startupIssues": client.startupIssues.map(\.description),
    "firstVerdict": first.verdict.rawValue,
    "launchToFirstDecisionSeconds": launchSeconds,
    // User + system CPU up to the first decision: wall time on a shared machine is mostly waiting.
    "launchCPUSeconds": launchCPUSeconds,
    "launchPeakRSSBytes": statusBytes("VmHWM:"),
]

if phase == "launch", let urlsPath = options["urls"], let count = options["decisions"].flatMap(Int.init), count > 0 {
    guard let text = try? String(contentsOfFile: urlsPath, encoding: .utf8) else { fail("\(urlsPath): cannot be read") }
    let requests = text.split(separator: "\n").map { NavigationRequest(url: String($0)) }
    guard !requests.isEmpty else { fail("\(urlsPath): no URLs") }
    // Three rounds, the median reported: one round is at the mercy of the shared machine.
    var rounds: [Double] = []
    var cancels = 0
    for _ in 0..<3 {
        let start = ContinuousClock.now
        for index in 0..<count where client.decide(requests[index % requests.count]).verdict == .cancel {
            cancels += 1
        }
        rounds.append((ContinuousClock.now - start).seconds * 1e9 / Double(count))
    }
    result["nanosecondsPerDecision"] = rounds.sorted()[1]
    result["cancelledPerRound"] = cancels / 3
}

if phase == "refresh" {
    let before = statusBytes("VmRSS:")
    resetPeak()
    let refreshStart = ContinuousClock.now
    let outcome = await client.refresh()
    result["refreshSeconds"] = (ContinuousClock.now - refreshStart).seconds
    result["refreshPeakRSSBytes"] = statusBytes("VmHWM:")
    result["residentBeforeRefreshBytes"] = before
    switch outcome {
    case .updated(_, let cache):
        result["refresh"] = "updated"
        result["cache"] = "\(cache)"
    case .notModified: result["refresh"] = "notModified"
    case .unchanged: result["refresh"] = "unchanged"
    case .rejected(let rejection):
        result["refresh"] = "rejected"
        result["rejection"] = rejection.kind.rawValue
    case .unavailable(let reason):
        result["refresh"] = "unavailable"
        result["reason"] = reason
    }
    result["sourceAfter"] = orNull(client.source?.rawValue)
    result["policyVersionAfter"] = orNull(client.policyVersion)
    result["verdictAfter"] =
        client.decide(NavigationRequest(url: options["url"] ?? "https://site12345.example/home"))
        .verdict.rawValue
}
result["residentBytes"] = statusBytes("VmRSS:")
result["peakRSSBytes"] = statusBytes("VmHWM:")
if options["mappings"] != nil {
    result["largestMappings"] = largestMappings(Int(options["mappings"] ?? "") ?? 8)
}
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
FileHandle.standardOutput.write(json + Data("\n".utf8))

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
