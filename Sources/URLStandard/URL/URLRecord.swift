/// A parsed URL record, per the WHATWG URL Standard (https://url.spec.whatwg.org/#concept-url).
///
/// Produced by `URLRecord.parse(_:base:)`. The record stores its serialization (`href`) plus
/// the offsets of each component inside it, so parsing costs one string and copying a record
/// is one reference-count operation. Component getters slice `href` on demand; component
/// setters rebuild the record from its components (no validation or canonicalization is
/// applied to values set directly). Getters with WPT / `URL` API names (`protocolString`,
/// `hostWithPort`, `hostname`, `pathname`, `search`, `hash`, `origin`) give the usual views.
public struct URLRecord: Sendable, Hashable {
    /// The full URL serialization.
    public let href: String

    // Offsets into href's UTF-8 (always ASCII). Invariants, established by `URLParser`:
    // schemeEnd (":") < authorityStart ("//" end) <= usernameEnd <= hostStart <= hostEnd
    // <= pathStart <= queryStart ("?") <= fragmentStart ("#") <= href.utf8.count; an absent
    // query/fragment is -1. Without a host, the authority offsets all equal pathStart.
    let schemeKind: URLScheme
    let schemeEnd: Int
    let authorityStart: Int
    let usernameEnd: Int
    package let hostStart: Int
    package let hostEnd: Int
    package let hostTag: URLHost.Tag
    package let ipv4Value: UInt32
    let storedPort: UInt16?
    let pathStart: Int
    @usableFromInline package let hasOpaquePath: Bool
    let queryStart: Int
    let fragmentStart: Int

    init(
        href: String, schemeKind: URLScheme, schemeEnd: Int, authorityStart: Int, usernameEnd: Int,
        hostStart: Int, hostEnd: Int, hostTag: URLHost.Tag, ipv4: UInt32, port: UInt16?,
        pathStart: Int, hasOpaquePath: Bool, queryStart: Int, fragmentStart: Int
    ) {
        self.href = href
        self.schemeKind = schemeKind
        self.schemeEnd = schemeEnd
        self.authorityStart = authorityStart
        self.usernameEnd = usernameEnd
        self.hostStart = hostStart
        self.hostEnd = hostEnd
        self.hostTag = hostTag
        self.ipv4Value = ipv4
        self.storedPort = port
        self.pathStart = pathStart
        self.hasOpaquePath = hasOpaquePath
        self.queryStart = queryStart
        self.fragmentStart = fragmentStart
    }

    /// Creates a URL record from components. Values are used as given (they should already be
    /// canonical and percent-encoded); path segments must not contain "/".
    public init(
        scheme: String, username: String = "", password: String = "", host: URLHost? = nil,
        port: UInt16? = nil, path: URLPath = .segments([]), query: String? = nil, fragment: String? = nil
    ) {
        var p = URLParser()
        p.writeScheme(scheme, kind: URLScheme.classify(scheme.utf8))
        if let host {
            p.beginAuthority()
            var colon = -1
            p.out.append(contentsOf: username.utf8)
            if !password.isEmpty {
                colon = p.out.count
                p.out.append(0x3A)
                p.out.append(contentsOf: password.utf8)
            }
            p.finishCredentials(passwordColon: colon)
            switch host {
            case .domain: p.hostTag = .domain
            case .opaque: p.hostTag = .opaque
            case .ipv4(let v):
                p.hostTag = .ipv4
                p.ipv4 = v
            case .ipv6: p.hostTag = .ipv6
            case .empty: p.hostTag = .empty
            }
            host.append(to: &p.out)
            p.hostEnd = p.out.count
            if let port {
                p.port = port
                p.out.append(0x3A)
                URLParser.appendDecimal(port, to: &p.out)
            }
        }
        p.beginPath()
        switch path {
        case .opaque(let s):
            p.hasOpaquePath = true
            p.out.append(contentsOf: s.utf8)
        case .segments(let segments):
            for segment in segments {
                p.out.append(0x2F)
                p.out.append(contentsOf: segment.utf8)
            }
            p.segmentCount = segments.count
        }
        if let query {
            p.beginQuery()
            p.out.append(contentsOf: query.utf8)
        }
        if let fragment {
            p.beginFragment()
            p.out.append(contentsOf: fragment.utf8)
        }
        self = p.finish()
    }

