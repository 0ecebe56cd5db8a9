/// The basic URL parser's state-override entry points that URLPattern's canonicalization
/// callbacks use (https://urlpattern.spec.whatwg.org/#canon-encoding-callbacks).
///
/// URLPattern canonicalizes a *piece* of a component (a fixed-text run of a pattern, or one
/// component of a `URLPatternInit`) by running the URL parser in one state on a dummy URL. Each
/// function below is that one state run to the end of its input, on the same helpers the full
/// parser uses (host parser, percent-encode sets, dot-segment detection), so a pattern
/// canonicalizes exactly as a URL does. Every function first removes ASCII tab and newline, as
/// the basic URL parser does whether or not a URL is given (and, unlike a parse without a URL,
/// does not trim leading or trailing spaces).
extension URLParser {
    /// The input's UTF-8 without ASCII tab, LF and CR.
    static func withoutTabOrNewline(_ input: String) -> [UInt8] {
        input.utf8.filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
    }

    /// The host state with state override "hostname state", on a special URL (URLPattern's dummy
    /// URL is `https://dummy.invalid/`): the host ends at the first `/`, `\`, `?` or `#`; a `:`
    /// outside brackets is a failure (the hostname setter does not take a port).
    /// Returns the host's serialization.
    package static func hostnameOverride(_ input: String) throws(URLParseError) -> String {
        let bytes = withoutTabOrNewline(input)
        var end = bytes.count
        var insideBrackets = false
        for (i, b) in bytes.enumerated() {
            if b == 0x3A, !insideBrackets {
                if i == 0 { throw URLParseError(.missingHost) }
                throw URLParseError(.forbiddenHostCodePoint(b))
            }
            if b == 0x2F || b == 0x5C || b == 0x3F || b == 0x23 {
                end = i
                break
            }
            if b == 0x5B { insideBrackets = true }
            if b == 0x5D { insideBrackets = false }
        }
        if end == 0 { throw URLParseError(.missingHost) }
        var out: [UInt8] = []
        let host = Array(bytes[0..<end])
        let parsed: Result<Void, URLParseError> = host.withUnsafeBufferPointer { buf in
            do throws(URLParseError) {
                _ = try URLHost.parse(buf, isOpaque: false, into: &out)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try parsed.get()
        return String(decoding: out, as: UTF8.self)
    }

    /// The port state with state override, on a URL whose scheme is `scheme`: leading ASCII
    /// digits are the port (what follows them is ignored, as the port setter does); no digit at
    /// all, or a value above 65535, is a failure. Returns "" for the scheme's default port.
    package static func portOverride(_ input: String, scheme: String) throws(URLParseError) -> String {
        var value = 0
        var digits = 0
        for b in withoutTabOrNewline(input) {
            guard b >= 0x30 && b <= 0x39 else { break }
            value = value * 10 + Int(b - 0x30)
            digits += 1
            if value > 65535 { throw URLParseError(.portOutOfRange) }
        }
        guard digits > 0 else { throw URLParseError(.invalidPort) }
        if let defaultPort = URLScheme.classify(scheme.utf8).defaultPort, Int(defaultPort) == value { return "" }
        return String(value)
    }

    /// The path start state with state override on a special URL with an empty path, then URL
    /// path serializing: `/` and `\` separate segments, `?` and `#` are ordinary (encoded) code
    /// points, and `.` / `..` segments (also as `%2e`) are resolved.
    package static func specialPathOverride(_ input: String) -> String {
        let bytes = withoutTabOrNewline(input)
        var out: [UInt8] = []
        var segmentStarts: [Int] = []  // index in `out` of each segment's leading "/"
        var i = 0
        // Path start state: a leading separator is consumed, then the path state runs.
        if let first = bytes.first, first == 0x2F || first == 0x5C { i = 1 }
        while true {
            var j = i
            while j < bytes.count, bytes[j] != 0x2F, bytes[j] != 0x5C { j += 1 }
            let atEnd = j >= bytes.count
            var segment: [UInt8] = [0x2F]
            bytes.withUnsafeBufferPointer { buf in
                appendEncoded(UnsafeBufferPointer(rebasing: buf[i..<j]), PercentEncodeSet.path, to: &segment)
            }
            switch dotSegmentKind(segment, 1, segment.count) {
            case 2:
                if let last = segmentStarts.popLast() { out.removeSubrange(last...) }
                if atEnd {
                    segmentStarts.append(out.count)
                    out.append(0x2F)
                }
            case 1:
                if atEnd {
                    segmentStarts.append(out.count)
                    out.append(0x2F)
                }
            default:
                segmentStarts.append(out.count)
                out.append(contentsOf: segment)
            }
            if atEnd { break }
            i = j + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The opaque path state with state override on a URL with an empty opaque path: the path
    /// ends at `?` or `#`; a space before `?`/`#` is `%20`; C0 controls and non-ASCII are encoded.
    package static func opaquePathOverride(_ input: String) -> String {
        let bytes = withoutTabOrNewline(input)
        var out: [UInt8] = []
        for (i, b) in bytes.enumerated() {
            if b == 0x3F || b == 0x23 { break }
            if b == 0x20 {
                let next = i + 1 < bytes.count ? bytes[i + 1] : 0
                if next == 0x3F || next == 0x23 {
                    out.append(contentsOf: [0x25, 0x32, 0x30])
                } else {
                    out.append(0x20)
                }
            } else {
                PercentEncodeSet.c0Control.append(b, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The query state with state override on a special URL: everything, `#` included, is
    /// encoded with the special-query percent-encode set.
    package static func specialQueryOverride(_ input: String) -> String {
        encodeAll(input, PercentEncodeSet.specialQuery)
    }

    /// The fragment state with state override: everything encoded with the fragment set.
    package static func fragmentOverride(_ input: String) -> String {
        encodeAll(input, PercentEncodeSet.fragment)
    }

    private static func encodeAll(_ input: String, _ set: PercentEncodeSet) -> String {
        let bytes = withoutTabOrNewline(input)
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { appendEncoded($0, set, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}
