public import JSONSupport

/// What a share carried, independent of how it was encoded: the URL candidates in order,
/// with the title, text and tags that describe them.
///
/// The candidates are raw text; ``WebURL`` decides which of them are acceptable.
public struct SharedPayload: Sendable, Equatable {
    /// The wire format the payload arrived in, stored as the item's `source`.
    public enum Format: String, Sendable, CaseIterable {
        case json
        case extensionItems = "extension-items"
        case formURLEncoded = "form-urlencoded"
        case multipart = "multipart-form-data"
        case uriList = "uri-list"
        case plainText = "text-plain"
    }

    /// The wire format.
    public var format: Format
    /// URL texts as found (explicit fields, or extracted from free text), in document order.
    public var urls: [String]
    /// The shared title (form `title`, extension item title, uri-list comment).
    public var title: String?
    /// The shared free text.
    public var text: String?
    /// Tags the client attached (JSON only).
    public var tags: [String]
    /// The extension items' `userInfo` objects (null where absent); stored, never used for decisions.
    public var userInfo: JSONValue?

    /// Creates a payload.
    public init(
        format: Format, urls: [String], title: String? = nil, text: String? = nil, tags: [String] = [],
        userInfo: JSONValue? = nil
    ) {
        self.format = format
        self.urls = urls
        self.title = title
        self.text = text
        self.tags = tags
        self.userInfo = userInfo
    }
}

/// The fields shared by every form-like format (plain JSON, Web Share Target forms).
struct ShareFields {
    var url: String?
    var title: String?
    var text: String?

    /// The URL candidate: `url` when given, else the first URL in `text`, then in `title`
    /// (Android puts shared URLs in `text`; some apps in `title`).
    func urlCandidate() throws(IntakeFailure) -> String {
        if let url, !url.trimmingASCIIWhitespace.isEmpty { return url }
        if let text, let found = FreeTextURL.first(in: text) { return found }
        if let title, let found = FreeTextURL.first(in: title) { return found }
        throw IntakeFailure(
            .noURLFound, "no http(s) URL in url, text or title",
            extensions: ["searched": .array(["url", "text", "title"].map(JSONValue.string))])
    }
}

extension String {
    /// Nil for empty strings, so that absent and empty form fields mean the same.
    var nonEmpty: String? { isEmpty ? nil : self }
}
