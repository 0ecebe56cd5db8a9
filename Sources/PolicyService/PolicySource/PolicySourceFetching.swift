import Foundation

/// One fetch of the `policySource` URL, as the poller asks for it.
struct PolicySourceRequest: Sendable {
    let url: String
    /// The `ETag` of the last answer whose bundle was accepted, sent back as `If-None-Match`
    /// (opaque: nginx or object storage tag their files their own way); nil asks for the bundle.
    let ifNoneMatch: String?
    /// The whole fetch, connection to last byte.
    let timeoutSeconds: Int
    /// Bodies beyond this many bytes are cut off and refused (`too-large`).
    let maxBytes: Int
}

/// What a fetch answered. A 200's body is in the staging file the poller made for it.
struct PolicySourceResponse: Sendable {
    let status: Int
    /// The `ETag` field as sent, nil without one.
    let entityTag: String?
    /// The `Navpolicy-Bundle-Signature` field as sent, nil without one.
    let signatureField: String?
    /// The staged body of a 200 (the file ``PolicySourceFetching/Staging`` made); nil otherwise.
    let body: URL?
}

/// Why a poll did not end with the policy it fetched: the `reason` label of
/// `navpolicyd_policy_source_failures_total` and the status report's `lastFailure`.
struct PolicySourceFailure: Error, Sendable, Equatable {
    /// A stable token: `unreachable`, `timeout`, `too-large`, `http-status`, `cache-write`, or
    /// the app client's rejection kind (`bad-signature`, `unknown-key`, `expired`,
    /// `older-version`, `malformed`, ...; ``NavigationPolicyClient/BundleRejection/Kind``).
    let reason: String
    /// What happened, for the log and the status page.
    let detail: String

    init(_ reason: String, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    static let unreachable = "unreachable"
    static let timeout = "timeout"
    static let tooLarge = "too-large"
    static let httpStatus = "http-status"
    static let cacheWrite = "cache-write"
}

/// Fetches the bundle URL: libcurl in the daemon (``CurlBundleFetcher``), a scripted answer in
/// the poller's unit tests.
protocol PolicySourceFetching: Sendable {
    /// Makes the staging file for a 200's body, given the answer's signature field: the body is
    /// appended to the handle, which the fetcher flushes to disk (`synchronize`) and closes.
    typealias Staging = (_ signatureField: String?) throws(PolicySourceFailure) -> (url: URL, handle: FileHandle)

    /// Runs `request`; a 200's body goes to the file `stage` makes. Bounded by the request's
    /// time and size: a failure (transport, timeout, size) is thrown, any HTTP answer returned.
    func fetch(_ request: PolicySourceRequest, stage: @escaping Staging) throws(PolicySourceFailure) -> PolicySourceResponse
}
