public import JSONSupport
import NavigationPolicy

/// What generated policies are written from: entries of every match form, small enough that
/// handlers overlap and requests built from them hit several at once.
///
/// Every entry is a string the config accepts; the spellings differ on purpose (mixed case,
/// trailing dots, escapes, IDN, address forms) so that each engine's reading of them is tested.
public enum MatchFormPools {
    /// `hosts`: names, `*.` suffixes, ranges (CIDR and single addresses) and classes.
    public static let hostNames = [
        "a.example", "b.example", "pay.example.com", "App.Example", "A.EXAMPLE.", "xn--nxasmq6b.example", "bücher.test",
        "api.b.example",
    ]
    public static let hostSuffixes = ["*.example", "*.a.example", "*.example.com", "*.Test", "*.b.example"]
    public static let hostRanges = [
        "10.0.0.0/8", "192.168.1.0/24", "fd00::/8", "127.0.0.0/8", "[::1]", "127.0.0.1", "10.1.2.3", "[::ffff:127.0.0.1]",
    ]
    public static let hostClasses = ["@loopback", "@private", "@internal", "@link-local", "@unspecified"]

    /// `paths` (exact), with escapes and parameters the match form reads.
    public static let paths = [
        "/", "/a", "/a/b", "/Admin", "/logout", "/x/", "/%6Cogout", "/a%2Fb", "/a;b", "/checkout", "/api/v1",
    ]
    /// `pathPrefixes`.
    public static let prefixes = ["/a", "/admin", "/x/", "/api/v1", "/A", "/Checkout", "/p/q"]
    /// `pathPatterns`: literal heads, `*` inside, `?`, required segments, mixed case.
    public static let pathPatterns = [
        "/a/*", "/x*", "/admin/*", "/*/b", "/?", "/x/?/c*", "/Logout*", "/*/secret/*", "/api/*/items", "/p/*/q",
        "/checkout*/*",
    ]
    /// `urlPatterns`: whole-URL strings and `URLPatternInit` objects, with schemes, ports,
    /// wildcard hosts, searches and escaped paths.
    public static let urlPatterns: [JSONValue] = [
        .string("https://a.example/*"),
        .string("http{s}?://*.example/admin/*"),
        .string("https://b.example:8443/*"),
        .string("*://pay.example.com/checkout*"),
        .object(["hostname": .string("b.example"), "pathname": .string("/x/*")]),
        .object(["pathname": .string("/a/*")]),
        .object(["pathname": .string("/%61dmin/*")]),
        .object(["pathname": .string("/secret/*"), "hostname": .string("{*.}?a.example")]),
        .object(["port": .string("8443")]),
        .object(["protocol": .string("http"), "hostname": .string("a.example")]),
        .object(["search": .string("token=*")]),
        .object(["pathname": .string("/books/:id")]),
    ]
    public static let schemes = ["https", "http", "myapp", "ws", "javascript"]
    public static let methods = ["GET", "POST", "PUT", "DELETE", "put"]
    public static let actions = ["block", "logout", "x1", "open-external", "Report.v2"]
    public static let locations = [
        "https://l.example/?u={url}", "https://m.example/", "myapp://open?u={url}", "https://n.example/{url}",
    ]

    /// Every host entry, for lists that become tables (names and suffixes: what a table holds).
    public static var hostEntries: [String] { hostNames + hostSuffixes + hostRanges + hostClasses }

    /// A generated host name for a large list: `h17.big.example`, `*.w3.big.example`, mixed case.
    public static func largeHost(_ number: Int, _ random: inout HarnessRandom) -> String {
        switch random.below(6) {
        case 0: "*.w\(number).big.example"
        case 1: "H\(number).BIG.example"
        default: "h\(number).big.example"
        }
    }

    /// A generated prefix for a large list: `/t17`, `/T17/u`.
    public static func largePrefix(_ number: Int, _ random: inout HarnessRandom) -> String {
        random.chance(30) ? "/T\(number)/u" : "/t\(number)"
    }

    /// The values `navigationTypes` and `targetFrames` take.
    public static let navigationTypes = NavigationType.allCases.map(\.rawValue)
    public static let targetFrames = TargetFrame.allCases.map(\.rawValue)
}
