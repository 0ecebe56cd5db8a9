/// A redirect location with placeholders, compiled once from config.
///
/// The only placeholder is `{url}`: the request's href with every byte except
/// `A-Z a-z 0-9 - . _ ~` percent-encoded (upper-case hex), so it is safe inside a query value.
///
/// ``compile(_:)`` keeps the literal parts in their WHATWG-serialized form, so what is emitted
/// (the decision's `location`, a `Location` header) is the URL the parser would produce, never
/// the raw config text; see `LocationTemplate+Compile.swift`.
public struct LocationTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case encodedURL
    }

    let parts: [Part]

    /// The placeholders a template may use.
    public static let placeholders = ["url"]

    /// `href` as `{url}` writes it into a location: the decision log finds a redacted URL's
    /// expansion inside a logged location by it.
    public static func expansion(of href: String) -> String {
        LocationTemplate(parts: [.encodedURL]).render(href: href)
    }

    /// Parses a template's placeholders, or says which placeholder or brace is wrong; the
    /// literal text is kept as written (``compile(_:)`` is what config loading uses).
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
    ///
    /// Measured first, then written into one string: this runs for every redirecting decision,
    /// and appending part by part cost a byte array, a string per part and a concatenation.
    public func render(href: String) -> String {
        var length = 0
        for part in parts {
            switch part {
            case .literal(let text): length += text.utf8.count
            case .encodedURL: length += Self.encodedLength(href)
            }
        }
        var href = href
        return href.withUTF8 { hrefBytes in
            String(unsafeUninitializedCapacity: length) { buffer in
                // `length` counts exactly the bytes written below (same parts, same rule), so
                // every index stays below the capacity; the guards keep that true even if the
                // two drifted apart.
                var written = 0
                for part in parts {
                    switch part {
                    case .literal(var text):
                        text.withUTF8 { bytes in
                            for byte in bytes where written < buffer.count {
                                buffer[written] = byte
                                written += 1
                            }
                        }
                    case .encodedURL:
                        for byte in hrefBytes {
                            if MatchPath.isUnreserved(byte) {
                                guard written < buffer.count else { break }
                                buffer[written] = byte
                                written += 1
                            } else {
                                guard written + 3 <= buffer.count else { break }
                                buffer[written] = UInt8(ascii: "%")
                                buffer[written + 1] = MatchPath.upperHex(byte >> 4)
                                buffer[written + 2] = MatchPath.upperHex(byte & 0x0F)
                                written += 3
                            }
                        }
                    }
                }
                return written
            }
        }
    }

    private static func encodedLength(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var length = 0
            for byte in bytes { length += MatchPath.isUnreserved(byte) ? 1 : 3 }
            return length
        }
    }
}
