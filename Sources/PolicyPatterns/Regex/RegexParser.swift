/// Parses ECMAScript pattern source (the `u` flag's grammar, or the `v` flag's with
/// `unicodeSets`) into a ``RegexNode``. Annex B's web-compatibility leniencies do not apply
/// with either flag, so `\m`, a lone `{` or `]` are errors, as they are in a browser.
///
/// Constructs a linear-time engine cannot run — backreferences and lookaround — and the ones
/// this engine does not implement — `\q{…}`, properties of strings, modifiers — are refused with
/// an error that names them; nothing is silently read as something else.
struct RegexParser {
    /// Groups and classes nest at most this deep: the parser and compiler recurse per level.
    static let maxNesting = 100

    private let pattern: [UInt32]
    private let ignoreCase: Bool
    private let unicodeSets: Bool
    private var position = 0
    private var depth = 0
    /// Capture groups opened so far (numbered by their `(` from the left, from 1).
    private(set) var captureCount = 0
    /// The name of each capture group (index 0 = group 1), nil for an unnamed one.
    private(set) var captureNames: [String?] = []

    init(_ pattern: String, ignoreCase: Bool, unicodeSets: Bool) {
        self.pattern = pattern.unicodeScalars.map { $0.value }
        self.ignoreCase = ignoreCase
        self.unicodeSets = unicodeSets
    }

    mutating func parse() throws(ECMARegexError) -> RegexNode {
        let node = try parseDisjunction()
        if position < pattern.count {
            // parseDisjunction stops only at the end or at a `)` no group opened.
            throw ECMARegexError("unmatched ')'", offset: position)
        }
        return node
    }

    // MARK: - Reading

    private func peek(_ ahead: Int = 0) -> UInt32? {
        let index = position + ahead
        return index < pattern.count ? pattern[index] : nil
    }

    private func peekIs(_ character: Character, _ ahead: Int = 0) -> Bool {
        guard let scalar = peek(ahead), let expected = character.unicodeScalars.first else { return false }
        return scalar == expected.value
    }

    private static func scalar(_ character: Character) -> UInt32 { character.unicodeScalars.first?.value ?? 0 }

    static func describe(_ scalar: UInt32) -> String {
        guard let value = Unicode.Scalar(scalar) else { return "U+" + String(scalar, radix: 16, uppercase: true) }
        return String(Character(value))
    }

    private mutating func enter() throws(ECMARegexError) {
        depth += 1
        if depth > Self.maxNesting {
            throw ECMARegexError("groups and classes nested deeper than \(Self.maxNesting) are not supported", offset: position)
        }
    }

    // MARK: - Disjunction, alternative, term

