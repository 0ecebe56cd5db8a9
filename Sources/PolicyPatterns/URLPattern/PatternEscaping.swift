/// The standard's two escaping functions: for text written into a generated regular
/// expression, and for text written back into a pattern string.
enum PatternEscaping {
    /// "Escape a regexp string": backslash before every regular-expression syntax character
    /// (`/` included, as the `v` flag requires).
    static func regexp(_ input: String) -> String {
        escape(input, special: ".+*?^${}()[]|/\\")
    }

    /// "Escape a pattern string": backslash before every pattern-syntax character.
    static func pattern(_ input: String) -> String {
        escape(input, special: "+*?:{}()\\")
    }

    private static func escape(_ input: String, special: String) -> String {
        var result = String.UnicodeScalarView()
        let specials = Set(special.unicodeScalars)
        for scalar in input.unicodeScalars {
            if specials.contains(scalar) { result.append("\\") }
            result.append(scalar)
        }
        return String(result)
    }
}
