/// A parsed `Content-Type` value: `type/subtype` in lower case plus parameters.
struct MediaType: Equatable {
    var essence: String
    /// Parameter names in lower case; quoted values unquoted.
    var parameters: [String: String]
    /// The first parameter name given more than once (`boundary=a; boundary=b`, or `name` and
    /// `name*`), compared case-insensitively. Parsers disagree on which one wins, so callers refuse the value.
    var repeatedParameter: String?

    /// The first parameter written in RFC 8187's extended notation (`charset*=utf-8''…`), or
    /// nil. Readers that decode it and readers that ignore it see different values, and no
    /// share target needs it, so callers refuse it.
    var extendedParameter: String? { parameters.keys.filter { $0.hasSuffix("*") }.min() }

    /// Parses a header value; nil when it is not `type/subtype[; name=value]*`.
    /// - Parameter backslashEscapes: whether `\` quotes the next character inside a quoted
    ///   value (RFC 9110 quoted-pair). A multipart part's Content-Disposition turns it off:
    ///   browsers write field names as the HTML standard says, with `"` as `%22` and a
    ///   backslash as itself, so `name="\"` names the field `\`.
    init?(_ header: String, backslashEscapes: Bool = true) {
        let parts = Self.splitParameters(header, backslashEscapes: backslashEscapes)
        guard let first = parts.first else { return nil }
        let essence = first.trimmingASCIIWhitespace.lowercased()
        let halves = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return nil }
        self.essence = essence
        var parameters: [String: String] = [:]
        for part in parts.dropFirst() {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let name = String(part[..<equals]).trimmingASCIIWhitespace.lowercased()
            var value = String(part[part.index(after: equals)...]).trimmingASCIIWhitespace
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                let inner = value.dropFirst().dropLast()
                value = backslashEscapes ? Self.unquote(inner) : String(inner)
            }
            // `name*` (RFC 8187's extended notation) names the same parameter as `name`: with
            // both, RFC 6266 readers take the starred one and others the plain one.
            let base = name.hasSuffix("*") ? String(name.dropLast()) : name
            if parameters[name] == nil, base == name || parameters[base] == nil,
                base != name || parameters[name + "*"] == nil
            {
                parameters[name] = value
            } else if repeatedParameter == nil {
                repeatedParameter = base
            }
        }
        self.parameters = parameters
    }

    /// Splits on `;` outside quoted strings.
    private static func splitParameters(_ header: String, backslashEscapes: Bool) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in header {
            if escaped {
                escaped = false
            } else if quoted, backslashEscapes, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";", !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }

    private static func unquote(_ text: Substring) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }
}