    private mutating func parseDisjunction() throws(ECMARegexError) -> RegexNode {
        var alternatives = [try parseAlternative()]
        while peekIs("|") {
            position += 1
            alternatives.append(try parseAlternative())
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func parseAlternative() throws(ECMARegexError) -> RegexNode {
        var terms: [RegexNode] = []
        while let scalar = peek(), scalar != Self.scalar("|"), scalar != Self.scalar(")") {
            terms.append(try parseTerm())
        }
        switch terms.count {
        case 0: return .empty
        case 1: return terms[0]
        default: return .concatenation(terms)
        }
    }

    private mutating func parseTerm() throws(ECMARegexError) -> RegexNode {
        let start = position
        if let assertion = try parseAssertion() {
            if isAtQuantifier() {
                throw ECMARegexError("an assertion cannot be quantified", offset: position)
            }
            return .assertion(assertion)
        }
        let capturesBefore = captureCount
        let atom = try parseAtom()
        return try parseQuantifier(on: atom, captures: (capturesBefore + 1)..<(captureCount + 1), atomOffset: start)
    }

    private mutating func parseAssertion() throws(ECMARegexError) -> RegexAssertion? {
        if peekIs("^") {
            position += 1
            return .start
        }
        if peekIs("$") {
            position += 1
            return .end
        }
        if peekIs("\\") && peekIs("b", 1) {
            position += 2
            return .wordBoundary
        }
        if peekIs("\\") && peekIs("B", 1) {
            position += 2
            return .notWordBoundary
        }
        if peekIs("(") && peekIs("?", 1) {
            if peekIs("=", 2) { throw ECMARegexError("lookahead (?= ) is not supported", offset: position) }
            if peekIs("!", 2) { throw ECMARegexError("negative lookahead (?! ) is not supported", offset: position) }
            if peekIs("<", 2) && peekIs("=", 3) {
                throw ECMARegexError("lookbehind (?<= ) is not supported", offset: position)
            }
            if peekIs("<", 2) && peekIs("!", 3) {
                throw ECMARegexError("negative lookbehind (?<! ) is not supported", offset: position)
            }
        }
        return nil
    }

    private func isAtQuantifier() -> Bool {
        peekIs("*") || peekIs("+") || peekIs("?") || (peekIs("{") && quantifierBraceLength() != nil)
    }

    // MARK: - Quantifiers

    /// The length of a well-formed `{n}`, `{n,}` or `{n,m}` at the position, or nil.
    private func quantifierBraceLength() -> Int? {
        guard peekIs("{") else { return nil }
        var index = 1
        var digits = 0
        while let scalar = peek(index), (0x30...0x39).contains(scalar) {
            index += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        if peekIs(",", index) {
            index += 1
            while let scalar = peek(index), (0x30...0x39).contains(scalar) { index += 1 }
        }
        return peekIs("}", index) ? index + 1 : nil
    }

    /// Counts saturate here: far above any count the compiler accepts (`maxInstructions`), yet
    /// an `Int` on every target. The WebAssembly build's `Int` is 32 bits, where the former
    /// ceiling `1 << 40` shifted out to 0 and turned every `{n}` into `{0}` (fail-open).
    static let countCeiling = 1_000_000_000

    /// Reads decimal digits: the value saturated at `countCeiling`, and where the digits are, so
    /// two counts past the ceiling still compare exactly (`{n,m}` order).
    private mutating func readCount() -> (value: Int, digits: Range<Int>) {
        let start = position
        var value = 0
        while let scalar = peek(), (0x30...0x39).contains(scalar) {
            value = Self.appendingCountDigit(Int(scalar - 0x30), to: value)
            position += 1
        }
        return (value, start..<position)
    }

    /// `value * 10 + digit`, saturated at `countCeiling` before it could overflow any `Int`.
    static func appendingCountDigit(_ digit: Int, to value: Int) -> Int {
        guard value < countCeiling / 10 else { return countCeiling }
        return min(value * 10 + digit, countCeiling)
    }

    /// Whether the decimal digits at `high` spell a smaller number than those at `low`: exact
    /// whatever their length, as ECMAScript compares the mathematical values.
    private func countIsLess(_ high: Range<Int>, than low: Range<Int>) -> Bool {
        let high = significantDigits(high)
        let low = significantDigits(low)
        if high.count != low.count { return high.count < low.count }
        for (h, l) in zip(high, low) where pattern[h] != pattern[l] { return pattern[h] < pattern[l] }
        return false
    }

    private func significantDigits(_ digits: Range<Int>) -> Range<Int> {
        var start = digits.lowerBound
        while start < digits.upperBound - 1, pattern[start] == 0x30 { start += 1 }
        return start..<digits.upperBound
    }

    private func countText(_ digits: Range<Int>) -> String {
        var text = ""
        for index in digits { text.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: pattern[index]))) }
        return text
    }

    private mutating func parseQuantifier(
        on atom: RegexNode, captures: Range<Int>, atomOffset: Int
    ) throws(ECMARegexError) -> RegexNode {
        let offset = position
        let minimum: Int
        let maximum: Int?
        if peekIs("*") {
            position += 1
            (minimum, maximum) = (0, nil)
        } else if peekIs("+") {
            position += 1
            (minimum, maximum) = (1, nil)
        } else if peekIs("?") {
            position += 1
            (minimum, maximum) = (0, 1)
        } else if peekIs("{") {
            guard quantifierBraceLength() != nil else {
                throw ECMARegexError("lone quantifier brace '{' (write \\{ for a literal brace)", offset: position)
            }
            position += 1
            let low = readCount()
            var high: (value: Int, digits: Range<Int>)? = low
            if peekIs(",") {
                position += 1
                high = peekIs("}") ? nil : readCount()
            }
            position += 1  // the `}` quantifierBraceLength saw
            if let high, countIsLess(high.digits, than: low.digits) {
                throw ECMARegexError(
                    "numbers out of order in {\(countText(low.digits)),\(countText(high.digits))} quantifier",
                    offset: offset)
            }
            (minimum, maximum) = (low.value, high?.value)
        } else {
            return atom
        }
        var greedy = true
        if peekIs("?") {
            position += 1
            greedy = false
        }
        if isAtQuantifier() {
            throw ECMARegexError("nothing to repeat (a quantifier follows a quantifier)", offset: position)
        }
        return .repetition(atom, min: minimum, max: maximum, greedy: greedy, captures: captures, offset: offset)
    }

