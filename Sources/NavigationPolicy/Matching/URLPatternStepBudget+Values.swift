extension URLPatternStepBudget {
    /// `request`'s component strings in its reading (``URLPattern/values(of:)``), made once per
    /// reading of the decision rather than once per handler (the path and query are copied).
    /// The readings of one decision differ in their path, their standard flag, a decoded path's
    /// standard pathname, or the port
    /// (``CanonicalRequest/withoutClientPortReading``): each is part of the key. Here rather
    /// than beside the budget because the patterns layer knows no request.
    func values(for request: CanonicalRequest) -> [String] {
        if let cached = cachedValues, cached.standard == request.readsURLAsStandard, cached.path == request.matchPath,
            cached.port == request.url.port, cached.pathname == request.decodedStandardPathname
        {
            return cached.values
        }
        let values = URLPattern.values(of: request)
        cachedValues = (request.readsURLAsStandard, request.matchPath, request.decodedStandardPathname, request.url.port, values)
        return values
    }
}
