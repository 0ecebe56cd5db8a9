/// A component whose part list is fixed text, optionally followed by one full wildcard `*`,
/// matched without the regex engine (issue 31: 1,000 entries sharing an index key each ran 8
/// expressions a decision, most of them a lone `*`).
///
/// It gives exactly what the generated expression gives: `^T$` for fixed text `T`, and
/// `^T(?:P(.*))$` for `T` then a `*` with prefix `P` (a lone `*` is `T` = `P` = ""): the input
/// starts with `TP` and the group is the rest, which `.` must match all of (no line
/// terminator). Case follows the expression's `i` flag (Unicode simple case folding, as the VM
/// folds). `URLPatternBudgetFastPathTests` checks it against the engine.
package struct URLPatternFastPath: Sendable {
    /// The text every match starts with (all of it, when there is no wildcard).
    private let leading: [UInt32]
    /// Whether a full wildcard follows `leading` (its group is the rest of the input).
    private let wildcard: Bool
    /// Whether `leading` is ASCII: then an ASCII input is compared byte by byte.
    private let leadingIsASCII: Bool

    /// The fast path of `parts`, or nil when they need the engine (a `:name`, a `(…)`, a
    /// modifier, a wildcard with a suffix or not last).
    init?(_ parts: [PatternPart]) {
        var text = ""
        var wildcard = false
        for (offset, part) in parts.enumerated() {
            guard part.modifier == .none else { return nil }
            switch part.kind {
            case .fixedText:
                text += part.value
            case .fullWildcard where offset == parts.count - 1 && part.suffix.isEmpty:
                text += part.prefix
                wildcard = true
            default:
                return nil
            }
        }
        leading = text.unicodeScalars.map(\.value)
        leadingIsASCII = leading.allSatisfy { $0 < 0x80 }
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
        if leadingIsASCII, let answer = asciiMatches(input, ignoreCase: ignoreCase) { return answer }
        return matchedRest(input, ignoreCase: ignoreCase) != nil
    }

    /// The byte comparison of ``matches(_:ignoreCase:)``; nil when it cannot tell.
    private func asciiMatches(_ input: String, ignoreCase: Bool) -> Bool? {
        var input = input
        return input.withUTF8 { bytes -> Bool? in
            guard bytes.count >= leading.count else { return false }
            for (offset, expected) in leading.enumerated() {
                let actual = bytes[offset]
                if UInt32(actual) == expected { continue }
                // A non-ASCII scalar may fold to an ASCII one (K, the Kelvin sign, to k).
                guard actual < 0x80 else { return nil }
                guard ignoreCase, Self.asciiFold(UInt32(actual)) == Self.asciiFold(expected) else { return false }
            }
            guard wildcard else { return bytes.count == leading.count }
            for byte in bytes[leading.count...] {
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
        let scalars = input.unicodeScalars
        var position = scalars.startIndex
        for expected in leading {
            guard position < scalars.endIndex else { return nil }
            let actual = scalars[position].value
            if actual != expected {
                guard ignoreCase, RegexCaseFolding.fold(actual) == RegexCaseFolding.fold(expected) else { return nil }
            }
            position = scalars.index(after: position)
        }
        let rest = Substring(input).unicodeScalars[position...]
        guard wildcard else { return rest.isEmpty ? rest : nil }
        // `.` does not match a line terminator (no `s` flag), so `.*$` fails on one.
        guard !rest.contains(where: Self.isLineTerminator) else { return nil }
        return rest
    }

    private static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D, 0x2028, 0x2029: true
        default: false
        }
    }
}
