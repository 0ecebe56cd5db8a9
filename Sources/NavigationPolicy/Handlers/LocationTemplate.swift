/// A redirect location with placeholders, compiled once from config.
///
/// The only placeholder is `{url}`: the request's href with every byte except
/// `A-Z a-z 0-9 - . _ ~` percent-encoded (upper-case hex), so it is safe inside a query value.
public struct LocationTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case encodedURL
    }

    let parts: [Part]

    /// The placeholders a template may use.
    public static let placeholders = ["url"]

    /// Parses a template, or says which placeholder or brace is wrong.
    public static func parse(_ template: String) -> Result<LocationTemplate, PatternError> {
        var parts: [Part] = []
        var literal = ""
        var rest = template[...]
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            literal += rest[..<open]
            if rest[open] == "}" { return .failure(PatternError("unmatched \"}\"")) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                return .failure(PatternError("unclosed \"{\""))
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard placeholders.contains(name) else {
                return .failure(
                    PatternError(
                        "unknown template placeholder \"{\(name)}\"; known: "
                            + placeholders.map { "{\($0)}" }.joined(separator: ", ")))
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.encodedURL)
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return .success(LocationTemplate(parts: parts))
    }

    /// The template with its placeholder spelled `{url}`, for status displays.
    public var summary: String {
        parts.map { part in
            switch part {
            case .literal(let text): text
            case .encodedURL: "{url}"
            }
        }.joined()
    }

    /// The location for a request.
    public func render(href: String) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .literal(let text): output += text
            case .encodedURL: output += Self.encodeComponent(href)
            }
        }
        return output
    }

    /// Percent-encodes every byte that is not unreserved.
    static func encodeComponent(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if MatchPath.isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
