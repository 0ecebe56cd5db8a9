public import HTTPServer
public import NavigationPolicy

/// What the `Sec-Fetch-*` request headers (Fetch Metadata) say about a proxied request.
///
/// Browsers send them on every request; other clients (curl, scripts) usually send none,
/// and such requests are treated as top-level navigations so that policies apply to them.
public struct FetchMetadata: Sendable, Equatable {
    /// `Sec-Fetch-Mode`, lower-cased; nil when absent.
    public var mode: String?
    /// `Sec-Fetch-Dest`, lower-cased; nil when absent.
    public var destination: String?

    /// Reads the headers of `request`.
    public init(_ headers: HTTPHeaders) {
        mode = headers["Sec-Fetch-Mode"].map { $0.lowercased() }
        destination = headers["Sec-Fetch-Dest"].map { $0.lowercased() }
    }

    /// True for navigations (`Sec-Fetch-Mode: navigate`, or no metadata at all) and false for
    /// subresource fetches (scripts, images, XHR), which `proxy.decide: navigations` passes through.
    public var isNavigation: Bool {
        guard let mode else { return true }
        return mode == "navigate" || mode == "nested-navigate"
    }

    /// Frame-like destinations load a document inside another page.
    private static let subframeDestinations: Set<String> = ["iframe", "frame", "embed", "object", "fencedframe"]

    /// Applies the metadata to a navigation request: destination → `targetFrame`, a navigate
    /// mode → `linkActivated` (or `formSubmitted` for a POST). Absent headers change nothing.
    public func apply(to navigation: inout NavigationRequest) {
        if let destination {
            navigation.targetFrame = Self.subframeDestinations.contains(destination) ? .sub : .main
        }
        if isNavigation, mode != nil {
            navigation.navigationType = navigation.method.uppercased() == "POST" ? .formSubmitted : .linkActivated
        }
    }
}
