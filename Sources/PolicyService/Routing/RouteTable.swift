import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// A request that matched a route, with the values of the template's `{name}` segments.
struct RoutedRequest: Sendable {
    /// The request as received.
    var http: HTTPRequest
    /// `{name}` → the path segment it matched (still percent-encoded).
    var parameters: [String: String] = [:]

    /// The value of the template segment `{name}`; empty when the template has none.
    func parameter(_ name: String) -> String { parameters[name] ?? "" }
}

/// Answers one routed request, or throws the problem to answer with.
typealias RouteHandler = @Sendable (RoutedRequest) throws(ServiceProblem) -> HTTPResponderResult

/// A check run before every handler of a group (authorization, availability), given the
/// request and the template it matched.
typealias RouteCheck = @Sendable (HTTPRequest, _ route: String) throws(ServiceProblem) -> Void

/// Path template → method → handler, built once when the API is assembled from the routes
/// ``RouteDeclaration/all`` declares and the handlers the areas bind to them.
///
/// Everything the API answers before a handler runs comes from here: 404 for a path no
/// template matches, 405 with `Allow` (the declared methods, in declaration order) for a
/// method a route lacks, and the metrics label (the template). A method is allowed only when
/// it is both declared and bound, so `Allow` never names a method without a handler; any
/// difference between the two is in ``mismatches`` (empty, as `RouteDeclarationTests` holds).
struct RouteTable: Sendable {
    /// One path template and its handlers.
    struct Route: Sendable {
        /// The declared template (`/v1/intake/{id}`); also the metrics label.
        let template: String
        /// The template's `/`-separated segments; `{name}` segments match any non-empty segment.
        fileprivate let segments: [Substring]
        /// The allowed methods in declaration order (what `Allow` lists).
        private(set) var methods: [String] = []
        /// `handlers[i]` answers `methods[i]`: a route has a handful of methods, and comparing
        /// small method Strings is cheaper than hashing one per request.
        fileprivate var handlers: [Handler] = []

        /// A handler in a struct: an array of bare closures stores them at the most general
        /// abstraction, and reading one back allocated a conversion thunk per request.
        fileprivate struct Handler {
            let call: RouteHandler
        }

        /// The template's place among the metrics' endpoint labels, found once here.
        let metricsIndex: Int?

        fileprivate init(template: String) {
            self.template = template
            metricsIndex = Metrics.endpointIndex(template)
            segments = template.split(separator: "/", omittingEmptySubsequences: false)
        }

        fileprivate var hasParameters: Bool { segments.contains { $0.hasPrefix("{") } }

        fileprivate mutating func add(_ method: String, _ handler: @escaping RouteHandler) {
            methods.append(method)
            handlers.append(Handler(call: handler))
        }

        /// The handler for `method`, nil when the route does not allow it (405).
        func handler(for method: String) -> RouteHandler? {
            guard let index = methods.firstIndex(of: method), index < handlers.count else { return nil }
            return handlers[index].call
        }
    }

    /// Routes in declaration order (the order the 404 detail lists them).
    private(set) var routes: [Route] = []

    /// The template of the route at `index` (from ``match(_:)-(HTTPRequest)``), else `fallback`.
    func template(at index: Int, or fallback: String) -> String {
        index < routes.count ? routes[index].template : fallback
    }

    /// The metrics index of the route at `index`, else `fallback`.
    func metricsIndex(at index: Int, or fallback: Int?) -> Int? {
        index < routes.count ? routes[index].metricsIndex : fallback
    }

    /// The handler of the route at `index` for `method`; nil when the route does not allow it.
    func handler(at index: Int, for method: String) -> RouteHandler? {
        index < routes.count ? routes[index].handler(for: method) : nil
    }
    /// Templates without parameters, for one lookup on the hot path.
    private var literalIndex: [String: Int] = [:]
    /// The same templates as UTF-8 bytes, by byte length: the request's path is compared
    /// with the few templates of its length in place, without a path String or a hash.
    private var literalsByLength: [[(bytes: [UInt8], index: Int)]] = []

    /// Where the declared routes and the bound handlers disagree: a declared method without
    /// a handler, a handler for a method or path no declaration has. Empty in a correct build.
    private(set) var mismatches: [String] = []

