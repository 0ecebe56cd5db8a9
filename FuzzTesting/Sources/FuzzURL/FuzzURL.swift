import NavigationPolicy

/// The WHATWG URL parser and the match forms, with invariants beyond "no crash":
/// - a parsed URL's href parses again to the same href (idempotence);
/// - the match path and match host are stable under a second normalization;
/// - a URL that parses never makes matching trap (it is decided by a small fixed policy);
/// - the canonical-URL fast path never accepts an input the state machine parses differently.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURL(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    let input = String(decoding: bytes, as: UTF8.self)
    if let disagreement = URLRecord.fastPathDisagreement(input) {
        fatalError("\(input.debugDescription): \(disagreement)")
    }
    guard let record = try? URLRecord.parse(input) else { return 0 }

    guard let again = try? URLRecord.parse(record.href) else {
        fatalError("href does not parse again: \(record.href.debugDescription) from \(input.debugDescription)")
    }
    if again.href != record.href {
        fatalError("href not idempotent: \(record.href.debugDescription) -> \(again.href.debugDescription)")
    }

    let path = MatchPath(record)
    let pathAgain = MatchPath(pathname: path.text, isOpaque: record.hasOpaquePath)
    if pathAgain != path {
        fatalError("match path not stable: \(path.text.debugDescription) -> \(pathAgain.text.debugDescription)")
    }
    if MatchHost.normalize(again) != MatchHost.normalize(record) {
        fatalError("match host differs between a URL and its re-parse: \(record.href.debugDescription)")
    }

    for method in ["GET", "POST"] {
        if let request = try? CanonicalRequest(NavigationRequest(url: input, method: method)) {
            _ = policy.decide(request, explain: true)
        }
    }
    return 0
}

/// Every matcher kind once (hosts, wildcard hosts, paths, prefixes, schemes), above the index threshold.
private let policy: CompiledPolicy = {
    let config = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"hosts": ["*.example.com", "127.0.0.1", "[::1]"], "paths": ["/logout"]}},
          {"name": "about", "type": "about", "match": {"schemes": ["about", "javascript", "data"]}},
          {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example"], "pathPrefixes": ["/checkout"]}},
          {"name": "cs", "type": "cancel", "match": {"pathPrefixes": ["/Admin"], "caseSensitive": true}},
          {"name": "idn", "type": "cancel", "match": {"hosts": ["xn--nxasmq6b.example", "*.a.example."]}},
          {"name": "rest", "type": "allow", "match": {"hosts": ["*.test"]}}
        ]}
        """
    do {
        return try PolicyCompiler().compile(Array(config.utf8))
    } catch {
        fatalError("the fixed fuzzing policy does not compile: \(error)")
    }
}()