    // MARK: - Atoms

    private mutating func parseAtom() throws(ECMARegexError) -> RegexNode {
        guard let scalar = peek() else { throw ECMARegexError("unexpected end of pattern", offset: position) }
        switch scalar {
        case Self.scalar("."):
            position += 1
            return .scalars(folded(.dot))
        case Self.scalar("("):
            return try parseGroup()
        case Self.scalar("["):
            return .scalars(try parseClass())
        case Self.scalar("\\"):
            return try parseAtomEscape()
        case Self.scalar("*"), Self.scalar("+"), Self.scalar("?"):
            throw ECMARegexError("nothing to repeat before '\(Self.describe(scalar))'", offset: position)
        case Self.scalar("{"):
            if quantifierBraceLength() != nil {
                throw ECMARegexError("nothing to repeat before '{'", offset: position)
            }
            throw ECMARegexError("lone quantifier brace '{' (write \\{ for a literal brace)", offset: position)
        case Self.scalar("}"):
            throw ECMARegexError("lone quantifier brace '}' (write \\} for a literal brace)", offset: position)
        case Self.scalar("]"):
            throw ECMARegexError("lone ']' (write \\] for a literal bracket)", offset: position)
        default:
            position += 1
            return .scalars(folded(RegexScalarSet(scalar: scalar)))
        }
    }

    private mutating func parseGroup() throws(ECMARegexError) -> RegexNode {
        let open = position
        try enter()
        position += 1
        var capture: Int?
        if peekIs("?") {
            if peekIs(":", 1) {
                position += 2
            } else if peekIs("<", 1) {
                position += 2
                let name = try parseGroupName()
                if captureNames.contains(name) {
                    throw ECMARegexError("duplicate capture group name '\(name)'", offset: open)
                }
                captureCount += 1
                captureNames.append(name)
                capture = captureCount
            } else {
                throw ECMARegexError("group modifier (?…) is not supported (only (?: ) and (?<name> ))", offset: open)
            }
        } else {
            captureCount += 1
            captureNames.append(nil)
            capture = captureCount
        }
        let body = try parseDisjunction()
        guard peekIs(")") else { throw ECMARegexError("unterminated group", offset: open) }
        position += 1
        depth -= 1
        return .group(body, capture: capture)
    }

    /// `name>` of `(?<name>`: an identifier (ID_Start or `$` `_`, then ID_Continue or `$` ZWNJ ZWJ).
    /// Escapes in names (`\u0041`) are not supported.
    private mutating func parseGroupName() throws(ECMARegexError) -> String {
        let start = position
        var name = ""
        while let scalar = peek(), scalar != Self.scalar(">") {
            guard let value = Unicode.Scalar(scalar) else { break }
            let properties = value.properties
            let valid =
                name.isEmpty
                ? (properties.isIDStart || value == "$" || value == "_")
                : (properties.isIDContinue || value == "$" || scalar == 0x200C || scalar == 0x200D)
            guard valid else {
                throw ECMARegexError("invalid character '\(Self.describe(scalar))' in capture group name", offset: position)
            }
            name.unicodeScalars.append(value)
            position += 1
        }
        guard peekIs(">"), !name.isEmpty else {
            throw ECMARegexError("invalid capture group name", offset: start)
        }
        position += 1
        return name
    }

    private mutating func parseAtomEscape() throws(ECMARegexError) -> RegexNode {
        let start = position
        position += 1
        guard let scalar = peek() else { throw ECMARegexError("\\ at end of pattern", offset: start) }
        if let set = try parseClassEscape(scalar, start: start) {
            return .scalars(set)
        }
        switch scalar {
        case 0x31...0x39:
            throw ECMARegexError("backreference \\\(Self.describe(scalar)) is not supported", offset: start)
        case Self.scalar("k"):
            throw ECMARegexError("named backreference \\k<…> is not supported", offset: start)
        case Self.scalar("0"):
            position += 1
            if let next = peek(), (0x30...0x39).contains(next) {
                throw ECMARegexError("invalid decimal escape \\0\(Self.describe(next))", offset: start)
            }
            return .scalars(folded(RegexScalarSet(scalar: 0)))
        default:
            return .scalars(folded(RegexScalarSet(scalar: try parseCharacterEscape(start: start, inClass: false))))
        }
    }

