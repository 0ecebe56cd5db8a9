/// One endpoint of the API as data: its path, methods, listener, guard and purpose, with no
/// handler and no service behind it.
///
/// Declarations exist before any service does, so everything that must list the routes
/// without building a route table — `serve --help`, the preallocated metrics counters, the
/// 404 detail of the status page, docs/api.md's endpoint table — reads them, and the route
/// table itself is built from them (``RouteTable/init(_:serving:handlers:check:)``). A route is
/// added to ``all`` once and appears everywhere; `RouteDeclarationTests` holds that every
/// declared method has a handler and every handler a declaration.
public struct RouteDeclaration: Sendable, Hashable {
    /// Which listener serves the route when `--admin-listen` splits them (one listener
    /// serves every route otherwise).
    public enum Listener: Sendable, Hashable {
        /// The API listener: decisions, authz, intake, the bundle.
        case api
        /// The admin listener: policy views and administration, metrics, status.
        case admin
        /// Both: the probes, kept on the API port for load balancers and nginx checks.
        case both
    }

    /// The check every handler of the route runs behind.
    enum Access: Sendable, Hashable {
        /// None: the probes, for kubelets and load balancers.
        case open
        /// The admin token when `requireTokenForDecide` is set: the decision oracle and the
        /// views that reveal the chain outright.
        case decisions
        /// The admin token whenever one is configured.
        case admin
        /// The intake store and the intake token.
        case intake
    }

    /// The path template (`/v1/intake/{id}`: a `{name}` segment matches one non-empty
    /// segment); also the route's metrics label.
    public let path: String
    /// The methods the route answers, in the order `Allow` lists them.
    public let methods: [String]
    /// Where the route is served beside an admin listener.
    public let listener: Listener
    let access: Access
    /// The largest request body the route takes when above the server-wide limit.
    let bodyLimit: Int?
    /// One line saying what the endpoint does, for `serve --help` and docs/api.md.
    public let summary: String

    init(
        _ path: String, _ methods: [String], on listener: Listener, access: Access, bodyLimit: Int? = nil,
        summary: String
    ) {
        self.path = path
        self.methods = methods
        self.listener = listener
        self.access = access
        self.bodyLimit = bodyLimit
        self.summary = summary
    }

    /// Whether a ``PolicyAPI`` serving `surface` has this route in its table.
    func isServed(on surface: PolicyAPI.Surface) -> Bool {
        switch surface {
        case .all: true
        case .api: listener != .admin
        case .admin: listener != .api
        }
    }
}
