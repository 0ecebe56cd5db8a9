/// The path field cut into regions: the atoms of the sets the chain's `paths`,
/// `pathPrefixes` and `pathPatterns` entries generate, each with a concrete path.
///
/// Exact paths, prefixes (on segment boundaries) and patterns of the forms `/lit` and
/// `/lit*` (`/admin/*` also matching `/admin`) only ask which of a few strings are byte
/// prefixes of the path and whether it equals one: with K those strings, a path's membership
/// is fixed by the longest k ∈ K it starts with and whether it is k, so the witnesses `/`, and
/// for each k, k itself and k followed by a byte no other key continues k with, reach every
/// atom. That fast path serves chains with only such terms in one case.
///
/// Other patterns (`*` inside, `?`), URLPattern pathnames, and case-sensitive and
/// case-insensitive terms comparing letters in one run need more: every term becomes an
/// automaton and ``PathProduct`` explores them together, which yields every atom with a
/// shortest path. Each such path is parsed, put in match form and its terms recomputed as the
/// engine compares (``signature(_:)``); when they all agree the atoms are exact. When the
/// exploration stops (state cap, budget) or a path disagrees, the old candidates are used and
/// general terms are reported (``generalTerms``, ``casesMixed``) so that claims resting on
/// them are unknown, never silently wrong.
struct PathRegions {
    enum Kind: Hashable {
        case exact, segmentPrefix, pattern, urlPatternPathname
    }

    private struct Key: Hashable {
        let kind: Kind
        let caseSensitive: Bool
        let text: String
    }

    /// A concrete path per region; nil for the opaque-path region (`myapp:x`).
    var witnesses: [String?] = []
    var termRegions: [[Int32]] = []
    /// Terms that are general patterns or URLPattern pathnames: their atoms may be incomplete
    /// unless the product exploration succeeded (then none is).
    var generalTerms: Set<Int32> { automatonExact ? [] : automatonOnlyTerms }
    /// Terms only the product exploration cuts exactly.
    private var automatonOnlyTerms: Set<Int32> = []
    private(set) var sawCaseSensitiveLetters = false
    private(set) var sawCaseInsensitive = false

