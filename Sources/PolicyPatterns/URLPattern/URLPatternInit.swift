/// The `URLPatternInit` dictionary: a pattern (or an input) given component by component.
/// An absent (`nil`) component is different from an empty one.
public struct URLPatternInit: Sendable, Equatable {
    /// The scheme, with or without a trailing ":".
    public var `protocol`: String?
    public var username: String?
    public var password: String?
    public var hostname: String?
    public var port: String?
    public var pathname: String?
    /// The query, with or without a leading "?".
    public var search: String?
    /// The fragment, with or without a leading "#".
    public var hash: String?
    /// A URL that absent components are taken from (see ``URLPattern``).
    public var baseURL: String?

    /// Creates a dictionary with the given components.
    public init(
        protocol: String? = nil, username: String? = nil, password: String? = nil, hostname: String? = nil,
        port: String? = nil, pathname: String? = nil, search: String? = nil, hash: String? = nil,
        baseURL: String? = nil
    ) {
        self.protocol = `protocol`
        self.username = username
        self.password = password
        self.hostname = hostname
        self.port = port
        self.pathname = pathname
        self.search = search
        self.hash = hash
        self.baseURL = baseURL
    }

    /// The component names in URL order, as the standard lists them.
    public static let componentNames = [
        "protocol", "username", "password", "hostname", "port", "pathname", "search", "hash",
    ]

    /// The component called `name` (one of ``componentNames``; nil for any other name).
    public subscript(component name: String) -> String? {
        get {
            switch name {
            case "protocol": self.protocol
            case "username": username
            case "password": password
            case "hostname": hostname
            case "port": port
            case "pathname": pathname
            case "search": search
            case "hash": hash
            default: nil
            }
        }
        set {
            switch name {
            case "protocol": self.protocol = newValue
            case "username": username = newValue
            case "password": password = newValue
            case "hostname": hostname = newValue
            case "port": port = newValue
            case "pathname": pathname = newValue
            case "search": search = newValue
            case "hash": hash = newValue
            default: break
            }
        }
    }
}
