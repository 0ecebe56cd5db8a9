/// The size and shape limits every intake payload must stay within (issue 4, "Limits").
///
/// They bound the work one request can cause; the HTTP layer enforces the largest of them
/// (``multipartBytes``) before the body is read, the parsers enforce the rest per format.
public struct IntakeLimits: Sendable, Equatable {
    /// JSON, `application/x-www-form-urlencoded`, `text/uri-list` and `text/plain` bodies.
    public var textBodyBytes = 65_536
    /// `multipart/form-data` bodies (forms from browsers carry boundaries and part headers).
    public var multipartBytes = 262_144
    /// Nesting depth of JSON bodies.
    public var jsonDepth = 16
    /// Entries of `extensionItems`.
    public var extensionItems = 16
    /// `attachments` of one extension item.
    public var attachmentsPerItem = 16
    /// Serialized size of one `userInfo` object.
    public var userInfoBytes = 8_192
    /// Length of one URL in UTF-8 bytes, before and after WHATWG serialization.
    public var urlBytes = 8_192
    /// Tags on one item, and the length of each.
    public var tags = 32
    /// Longest tag in UTF-8 bytes.
    public var tagBytes = 256

    /// The limits of issue 4.
    public init() {}
}
