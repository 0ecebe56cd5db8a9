internal import JSONSupport

/// The WHATWG basic URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser),
/// without state override.
///
/// It runs the standard's state machine over UTF-8 bytes rather than code points. That is
/// equivalent because every delimiter the machine looks at is ASCII, and percent-encoding a
/// code point's UTF-8 bytes one at a time gives the same result as encoding the code point.
///
/// Output is written straight into the URL's serialization (`out`), with offsets marking
/// the components. This works because the state machine produces the components in
/// serialization order (scheme, credentials, host, port, path, query, fragment); the few
/// late decisions are patched in place (credentials are trimmed when the host starts, dot
/// segments truncate the tail, and "/." is inserted before a path-only URL's path). One
/// buffer instead of one per component keeps a typical parse to two heap allocations.
///
/// The standard's host/port/scheme "buffer" is always a contiguous run of the input, so it is
/// tracked as a start index instead of being copied.
package struct URLParser {
    enum State: UInt8 {
        case schemeStart, scheme, noScheme, specialRelativeOrAuthority, pathOrAuthority, relative
        case relativeSlash, specialAuthoritySlashes, specialAuthorityIgnoreSlashes, authority
        case host, port, file, fileSlash, fileHost, pathStart, path, opaquePath, query, fragment
    }

    /// The serialization being built.
    var out: [UInt8] = []
    var kind = URLScheme.other
    /// Index of the ":" ending the scheme, or -1 before the scheme is known.
    var schemeEnd = -1
    /// Host tag; `.none` means the URL has no host (and no "//").
    var hostTag = URLHost.Tag.none
    var ipv4: UInt32 = 0
    /// Index just past "//" (start of credentials or host).
    var authorityStart = 0
    /// End of the username: index of ":" (password follows) or "@", or == hostStart - 1.
    var usernameEnd = 0
    var hostStart = 0
    var hostEnd = 0
    var port: UInt16? = nil
    /// Start of the path (after the authority, or after the scheme when there is no host).
    var pathStart = 0
    /// Number of completed path segments (segments never contain a literal "/": the path
    /// state always splits there, so segment boundaries are exactly the slashes).
    var segmentCount = 0
    var hasOpaquePath = false
    /// Index of "?" / "#" in `out`, or -1 when there is no query / fragment.
    var queryStart = -1
    var fragmentStart = -1

    /// Entry point: strips leading/trailing C0 controls and spaces, removes tab/LF/CR, parses.
    ///
    /// `original`, when given, is the string whose UTF-8 `raw` is: if the serialization comes out
    /// byte for byte the same (an already canonical URL, the usual case), the record's `href`
    /// shares that string's storage instead of allocating and validating a copy.
    static func parse(
        _ raw: UnsafeBufferPointer<UInt8>, base: URLRecord?, original: String? = nil
    ) throws(URLParseError) -> URLRecord {
        if let original, let record = parseCanonicalHTTP(raw, original: original) { return record }
        return try parseWithStateMachine(raw, base: base, original: original)
    }

    /// ``parse(_:base:original:)`` without the canonical scan, for a caller that already ran it.
    static func parseWithStateMachine(
        _ raw: UnsafeBufferPointer<UInt8>, base: URLRecord?, original: String?
    ) throws(URLParseError) -> URLRecord {
        var start = 0
        var end = raw.count
        while start < end, raw[start] <= 0x20 { start += 1 }
        while end > start, raw[end - 1] <= 0x20 { end -= 1 }
        var hasTabOrNewline = false
        for i in start..<end {
            let b = raw[i]
            if b == 0x09 || b == 0x0A || b == 0x0D {
                hasTabOrNewline = true
                break
            }
        }
        if !hasTabOrNewline {
            let untrimmed = start == 0 && end == raw.count
            return try run(UnsafeBufferPointer(rebasing: raw[start..<end]), base: base, original: untrimmed ? original : nil)
        }
        var cleaned = [UInt8]()
        cleaned.reserveCapacity(end - start)
        for i in start..<end {
            let b = raw[i]
            if b != 0x09 && b != 0x0A && b != 0x0D { cleaned.append(b) }
        }
        let result: Result<URLRecord, URLParseError> = cleaned.withUnsafeBufferPointer { buf in
            do throws(URLParseError) {
                return .success(try run(buf, base: base))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: - Writing helpers

    mutating func writeScheme(_ name: String, kind: URLScheme) {
        var name = name
        name.withUTF8 { out.append(contentsOf: $0) }
        out.append(0x3A)
        schemeEnd = out.count - 1
        self.kind = kind
    }

    /// Copies base's "scheme:" (out is empty at this point).
    mutating func copyScheme(from base: URLRecord) {
        base.appendBytes(0, base.schemeEnd + 1, to: &out)
        schemeEnd = out.count - 1
        kind = base.schemeKind
    }

    /// Writes "//" and marks an (initially empty) authority.
    mutating func beginAuthority() {
        out.append(0x2F)
        out.append(0x2F)
        authorityStart = out.count
        usernameEnd = out.count
        hostStart = out.count
        hostEnd = out.count
        hostTag = .empty
    }

    /// Called when the authority state hands over to the host state: drops an empty
    /// username/password (and a dangling ":"), then writes "@" if credentials remain.
    mutating func finishCredentials(passwordColon: Int) {
        if passwordColon < 0 {
            usernameEnd = out.count
        } else {
            usernameEnd = passwordColon
            if passwordColon == out.count - 1 { out.removeLast() }  // empty password
        }
        if out.count == authorityStart {
            usernameEnd = authorityStart
            hostStart = authorityStart
            return
        }
        out.append(0x40)
        hostStart = out.count
    }

    /// Parses a host from the input and writes its serialization.
    mutating func writeHost(_ input: UnsafeBufferPointer<UInt8>) throws(URLParseError) {
        out.removeSubrange(hostStart...)
        let parsed = try URLHost.parse(input, isOpaque: !kind.isSpecial, into: &out)
        hostTag = parsed.tag
        ipv4 = parsed.ipv4
        hostEnd = out.count
    }

    /// Copies base's host (not its credentials or port) into the (empty) authority.
    mutating func copyHost(from base: URLRecord) {
        out.removeSubrange(hostStart...)
        hostTag = base.hostTag
        ipv4 = base.ipv4Value
        if base.hostTag != .none {
            base.appendBytes(base.hostStart, base.hostEnd, to: &out)
        } else {
            hostTag = .empty  // cannot happen for file bases; keep "//" consistent with a host
        }
        hostEnd = out.count
    }

    /// Copies base's "//credentials@host:port" (out holds exactly base's "scheme:").
    mutating func copyAuthority(from base: URLRecord) {
        guard base.hostTag != .none else { return }
        let offset = out.count - (base.schemeEnd + 1)
        base.appendBytes(base.schemeEnd + 1, base.pathStart, to: &out)
        authorityStart = base.authorityStart + offset
        usernameEnd = base.usernameEnd + offset
        hostStart = base.hostStart + offset
        hostEnd = base.hostEnd + offset
        hostTag = base.hostTag
        ipv4 = base.ipv4Value
        port = base.port
    }

    /// Starts the path at the current end of the output (after any authority).
    mutating func beginPath() {
        pathStart = out.count
        segmentCount = 0
    }

    mutating func copyPath(from base: URLRecord) {
        beginPath()
        hasOpaquePath = base.hasOpaquePath
        base.appendBytes(base.pathStart, base.pathEnd, to: &out)
        if !hasOpaquePath {
            var n = 0
            for i in pathStart..<out.count where out[i] == 0x2F { n += 1 }
            segmentCount = n
        }
    }

    mutating func copyQuery(from base: URLRecord) {
        guard base.queryStart >= 0 else { return }
        queryStart = out.count
        base.appendBytes(base.queryStart, base.queryEnd, to: &out)
    }

    mutating func beginQuery() {
        queryStart = out.count
        out.append(0x3F)
    }

    mutating func beginFragment() {
        fragmentStart = out.count
        out.append(0x23)
    }

    /// Whether the first path segment is a normalized Windows drive letter ("C:").
    var firstSegmentIsNormalizedDriveLetter: Bool {
        guard segmentCount >= 1, out.count >= pathStart + 3 else { return false }
        return URLParser.isASCIIAlpha(out[pathStart + 1]) && out[pathStart + 2] == 0x3A
            && (out.count == pathStart + 3 || out[pathStart + 3] == 0x2F)
    }

    /// "Shorten a URL's path": drop the last segment, except a lone drive letter of a file URL.
    /// Only called while the path is the last thing in `out`.
    mutating func shortenPath() {
        if kind == .file, segmentCount == 1, firstSegmentIsNormalizedDriveLetter { return }
        guard segmentCount > 0, out.count > pathStart else { return }
        var i = out.count - 1
        while i > pathStart, out[i] != 0x2F { i -= 1 }
        out.removeSubrange(i...)
        segmentCount -= 1
    }

    // MARK: - State machine

    static func run(
        _ input: UnsafeBufferPointer<UInt8>, base: URLRecord?, original: String? = nil
    ) throws(URLParseError) -> URLRecord {
        var url = URLParser()
        let len = input.count
        url.out.reserveCapacity(len + 8)
        // Byte at i, or -1 for EOF (any index outside the input).
        @inline(__always) func at(_ i: Int) -> Int { i >= 0 && i < len ? Int(input[i]) : -1 }
        @inline(__always) func slice(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
            let lo = max(0, min(from, len)), hi = max(lo, min(to, len))
            return UnsafeBufferPointer(rebasing: input[lo..<hi])
        }
        /// "Starts with a Windows drive letter" for the input from index i.
        @inline(__always) func startsWithDriveLetter(_ i: Int) -> Bool {
            let a = at(i), b = at(i + 1)
            guard a >= 0, URLParser.isASCIIAlpha(UInt8(a)), b == 0x3A || b == 0x7C else { return false }
            let c = at(i + 2)
            return c == -1 || c == 0x2F || c == 0x5C || c == 0x3F || c == 0x23
        }

        var state = State.schemeStart
        var pointer = 0
        var bufferStart = -1  // -1: the standard's buffer is empty
        var atSignSeen = false
        var insideBrackets = false
        var passwordTokenSeen = false
        var passwordColon = -1  // index in `out` of the ":" before the password
        var segmentOpen = false  // path state: a segment is being written at `segmentStart`
        var segmentStart = 0

        while true {
            let c = at(pointer)
            switch state {
            case .schemeStart:
                if c >= 0, URLParser.isASCIIAlpha(UInt8(c)) {
                    bufferStart = pointer
                    state = .scheme
                } else {
                    state = .noScheme
                    pointer -= 1
                }

            case .scheme:
                if c >= 0, URLParser.isSchemeByte(UInt8(c)) {
                    // accumulate (lowercased when the scheme is written)
                } else if c == 0x3A {
                    let raw = slice(bufferStart, pointer)
                    for b in raw { url.out.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b) }
                    url.out.append(0x3A)
                    url.schemeEnd = url.out.count - 1
                    url.kind = URLScheme.classifyCaseInsensitive(raw)
                    bufferStart = -1
                    if url.kind == .file {
                        state = .file
                    } else if url.kind.isSpecial, let base, base.schemeKind == url.kind {
                        state = .specialRelativeOrAuthority
                    } else if url.kind.isSpecial {
                        state = .specialAuthoritySlashes
                    } else if at(pointer + 1) == 0x2F {
                        state = .pathOrAuthority
                        pointer += 1
                    } else {
                        url.beginPath()
                        url.hasOpaquePath = true
                        state = .opaquePath
                    }
                } else {
                    bufferStart = -1
                    state = .noScheme
                    pointer = -1
                }

            case .noScheme:
                guard let base else { throw URLParseError(.missingScheme) }
                if base.hasOpaquePath {
                    guard c == 0x23 else { throw URLParseError(.missingScheme) }
                    url.copyScheme(from: base)
                    url.copyPath(from: base)
                    url.copyQuery(from: base)
                    url.beginFragment()
                    state = .fragment
                } else if base.schemeKind != .file {
                    state = .relative
                    pointer -= 1
                } else {
                    state = .file
                    pointer -= 1
                }

            case .specialRelativeOrAuthority:
                if c == 0x2F, at(pointer + 1) == 0x2F {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .relative
                    pointer -= 1
                }

            case .pathOrAuthority:
                if c == 0x2F {
                    state = .authority
                    url.beginAuthority()
                } else {
                    url.beginPath()
                    state = .path
                    pointer -= 1
                }

            case .relative:
                guard let base else { throw URLParseError(.missingScheme) }
                if url.schemeEnd < 0 { url.copyScheme(from: base) }
                if c == 0x2F || (url.kind.isSpecial && c == 0x5C) {
                    state = .relativeSlash
                } else {
                    url.copyAuthority(from: base)
                    url.copyPath(from: base)
                    if c == 0x3F {
                        url.beginQuery()
                        state = .query
                    } else if c == 0x23 {
                        url.copyQuery(from: base)
                        url.beginFragment()
                        state = .fragment
                    } else if c != -1 {
                        url.shortenPath()
                        state = .path
                        pointer -= 1
                    } else {
                        url.copyQuery(from: base)
                    }
                }

            case .relativeSlash:
                if url.kind.isSpecial, c == 0x2F || c == 0x5C {
                    state = .specialAuthorityIgnoreSlashes
                } else if c == 0x2F {
                    url.beginAuthority()
                    state = .authority
                } else {
                    if let base { url.copyAuthority(from: base) }
                    url.beginPath()
                    state = .path
                    pointer -= 1
                }

            case .specialAuthoritySlashes:
                if c == 0x2F, at(pointer + 1) == 0x2F {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .specialAuthorityIgnoreSlashes
                    pointer -= 1
                }

            case .specialAuthorityIgnoreSlashes:
                if c != 0x2F && c != 0x5C {
                    url.beginAuthority()
                    state = .authority
                    pointer -= 1
                }

            case .authority:
                if c == 0x40 {
                    // Credentials: everything before the last "@" of the authority. They are
                    // written as they come; the username is followed by the password, so the
                    // part being extended is always at the end of `out`.
                    if atSignSeen {
                        // The previous "@" was part of the userinfo; keep it, encoded.
                        url.out.append(0x25)
                        url.out.append(0x34)
                        url.out.append(0x30)
                    }
                    atSignSeen = true
                    let set = PercentEncodeSet.userinfo
                    if bufferStart >= 0 {
                        for b in slice(bufferStart, pointer) {
                            if b == 0x3A, !passwordTokenSeen {
                                passwordTokenSeen = true
                                passwordColon = url.out.count
                                url.out.append(0x3A)
                                continue
                            }
                            set.append(b, to: &url.out)
                        }
                    }
                    bufferStart = -1
                } else if c == -1 || c == 0x2F || c == 0x3F || c == 0x23 || (url.kind.isSpecial && c == 0x5C) {
                    let bufferLength = bufferStart >= 0 ? pointer - bufferStart : 0
                    if atSignSeen, bufferLength == 0 { throw URLParseError(.missingHost) }
                    pointer -= bufferLength + 1
                    bufferStart = -1
                    url.finishCredentials(passwordColon: passwordColon)
                    state = .host
                } else {
                    if bufferStart < 0 { bufferStart = pointer }
                    // Skip ahead to the next byte this state reacts to.
                    let special = url.kind.isSpecial
                    var j = pointer + 1
                    while j < len {
                        let b = input[j]
                        if b == 0x40 || b == 0x2F || b == 0x3F || b == 0x23 || (special && b == 0x5C) { break }
                        j += 1
                    }
                    pointer = j - 1
                }

            case .host:
                if c == 0x3A, !insideBrackets {
                    guard bufferStart >= 0 else { throw URLParseError(.missingHost) }
                    try url.writeHost(slice(bufferStart, pointer))
                    bufferStart = -1
                    state = .port
                } else if c == -1 || c == 0x2F || c == 0x3F || c == 0x23 || (url.kind.isSpecial && c == 0x5C) {
                    let hostEnd = pointer
                    pointer -= 1
                    if bufferStart < 0 {
                        if url.kind.isSpecial { throw URLParseError(.missingHost) }
                        url.hostTag = .empty
                        url.hostEnd = url.out.count
                    } else {
                        try url.writeHost(slice(bufferStart, hostEnd))
                    }
                    bufferStart = -1
                    state = .pathStart
                } else {
                    if c == 0x5B { insideBrackets = true }
                    if c == 0x5D { insideBrackets = false }
                    if bufferStart < 0 { bufferStart = pointer }
                    // Skip ahead over bytes this state merely accumulates.
                    let special = url.kind.isSpecial
                    var j = pointer + 1
                    while j < len {
                        let b = input[j]
                        if b == 0x3A || b == 0x5B || b == 0x5D || b == 0x2F || b == 0x3F || b == 0x23
                            || (special && b == 0x5C)
                        {
                            break
                        }
                        j += 1
                    }
                    pointer = j - 1
                }

            case .port:
                if c >= 0x30 && c <= 0x39 {
                    if bufferStart < 0 { bufferStart = pointer }
                } else if c == -1 || c == 0x2F || c == 0x3F || c == 0x23 || (url.kind.isSpecial && c == 0x5C) {
                    if bufferStart >= 0 {
                        var value = 0
                        for b in slice(bufferStart, pointer) {
                            value = value * 10 + Int(b &- 0x30)
                            if value > 65535 { throw URLParseError(.portOutOfRange) }
                        }
                        let p = UInt16(value)
                        if p != url.kind.defaultPort {
                            url.port = p
                            url.out.append(0x3A)
                            URLParser.appendDecimal(p, to: &url.out)
                        }
                    }
                    bufferStart = -1
                    state = .pathStart
                    pointer -= 1
                } else {
                    throw URLParseError(.invalidPort)
                }

            case .file:
                if url.schemeEnd < 0 { url.writeScheme("file", kind: .file) }
                url.kind = .file
                url.beginAuthority()  // host = empty host
                if c == 0x2F || c == 0x5C {
                    state = .fileSlash
                } else if let base, base.schemeKind == .file {
                    url.copyHost(from: base)
                    url.copyPath(from: base)
                    if c == 0x3F {
                        url.beginQuery()
                        state = .query
                    } else if c == 0x23 {
                        url.copyQuery(from: base)
                        url.beginFragment()
                        state = .fragment
                    } else if c != -1 {
                        if !startsWithDriveLetter(pointer) {
                            url.shortenPath()
                        } else {
                            url.out.removeSubrange(url.pathStart...)
                            url.segmentCount = 0
                        }
                        state = .path
                        pointer -= 1
                    } else {
                        url.copyQuery(from: base)
                    }
                } else {
                    url.beginPath()
                    state = .path
                    pointer -= 1
                }

            case .fileSlash:
                if c == 0x2F || c == 0x5C {
                    state = .fileHost
                } else {
                    var baseDrive: String? = nil
                    if let base, base.schemeKind == .file {
                        url.copyHost(from: base)
                        if !startsWithDriveLetter(pointer), base.hasOpaquePath == false,
                            let first = base.firstPathSegment, URLParser.isNormalizedDriveLetter(first)
                        {
                            baseDrive = first
                        }
                    }
                    url.beginPath()
                    if var drive = baseDrive {
                        url.out.append(0x2F)
                        drive.withUTF8 { url.out.append(contentsOf: $0) }
                        url.segmentCount = 1
                    }
                    state = .path
                    pointer -= 1
                }

            case .fileHost:
                if c == -1 || c == 0x2F || c == 0x5C || c == 0x3F || c == 0x23 {
                    let hostEnd = pointer
                    pointer -= 1
                    let buffer = bufferStart >= 0 ? slice(bufferStart, hostEnd) : slice(0, 0)
                    if buffer.count == 2, URLParser.isASCIIAlpha(buffer[0]), buffer[1] == 0x3A || buffer[1] == 0x7C {
                        // "file://C:/" — the drive letter is the first path segment, not a host.
                        url.beginPath()
                        segmentStart = url.out.count
                        url.out.append(0x2F)
                        url.out.append(contentsOf: buffer)
                        segmentOpen = true
                        state = .path
                    } else if buffer.isEmpty {
                        state = .pathStart
                    } else {
                        try url.writeHost(buffer)
                        if url.hostTag == .domain, url.hostEnd - url.hostStart == 9,
                            url.out[url.hostStart...].elementsEqual("localhost".utf8)
                        {
                            url.out.removeSubrange(url.hostStart...)
                            url.hostTag = .empty
                            url.hostEnd = url.hostStart
                        }
                        state = .pathStart
                    }
                    bufferStart = -1
                } else if bufferStart < 0 {
                    bufferStart = pointer
                }

            case .pathStart:
                url.beginPath()
                if url.kind.isSpecial {
                    state = .path
                    if c != 0x2F && c != 0x5C { pointer -= 1 }
                } else if c == 0x3F {
                    url.beginQuery()
                    state = .query
                } else if c == 0x23 {
                    url.beginFragment()
                    state = .fragment
                } else if c != -1 {
                    state = .path
                    if c != 0x2F { pointer -= 1 }
                }

            case .path:
                let isSlash = c == 0x2F || (url.kind.isSpecial && c == 0x5C)
                if c == -1 || isSlash || c == 0x3F || c == 0x23 {
                    let segLo = segmentStart + 1
                    let segHi = segmentOpen ? url.out.count : segLo
                    let dots = segmentOpen ? URLParser.dotSegmentKind(url.out, segLo, segHi) : 0
                    if dots == 2 {
                        url.out.removeSubrange(segmentStart...)
                        url.shortenPath()
                        if !isSlash {
                            url.out.append(0x2F)
                            url.segmentCount += 1
                        }
                    } else if dots == 1 {
                        url.out.removeSubrange(segmentStart...)
                        if !isSlash {
                            url.out.append(0x2F)
                            url.segmentCount += 1
                        }
                    } else {
                        if !segmentOpen {
                            url.out.append(0x2F)
                        } else if url.kind == .file, url.segmentCount == 0, segHi - segLo == 2,
                            URLParser.isASCIIAlpha(url.out[segLo]), url.out[segLo + 1] == 0x7C
                        {
                            url.out[segLo + 1] = 0x3A
                        }
                        url.segmentCount += 1
                    }
                    segmentOpen = false
                    if c == 0x3F {
                        url.beginQuery()
                        state = .query
                    } else if c == 0x23 {
                        url.beginFragment()
                        state = .fragment
                    }
                } else {
                    if !segmentOpen {
                        segmentStart = url.out.count
                        url.out.append(0x2F)
                        segmentOpen = true
                    }
                    // Consume the rest of the segment in one go (up to the next delimiter).
                    var j = pointer + 1
                    let special = url.kind.isSpecial
                    while j < len {
                        let b = input[j]
                        if b == 0x2F || b == 0x3F || b == 0x23 || (special && b == 0x5C) { break }
                        j += 1
                    }
                    URLParser.appendEncoded(slice(pointer, j), PercentEncodeSet.path, to: &url.out)
                    pointer = j - 1
                }

            case .opaquePath:
                if c == 0x3F {
                    url.beginQuery()
                    state = .query
                } else if c == 0x23 {
                    url.beginFragment()
                    state = .fragment
                } else if c == 0x20 {
                    let next = at(pointer + 1)
                    if next == 0x3F || next == 0x23 {
                        url.out.append(0x25)
                        url.out.append(0x32)
                        url.out.append(0x30)
                    } else {
                        url.out.append(0x20)
                    }
                } else if c != -1 {
                    PercentEncodeSet.c0Control.append(UInt8(c), to: &url.out)
                }

            case .query:
                if c == 0x23 {
                    url.beginFragment()
                    state = .fragment
                } else if c != -1 {
                    // Consume everything up to the fragment (or the end) in one go.
                    let set = url.kind.isSpecial ? PercentEncodeSet.specialQuery : PercentEncodeSet.query
                    var j = pointer + 1
                    while j < len, input[j] != 0x23 { j += 1 }
                    URLParser.appendEncoded(slice(pointer, j), set, to: &url.out)
                    pointer = j - 1
                }

            case .fragment:
                if c != -1 {
                    // The fragment runs to the end of the input.
                    URLParser.appendEncoded(slice(pointer, len), PercentEncodeSet.fragment, to: &url.out)
                    pointer = len - 1
                }
            }
            if pointer >= len { break }
            pointer += 1
        }
        return url.finish(original: original.map { ($0, input) })
    }

    // MARK: - Output

    private func reusableHref(_ original: (string: String, bytes: UnsafeBufferPointer<UInt8>)?) -> String? {
        guard let original, out.count == original.bytes.count,
            out.withUnsafeBufferPointer({ UTF8Bytes.equal($0, original.bytes) })
        else { return nil }
        return original.string
    }

    /// Finalizes the serialization and wraps it in a `URLRecord`.
    ///
    /// `original` is the input string and its bytes (see ``parse(_:base:original:)``): when the
    /// final serialization equals them, `href` is that string rather than a new one.
    mutating func finish(original: (string: String, bytes: UnsafeBufferPointer<UInt8>)? = nil) -> URLRecord {
        if hostTag == .none, !hasOpaquePath, segmentCount > 1,
            out.count >= pathStart + 2, out[pathStart] == 0x2F, out[pathStart + 1] == 0x2F
        {
            // Path-only URL whose path starts with an empty segment: "/." keeps the
            // serialization from reparsing with "//" read as an authority.
            out.insert(contentsOf: [0x2F, 0x2E], at: pathStart)
            pathStart += 2
            if queryStart >= 0 { queryStart += 2 }
            if fragmentStart >= 0 { fragmentStart += 2 }
        }
        if hostTag == .none {
            authorityStart = pathStart
            usernameEnd = pathStart
            hostStart = pathStart
            hostEnd = pathStart
        }
        return URLRecord(
            href: reusableHref(original) ?? String(decoding: out, as: UTF8.self),
            schemeKind: kind, schemeEnd: schemeEnd, authorityStart: authorityStart, usernameEnd: usernameEnd,
            hostStart: hostStart, hostEnd: hostEnd, hostTag: hostTag, ipv4: ipv4, port: port,
            pathStart: pathStart, hasOpaquePath: hasOpaquePath, queryStart: queryStart,
            fragmentStart: fragmentStart)
    }
}

// MARK: - Byte classes

extension URLParser {
    @inline(__always) static func isASCIIAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    @inline(__always) static func isSchemeByte(_ b: UInt8) -> Bool {
        URLParser.isASCIIAlpha(b) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
    }

    /// "C:" — a normalized Windows drive letter.
    static func isNormalizedDriveLetter(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return u.count == 2 && URLParser.isASCIIAlpha(u[0]) && u[1] == 0x3A
    }

    /// 1 for a single-dot segment ("." or "%2e"), 2 for a double-dot segment, else 0 (case-insensitive).
    @inline(__always) static func dotSegmentKind(_ p: [UInt8], _ lo: Int, _ hi: Int) -> Int {
        var dots = 0
        var i = lo
        while i < hi {
            if p[i] == 0x2E {
                i += 1
            } else if p[i] == 0x25, i + 3 <= hi, p[i + 1] == 0x32, p[i + 2] | 0x20 == 0x65 {
                i += 3
            } else {
                return 0
            }
            dots += 1
            if dots > 2 { return 0 }
        }
        return dots
    }

    /// Appends `src`, percent-encoding members of `set`; unencoded runs are copied in bulk.
    static func appendEncoded(_ src: UnsafeBufferPointer<UInt8>, _ set: PercentEncodeSet, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        while i < src.count {
            let b = src[i]
            if set.contains(b) {
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart..<i])) }
                out.append(0x25)
                out.append(PercentEncodeSet.hexDigit(b >> 4))
                out.append(PercentEncodeSet.hexDigit(b & 0xF))
                runStart = i + 1
            }
            i += 1
        }
        if runStart < src.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart..<src.count])) }
    }

    /// Appends the decimal digits of `value`.
    static func appendDecimal(_ value: UInt16, to out: inout [UInt8]) {
        if value >= 10000 { out.append(UInt8(value / 10000) + 0x30) }
        if value >= 1000 { out.append(UInt8(value / 1000 % 10) + 0x30) }
        if value >= 100 { out.append(UInt8(value / 100 % 10) + 0x30) }
        if value >= 10 { out.append(UInt8(value / 10 % 10) + 0x30) }
        out.append(UInt8(value % 10) + 0x30)
    }
}
