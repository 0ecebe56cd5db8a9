/// A URL path: either an opaque string (e.g. `mailto:x@y`, `data:...`) or a list of segments.
public enum URLPath: Sendable, Hashable {
    /// An opaque path (URL had no `/` after the scheme of a non-special URL).
    case opaque(String)
    /// Hierarchical path segments, percent-encoded, without the `/` separators.
    case segments([String])

    /// The path serialization: the opaque string, or "/" + segment for each segment.
    public var serialized: String {
        switch self {
        case .opaque(let s): return s
        case .segments(let segs):
            if segs.isEmpty { return "" }
            var out: [UInt8] = []
            append(to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    func append(to out: inout [UInt8]) {
        switch self {
        case .opaque(let s): out.append(contentsOf: s.utf8)
        case .segments(let segs):
            for seg in segs {
                out.append(0x2F)
                out.append(contentsOf: seg.utf8)
            }
        }
    }

    /// Whether this is an opaque path.
    public var isOpaque: Bool {
        if case .opaque = self { return true }
        return false
    }
}
