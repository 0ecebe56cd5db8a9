/// A component whose part list is fixed text with at most one full wildcard `*` among it,
/// matched without the regex engine (issue 31: 1,000 entries sharing an index key each ran 8
/// expressions a decision, most of them a lone `*`; issue 41: `*.example.com`, `/assets/*.js`).
///
/// It gives exactly what the generated expression gives: `^T$` for fixed text `T`, and
/// `^T(?:P(.*)S)U$` for `T`, then a `*` with prefix `P` and suffix `S`, then fixed text `U`
/// (a lone `*` is all of them empty): the input starts with `TP` and ends with `SU` without
/// the two overlapping, and the group is what lies between, which `.` must match all of (no
/// line terminator); the greedy `.*` can take nothing else, as the tail is fixed. Case follows
/// the expression's `i` flag (Unicode simple case folding, as the VM folds).
/// `URLPatternBudgetFastPathTests` checks it against the engine.
package struct URLPatternFastPath: Sendable {
    /// The text every match starts with (all of it, when there is no wildcard).
    private let leading: [UInt32]
    /// The text every match ends with after the wildcard (empty without one).
    private let trailing: [UInt32]
    /// Whether a full wildcard follows `leading` (its group is what lies before `trailing`).
    private let wildcard: Bool
    /// Whether `leading` and `trailing` are ASCII: then an ASCII input is compared byte by byte.
    private let textIsASCII: Bool

    /// The fast path of `parts`, or nil when they need the engine (a `:name`, a `(…)`, a
    /// modifier, more than one wildcard).
    init?(_ parts: [PatternPart]) {
        var text = ""
        var tail = ""
        var wildcard = false
        for part in parts {
            guard part.modifier == .none else { return nil }
            switch part.kind {
            case .fixedText:
                if wildcard { tail += part.value } else { text += part.value }
            case .fullWildcard where !wildcard:
                text += part.prefix
                tail += part.suffix
                wildcard = true
            default:
                return nil
            }
        }
        leading = text.unicodeScalars.map { $0.value }
        trailing = tail.unicodeScalars.map { $0.value }
        textIsASCII = (leading + trailing).allSatisfy { $0 < 0x80 }
        self.wildcard = wildcard
    }

    /// The component result for `input` (groups named by `names`: the wildcard's, if any), or nil.
    func exec(_ input: String, ignoreCase: Bool, names: [String]) -> URLPatternComponentResult? {
        guard let rest = matchedRest(input, ignoreCase: ignoreCase) else { return nil }
        guard wildcard else { return URLPatternComponentResult(input: input, groups: []) }
        let groups = names.first.map { [URLPatternGroup(name: $0, value: String(rest))] } ?? []
        return URLPatternComponentResult(input: input, groups: groups)
    }

    /// Whether `input` matches (``exec(_:ignoreCase:names:)`` without building the result).
    /// The common case, ASCII text against ASCII input, compares bytes; anything else (a
    /// non-ASCII byte where the text is compared, or the lead byte of U+2028/U+2029 in the
    /// rest) takes the scalar route, so the answer is always the scalar one.
    func matches(_ input: String, ignoreCase: Bool) -> Bool {
        if textIsASCII, let answer = asciiMatches(input, ignoreCase: ignoreCase) { return answer }
        return matchedRest(input, ignoreCase: ignoreCase) != nil
    }

    /// The byte comparison of ``matches(_:ignoreCase:)``; nil when it cannot tell.
    private func asciiMatches(_ input: String, ignoreCase: Bool) -> Bool? {
        var input = input
        return input.withUTF8 { bytes -> Bool? in
            // Fewer bytes than the text's ASCII scalars: fewer scalars too.
            guard bytes.count >= leading.count + trailing.count else { return false }
            let tailStart = bytes.count - trailing.count
            func compare(_ text: [UInt32], at start: Int) -> Bool? {
                for (offset, expected) in text.enumerated() {
                    let actual = bytes[start + offset]
                    if UInt32(actual) == expected { continue }
                    // A non-ASCII scalar may fold to an ASCII one (K, the Kelvin sign, to k).
                    guard actual < 0x80 else { return nil }
                    guard ignoreCase, Self.asciiFold(UInt32(actual)) == Self.asciiFold(expected) else { return false }
                }
                return true
            }
            // A definite difference in either text decides; a byte only scalars can tell defers.
            let leads = compare(leading, at: 0)
            if leads == false { return false }
            let trails = compare(trailing, at: tailStart)
            if trails == false { return false }
            guard leads != nil, trails != nil else { return nil }
            guard wildcard else { return bytes.count == leading.count }
            for byte in bytes[leading.count..<tailStart] {
                switch byte {
                case 0x0A, 0x0D: return false
                case 0xE2: return nil  // U+2028 and U+2029 start with it; let the scalar route look.
                default: continue
                }
            }
            return true
        }
    }

    private static func asciiFold(_ scalar: UInt32) -> UInt32 {
        (0x41...0x5A).contains(scalar) ? scalar + 0x20 : scalar
    }

    /// What the wildcard matches (empty without one), or nil when `input` does not match.
    private func matchedRest(_ input: String, ignoreCase: Bool) -> Substring.UnicodeScalarView? {
        let scalars = Substring(input).unicodeScalars
        var start = scalars.startIndex
        for expected in leading {
            guard start < scalars.endIndex, Self.same(scalars[start].value, expected, ignoreCase) else { return nil }
            start = scalars.index(after: start)
        }
        var end = scalars.endIndex
        for expected in trailing.reversed() {
            // The tail may not reach back into the leading text.
            guard end > start else { return nil }
            end = scalars.index(before: end)
            guard Self.same(scalars[end].value, expected, ignoreCase) else { return nil }
        }
        let rest = scalars[start..<end]
        guard wildcard else { return rest.isEmpty ? rest : nil }
        // `.` does not match a line terminator (no `s` flag), so `.*$` fails on one.
        guard !rest.contains(where: Self.isLineTerminator) else { return nil }
        return rest
    }

    /// Whether the input scalar `actual` matches the text's `expected` (folded, under `i`).
    private static func same(_ actual: UInt32, _ expected: UInt32, _ ignoreCase: Bool) -> Bool {
        actual == expected || (ignoreCase && RegexCaseFolding.fold(actual) == RegexCaseFolding.fold(expected))
    }

    private static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D, 0x2028, 0x2029: true
        default: false
        }
    }
}
