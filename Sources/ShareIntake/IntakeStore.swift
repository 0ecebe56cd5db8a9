public import JSONSupport

/// Durable storage for shared items, behind a small protocol so that another store
/// (PostgreSQL for several replicas) can follow.
///
/// Contract: ``submit(_:)`` returns only after the items, the idempotency record and the
/// stored response are durable together (one transaction), or with a failure after which
/// nothing of the submission is stored. Callers send no 2xx before it returns.
public protocol IntakeStore: Sendable {
    /// Stores a validated submission, or replays the response stored under its Idempotency-Key.
    func submit(_ submission: IntakeSubmission) async -> Result<IntakeStoreOutcome, IntakeFailure>
    /// The item with `id`, or nil.
    func item(id: Int64) throws(IntakeFailure) -> IntakeItem?
    /// Up to `limit` items, newest first, strictly older than `before` (an item id) when given.
    func list(limit: Int, before: Int64?) throws(IntakeFailure) -> [IntakeItem]
    /// Deletes the item; false when there was none.
    func delete(id: Int64) async -> Result<Bool, IntakeFailure>
    /// Calls `observer` after each commit with the number of writes it covered (for metrics).
    func observeCommits(_ observer: @escaping @Sendable (Int) -> Void)
}

/// A web URL with its decision and descriptive fields, ready to store.
public struct NewIntakeItem: Sendable, Equatable {
    public var url: WebURL
    public var title: String?
    public var text: String?
    public var tags: [String]
    public var source: String
    public var decision: JSONObject
    public var userInfo: JSONValue?

    public init(
        url: WebURL, title: String?, text: String?, tags: [String], source: String, decision: JSONObject,
        userInfo: JSONValue?
    ) {
        self.url = url
        self.title = title
        self.text = text
        self.tags = tags
        self.source = source
        self.decision = decision
        self.userInfo = userInfo
    }
}

/// The `Idempotency-Key` of a request and the fingerprint of its normalized content.
public struct IdempotencyClaim: Sendable, Equatable {
    public var key: String
    /// Compared byte for byte: the same key with another fingerprint is `idempotency-key-reused`.
    public var fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}

/// One stored item and whether it already existed (same URL without fragment).
public struct IntakeResult: Sendable, Equatable {
    public var item: IntakeItem
    public var duplicate: Bool

    public init(item: IntakeItem, duplicate: Bool) {
        self.item = item
        self.duplicate = duplicate
    }
}

/// A response as stored for idempotent replay: status, `Location`, body bytes.
public struct StoredResponse: Sendable, Equatable {
    public var status: Int
    public var location: String?
    public var body: [UInt8]

    public init(status: Int, location: String?, body: [UInt8]) {
        self.status = status
        self.location = location
        self.body = body
    }
}

/// Everything one intake request asks the store to do.
public struct IntakeSubmission: Sendable {
    public var items: [NewIntakeItem]
    public var receivedAt: String
    public var idempotency: IdempotencyClaim?
    /// Builds the response from the stored items inside the transaction, so that the
    /// response stored for replay is exactly the one sent.
    public var respond: @Sendable ([IntakeResult]) -> StoredResponse

    public init(
        items: [NewIntakeItem], receivedAt: String, idempotency: IdempotencyClaim?,
        respond: @escaping @Sendable ([IntakeResult]) -> StoredResponse
    ) {
        self.items = items
        self.receivedAt = receivedAt
        self.idempotency = idempotency
        self.respond = respond
    }
}

/// What the store did with a submission.
public enum IntakeStoreOutcome: Sendable, Equatable {
    /// Committed now; send this response. `newItems` counts URLs not stored before.
    case stored(StoredResponse, newItems: Int)
    /// The key was used before with the same content: send the stored response again.
    case replayed(StoredResponse)
}