    /// Parses `input` with the WHATWG basic URL parser, optionally relative to `base`.
    /// - Throws: `URLParseError` when the standard says the parse returns failure.
    public static func parse(_ input: String, base: URLRecord? = nil) throws(URLParseError) -> URLRecord {
        // withUTF8 gives direct access to a native string's bytes (copying only for bridged or
        // non-contiguous strings). It is `rethrows`, which would carry the error as `any Error`
        // (which Embedded Swift lacks), so the typed error comes out as a `Result`.
        var input = input
        let original = input
        let parsed: Result<URLRecord, URLParseError> = input.withUTF8 { bytes in
            do throws(URLParseError) {
                return .success(try URLParser.parse(bytes, base: base, original: original))
            } catch {
                return .failure(error)
            }
        }
        return try parsed.get()
    }

    /// ``parse(_:base:)`` of an absolute URL that also says whether the canonical `http(s)`
    /// scan took `input` (``URLParser/parseCanonicalHTTP(_:original:)``). When it did, `href`
    /// is `input` itself, and before its query `input` has no `\`, credentials, dot segment,
    /// byte the parser would encode, `%` that starts no escape, or escape of `.`, `/` or `\`
    /// (`%2E`, `%2F`, `%5C`, hex in either case): a caller that looks at the input as sent for
    /// an encoded separator knows, without a second pass over it, that there is none.
    package static func parseNotingCanonicalInput(
        _ input: String
    ) throws(URLParseError) -> (record: URLRecord, isCanonicalHTTP: Bool) {
        // The scan reads the bytes in place (`withUTF8` is mutating: its copy of `input` cost a
        // retain and a release), and its record is returned as it is, not through a `Result`.
        let scanned = input.utf8.withContiguousStorageIfAvailable { URLParser.parseCanonicalHTTP($0, original: input) }
        if case .some(.some(let record)) = scanned { return (record, true) }
        var copy = input
        let parsed: Result<URLRecord, URLParseError> = copy.withUTF8 { bytes in
            do throws(URLParseError) {
                return .success(try URLParser.parseWithStateMachine(bytes, base: nil, original: input))
            } catch {
                return .failure(error)
            }
        }
        return (try parsed.get(), false)
    }

    // MARK: - Slicing helpers

    /// The substring of href between two UTF-8 offsets (clamped, so never traps).
    func string(_ from: Int, _ to: Int) -> String {
        var h = href
        return h.withUTF8 { buf in
            let lo = max(0, min(from, buf.count)), hi = max(lo, min(to, buf.count))
            return String(decoding: UnsafeBufferPointer(rebasing: buf[lo..<hi]), as: UTF8.self)
        }
    }