    /// `\d \D \s \S \w \W` and `\p{…} \P{…}` (folded when `i` is on); nil for any other escape.
    /// The position is on the letter; it moves past it when a set is returned.
    private mutating func parseClassEscape(_ scalar: UInt32, start: Int) throws(ECMARegexError) -> RegexScalarSet? {
        let word = ignoreCase ? RegexScalarSet.wordCharactersIgnoringCase : RegexScalarSet.wordCharacters
        let set: RegexScalarSet
        switch scalar {
        case Self.scalar("d"): set = .digits
        case Self.scalar("D"): set = RegexScalarSet.digits.inverted()
        case Self.scalar("s"): set = .whiteSpace
        case Self.scalar("S"): set = RegexScalarSet.whiteSpace.inverted()
        case Self.scalar("w"): set = word
        case Self.scalar("W"): set = word.inverted()
        case Self.scalar("p"), Self.scalar("P"):
            let negated = scalar == Self.scalar("P")
            let property = try RegexPropertyEscape.parse(pattern, brace: position + 1, escapeAt: start, negated: negated)
            position = property.end
            guard negated else { return folded(property.set) }
            // `u`: the complement of the property, matched by Canonicalize (so /\P{Lu}/ui matches
            // "A", whose fold "a" is in it); `v`: MaybeSimpleCaseFolding first, then the complement
            // among the scalars that fold to themselves (so /\P{Lu}/vi does not match "A").
            return unicodeSets ? folded(property.set).inverted() : folded(property.set.inverted())
        default: return nil
        }
        position += 1
        return folded(set)
    }

    /// A CharacterEscape after `\` (position on the letter): control, `\cX`, `\xHH`, `\uXXXX`
    /// (a surrogate pair of them is one scalar), `\u{…}`, or an identity escape of a syntax
    /// character or `/` (and `-` in a class).
    private mutating func parseCharacterEscape(start: Int, inClass: Bool) throws(ECMARegexError) -> UInt32 {
        guard let scalar = peek() else { throw ECMARegexError("\\ at end of pattern", offset: start) }
        position += 1
        switch scalar {
        case Self.scalar("f"): return 0x0C
        case Self.scalar("n"): return 0x0A
        case Self.scalar("r"): return 0x0D
        case Self.scalar("t"): return 0x09
        case Self.scalar("v"): return 0x0B
        case Self.scalar("c"):
            guard let letter = peek(), (0x41...0x5A).contains(letter) || (0x61...0x7A).contains(letter) else {
                throw ECMARegexError("invalid control escape \\c (needs an ASCII letter)", offset: start)
            }
            position += 1
            return letter % 32
        case Self.scalar("x"):
            guard let value = readHex(count: 2) else {
                throw ECMARegexError("invalid escape \\x (needs two hex digits)", offset: start)
            }
            return value
        case Self.scalar("u"):
            return try parseUnicodeEscape(start: start)
        default:
            let syntax = "^$\\.*+?()[]{}|/".unicodeScalars.contains { $0.value == scalar }
            if syntax || (inClass && scalar == Self.scalar("-")) { return scalar }
            throw ECMARegexError("invalid escape \\\(Self.describe(scalar)) with the u flag", offset: start)
        }
    }

    private mutating func readHex(count: Int) -> UInt32? {
        var value: UInt32 = 0
        for ahead in 0..<count {
            guard let digit = peek(ahead).flatMap(Self.hexValue) else { return nil }
            value = value << 4 | digit
        }
        position += count
        return value
    }

    private static func hexValue(_ scalar: UInt32) -> UInt32? {
        switch scalar {
        case 0x30...0x39: return scalar - 0x30
        case 0x41...0x46: return scalar - 0x41 + 10
        case 0x61...0x66: return scalar - 0x61 + 10
        default: return nil
        }
    }

