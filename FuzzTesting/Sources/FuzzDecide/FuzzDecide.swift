import JSONSupport
import NavigationPolicy

/// `decide` over a fixed policy never traps, and the indexed chain agrees with the plain
/// first-match scan on every request (the equivalence ChainIndexEquivalenceTests checks on
/// random requests, here on what the fuzzer finds).
///
/// Input: the URL, then optionally `\n` method, `\n` navigation type, `\n` target frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecide(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
    guard let url = lines.first else { return 0 }
    var request = NavigationRequest(url: String(url))
    if lines.count > 1 { request.method = String(lines[1]) }
    if lines.count > 2, let type = NavigationType(rawValue: String(lines[2])) { request.navigationType = type }
    if lines.count > 3, let frame = TargetFrame(rawValue: String(lines[3])) { request.targetFrame = frame }
    guard let canonical = try? CanonicalRequest(request) else { return 0 }
    for policy in policies {
        let linear = policy.decideLinear(canonical)
        let indexed = policy.decideIndexed(canonical)
        if linear != indexed {
            fatalError("indexed and linear chains disagree on \(canonical.href.debugDescription): \(indexed) vs \(linear)")
        }
        // A path with an encoded separator is decided on each of its readings; decide must be
        // the linear chain's answer on those readings, and never allow what one of them cancels.
        let decided = policy.decide(canonical)
        if decided != policy.decideLinearAllReadings(canonical) {
            fatalError("decide disagrees with the linear chain on \(canonical.href.debugDescription)")
        }
        let readings = [canonical.decodedSeparatorReading, canonical.rawDecodedSeparatorReading].compactMap { $0 }
        if decided.verdict == .allow, readings.contains(where: { policy.decideLinear($0).verdict == .cancel }) {
            fatalError("allowed what one reading of the path cancels: \(canonical.href.debugDescription)")
        }
        _ = policy.decide(canonical, explain: true)
    }
    return 0
}

/// Policies built the way ChainIndexEquivalenceTests builds them (every pattern kind, mixed
/// case, trailing dots, IDN and IP hosts), from fixed seeds so a crash reproduces.
private let policies: [CompiledPolicy] = (0..<8).map { seed in
    var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    func pick(_ values: [String]) -> String { values[Int(next() % UInt64(values.count))] }
    func list(_ values: [String]) -> JSONValue { .array((0...Int(next() % 3)).map { _ in .string(pick(values)) }) }
    let hostPatterns = [
        "a.example", "b.example", "*.example", "*.a.example", "pay.example.com", "*.example.com", "127.0.0.1", "[::1]",
        "A.EXAMPLE.", "xn--nxasmq6b.example", "10.0.0.1", "[::ffff:7f00:1]", "*.test",
    ]
    let pathPatterns = ["/", "/a", "/a/b", "/Logout", "/x/", "/a/b/c", "/%6Cogout", "/checkout", "/%2F", "/a;b"]
    var handlers: [JSONValue] = []
    for index in 0..<(4 + Int(next() % 60)) {
        var match = JSONObject()
        if next() % 2 == 0 { match.append("hosts", list(hostPatterns)) }
        if next() % 3 == 0 { match.append("paths", list(pathPatterns)) }
        if next() % 3 == 0 { match.append("pathPrefixes", list(pathPatterns)) }
        if next() % 4 == 0 { match.append("schemes", list(["http", "https", "javascript", "data", "ftp"])) }
        if next() % 5 == 0 { match.append("methods", list(["GET", "POST", "DELETE"])) }
        if next() % 5 == 0 { match.append("navigationTypes", list(NavigationType.allCases.map(\.rawValue))) }
        if next() % 5 == 0 { match.append("targetFrames", list(["main", "sub"])) }
        if next() % 4 == 0 { match.append("caseSensitive", .bool(true)) }
        var handler: JSONObject = [
            "name": .string("h\(index)"), "type": .string(pick(["logout", "about", "cancel", "allow", "payment-redirect"])),
        ]
        if !match.members.isEmpty || next() % 4 != 0 { handler.append("match", .object(match)) }
        handlers.append(.object(handler))
    }
    let config: JSONValue = .object(["defaultDecision": .string(pick(["allow", "cancel"])), "handlers": .array(handlers)])
    do {
        return try PolicyCompiler().compile(config)
    } catch {
        fatalError("fixed fuzzing policy \(seed) does not compile: \(error)")
    }
}
