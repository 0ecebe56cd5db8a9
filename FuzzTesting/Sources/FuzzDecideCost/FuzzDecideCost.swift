import JSONSupport
import NavigationPolicy

/// Decision cost on large inputs (issue 26 item 4): canonicalize + decide (plain, indexed,
/// linear and explained) on an adversarial policy, with inputs up to the 64 KB body limit.
///
/// Run with `-max_len=65536 -timeout=… -report_slow_units=1` (fuzz.sh does): a decision that
/// is not linear in its input shows as a slow unit and fails the run by timeout. The indexed
/// chain must also agree with the linear scan, and explain with both.
///
/// Input: an even first byte, then the URL as is; an odd first byte, then a unit that is
/// repeated after `https://app.example.com/` up to 32 KB (the URL limit), so that the fuzzer's small inputs
/// already are the long paths (`a/`, `%2e%2e/`, `secret1/`) and hosts (`a.`) of the attack.
/// With bit 2 of the first byte set, the rest is a `POST /v1/decide` body instead
/// (``decideBody(_:)``): as is, or with bit 3 also set, a unit repeated to a 60 KiB member name
/// next to `url`, the shape of outside attack 14's R1 (a run of combining marks of alternating
/// classes, which `String` equality and hashing normalize in quadratic time).
/// Compiles both fixed policies before the first input: their compile (thousands of patterns,
/// seconds in an ASan build) would otherwise count against the first unit's `-timeout`.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzDecideCostInitialize(
    _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    _ = policy.links.count + onePolicy.links.count
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecideCost(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    guard let mode = bytes.first else { return 0 }
    let rest = String(decoding: bytes.dropFirst(), as: UTF8.self)
    if mode & 4 != 0 {
        guard mode & 8 != 0 else {
            decideBody(rest)
            return 0
        }
        // Read four times: a name read in linear time costs tens of milliseconds here even so,
        // while one read in quadratic time (2.6 s for the seed's combining marks, once) then
        // costs several times the run's -timeout, however the alarm's ticks fall.
        let body = repeatedMemberNameBody(rest)
        for _ in 0..<4 { decideBody(body) }
        return 0
    }
    let url: String
    if mode & 1 == 0 {
        url = rest
    } else {
        guard !rest.isEmpty else { return 0 }
        let head = mode & 2 == 0 ? "https://app.example.com/" : "https://"
        // Up to the longest URL a request may carry (NavigationRequest.maximumURLLength, 32 KiB).
        let repeats = max(1, (32_700 - head.utf8.count) / rest.utf8.count)
        url = head + String(repeating: rest, count: repeats) + (mode & 2 == 0 ? "" : "h7.example/")
    }
    guard let canonical = try? CanonicalRequest(NavigationRequest(url: url, method: "GET")) else { return 0 }
    let decided = policy.decide(canonical)
    let explained = policy.decide(canonical, explain: true)
    guard explained.handler == decided.handler, explained.verdict == decided.verdict else {
        fatalError("explain disagrees with decide on \(canonical.href.prefix(200).debugDescription)")
    }
    // The linear chain tries each handler's patterns alone, (candidates) x (path) by design:
    // only short URLs are compared with it, or the reference itself would be the slow unit.
    if canonical.href.utf8.count <= 4_096 {
        let linear = policy.decideLinearAllReadings(canonical)
        guard policy.decideIndexed(canonical) == policy.decideLinear(canonical), decided == linear else {
            fatalError("indexed and linear chains disagree on \(canonical.href.prefix(200).debugDescription)")
        }
    }
    // The pattern index inside a handler is not covered by the comparison above (both chains use
    // it). The scan it is checked against costs patterns × path by design, so only short URLs
    // are checked: on 32 KB ones the reference itself would trip the slow-unit timeout.
    for link in onePolicy.links
    where canonical.href.utf8.count <= 1_024 && !link.matcher.pathPatternIndexAgreesWithScan(canonical) {
        fatalError("\(link.name): pattern index and scan disagree on \(canonical.href.prefix(200).debugDescription)")
    }
    let one = onePolicy.decide(canonical)
    if canonical.href.utf8.count <= 4_096, one != onePolicy.decideLinearAllReadings(canonical) {
        fatalError("one-handler policy: the automaton and the scan disagree on \(canonical.href.prefix(200).debugDescription)")
    }
    guard onePolicy.decide(canonical, explain: true).handler == one.handler else {
        fatalError("explain disagrees on the one-handler policy on \(canonical.href.prefix(200).debugDescription)")
    }
    return 0
}

