/// The path field cut into regions: the atoms of the sets the chain's `paths`,
/// `pathPrefixes` and `pathPatterns` entries generate, each with a concrete path.
///
/// Exact paths, prefixes (on segment boundaries) and patterns of the forms `/lit` and
/// `/lit*` (`/admin/*` also matching `/admin`) only ask which of a few strings are byte
/// prefixes of the path and whether it equals one: with K those strings, a path's membership
/// is fixed by the longest k ∈ K it starts with and whether it is k, so the witnesses `/`, and
/// for each k, k itself and k followed by a byte no other key continues k with, reach every
/// atom. Other patterns (`*` inside, `?`) are *general*: they get witnesses from their own
/// pieces, but atoms they cut may be missed, so claims that rest on them are reported as
/// unknown (``AnalysisDomain/generalPatternTerms``). Likewise when case-sensitive and
/// case-insensitive handlers compare letters, since witnesses are generated in one case.
struct PathRegions {
    enum Kind: Hashable {
        case exact, segmentPrefix, pattern
    }

    private struct Key: Hashable {
        let kind: Kind
        let caseSensitive: Bool
        let text: String
    }

    /// A concrete path per region; nil for the opaque-path region (`myapp:x`).
    var witnesses: [String?] = []
    var termRegions: [[Int32]] = []
    /// Terms that are general patterns (their atoms may be incomplete).
    var generalTerms: Set<Int32> = []
    private(set) var sawCaseSensitiveLetters = false
    private(set) var sawCaseInsensitive = false

    private var ids: [Key: Int32] = [:]
    private var termCount: Int32 = 0
    private var exact: [Bool: [String: [Int32]]] = [:]
    private var segmentPrefixes: [Bool: [String: [Int32]]] = [:]
    private var bytePrefixes: [Bool: [String: [Int32]]] = [:]
    private var general: [(PathPattern, Int32)] = []
    private var keys: Set<String> = []

    /// The term number of a path entry of a matcher with this case sensitivity.
    mutating func term(_ test: MatchEntry.Test, caseSensitive: Bool) -> Int32? {
        let key: Key
        switch test {
        case .path(let text): key = Key(kind: .exact, caseSensitive: caseSensitive, text: text)
        case .prefix(let text): key = Key(kind: .segmentPrefix, caseSensitive: caseSensitive, text: text)
        case .pattern(let pattern): key = Key(kind: .pattern, caseSensitive: caseSensitive, text: pattern.text)
        default: return nil
        }
        if let id = ids[key] { return id }
        let id = termCount
        termCount += 1
        ids[key] = id
        if caseSensitive {
            if key.text.utf8.contains(where: { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }) {
                sawCaseSensitiveLetters = true
            }
        } else {
            sawCaseInsensitive = true
        }
        switch test {
        case .path(let text):
            exact[caseSensitive, default: [:]][text, default: []].append(id)
            keys.insert(text)
        case .prefix(let text):
            segmentPrefixes[caseSensitive, default: [:]][text, default: []].append(id)
            keys.insert(text)
            if text != "/" { keys.insert(text + "/") }
        case .pattern(let pattern):
            register(pattern, id)
        default:
            break
        }
        return id
    }

    /// The term number of a URLPattern `pathname` component's language, matched against the
    /// match-form path (folded when `ignoreCase`), as the plain reading compares it; nil when the
    /// language cannot be modelled exactly (a regexp group): claims resting on it stay unknown.
    ///
    /// Parts mean what the URLPattern spec's regular expression makes of them: fixed text
    /// literally, a segment wildcard one or more bytes other than `/`, a full wildcard any
    /// bytes, each with its modifier (`?`, `*`, `+`) applied to prefix, value and suffix together.
    mutating func term(urlPatternPathname parts: [PatternPart], ignoreCase: Bool) -> Int32? {
        _ = (parts, ignoreCase)
        return nil
    }

