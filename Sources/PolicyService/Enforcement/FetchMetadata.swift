public import HTTPServer
public import NavigationPolicy

/// What the `Sec-Fetch-*` request headers (Fetch Metadata) say about a proxied request.
///
/// Browsers send them on every request; other clients (curl, scripts) usually send none,
/// and such requests are treated as top-level navigations so that policies apply to them.
///
/// Read strictly, because `proxy.decide: "navigations"` lets non-navigation requests pass
/// undecided: only a single field carrying exactly a value browsers send (Fetch standard,
/// lower case, no list) counts. Anything else — empty, unknown, other case, repeated, a
/// list — is not trusted, so the request is decided like a navigation.
public struct FetchMetadata: Sendable, Equatable {
    /// `Sec-Fetch-Mode` when it is one field with a value browsers send; nil otherwise.
    public var mode: String?
    /// `Sec-Fetch-Dest` when it is one field with a value browsers send; nil otherwise.
    public var destination: String?

    /// The request modes of the Fetch standard, as `Sec-Fetch-Mode` serializes them.
    static let modes: Set<String> = ["cors", "navigate", "no-cors", "same-origin", "websocket"]
    /// Modes of requests that are not navigations: the only ones `decide: navigations` skips.
    static let subresourceModes: Set<String> = ["cors", "no-cors", "same-origin", "websocket"]
    /// The request destinations of the Fetch standard (`Sec-Fetch-Dest`; "" is sent as "empty").
    static let destinations: Set<String> = [
        "audio", "audioworklet", "document", "embed", "empty", "fencedframe", "font", "frame", "iframe", "image", "json",
        "manifest", "object", "paintworklet", "report", "script", "serviceworker", "sharedworker", "style", "track",
        "video", "webidentity", "worker", "xslt",
    ]

    /// Reads the headers of `request`, or any list of fields (Envoy's ext_authz transports
    /// carry them as name/value pairs, not as ``HTTPHeaders``).
    public init(_ headers: some Sequence<HTTPHeaders.Field>) {
        // One pass, no arrays of values: this runs for every proxied request, and most carry
        // neither field.
        var modes = 0
        var destinations = 0
        var mode: String?
        var destination: String?
        // Both names are 14 bytes: other lengths skip the comparisons.
        for field in headers where field.name.utf8.count == 14 {
            if HTTPFieldName.secFetchMode.matches(field.name) {
                modes += 1
                mode = field.value
            } else if HTTPFieldName.secFetchDest.matches(field.name) {
                destinations += 1
                destination = field.value
            }
        }
        self.mode = Self.single(mode, count: modes, in: Self.modes)
        self.destination = Self.single(destination, count: destinations, in: Self.destinations)
    }

    /// The value when there is exactly one (`count`) and it is exactly one of `known`.
    private static func single(_ value: String?, count: Int, in known: Set<String>) -> String? {
        // The known values are short words: a longer value is none of them, and is not hashed
        // (a `String`'s hash normalizes a non-ASCII value first, quadratic in a run of combining
        // marks: outside attack 14, R1's class).
        guard count == 1, let value, value.utf8.count <= 16, known.contains(value) else { return nil }
        return value
    }

    /// False only for a request whose one `Sec-Fetch-Mode` field says it is a subresource
    /// fetch (`cors`, `no-cors`, `same-origin`, `websocket`), which `proxy.decide:
    /// navigations` passes through; true for `navigate`, no metadata, and anything malformed.
    public var isNavigation: Bool {
        guard let mode else { return true }
        return !Self.subresourceModes.contains(mode)
    }

    /// Frame-like destinations load a document inside another page.
    private static let subframeDestinations: Set<String> = ["iframe", "frame", "embed", "object", "fencedframe"]

    /// Applies the metadata to a navigation request: a valid destination → `targetFrame`,
    /// `navigate` mode → `linkActivated` (or `formSubmitted` for a POST). Absent or malformed
    /// headers change nothing (the request stays a main-frame navigation).
    public func apply(to navigation: inout NavigationRequest) {
        if let destination {
            navigation.targetFrame = Self.subframeDestinations.contains(destination) ? .sub : .main
        }
        if mode == "navigate" {
            navigation.navigationType = navigation.method.uppercased() == "POST" ? .formSubmitted : .linkActivated
        }
    }
}