/// Reads `body` as `POST /v1/decide` reads a body it cannot take in place (`DecideEndpoints`:
/// strict JSON at most 8 deep, then the request's members, `explain` allowed beside them) and
/// decides it: every member name is compared with the names a request knows and checked for
/// repeats, so a name whose comparison or hash is not linear in its length is a slow unit.
private func decideBody(_ body: String) {
    guard case .object(let object)? = try? JSONParser(maximumDepth: 8).parse(body),
        let request = try? NavigationRequest(json: object, extraKeys: ["explain"]),
        let canonical = try? CanonicalRequest(request)
    else { return }
    let decided = policy.decide(canonical)
    guard policy.decide(canonical, explain: true).handler == decided.handler else {
        fatalError("explain disagrees with decide on a body's request \(canonical.href.prefix(200).debugDescription)")
    }
}

/// A body whose second member's name is `unit` repeated to about 60 KiB (under the 64 KiB body
/// limit): `{"url":"https://app.example.com/logout","<unit…>":1}`, JSON-escaped as needed.
private func repeatedMemberNameBody(_ unit: String) -> String {
    guard !unit.isEmpty else { return "{}" }
    let repeats = max(1, 61_440 / unit.utf8.count)
    let name = JSONValue.string(String(repeating: unit, count: repeats))
    return #"{"url":"https://app.example.com/logout","# + name.serialized + ":1}"
}

/// The one-handler configs of bench/worst-case-decision.py (issue 26 item 4, F1): each handler
/// holds 1,000 patterns of one index kind, so only a handler's pattern index keeps them linear.
/// With the chain's automaton (``ChainPatterns``) the cases that used to cost (patterns) x (path)
/// are here too: `/*/secretN/*/zz/*` (candidates that fail late) and `/api/*xN*` (one shared key).
private let onePolicy: CompiledPolicy = {
    func handler(_ name: String, _ patterns: [String]) -> JSONValue {
        .object([
            "name": .string(name), "type": .string("cancel"),
            "match": .object(["pathPatterns": .array(patterns.map { .string($0) })]),
        ])
    }
    let handlers = [
        handler("api", (0..<1000).map { "/api\($0)/v?/*" }),
        handler("suffix", (0..<1000).map { "/*a*b\($0)" }),
        handler("secret", (0..<1000).map { "/*/secret\($0)/*" }),
        handler("secret-miss", (0..<1000).map { "/*/secret\($0)/*/zz/*" }),
        handler("shared-key", (0..<1000).map { "/api/*x\($0)*" }),
    ]
    do {
        return try PolicyCompiler().compile(.object(["defaultDecision": .string("allow"), "handlers": .array(handlers)]))
    } catch {
        fatalError("the fixed one-handler policy does not compile: \(error)")
    }
}()

/// The adversarial configs of bench/worst-case-decision.py in one chain: 7 prefixes, 2,000
/// `/*/secretN/*` patterns and 2,000 wildcard hosts (methods POST: they never decide a GET, so
/// every candidate is checked), then the default policy's handlers.
private let policy: CompiledPolicy = {
    func handler(_ name: String, _ match: JSONObject, _ type: String = "cancel") -> JSONValue {
        .object(["name": .string(name), "type": .string(type), "match": .object(match)])
    }
    func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
    var handlers: [JSONValue] = []
    for index in 0..<7 { handlers.append(handler("p\(index)", ["pathPrefixes": strings(["/x\(index)", "/a/b\(index)"])])) }
    for index in 0..<2000 {
        handlers.append(handler("s\(index)", ["pathPatterns": strings(["/*/secret\(index)/*"]), "methods": strings(["POST"])]))
        handlers.append(handler("w\(index)", ["hosts": strings(["*.h\(index).example"]), "methods": strings(["POST"])]))
    }
    // Candidates for every path naming their segments, failing only at the end: one pass for all.
    for index in 0..<2000 {
        handlers.append(handler("z\(index)", ["pathPatterns": strings(["/*/secret\(index)/*/zz/*"])]))
    }
    // Pieces that are suffixes of one another, one per handler (`/*a*z` … `/*a×300*z`): a path
    // of `a`s ends all 300 at every byte (third outside attack).
    for length in 1...300 {
        handlers.append(handler("a\(length)", ["pathPatterns": strings(["/*" + String(repeating: "a", count: length) + "*z"])]))
    }
    for index in 0..<50 {
        handlers.append(
            handler("m\(index)", ["pathPatterns": strings(["/a*/b\(index)*", "/*\(index)?x*/*"]), "methods": strings(["POST"])]))
    }
    handlers.append(handler("logout", ["paths": strings(["/logout", "/sign_out"])], "logout"))
    handlers.append(handler("admin", ["pathPatterns": strings(["/admin/*"])]))
    do {
        return try PolicyCompiler().compile(.object(["defaultDecision": .string("allow"), "handlers": .array(handlers)]))
    } catch {
        fatalError("the fixed adversarial policy does not compile: \(error)")
    }
}()