    /// Appends href's bytes between two UTF-8 offsets (clamped) to `out`.
    func appendBytes(_ from: Int, _ to: Int, to out: inout [UInt8]) {
        var h = href
        h.withUTF8 { buf in
            let lo = max(0, min(from, buf.count)), hi = max(lo, min(to, buf.count))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[lo..<hi]))
        }
    }

    /// The slice of href between two UTF-8 offsets (clamped, so never traps), sharing its storage.
    ///
    /// Always inlined: the WebAssembly build did not inline it, and calling it copied the whole
    /// record (its outlined copy was 4.5% of a decision there; docs/performance.md, h-wasmslice).
    /// Natively it was inlined already, so the native decision path is unchanged.
    @inline(__always) @inlinable package func slice(_ from: Int, _ to: Int) -> Substring {
        Self.slice(of: href, from, to)
    }

    /// ``slice(_:_:)`` of a string given alone.
    @inlinable package static func slice(of href: String, _ from: Int, _ to: Int) -> Substring {
        let utf8 = href.utf8
        let count = utf8.count
        let lo = max(0, min(from, count)), hi = max(lo, min(to, count))
        #if hasFeature(Embedded)
            // Only in Embedded Swift (the WebAssembly build), where the standard library is compiled
            // into the module: a parsed href is ASCII (the parser percent-encodes the rest), where
            // UTF-16 offsets are UTF-8 offsets and the UTF-16 view's indices come marked
            // scalar-aligned, so `Substring.init` takes them as they are, while it re-checks the UTF-8
            // view's at each bound (`scalarAlignSlow`, 5% of a decision there). Natively those UTF-16
            // calls are not inlinable and cost more than the check (~460 instructions a slice against
            // ~300, docs/performance.md). A record built from non-ASCII components (`init(scheme:…)`
            // uses values as given) takes the UTF-8 view's indices on both.
            let utf16 = href.utf16
            if utf16.count == count {
                let start = utf16.index(utf16.startIndex, offsetBy: lo)
                return Substring(utf8[start..<utf16.index(start, offsetBy: hi - lo)])
            }
        #endif
        let start = utf8.index(utf8.startIndex, offsetBy: lo)
        return Substring(utf8[start..<utf8.index(start, offsetBy: hi - lo)])
    }

    /// Runs `body` over href's bytes between two UTF-8 offsets (clamped).
    @inlinable package func withBytes<Result>(_ from: Int, _ to: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let clamped = { (buf: UnsafeBufferPointer<UInt8>) -> Result in
            let lo = max(0, min(from, buf.count)), hi = max(lo, min(to, buf.count))
            return body(UnsafeBufferPointer(rebasing: buf[lo..<hi]))
        }
        // Read in place (a parsed href is native UTF-8): `withUTF8` is mutating, and the copy it
        // needs costs a retain and a release on every call.
        if let result = href.utf8.withContiguousStorageIfAvailable(clamped) { return result }
        var h = href
        return h.withUTF8(clamped)
    }

    /// The path's UTF-8 offsets in href.
    @usableFromInline package var pathRange: Range<Int> { pathStart..<max(pathStart, pathEnd) }

    var hrefLength: Int { href.utf8.count }
    var queryEnd: Int { fragmentStart >= 0 ? fragmentStart : hrefLength }
    var pathEnd: Int { queryStart >= 0 ? queryStart : queryEnd }

    /// The first path segment (nil for opaque or empty paths).
    var firstPathSegment: String? {
        guard !hasOpaquePath, pathEnd > pathStart else { return nil }
        var h = href
        return h.withUTF8 { buf -> String? in
            let end = min(pathEnd, buf.count)
            guard pathStart < end else { return nil }
            var j = pathStart + 1
            while j < end, buf[j] != 0x2F { j += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: buf[min(pathStart + 1, j)..<j]), as: UTF8.self)
        }
    }

    /// A snapshot of the components, used by the setters to rebuild the record.
    private var components: (String, String, String, URLHost?, UInt16?, URLPath, String?, String?) {
        (scheme, username, password, host, port, path, query, fragment)
    }

    private static func rebuild(_ c: (String, String, String, URLHost?, UInt16?, URLPath, String?, String?)) -> URLRecord {
        URLRecord(scheme: c.0, username: c.1, password: c.2, host: c.3, port: c.4, path: c.5, query: c.6, fragment: c.7)
    }

    // MARK: - Components

    /// The scheme, ASCII-lowercased, without the trailing ":".
    public var scheme: String {
        get { schemeKind.name ?? string(0, schemeEnd) }
        set { var c = components; c.0 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The username, percent-encoded as stored.
    public var username: String {
        get { hostStart > authorityStart ? string(authorityStart, usernameEnd) : "" }
        set { var c = components; c.1 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The password, percent-encoded as stored.
    public var password: String {
        get { usernameEnd + 1 < hostStart ? string(usernameEnd + 1, hostStart - 1) : "" }
        set { var c = components; c.2 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The host, or nil when the URL has none (e.g. `mailto:`, `sc:/path`).
    public var host: URLHost? {
        get {
            var h = href
            return h.withUTF8 { buf in
                let lo = max(0, min(hostStart, buf.count)), hi = max(lo, min(hostEnd, buf.count))
                return URLHost.make(tag: hostTag, ipv4: ipv4Value, serialized: UnsafeBufferPointer(rebasing: buf[lo..<hi]))
            }
        }
        set { var c = components; c.3 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The port, or nil when absent or equal to the scheme's default port.
    public var port: UInt16? {
        get { storedPort }
        set { var c = components; c.4 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The path: opaque, or the list of percent-encoded segments.
    public var path: URLPath {
        get {
            if hasOpaquePath { return .opaque(string(pathStart, pathEnd)) }
            var h = href
            let (start, end) = (pathStart, pathEnd)
            return .segments(
                h.withUTF8 { buf in
                    var segments: [String] = []
                    let e = min(end, buf.count)
                    var i = start
                    while i < e {
                        var j = i + 1
                        while j < e, buf[j] != 0x2F { j += 1 }
                        segments.append(String(decoding: UnsafeBufferPointer(rebasing: buf[(i + 1)..<j]), as: UTF8.self))
                        i = j
                    }
                    return segments
                })
        }
        set { var c = components; c.5 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The query without the leading "?", or nil when absent (an empty query is "").
    public var query: String? {
        get { queryStart >= 0 ? string(queryStart + 1, queryEnd) : nil }
        set { var c = components; c.6 = newValue; self = URLRecord.rebuild(c) }
    }

    /// The fragment without the leading "#", or nil when absent.
    public var fragment: String? {
        get { fragmentStart >= 0 ? string(fragmentStart + 1, hrefLength) : nil }
        set { var c = components; c.7 = newValue; self = URLRecord.rebuild(c) }
    }

    // MARK: - Derived views

    /// Whether the scheme is special (http, https, ws, wss, ftp, file).
    public var isSpecial: Bool { schemeKind.isSpecial }

    /// Whether the URL has a non-empty username or password.
    public var hasCredentials: Bool { hostStart > authorityStart }

    /// `scheme` followed by ":" (the WPT / URL API `protocol`).
    public var protocolString: String { string(0, schemeEnd + 1) }

    /// The serialized host ("" when there is none); IPv6 addresses are bracketed.
    public var hostname: String { hostTag == .none ? "" : string(hostStart, hostEnd) }

    /// The serialized host plus ":port" when a non-default port is present (the URL API `host`).
    public var hostWithPort: String { hostTag == .none ? "" : string(hostStart, pathStart) }

    /// The port as a string, "" when absent or default.
    public var portString: String { storedPort.map { String($0) } ?? "" }

    /// The serialized path (the URL API `pathname`).
    public var pathname: String { string(pathStart, pathEnd) }

    /// "?" + query, or "" when the query is nil or empty.
    public var search: String { queryStart >= 0 && queryEnd > queryStart + 1 ? string(queryStart, queryEnd) : "" }

    /// "#" + fragment, or "" when the fragment is nil or empty.
    public var hash: String {
        fragmentStart >= 0 && hrefLength > fragmentStart + 1 ? string(fragmentStart, hrefLength) : ""
    }

    /// The ASCII serialization of the URL's origin: "scheme://host[:port]" for http(s), ws(s)
    /// and ftp, the inner URL's origin for `blob:` URLs wrapping http(s), and "null" (an opaque
    /// origin) for everything else, including `file:`.
    public var origin: String {
        switch schemeKind {
        case .http, .https, .ws, .wss, .ftp:
            return string(0, schemeEnd) + "://" + hostWithPort
        case .file:
            return "null"
        case .other:
            if scheme == "blob", let inner = try? URLRecord.parse(pathname),
                inner.schemeKind == .http || inner.schemeKind == .https
            {
                return inner.origin
            }
            return "null"
        }
    }
}

extension URLRecord: CustomStringConvertible {
    /// The `href`.
    public var description: String { href }
}
