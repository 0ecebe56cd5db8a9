/// Classification of a URL scheme: the special schemes get distinct parsing rules and default ports.
package enum URLScheme: UInt8, Sendable {
    case http, https, ws, wss, ftp, file, other

    var isSpecial: Bool { self != .other }

    /// The default port, removed from serialized URLs.
    package var defaultPort: UInt16? {
        switch self {
        case .http, .ws: return 80
        case .https, .wss: return 443
        case .ftp: return 21
        case .file, .other: return nil
        }
    }

    /// The canonical scheme string for special schemes (static, so no allocation).
    var name: String? {
        switch self {
        case .http: return "http"
        case .https: return "https"
        case .ws: return "ws"
        case .wss: return "wss"
        case .ftp: return "ftp"
        case .file: return "file"
        case .other: return nil
        }
    }

    /// Classifies scheme bytes, ASCII case-insensitively (input is known to be scheme code points).
    static func classifyCaseInsensitive(_ s: UnsafeBufferPointer<UInt8>) -> URLScheme {
        // OR-ing 0x20 lowercases letters; scheme bytes are alphanumerics and "+-.", none of which
        // collide with a lowercase letter after OR-ing 0x20.
        var it = s.makeIterator()
        @inline(__always) func next() -> UInt8? { it.next().map { $0 | 0x20 } }
        switch s.count {
        case 2:
            if next() == 0x77, next() == 0x73 { return .ws }
        case 3:
            let a = next(), b = next(), c = next()
            if a == 0x77, b == 0x73, c == 0x73 { return .wss }
            if a == 0x66, b == 0x74, c == 0x70 { return .ftp }
        case 4:
            let a = next(), b = next(), c = next(), d = next()
            if a == 0x68, b == 0x74, c == 0x74, d == 0x70 { return .http }
            if a == 0x66, b == 0x69, c == 0x6C, d == 0x65 { return .file }
        case 5:
            let a = next(), b = next(), c = next(), d = next(), e = next()
            if a == 0x68, b == 0x74, c == 0x74, d == 0x70, e == 0x73 { return .https }
        default:
            break
        }
        return .other
    }

    /// Classifies already-lowercased scheme bytes.
    package static func classify<C: Collection>(_ s: C) -> URLScheme where C.Element == UInt8 {
        var it = s.makeIterator()
        switch s.count {
        case 2:
            if it.next() == 0x77, it.next() == 0x73 { return .ws }
        case 3:
            let a = it.next(), b = it.next(), c = it.next()
            if a == 0x77, b == 0x73, c == 0x73 { return .wss }
            if a == 0x66, b == 0x74, c == 0x70 { return .ftp }
        case 4:
            let a = it.next(), b = it.next(), c = it.next(), d = it.next()
            if a == 0x68, b == 0x74, c == 0x74, d == 0x70 { return .http }
            if a == 0x66, b == 0x69, c == 0x6C, d == 0x65 { return .file }
        case 5:
            let a = it.next(), b = it.next(), c = it.next(), d = it.next(), e = it.next()
            if a == 0x68, b == 0x74, c == 0x74, d == 0x70, e == 0x73 { return .https }
        default:
            break
        }
        return .other
    }
}