    /// After `\u`: `{hex…}` up to 10FFFF, or four hex digits, joined with a following `\uXXXX`
    /// trail surrogate when they are a lead surrogate (a lone surrogate never matches a String).
    private mutating func parseUnicodeEscape(start: Int) throws(ECMARegexError) -> UInt32 {
        if peekIs("{") {
            position += 1
            var value: UInt32 = 0
            var digits = 0
            while let digit = peek().flatMap(Self.hexValue) {
                value = value << 4 | digit
                digits += 1
                position += 1
                if value > RegexScalarSet.maxScalar {
                    throw ECMARegexError("\\u{…} escape above U+10FFFF", offset: start)
                }
            }
            guard digits > 0, peekIs("}") else {
                throw ECMARegexError("invalid escape \\u{…} (needs hex digits and '}')", offset: start)
            }
            position += 1
            return value
        }
        guard let value = readHex(count: 4) else {
            throw ECMARegexError("invalid escape \\u (needs four hex digits or {…})", offset: start)
        }
        if (0xD800...0xDBFF).contains(value), peekIs("\\"), peekIs("u", 1) {
            let saved = position
            position += 2
            if let trail = readHex(count: 4), (0xDC00...0xDFFF).contains(trail) {
                return 0x10000 + ((value - 0xD800) << 10) + (trail - 0xDC00)
            }
            position = saved
        }
        return value
    }

    // MARK: - Character classes

    /// `[…]` or `[^…]`: the set of scalars it matches, folded when `i` is on (the complement is
    /// taken after folding, which is ECMAScript's result for both `u` and `v`).
    private mutating func parseClass() throws(ECMARegexError) -> RegexScalarSet {
        let open = position
        try enter()
        position += 1
        var negated = false
        if peekIs("^") {
            position += 1
            negated = true
        }
        let contents = unicodeSets ? try parseSetExpression(open: open) : try parseClassRanges(open: open)
        guard peekIs("]") else { throw ECMARegexError("unterminated character class", offset: open) }
        position += 1
        depth -= 1
        return negated ? contents.inverted() : contents
    }

    private enum ClassAtom {
        case scalar(UInt32)
        case set(RegexScalarSet)
    }

    /// The `u` flag's ClassContents: atoms and ranges up to the closing `]`.
    private mutating func parseClassRanges(open: Int) throws(ECMARegexError) -> RegexScalarSet {
        var ranges: [ClosedRange<UInt32>] = []
        var sets: [RegexScalarSet] = []
        while let scalar = peek(), scalar != Self.scalar("]") {
            let atomStart = position
            let first = try parseClassAtom()
            if peekIs("-"), let next = peek(1), next != Self.scalar("]") {
                position += 1
                let second = try parseClassAtom()
                guard case .scalar(let low) = first, case .scalar(let high) = second else {
                    throw ECMARegexError("a class escape like \\d cannot bound a range", offset: atomStart)
                }
                guard low <= high else { throw ECMARegexError("range out of order in character class", offset: atomStart) }
                ranges.append(low...high)
            } else {
                switch first {
                case .scalar(let value): ranges.append(value...value)
                case .set(let set): sets.append(set)
                }
            }
        }
        guard peek() != nil else { throw ECMARegexError("unterminated character class", offset: open) }
        var result = folded(RegexScalarSet(ranges))
        for set in sets { result = result.union(set) }
        return result
    }

    private mutating func parseClassAtom() throws(ECMARegexError) -> ClassAtom {
        let start = position
        guard let scalar = peek() else { throw ECMARegexError("unterminated character class", offset: start) }
        guard scalar == Self.scalar("\\") else {
            position += 1
            return .scalar(scalar)
        }
        position += 1
        guard let escaped = peek() else { throw ECMARegexError("\\ at end of pattern", offset: start) }
        if let set = try parseClassEscape(escaped, start: start) { return .set(set) }
        switch escaped {
        case Self.scalar("b"):
            position += 1
            return .scalar(0x08)
        case Self.scalar("0"):
            position += 1
            if let next = peek(), (0x30...0x39).contains(next) {
                throw ECMARegexError("invalid decimal escape in character class", offset: start)
            }
            return .scalar(0)
        case 0x31...0x39:
            throw ECMARegexError("invalid decimal escape in character class (backreferences are not classes)", offset: start)
        default:
            return .scalar(try parseCharacterEscape(start: start, inClass: true))
        }
    }

    // MARK: - The v flag's class set expressions

