import HTTPServer

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

/// Path template → method → handler, built once when the API is assembled.
///
/// Everything the API answers before a handler runs comes from here: 404 for a path no
/// template matches, 405 with `Allow` (methods in registration order) for a method a
/// route lacks, and the metrics label (the template). So a method can never be allowed
/// without a handler, nor routed to the wrong one.
struct RouteTable: Sendable {
    /// One path template and its handlers.
    struct Route: Sendable {
        /// The template as registered (`/v1/intake/{id}`); also the metrics label.
        let template: String
        /// The template's `/`-separated segments; `{name}` segments match any non-empty segment.
        fileprivate let segments: [Substring]
        /// The allowed methods in registration order (what `Allow` lists).
        private(set) var methods: [String] = []
        fileprivate var handlers: [String: RouteHandler] = [:]

        /// The template's place among the metrics' endpoint labels, found once here.
        let metricsIndex: Int?

        fileprivate init(template: String) {
            self.template = template
            metricsIndex = Metrics.endpointIndex(template)
            segments = template.split(separator: "/", omittingEmptySubsequences: false)
        }

        fileprivate var hasParameters: Bool { segments.contains { $0.hasPrefix("{") } }

        fileprivate mutating func add(_ method: String, _ handler: @escaping RouteHandler) {
            if handlers[method] == nil { methods.append(method) }
            handlers[method] = handler
        }

        /// The handler for `method`, nil when the route does not allow it (405).
        func handler(for method: String) -> RouteHandler? { handlers[method] }
    }

    /// Routes in registration order (the order the 404 detail lists them).
    private(set) var routes: [Route] = []
    /// Templates without parameters, for one lookup on the hot path.
    private var literalIndex: [String: Int] = [:]

    /// Registers the routes `register` adds, each behind `check` when one is given: the
    /// check is chained to the handler here, once, not repeated inside every handler.
    mutating func group(checking check: RouteCheck? = nil, _ register: (inout RouteGroup) -> Void) {
        var group = RouteGroup()
        register(&group)
        for (method, template, handler) in group.added {
            let guarded: RouteHandler
            if let check {
                guarded = { request throws(ServiceProblem) in
                    try check(request.http, template)
                    return try handler(request)
                }
            } else {
                guarded = handler
            }
            add(method, template, guarded)
        }
    }

    private mutating func add(_ method: String, _ template: String, _ handler: @escaping RouteHandler) {
        if let index = routes.firstIndex(where: { $0.template == template }) {
            routes[index].add(method, handler)
            return
        }
        var route = Route(template: template)
        route.add(method, handler)
        if !route.hasParameters { literalIndex[template] = routes.count }
        routes.append(route)
    }

    /// The route whose template matches `path`, with its parameters: a literal template
    /// first, then templates with `{name}` segments in registration order.
    func match(_ path: String) -> (route: Route, parameters: [String: String])? {
        if let index = literalIndex[path] { return (routes[index], [:]) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for route in routes where route.hasParameters && route.segments.count == segments.count {
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
            if matches { return (route, parameters) }
        }
        return nil
    }
}

/// The routes of one area that share a check (Hummingbird's `RouterGroup` with its
/// middleware): collected here, guarded and added to the table by ``RouteTable/group(checking:_:)``.
struct RouteGroup {
    fileprivate var added: [(method: String, template: String, handler: RouteHandler)] = []

    /// Routes `methods` on `template` to `handler`.
    mutating func on(_ methods: String..., path template: String, _ handler: @escaping RouteHandler) {
        for method in methods { added.append((method, template, handler)) }
    }
}
