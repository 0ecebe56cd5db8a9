/// A parsed `Content-Type` value: `type/subtype` in lower case plus parameters.
struct MediaType: Equatable {
    var essence: String
    /// Parameter names in lower case; quoted values unquoted.
    var parameters: [String: String]

    /// Parses a header value; nil when it is not `type/subtype[; name=value]*`.
    init?(_ header: String) {
        let parts = Self.splitParameters(header)
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
                value = Self.unquote(value.dropFirst().dropLast())
            }
            if parameters[name] == nil { parameters[name] = value }
        }
        self.parameters = parameters
    }

    /// Splits on `;` outside quoted strings.
    private static func splitParameters(_ header: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in header {
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
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
