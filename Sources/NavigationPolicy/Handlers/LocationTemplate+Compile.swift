/// Validation of a `location` template as written, and its reduction to serialized form.
///
/// A template used to be checked only after the URL parser's clean-up (which strips tabs and
/// newlines and trims spaces) and then emitted raw: a CR/LF in it made every matching request a
/// 500, and `javascript:` passed. Now the raw text is refused if it holds anything the parser
/// would have to clean up or that means something else in HTML or a header, the scheme must be
/// one a redirect may open, and the literal parts are kept as the parser serializes them.
extension LocationTemplate {
    /// Schemes a location may not use although they are not special: they run script or
    /// show content the app does not control instead of opening a page or an app.
    static let refusedSchemes: Set<String> = [
        "javascript", "vbscript", "data", "blob", "about", "filesystem", "view-source",
    ]

    /// The href every template is tried with: validation must hold whatever the request.
    static let exampleHref = "https://example.com/"

    /// Parses, validates and serializes a template from config, or says what is wrong with it.
    public static func compile(_ template: String) -> Result<LocationTemplate, PatternError> {
        if let problem = rawProblem(template) { return .failure(PatternError(problem)) }
        let parsed: LocationTemplate
        switch parse(template) {
        case .failure(let error): return .failure(error)
        case .success(let value): parsed = value
        }
        // A template must yield an absolute URL whatever the request, or apps get garbage.
        guard let example = try? URLRecord.parse(parsed.render(href: exampleHref)) else {
            return .failure(PatternError("the location is not an absolute URL"))
        }
        let scheme = example.scheme
        if example.isSpecial ? (scheme != "http" && scheme != "https") : refusedSchemes.contains(scheme) {
            return .failure(
                PatternError(
                    "a location must be an http:, https: or app URL (\"myapp://…\"), not \(scheme):"))
        }
        guard let serialized = parsed.serialized() else {
            return .failure(
                PatternError("{url} is where the URL parser changes or drops it (a host, port or dot segment)"))
        }
        // The serialized literals must render exactly what the parser makes of the raw ones.
        let rendered = serialized.render(href: exampleHref)
        guard rendered == example.href else {
            return .failure(
                PatternError("{url} is where the URL parser changes or drops it (a host, port or dot segment)"))
        }
        return .success(serialized)
    }

    /// What is wrong with the raw text, or nil: anything the URL parser would silently strip or
    /// trim (C0 controls, DEL, spaces) and the bytes that end an attribute or open a tag in HTML
    /// (`"`, `<`, `>`, `` ` ``) or that `http:` reads as `/` (`\`). One meaning per input: the
    /// config must say exactly what is emitted, percent-encoded where needed.
    static func rawProblem(_ template: String) -> String? {
        let bytes = template.utf8
        if bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ") {
            return "a leading or trailing space; remove it"
        }
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F {
                let hex = String(byte, radix: 16, uppercase: true)
                return
                    "a control character (U+\(byte < 0x10 ? "000" : "00")\(hex)); remove it or write %\(byte < 0x10 ? "0" : "")\(hex)"
            }
            switch byte {
            case UInt8(ascii: " "): return "a raw space; write %20"
            case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"), UInt8(ascii: "\\"):
                let hex = String(byte, radix: 16, uppercase: true)
                return "a raw '\(Character(Unicode.Scalar(byte)))'; write %\(hex)"
            default: continue
            }
        }
        return nil
    }

    /// The template with each literal part as the URL serializer writes it, or nil when a
    /// placeholder lands where the serializer would change or drop it.
    ///
    /// Each `{url}` is replaced by a marker of lower-case letters, which the serializer keeps
    /// as they are wherever the encoded href could go (it only ever contains unreserved bytes
    /// and `%XX`), then the serialized URL is split at the markers again.
    /// A marker of lower-case letters that does not occur in `text`: `navpolicylocationplaceholder`
    /// followed by one `x` more than the longest run of `x`s after it anywhere in `text`, found in
    /// one pass. Lengthening it by one `x` per search of the template was quadratic: a 32 KB
    /// `location` of the word and `x`s took 31.6 s to validate (outside attack 14, R2).
    static func marker(avoiding text: String) -> String {
        let base = Array("navpolicylocationplaceholder".utf8)
        let bytes = Array(text.utf8)
        var longestRun = -1
        var start = 0
        // Each position compares at most the base's 28 bytes, and each run of `x`s is counted
        // from the occurrence before it only: linear in `text`.
        while start + base.count <= bytes.count {
            guard bytes[start..<start + base.count].elementsEqual(base) else {
                start += 1
                continue
            }
            var end = start + base.count
            while end < bytes.count, bytes[end] == UInt8(ascii: "x") { end += 1 }
            longestRun = max(longestRun, end - start - base.count)
            start = end
        }
        return String(decoding: base, as: UTF8.self) + String(repeating: "x", count: longestRun + 1)
    }

    func serialized() -> LocationTemplate? {
        let marker = Self.marker(avoiding: summary)
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .encodedURL: text += marker
            }
        }
        guard let href = try? URLRecord.parse(text).href else { return nil }
        let pieces = href.split(atEvery: marker)
        let placeholders = parts.filter { $0 == .encodedURL }.count
        guard pieces.count == placeholders + 1 else { return nil }
        var serialized: [Part] = []
        for (index, piece) in pieces.enumerated() {
            if index > 0 { serialized.append(.encodedURL) }
            if !piece.isEmpty { serialized.append(.literal(String(piece))) }
        }
        return LocationTemplate(parts: serialized)
    }
}
