import NavigationPolicy

/// A URL that passed the intake rules: http or https after WHATWG parsing, no userinfo,
/// at most ``IntakeLimits/urlBytes`` long.
public struct WebURL: Sendable, Equatable {
    /// The text as shared.
    public let original: String
    /// The WHATWG serialization: lower-case scheme and host, default port dropped, empty path `/`.
    public let href: String
    /// What duplicates are recognised by: ``href`` without its fragment, which only matters to
    /// the page, not to which page it is. The query is kept as is (tracking parameters are policy).
    public let deduplicationKey: String

    /// Applies the web-URL rules to `text`.
    /// - Throws: `invalid-url` (unparsable, userinfo, too long, embedded whitespace) or
    ///   `scheme-not-allowed` (anything but http and https: file, javascript, data, app schemes).
    public init(validating text: String, limits: IntakeLimits = IntakeLimits()) throws(IntakeFailure) {
        guard text.utf8.count <= limits.urlBytes else {
            throw IntakeFailure(.invalidURL, "the URL is longer than \(limits.urlBytes) bytes")
        }
        let trimmed = text.trimmingASCIIWhitespace
        // The WHATWG parser silently deletes tabs and newlines inside a URL; a shared URL that
        // contains them is two things glued together, not one URL.
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw IntakeFailure(.invalidURL, "the URL contains whitespace or control characters")
        }
        let record: URLRecord
        do {
            record = try URLRecord.parse(trimmed)
        } catch {
            throw IntakeFailure(.invalidURL, "not a valid URL: \(error)")
        }
        let scheme = record.scheme
        guard scheme == "http" || scheme == "https" else {
            throw IntakeFailure(
                .schemeNotAllowed, "only http and https URLs are accepted, not \(scheme):",
                extensions: ["scheme": .string(scheme)])
        }
        guard !record.hasCredentials else {
            throw IntakeFailure(.invalidURL, "URLs with a user name or password (user:pw@) are not accepted")
        }
        guard !record.hostname.isEmpty else { throw IntakeFailure(.invalidURL, "the URL has no host") }
        guard record.href.utf8.count <= limits.urlBytes else {
            throw IntakeFailure(.invalidURL, "the URL is longer than \(limits.urlBytes) bytes once serialized")
        }
        original = text
        href = record.href
        // After serialization a '#' can only start the fragment: the parser percent-encodes it elsewhere.
        deduplicationKey =
            record.href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
            .map(String.init) ?? record.href
    }
}

extension String {
    /// The text without leading and trailing ASCII spaces, tabs and line breaks.
    var trimmingASCIIWhitespace: String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