    /// The table of the routes of `declarations` served on `surface` (in their order), each
    /// method answered by the handler `handlers` binds to it, behind the check `check` gives
    /// for the route's access: chained to the handler here, once, not repeated inside every
    /// handler. Handlers bound to the other listener's routes are left out.
    init(
        _ declarations: [RouteDeclaration] = RouteDeclaration.all, serving surface: PolicyAPI.Surface = .all,
        handlers: RouteHandlers, check: (RouteDeclaration.Access) -> RouteCheck? = { _ in nil }
    ) {
        for declaration in declarations where declaration.isServed(on: surface) {
            var route = Route(template: declaration.path)
            let guardedBy = check(declaration.access)
            for method in declaration.methods {
                guard let handler = handlers.handler(declaration.path, method) else {
                    mismatches.append("\(method) \(declaration.path) is declared but has no handler")
                    continue
                }
                route.add(method, Self.guarded(handler, by: guardedBy, template: declaration.path))
            }
            add(route)
        }
        for (method, path, _) in handlers.added
        where !declarations.contains(where: { $0.path == path && $0.methods.contains(method) }) {
            mismatches.append("\(method) \(path) has a handler but no declaration")
        }
    }

    private static func guarded(_ handler: @escaping RouteHandler, by check: RouteCheck?, template: String) -> RouteHandler {
        guard let check else { return handler }
        return { request throws(ServiceProblem) in
            try check(request.http, template)
            return try handler(request)
        }
    }

    private mutating func add(_ route: Route) {
        if !route.hasParameters {
            literalIndex[route.template] = routes.count
            let length = route.template.utf8.count
            while literalsByLength.count <= length { literalsByLength.append([]) }
            literalsByLength[length].append((Array(route.template.utf8), routes.count))
        }
        routes.append(route)
    }

    /// The route whose template matches `path`, with its parameters: a literal template
    /// first, then templates with `{name}` segments in registration order.
    func match(_ path: String) -> (route: Route, parameters: [String: String])? {
        guard let (index, parameters) = matchIndex(path), index < routes.count else { return nil }
        return (routes[index], parameters)
    }

    /// ``match(_:)`` for a request: its place in ``routes`` (a `Route` copy would retain
    /// each of its fields) and parameters. A literal template is found from the bytes of the
    /// request's path bytes (the request already knows where its query starts), without
    /// making the path a String.
    func match(_ request: HTTPRequest) -> (index: Int, parameters: [String: String])? {
        let literal = request.pathBytes.withContiguousStorageIfAvailable { literalRoute(path: $0) }
        if case .some(.some(let index)) = literal { return (index, [:]) }
        return matchIndex(request.path)
    }

    /// The literal template whose bytes are `path`'s.
    private func literalRoute(path: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let pathStart = path.baseAddress, path.count < literalsByLength.count else { return nil }
        for candidate in literalsByLength[path.count] where candidate.bytes.count == path.count {
            // Both spans hold `path.count` bytes (the bucket is by length, checked again above).
            let equal = candidate.bytes.withUnsafeBufferPointer { bytes in
                guard let start = bytes.baseAddress else { return false }
                return memcmp(start, pathStart, path.count) == 0
            }
            if equal { return candidate.index }
        }
        return nil
    }

    private func matchIndex(_ path: String) -> (index: Int, parameters: [String: String])? {
        if let index = literalIndex[path] { return (index, [:]) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, route) in routes.enumerated() where route.hasParameters && route.segments.count == segments.count {
            var parameters: [String: String] = [:]
            var matches = true
            for (pattern, segment) in zip(route.segments, segments) {
                if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                    guard !segment.isEmpty else {
                        matches = false
                        break
                    }
                    parameters[String(pattern.dropFirst().dropLast())] = String(segment)
                } else if pattern != segment {
                    matches = false
                    break
                }
            }
            if matches { return (index, parameters) }
        }
        return nil
    }
}

/// The handlers the areas bind to declared routes (each area's `register(in:)`), before
/// ``RouteTable/init(_:serving:handlers:check:)`` pairs them with the declarations.
struct RouteHandlers {
    fileprivate var added: [(method: String, path: String, handler: RouteHandler)] = []

    /// Answers `methods` of `route` with `handler`.
    mutating func on(_ methods: String..., route: RouteDeclaration, _ handler: @escaping RouteHandler) {
        for method in methods { added.append((method, route.path, handler)) }
    }

    /// The handler bound last to `method` on `path`.
    fileprivate func handler(_ path: String, _ method: String) -> RouteHandler? {
        added.last { $0.path == path && $0.method == method }?.handler
    }
}
