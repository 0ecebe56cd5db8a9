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
    /// Whether the store can take writes now, checked cheaply and without writing (`/readyz/intake`).
    func health() -> IntakeStoreHealth
    /// Calls `observer` with the store's own events (name and fields) for the daemon's log.
    func observeEvents(_ observer: @escaping @Sendable (String, JSONObject) -> Void)
    /// Where the items are, safe to show (a file path, or a URI with its password masked).
    var displayLocation: String { get }
}

extension IntakeStore {
    /// A store with no health of its own to report is always usable.
    public func health() -> IntakeStoreHealth { .ok }
    /// A store with no events of its own reports none.
    public func observeEvents(_ observer: @escaping @Sendable (String, JSONObject) -> Void) {}
}

/// A web URL with its decision and descriptive fields, ready to store.
public struct NewIntakeItem: Sendable, Equatable {
    /// The validated web URL.
    public var url: WebURL
    /// The title shared with it.
    public var title: String?
    /// The free text shared with it.
    public var text: String?
    /// Tags the client attached.
    public var tags: [String]
    /// The wire format (``SharedPayload/Format`` raw value).
    public var source: String
    /// The policy decision object for ``url``.
    public var decision: JSONObject
    /// Extension items' `userInfo`, stored only.
    public var userInfo: JSONValue?

    /// Creates an item to store.
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
    /// The key as sent, without RFC 8941 quotes.
    public var key: String
    /// Compared byte for byte: the same key with another fingerprint is `idempotency-key-reused`.
    public var fingerprint: String

    /// Creates a claim.
    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }

    /// Whether `stored` (the fingerprint kept with the key) is this request's, byte for byte.
    /// Not Swift's `==`: it compares by canonical equivalence, so a title in NFD would match
    /// the same title in NFC and the second request's bytes would be dropped for the first's.
    public func matches(storedFingerprint stored: String?) -> Bool {
        guard let stored else { return false }
        return stored.utf8.elementsEqual(fingerprint.utf8)
    }
}

/// One stored item and whether it already existed (same URL without fragment).
public struct IntakeResult: Sendable, Equatable {
    /// The stored (new or existing) item.
    public var item: IntakeItem
    /// True when the URL was already stored before this request.
    public var duplicate: Bool

    /// Creates a result.
    public init(item: IntakeItem, duplicate: Bool) {
        self.item = item
        self.duplicate = duplicate
    }
}

/// A response as stored for idempotent replay: status, `Location`, body bytes.
public struct StoredResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The item path for `Location` (or `Content-Location` with 200).
    public var location: String?
    /// The exact body bytes.
    public var body: [UInt8]

    /// Creates a stored response.
    public init(status: Int, location: String?, body: [UInt8]) {
        self.status = status
        self.location = location
        self.body = body
    }
}

/// Everything one intake request asks the store to do.
public struct IntakeSubmission: Sendable {
    /// The items, one per web URL, in request order.
    public var items: [NewIntakeItem]
    /// RFC 3339 UTC time stamped on new items and the idempotency record.
    public var receivedAt: String
    /// The request's Idempotency-Key and fingerprint, if it sent one.
    public var idempotency: IdempotencyClaim?
    /// Builds the response from the stored items inside the transaction, so that the
    /// response stored for replay is exactly the one sent.
    public var respond: @Sendable ([IntakeResult]) -> StoredResponse

    /// Creates a submission.
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
