public import JSONSupport

/// One stored share: the web URL, what described it, and the policy decision it got.
public struct IntakeItem: Sendable, Equatable {
    /// Assigned by the store; never reused, so a deleted item's id never names another.
    public var id: Int64
    /// The WHATWG serialization (`href`).
    public var url: String
    /// The URL text as shared.
    public var originalURL: String
    /// What duplicates are compared on: ``url`` without its fragment.
    public var canonicalURL: String
    /// The shared title, if any.
    public var title: String?
    /// The shared free text, if any.
    public var text: String?
    /// Tags the client attached, in order, without duplicates.
    public var tags: [String]
    /// The wire format (``SharedPayload/Format``).
    public var source: String
    /// RFC 3339 UTC time of the commit that stored it.
    public var receivedAt: String
    /// The navigation policy's decision object for ``url``.
    public var decision: JSONObject
    /// The extension items' `userInfo`, stored for the client, never used for decisions.
    public var userInfo: JSONValue?

    /// Creates an item.
    public init(
        id: Int64, url: String, originalURL: String, canonicalURL: String, title: String?, text: String?, tags: [String],
        source: String,
        receivedAt: String, decision: JSONObject, userInfo: JSONValue?
    ) {
        self.id = id
        self.url = url
        self.originalURL = originalURL
        self.canonicalURL = canonicalURL
        self.title = title
        self.text = text
        self.tags = tags
        self.source = source
        self.receivedAt = receivedAt
        self.decision = decision
        self.userInfo = userInfo
    }

    /// The item as the API returns it.
    public var jsonObject: JSONObject {
        var object: JSONObject = [
            "id": .string(String(id)), "url": .string(url), "originalUrl": .string(originalURL),
            "canonicalUrl": .string(canonicalURL),
            "title": title.map(JSONValue.string) ?? .null, "text": text.map(JSONValue.string) ?? .null,
            "tags": .array(tags.map(JSONValue.string)), "source": .string(source), "receivedAt": .string(receivedAt),
            "decision": .object(decision),
        ]
        if let userInfo { object.append("userInfo", userInfo) }
        return object
    }

    /// The API path of this item.
    public var location: String { Self.location(of: id) }

    /// The path of the item with this id, as sent in `Location` and stored with replays.
    public static func location(of id: Int64) -> String { "/v1/intake/\(id)" }
}
