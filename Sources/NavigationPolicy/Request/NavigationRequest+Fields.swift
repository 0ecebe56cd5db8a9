extension NavigationRequest {
    /// Reads a request from its members as text, an absent member nil: `url` required, the rest
    /// optional with their defaults, `navigationType` and `targetFrame` one of their spellings.
    ///
    /// Every reader of a request's members goes through here (``init(json:extraKeys:)``, the
    /// WebAssembly module's `decide`, which takes the strings without JSON), so a member means
    /// the same and fails with the same error whichever way it came.
    public init(
        url: String?, methodText method: String?, navigationTypeText navigationType: String?,
        targetFrameText targetFrame: String?, sourceURL: String?
    ) throws(NavigationRequestError) {
        guard let url else {
            throw NavigationRequestError(field: "url", reason: "required field is missing")
        }
        self.init(url: url)
        if let method { self.method = method }
        if let navigationType { self.navigationType = try Self.navigationType(from: navigationType) }
        if let targetFrame { self.targetFrame = try Self.targetFrame(from: targetFrame) }
        self.sourceURL = sourceURL
    }
}