    /// ClassSetExpression: a union of operands and ranges, or one `&&` intersection chain, or
    /// one `--` subtraction chain (mixing needs nested classes, as in ECMAScript).
    private mutating func parseSetExpression(open: Int) throws(ECMARegexError) -> RegexScalarSet {
        if peekIs("]") { return .empty }
        let first = try parseSetOperand(allowRange: true)
        if peekIs("&") && peekIs("&", 1) {
            guard first.isOperand else { throw ECMARegexError("a range cannot be an operand of &&", offset: position) }
            var result = first.set
            while peekIs("&") && peekIs("&", 1) {
                position += 2
                if peekIs("&") { throw ECMARegexError("'&&&' in a class set expression", offset: position) }
                result = result.intersection(try parseSetOperand(allowRange: false).set)
            }
            guard peekIs("]") else { throw ECMARegexError("mixed set operators need nested classes", offset: position) }
            return result
        }
        if peekIs("-") && peekIs("-", 1) {
            guard first.isOperand else { throw ECMARegexError("a range cannot be an operand of --", offset: position) }
            var result = first.set
            while peekIs("-") && peekIs("-", 1) {
                position += 2
                result = result.subtracting(try parseSetOperand(allowRange: false).set)
            }
            guard peekIs("]") else { throw ECMARegexError("mixed set operators need nested classes", offset: position) }
            return result
        }
        var result = first.set
        while let scalar = peek(), scalar != Self.scalar("]") {
            if (peekIs("&") && peekIs("&", 1)) || (peekIs("-") && peekIs("-", 1)) {
                throw ECMARegexError("mixed set operators need nested classes", offset: position)
            }
            result = result.union(try parseSetOperand(allowRange: true).set)
        }
        guard peek() != nil else { throw ECMARegexError("unterminated character class", offset: open) }
        return result
    }

    /// A ClassSetOperand (nested class, class escape, character) or, when allowed, a ClassSetRange.
    private mutating func parseSetOperand(allowRange: Bool) throws(ECMARegexError) -> (set: RegexScalarSet, isOperand: Bool) {
        let start = position
        if peekIs("[") { return (try parseClass(), true) }
        if peekIs("\\"), let escaped = peek(1) {
            position += 1
            if let set = try parseClassEscape(escaped, start: start) { return (set, true) }
            if escaped == Self.scalar("q") {
                throw ECMARegexError("class string disjunction \\q{…} is not supported", offset: start)
            }
            position = start
        }
        let low = try parseSetCharacter()
        if allowRange, peekIs("-"), !peekIs("-", 1) {
            position += 1
            let high = try parseSetCharacter()
            guard low <= high else { throw ECMARegexError("range out of order in character class", offset: start) }
            return (folded(RegexScalarSet([low...high])), false)
        }
        return (folded(RegexScalarSet(scalar: low)), true)
    }

    /// ClassSetCharacter: a character that is not class set syntax nor the start of a reserved
    /// double punctuator, or an escape (CharacterEscape, `\b`, an escaped reserved punctuator).
    private mutating func parseSetCharacter() throws(ECMARegexError) -> UInt32 {
        let start = position
        guard let scalar = peek() else { throw ECMARegexError("unterminated character class", offset: start) }
        if scalar == Self.scalar("\\") {
            position += 1
            guard let escaped = peek() else { throw ECMARegexError("\\ at end of pattern", offset: start) }
            if escaped == Self.scalar("b") {
                position += 1
                return 0x08
            }
            if "&-!#%,:;<=>@`~".unicodeScalars.contains(where: { $0.value == escaped }) {
                position += 1
                return escaped
            }
            if escaped == Self.scalar("0"), !(peek(1).map { (0x30...0x39).contains($0) } ?? false) {
                position += 1
                return 0
            }
            return try parseCharacterEscape(start: start, inClass: false)
        }
        if "()[]{}/-|".unicodeScalars.contains(where: { $0.value == scalar }) {
            throw ECMARegexError("'\(Self.describe(scalar))' must be escaped in a class with the v flag", offset: start)
        }
        if peek(1) == scalar, "&!#$%*+,.:;<=>?@^`~".unicodeScalars.contains(where: { $0.value == scalar }) {
            throw ECMARegexError(
                "reserved double punctuator '\(Self.describe(scalar))\(Self.describe(scalar))' in a class with the v flag",
                offset: start)
        }
        position += 1
        return scalar
    }

    // MARK: - Case folding

    private func folded(_ set: RegexScalarSet) -> RegexScalarSet {
        ignoreCase ? set.addingCaseFolds() : set
    }
}