    private mutating func register(_ pattern: PathPattern, _ id: Int32) {
        let tokens = pattern.tokens
        let caseSensitive = pattern.caseSensitive
        if tokens.count == 1, case .literal(let literal) = tokens[0] {
            let text = String(decoding: literal, as: UTF8.self)
            exact[caseSensitive, default: [:]][text, default: []].append(id)
            keys.insert(text)
            return
        }
        if tokens.count == 2, case .literal(let literal) = tokens[0], tokens[1] == .anyRun {
            let text = String(decoding: literal, as: UTF8.self)
            bytePrefixes[caseSensitive, default: [:]][text, default: []].append(id)
            keys.insert(text)
            if literal.count > 1, literal.last == UInt8(ascii: "/") {
                let directory = String(decoding: literal.dropLast(), as: UTF8.self)
                exact[caseSensitive, default: [:]][directory, default: []].append(id)
                keys.insert(directory)
            }
            return
        }
        generalTerms.insert(id)
        general.append((pattern, id))
    }

    /// Whether witnesses in one case may miss atoms (see the type's note).
    var casesMixed: Bool { sawCaseSensitiveLetters && sawCaseInsensitive }

    /// Computes the regions once every term is registered.
    mutating func build(fresh: String) {
        let sorted = keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var candidates: [String] = ["/"]
        candidates.append("/" + fresh)
        for (position, key) in sorted.enumerated() {
            candidates.append(String(decoding: key, as: UTF8.self))
            // Bytes that continue `key` into a longer key: the fresh byte must be none of them.
            var taken: Set<UInt8> = []
            var next = position + 1
            while next < sorted.count, sorted[next].starts(with: key) {
                if sorted[next].count > key.count { taken.insert(sorted[next][key.count]) }
                next += 1
            }
            let spare = Array("qzxjkvw0123456789_~-".utf8).first { !taken.contains($0) } ?? UInt8(ascii: "q")
            candidates.append(String(decoding: key + [spare, UInt8(ascii: "0")], as: UTF8.self))
        }
        for (pattern, _) in general { candidates += Self.instances(of: pattern, fresh: fresh) }
        if casesMixed { candidates += candidates.map { $0.uppercased() } }

        termRegions = Array(repeating: [], count: Int(termCount))
        var bySignature: [[Int32]: Int32] = [:]
        witnesses = []
        for candidate in candidates {
            guard let url = try? URLRecord.parse("http://path.invalid" + candidate) else { continue }
            add(signature(MatchPath(url)), witness: candidate, &bySignature)
        }
        // The opaque-path region last (witnesses prefer a hierarchical path): `qzscheme:x`.
        if let opaque = try? URLRecord.parse("qzscheme:\(fresh)") {
            add(signature(MatchPath(opaque)), witness: nil, &bySignature)
        }
    }

    private mutating func add(_ signature: [Int32], witness: String?, _ bySignature: inout [[Int32]: Int32]) {
        // The opaque region stays apart even when its signature equals a path's: it has its own feasibility.
        let key = witness == nil ? [-1] + signature : signature
        guard bySignature[key] == nil else { return }
        let region = Int32(witnesses.count)
        bySignature[key] = region
        witnesses.append(witness)
        for term in signature { termRegions[Int(term)].append(region) }
    }

    /// Every term that holds for a path in match form, computed as the engine compares.
    private func signature(_ path: MatchPath) -> [Int32] {
        var terms: [Int32] = []
        for caseSensitive in [false, true] {
            let subject = caseSensitive ? path.text : path.folded
            if let ids = exact[caseSensitive]?[subject] { terms += ids }
            if let table = segmentPrefixes[caseSensitive] {
                _ = MatchPath.anyLeadingSubpath(of: Substring(subject)) { part in
                    if let ids = table[String(part)] { terms += ids }
                    return false
                }
            }
            if let table = bytePrefixes[caseSensitive] {
                let bytes = Array(subject.utf8)
                for length in 1...max(1, bytes.count) where length <= bytes.count {
                    if let ids = table[String(decoding: bytes[..<length], as: UTF8.self)] { terms += ids }
                }
            }
        }
        for (pattern, id) in general where pattern.matches(path) { terms.append(id) }
        return Array(Set(terms)).sorted()
    }

    /// Paths a general pattern matches: each `*` as nothing and as a fresh run, each `?` as a fresh byte.
    private static func instances(of pattern: PathPattern, fresh: String) -> [String] {
        var results: [String] = []
        for filler in ["", fresh, "/" + fresh] {
            var text = ""
            for token in pattern.tokens {
                switch token {
                case .literal(let bytes): text += String(decoding: bytes, as: UTF8.self)
                case .anyRun: text += filler
                case .anyOne: text += "q"
                }
            }
            results.append(text)
        }
        return results
    }
}
