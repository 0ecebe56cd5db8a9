/// The body `{…}` of a Unicode property escape `\p{…}` or `\P{…}` (ECMAScript's
/// UnicodePropertyValueExpression, `u` and `v` flags): `Name=Value` with Name one of
/// General_Category, Script, Script_Extensions (or gc, sc, scx), or a lone General_Category value
/// or binary property. Names are ASCII letters and `_`, values also digits, and both are matched
/// exactly; anything else is an error naming the escape.
enum RegexPropertyEscape {
    /// Reads the body that starts at `pattern[brace]` (which should be `{`) of the escape at
    /// `start` (its `\`); `negated` for `\P`. Returns the property's scalars, not yet negated nor
    /// folded, and the index just past the `}`.
    static func parse(
        _ pattern: [UInt32], brace: Int, escapeAt start: Int, negated: Bool
    ) throws(ECMARegexError) -> (set: RegexScalarSet, end: Int) {
        let escape = negated ? "\\P" : "\\p"
        guard brace < pattern.count, pattern[brace] == 0x7B else {
            throw ECMARegexError("invalid property escape \(escape) (needs {…}, as in \(escape){L})", offset: start)
        }
        var name: String?
        var text = ""
        var index = brace + 1
        while index < pattern.count, pattern[index] != 0x7D {
            let scalar = pattern[index]
            if scalar == 0x3D, name == nil {
                name = text
                text = ""
            } else if isNameCharacter(scalar) || isDigit(scalar) {
                text.unicodeScalars.append(Unicode.Scalar(UInt8(scalar)))
            } else {
                throw ECMARegexError(
                    "invalid character '\(RegexParser.describe(scalar))' in \(escape){…}: property names and values are "
                        + "ASCII letters, digits and '_', matched exactly (ECMAScript allows no loose matching)",
                    offset: index)
            }
            index += 1
        }
        guard index < pattern.count else {
            throw ECMARegexError("unterminated property escape \(escape){… (no closing '}')", offset: start)
        }
        let body = (name.map { $0 + "=" } ?? "") + text
        // A name has no digits (UnicodePropertyNameCharacters); a value or lone name may.
        if text.isEmpty || name?.isEmpty == true || (name?.unicodeScalars.contains { isDigit($0.value) } ?? false) {
            throw ECMARegexError("invalid property escape \(escape){\(body)}", offset: start)
        }
        switch UnicodeProperty.lookup(name: name, value: text) {
        case .set(let set):
            return (set, index + 1)
        case .propertyOfStrings:
            throw ECMARegexError(
                "property of strings \(escape){\(body)} is not supported (it matches sequences of code points; "
                    + "this engine matches a class one code point at a time)",
                offset: start)
        case .unknownName(let suggestion):
            throw ECMARegexError(
                "unknown Unicode property name '\(name ?? "")' in \(escape){\(body)} (General_Category, Script and "
                    + "Script_Extensions, or gc, sc and scx, take a value)" + hint(suggestion),
                offset: start)
        case .unknownValue(let suggestion):
            let what =
                name.map { "value '\(text)' of the property \($0)" }
                ?? "Unicode property '\(text)' (a lone name is a General_Category value or a binary property)"
            throw ECMARegexError(
                "unknown \(what) in \(escape){\(body)}, Unicode \(UnicodePropertyTables.unicodeVersion)" + hint(suggestion),
                offset: start)
        }
    }

    private static func hint(_ suggestion: String?) -> String {
        suggestion.map { "; names are case-sensitive and exact: did you mean '\($0)'?" } ?? ""
    }

    private static func isNameCharacter(_ scalar: UInt32) -> Bool {
        (0x41...0x5A).contains(scalar) || (0x61...0x7A).contains(scalar) || scalar == 0x5F
    }

    private static func isDigit(_ scalar: UInt32) -> Bool { (0x30...0x39).contains(scalar) }
}