    private var ids: [Key: Int32] = [:]
    private var termCount: Int32 = 0
    private var exact: [Bool: [String: [Int32]]] = [:]
    private var segmentPrefixes: [Bool: [String: [Int32]]] = [:]
    private var bytePrefixes: [Bool: [String: [Int32]]] = [:]
    private var general: [(PathPattern, Int32)] = []
    /// Each general pattern's literal prefix (folded unless it is case-sensitive): a path that
    /// does not start with it cannot match, so the glob is not run.
    private var generalPrefixes: [(bytes: [UInt8], caseSensitive: Bool)] = []
    /// General patterns by case sensitivity and the first (up to) three bytes of their prefix, so
    /// that checking a path reads only the patterns that can match it.
    private var generalByLead: [Bool: [[UInt8]: [Int]]] = [:]
    /// URLPattern pathnames, matched by their automata (no other matcher exists for them here).
    private var urlPathnames: [(PathNFA, Int32)] = []
    /// URLPattern pathnames (indices into ``urlPathnames``) by whether they ignore case and the
    /// first (up to) three bytes of their fixed leading text, folded when they ignore case: a
    /// witness is run only through the automata that can match it. Without it, re-checking every
    /// atom of a 2,000-pattern chain ran every automaton on every witness (40 M steps, 6 CPU-s).
    private var urlPathnamesByLead: [Bool: [[UInt8]: [Int]]] = [:]
    /// Every term's language, for the product exploration.
    /// Built only when the exploration runs: the fast path never pays for them.
    private var languages: [(id: Int32, test: MatchEntry.Test?, ignoreCase: Bool, nfa: PathNFA?)] = []
    private var keys: Set<String> = []
    /// Whether the atoms came from a complete product exploration whose witnesses all re-checked.
    private(set) var automatonExact = false
    /// Why the product exploration did not give exact atoms, when it was needed and did not.
    private(set) var inexactReason: String?
    /// Product states the last exploration visited (for measurements and tests).
    private(set) var productStates = 0

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
        languages.append((id, test, !caseSensitive, nil))
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
        guard let language = PathLanguage.urlPatternPathname(parts) else { return nil }
        let text = parts.map { "\($0.kind)\u{0}\($0.value)\u{0}\($0.modifier)\u{0}\($0.prefix)\u{0}\($0.suffix)" }
        let key = Key(kind: .urlPatternPathname, caseSensitive: !ignoreCase, text: text.joined(separator: "\u{1}"))
        if let id = ids[key] { return id }
        let id = termCount
        termCount += 1
        ids[key] = id
        let automaton = PathNFA(language, ignoreCase: ignoreCase)
        languages.append((id, nil, ignoreCase, automaton))
        urlPathnamesByLead[ignoreCase, default: [:]][
            Array(Self.leadingText(parts, ignoreCase: ignoreCase).prefix(Self.leadLength)), default: []
        ].append(urlPathnames.count)
        urlPathnames.append((automaton, id))
        automatonOnlyTerms.insert(id)
        return id
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
        automatonOnlyTerms.insert(id)
        general.append((pattern, id))
        // The directory form of `…/*` drops the prefix's last `/` only when the prefix is the
        // whole literal part (`/x/*`, not general); kept short anyway, it stays a true filter.
        var prefix = Array(pattern.literalPrefix.utf8)
        if prefix.count > 1, prefix.last == UInt8(ascii: "/") { prefix.removeLast() }
        generalByLead[pattern.caseSensitive, default: [:]][Array(prefix.prefix(Self.leadLength)), default: []]
            .append(generalPrefixes.count)
        generalPrefixes.append((prefix, pattern.caseSensitive))
    }

    /// The text every path a URLPattern pathname matches starts with: its leading fixed text,
    /// and the prefix of the first part that is not optional or repeated-or-none (folded to
    /// ASCII lower case as ``PathNFA`` compares when the pattern ignores case).
    private static func leadingText(_ parts: [PatternPart], ignoreCase: Bool) -> [UInt8] {
        var text: [UInt8] = []
        for part in parts {
            switch (part.kind, part.modifier) {
            case (.fixedText, .none), (.fixedText, .oneOrMore):
                text += Array(part.value.utf8)
                if part.modifier == .none { continue }
            case (_, .none), (_, .oneOrMore):
                text += Array(part.prefix.utf8)
            default:
                break
            }
            break
        }
        return ignoreCase ? text.map(PathNFA.fold) : text
    }

    /// The most the product exploration may spend (and never more than half the steps left).
    static let automatonPhaseSteps = 10_000_000

    /// Bytes of a general pattern's prefix it is filed under (see ``generalByLead``).
    private static let leadLength = 3
    /// Steps per unit of re-checking a witness: a unit is a byte of its path (each table is
    /// looked up per leading part), a glob candidate (twice) or a URLPattern automaton (4 times).
    /// Calibrated against the search's steps (see `AnalysisPathAutomatonBudgetTests.shapes`).
    private static let witnessCheckWeight = 6

    /// Whether witnesses in one case may miss atoms (see the type's note).
    var casesMixed: Bool { !automatonExact && sawCaseSensitiveLetters && sawCaseInsensitive }

    /// Computes the regions once every term is registered; the product exploration, when one is
    /// needed, is charged to `budget` (and bounded by ``PathProduct/stateCap`` without one).
    mutating func build(fresh: String, budget: AnalysisBudget? = nil) {
        automatonExact = false
        inexactReason = nil
        if !automatonOnlyTerms.isEmpty || (sawCaseSensitiveLetters && sawCaseInsensitive) {
            // A phase of its own: an exploration that gives up (one `/*a*a…` pattern of 2,000
            // stars took a whole run's budget, outside attack 10 L1) leaves the run the steps
            // to fall back on the candidates below and the cheap witnesses that follow.
            let phase = budget?.phase(Self.automatonPhaseSteps)
            let built = buildFromProduct(fresh: fresh, budget: phase)
            if let budget, let phase {
                budget.absorb(phase)
                if !built, phase.isExhausted, !phase.cancelled {
                    inexactReason = "the path automaton ran out of steps (its share of the analysis's)"
                }
            }
            if built { return }
        }
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
        // A URLPattern pathname's own shortest paths (its automaton alone, a small exploration).
        // Charged to the run, like every step below: a list of thousands of entries makes
        // thousands of explorations and candidates, each candidate run against the entries
        // filed under its lead, which cost seconds while the run reported the same steps for
        // 2,000 entries as for 8,000 (outside attack 14, R5). A run the bound stops here stops
        // whole (every answer still open is unknown, as when `chargeDomain` refuses it), so no
        // answer rests on the regions left half built.
        for (automaton, id) in urlPathnames {
            let explored = PathProduct.explore([(id, automaton)], budget: budget, cap: 2_000)
            if let budget, budget.isExhausted {
                inexactReason = budget.reason
                return
            }
            if case .complete(let atoms, _) = explored { candidates += atoms.map(\.path) }
        }
        if casesMixed { candidates += candidates.map { $0.uppercased() } }

        termRegions = Array(repeating: [], count: Int(termCount))
        var bySignature: [[Int32]: Int32] = [:]
        witnesses = []
        for candidate in candidates {
            guard let url = try? URLRecord.parse("http://path.invalid" + candidate) else { continue }
            var globs = 0
            var automata = 0
            let terms = signature(MatchPath(url), globs: &globs, automata: &automata)
            if let budget, !budget.spend(Self.witnessCheckWeight * (4 + candidate.utf8.count + 2 * globs + 4 * automata)) {
                inexactReason = budget.reason
                return
            }
            add(terms, witness: candidate, &bySignature)
        }
        // The opaque-path region last (witnesses prefer a hierarchical path): `qzscheme:x`.
        if let opaque = try? URLRecord.parse("qzscheme:\(fresh)") {
            add(signature(MatchPath(opaque)), witness: nil, &bySignature)
        }
    }

    /// The atoms from the product of every term's automaton; false (nothing changed) when the
    /// exploration stopped or a witness does not have the terms the exploration said.
    private mutating func buildFromProduct(fresh: String, budget: AnalysisBudget?) -> Bool {
        let automata = languages.compactMap { term -> (id: Int32, nfa: PathNFA)? in
            if let automaton = term.nfa { return (term.id, automaton) }
            switch term.test {
            case .path(let text)?: return (term.id, PathNFA(.exact(text), ignoreCase: term.ignoreCase))
            case .prefix(let text)?: return (term.id, PathNFA(.segmentPrefix(text), ignoreCase: term.ignoreCase))
            case .pattern(let pattern)?: return (term.id, PathNFA(.pattern(pattern), ignoreCase: term.ignoreCase))
            default: return nil
            }
        }
        let outcome = PathProduct.explore(automata, budget: budget)
        guard case .complete(let atoms, let states) = outcome else {
            if case .stopped(let reason) = outcome { inexactReason = reason }
            return false
        }
        productStates = states
        // Opaque paths (`myapp:x`) are one region: exact only while no term can match one.
        if let opaqueMatch = urlPathnames.first(where: { $0.0.acceptsWithoutLeadingSlash }) {
            inexactReason = "the urlPatterns pathname of term \(opaqueMatch.1) can match opaque paths, which are one region"
            return false
        }
        var checked: [(signature: [Int32], path: String)] = []
        for (expected, path) in atoms {
            // Re-checking a witness parses it, compares it with every general pattern's prefix
            // and runs the globs and URLPattern automata it may match (weights: see explore).
            var globs = 0
            var automata = 0
            guard let url = try? URLRecord.parse("http://path.invalid" + path),
                signature(MatchPath(url), globs: &globs, automata: &automata) == expected
            else {
                inexactReason =
                    "the path automaton's witness \(RequestMatcher.shortened(Substring(path))) "
                    + "does not have the terms it found (an analysis error)"
                return false
            }
            checked.append((expected, path))
            if let budget,
                !budget.spend(Self.witnessCheckWeight * (4 + path.utf8.count + 2 * globs + 4 * automata))
            {
                inexactReason = budget.reason
                return false
            }
        }
        termRegions = Array(repeating: [], count: Int(termCount))
        witnesses = []
        var bySignature: [[Int32]: Int32] = [:]
        for (signature, path) in checked { add(signature, witness: path, &bySignature) }
        if let opaque = try? URLRecord.parse("qzscheme:\(fresh)") {
            add(signature(MatchPath(opaque)), witness: nil, &bySignature)
        }
        automatonExact = true
        return true
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
        var globs = 0
        var automata = 0
        return signature(path, globs: &globs, automata: &automata)
    }

    /// ``signature(_:)``, counting in `globs` the general patterns whose glob was run and in
    /// `automata` the URLPattern pathname automata run.
    private func signature(_ path: MatchPath, globs: inout Int, automata: inout Int) -> [Int32] {
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
        // Only patterns whose prefix the path starts with can match (a glob run each).
        for (caseSensitive, byLead) in generalByLead {
            let subject = Array(caseSensitive ? path.textForm.utf8 : path.foldedForm.utf8)
            for index in Self.filed(in: byLead, under: subject) {
                globs += 1
                guard subject.starts(with: generalPrefixes[index].bytes) else { continue }
                if general[index].0.matches(path) { terms.append(general[index].1) }
            }
        }
        // Likewise URLPattern pathnames: only those whose leading text the path starts with.
        let text = Array(path.textForm.utf8)
        for (ignoreCase, byLead) in urlPathnamesByLead {
            for index in Self.filed(in: byLead, under: ignoreCase ? text.map(PathNFA.fold) : text) {
                automata += 1
                let (automaton, id) = urlPathnames[index]
                if automaton.matches(text) { terms.append(id) }
            }
        }
        return Array(Set(terms)).sorted()
    }

    /// The entries of a lead index (``generalByLead``, ``urlPathnamesByLead``) filed under a
    /// prefix of `subject` up to ``leadLength`` bytes: the only ones that can match it.
    private static func filed(in byLead: [[UInt8]: [Int]], under subject: [UInt8]) -> [Int] {
        (0...min(leadLength, subject.count)).flatMap { length in byLead[Array(subject[..<length])] ?? [] }
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
