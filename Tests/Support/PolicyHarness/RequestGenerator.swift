public import JSONSupport
public import NavigationPolicy

/// Requests biased to hit a policy's entries: hosts and paths taken from its own `match` blocks
/// (and the pools), then respelled the ways the engines must read alike or apart: case, trailing
/// dots and slashes, address forms, escapes, encoded separators (`%2F`, `%5C`), `;` parameters,
/// dot segments, schemes, ports, and ports the client chose (``NavigationRequest/urlWithoutClientPort``).
public struct RequestGenerator {
    private var hosts: [String] = []
    private var paths: [String] = []

    /// Reads the hosts and paths `policy` names.
    public init(policy: JSONObject) {
        for handler in (policy["handlers"]?.arrayValue ?? []).compactMap(\.objectValue) {
            guard let match = handler["match"]?.objectValue else { continue }
            for key in ["hosts"] { hosts += strings(match[key]) }
            for key in ["paths", "pathPrefixes", "pathPatterns"] { paths += strings(match[key]) }
        }
    }

    private func strings(_ value: JSONValue?) -> [String] { (value?.arrayValue ?? []).compactMap(\.stringValue) }

    /// Hosts that reach each kind of `hosts` entry, and URL patterns' hosts.
    static let addressHosts = [
        "127.0.0.1", "127.1", "0x7f.1", "[::1]", "0.0.0.0", "[::]", "localhost", "foo.localhost", "localhost.",
        "10.1.2.3", "10.0.0.0", "192.168.1.5", "[fd00::1]", "169.254.1.1", "[fe80::1]", "[::ffff:127.0.0.1]",
        "[::ffff:10.1.2.3]", "8.8.8.8",
    ]
    static let otherHosts = [
        "other.test", "βόλος.example", "x.a.example", "b.example", "pay.example.com", "eu.pay.example.com", "example.com",
    ]

    /// A host that an entry as written reaches (or just misses).
    static func host(for entry: String, _ random: inout HarnessRandom) -> String {
        if entry.hasPrefix("@") || entry.contains("/") || entry.first == "[" || entry.first?.isNumber == true {
            return random.pick(addressHosts)
        }
        if entry.hasPrefix("*.") {
            let suffix = String(entry.dropFirst(2))
            return random.pick(["sub." + suffix, suffix, "a.b." + suffix, "SUB." + suffix.uppercased(), "x" + suffix])
        }
        return entry
    }

    /// A respelling of `host` the engines must read as the same host, or a near miss.
    static func respelled(_ host: String, _ random: inout HarnessRandom) -> String {
        guard host.first != "[", host.first?.isNumber != true else { return host }
        switch random.below(8) {
        case 0: return host.uppercased()
        case 1: return host.hasSuffix(".") ? host : host + "."
        case 2: return "x" + host
        default: return host
        }
    }

    /// A path that an entry as written reaches: patterns with their wildcards filled in.
    static func path(for entry: String, _ random: inout HarnessRandom) -> String {
        var path = ""
        for character in entry {
            switch character {
            case "*": path += random.pick(["", "z", "z/y", "secret", "b"])
            case "?": path += random.pick(["q", "Q"])
            default: path.append(character)
            }
        }
        if random.chance(30) { path += random.pick(["/z", "x", "/", "/items", "/b/c"]) }
        return path.isEmpty ? "/" : path
    }

    static let urlPatternPaths = [
        "/x/1", "/a/b", "/%61dmin/x", "/admin/", "/admin%2F", "/secret/s", "/books/12", "/checkout/x", "/admin", "/%2Fadmin/",
        "/x/..%2F%2Fadmin/", "//admin/;", "/admin;x/",
    ]

    /// A respelling of `path` that servers read alike (or nearly): case, slashes, escapes, separators.
    static func respelled(path: String, _ random: inout HarnessRandom) -> String {
        var bytes = Array(path.utf8)
        switch random.below(14) {
        case 0: return path.uppercased()
        case 1: return path.hasSuffix("/") ? path : path + "/"
        case 2:
            // An inner `/` as %2F or %5C: the decoded readings.
            guard let slash = bytes.indices.dropFirst().last(where: { bytes[$0] == UInt8(ascii: "/") }) else { return path }
            let escape = random.chance(50) ? "%2F" : "%5C"
            bytes.replaceSubrange(slash...slash, with: Array(escape.utf8))
            return String(decoding: bytes, as: UTF8.self)
        case 3:
            // An unreserved letter escaped.
            guard let letter = bytes.firstIndex(where: { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
                return path
            }
            let hex = Array("0123456789ABCDEF".utf8)
            bytes.replaceSubrange(
                letter...letter, with: [UInt8(ascii: "%"), hex[Int(bytes[letter] >> 4)], hex[Int(bytes[letter] & 0x0F)]])
            return String(decoding: bytes, as: UTF8.self)
        case 4: return path + ";v=1"
        case 5: return "/x/..%2F" + path.dropFirst()
        case 6: return "/" + path
        case 7: return "/z/.." + path
        case 8: return path + random.pick(["?token=1", "?%74oken=1", "?q"])
        case 9: return path + "%2F"
        default: return path
        }
    }

    static let schemes = ["https", "https", "https", "http", "HTTPS", "ws", "myapp", "javascript"]
    static let ports = ["", "", "", "", ":443", ":8443", ":80", ":8080"]
    static let methods = ["GET", "GET", "POST", "PUT", "DELETE", "HEAD", "put", "get"]

    /// One request: a host and a path from the policy (or the pools), respelled, with a scheme,
    /// port, method, navigation type and frame.
    public func request(_ random: inout HarnessRandom) -> NavigationRequest {
        let scheme = random.pick(Self.schemes)
        if scheme == "javascript" { return NavigationRequest(url: "javascript:alert(1)") }
        if scheme == "myapp", random.chance(40) { return NavigationRequest(url: "myapp:open?u=1") }
        let hostEntry =
            !hosts.isEmpty && random.chance(65)
            ? random.pick(hosts) : random.pick(MatchFormPools.hostEntries + Self.otherHosts)
        let host = Self.respelled(Self.host(for: hostEntry, &random), &random)
        let path: String
        if !paths.isEmpty && random.chance(60) {
            path = Self.path(for: random.pick(paths), &random)
        } else {
            path = random.pick(Self.urlPatternPaths + MatchFormPools.paths + ["/", "/other", "/logout", "/A/b"])
        }
        let port = random.pick(Self.ports)
        let spelled = Self.respelled(path: path, &random)
        let url = "\(scheme)://\(host)\(port)\(spelled)"
        var request = NavigationRequest(
            url: url, method: random.pick(Self.methods), navigationType: random.pick(NavigationType.allCases),
            targetFrame: random.pick(TargetFrame.allCases))
        // A port the client chose (an edge's Host): decided with and without it.
        if !port.isEmpty, random.chance(30) { request.urlWithoutClientPort = "\(scheme)://\(host)\(spelled)" }
        return request
    }

    /// `count` requests.
    public func requests(_ count: Int, _ random: inout HarnessRandom) -> [NavigationRequest] {
        (0..<count).map { _ in request(&random) }
    }
}
