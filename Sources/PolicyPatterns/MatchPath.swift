/// The comparison-only form of a URL path.
///
/// The WHATWG serialization keeps things origin servers fold away (`%6C`, `;params`,
/// `//`), so a policy matched on it can be dodged with `/%6Cogout` or `/logout;x`.
/// This form reads the path the way lenient servers do, and is used only to compare:
/// decisions always report the WHATWG `href`.
///
/// Steps, in this order (the order matters: `/public/..;/admin` must become `/admin`):
/// 1. decode percent-encoded unreserved bytes (`A-Z a-z 0-9 - . _ ~`); other escapes stay,
///    with upper-case hex, so `%2F` never turns into a separator and `%252e` is not decoded twice;
///    a `%` that starts no escape becomes `%25`, so the form is stable under a second pass;
/// 2. strip `;parameters` from every segment;
/// 3. merge repeated `/` (drop empty segments);
/// 4. remove `.` and `..` segments again.
///
/// The result never ends in `/` (unless it is `/`), so `paths` ignore a trailing slash and
/// prefixes compare whole segments. Opaque paths (`javascript:alert(1)`) are only decoded:
/// they have no segments and never start with `/`, so no path pattern matches them.
public struct MatchPath: Sendable, Equatable {
    /// The normalized path, case preserved (slices an existing string where it can, so it is
    /// stored as a `Substring`; this accessor copies and is meant for display, not matching).
    public var text: String { String(textForm) }
    /// The same, ASCII lower case: what case-insensitive matchers compare.
    public var folded: String { String(foldedForm) }

    /// What matchers compare. For most requests these are slices of the URL's `href`: a path
    /// with no `%`, `;`, empty or dot segment is its own match form, so nothing is allocated.
    package let textForm: Substring
    package let foldedForm: Substring

    /// The match form of a parsed URL's path.
    ///
    /// Inlinable: every request builds one, from the engine's module (a call across the module
    /// boundary cost ~35 instructions a decision).
    @inlinable public init(_ url: URLRecord) {
        let range = url.pathRange
        let isOpaque = url.hasOpaquePath
        let scan = url.withBytes(range.lowerBound, range.upperBound) { Self.ownFormScan($0, isOpaque: isOpaque) }
        // Fast twin kept (issue 44): normalizing instead costs default +4.2% instructions, encoded-separators +6.2% allocations.
        if scan.isOwnForm {
            self.init(textForm: url.slice(range.lowerBound, range.upperBound), hasUpperCase: scan.hasUpperCase)
        } else {
            self.init(normalizing: url.href, range, isOpaque: isOpaque)
        }
    }

    @usableFromInline init(textForm: Substring) {
        self.textForm = textForm
        self.foldedForm = asciiLowercased(textForm)
    }

    /// A form whose upper-case letters, if any, a scan of it already found
    /// (``ownFormScan(_:isOpaque:)``): folded without a second pass over it.
    @usableFromInline init(textForm: Substring, hasUpperCase: Bool) {
        self.textForm = textForm
        self.foldedForm = hasUpperCase ? asciiLowercased(textForm) : textForm
    }

    /// Normalizes a serialized WHATWG path in one pass over its bytes.
    package init(pathname: String, isOpaque: Bool) {
        self.init(normalizing: pathname, 0..<pathname.utf8.count, isOpaque: isOpaque)
    }

    /// The *decoded-separator* match form of a URL's path, or nil when its path has no encoded
    /// separator (`%2F`, `%5C`, either case) and so only one reading.
    ///
    /// The match form keeps `%2F` escaped (RFC 3986: it is data, not a separator), but many
    /// origin servers (python `http.server`, static file servers) decode it before they resolve
    /// the path: to them `/x/..%2Fsecret` is `/secret`. Such a path has two readings, and
    /// ``CompiledPolicy`` decides both and fails closed when they differ. This form reads those
    /// escapes as `/` and then normalizes as ``init(_:)`` does (decode unreserved escapes, strip
    /// `;params`, merge `//`, remove dot segments): `/x/..%2fsecret/index.html` →
    /// `/secret/index.html`, `/%2fsecret` → `/secret`, `/a%5Cb` → `/a/b`.
    ///
    /// Paths without such an escape cost one scan for `%` and allocate nothing; opaque paths
    /// have no segments and have one reading.
    public static func decodedSeparatorForm(of url: URLRecord) -> MatchPath? {
        guard !url.hasOpaquePath else { return nil }
        let range = url.pathRange
        let replaced: [UInt8]? = url.withBytes(range.lowerBound, range.upperBound) { bytes in
            guard Self.hasEncodedSeparator(bytes) else { return nil }
            return Self.decodingSeparators(bytes)
        }
        guard let replaced else { return nil }
        // Replacing an escape by `/` never makes a new escape (`/` is not a hex digit), so the
        // normalization below reads every other escape exactly as the plain form does.
        return MatchPath(textForm: Substring(replaced.withUnsafeBufferPointer { Self.normalizedHierarchical($0) }))
    }

    /// The match form of `input` (a URL as sent) with every `%2F`/`%5C` read as `/` before the
    /// URL is parsed, so dot segments are resolved after the decoding, as servers that decode
    /// first do; nil when `input` has no such escape, is opaque, or the decoded text is not the
    /// same URL up to its path (the escape sat in the userinfo: that reading is not a path's).
    package static func rawDecodedSeparatorForm(of input: String, parsed: URLRecord) -> MatchPath? {
        rawDecodedSeparatorURL(of: input, parsed: parsed).map(MatchPath.init)
    }

    /// The URL ``rawDecodedSeparatorForm(of:parsed:)`` takes its match form of: `input` with every
    /// `%2F`/`%5C` before its query read as `/`, parsed again; nil in the same cases. Its
    /// `pathname` is that reading's path as the URLPattern standard reads a path (trailing `/` kept).
    package static func rawDecodedSeparatorURL(of input: String, parsed: URLRecord) -> URLRecord? {
        guard !parsed.hasOpaquePath else { return nil }
        var input = input
        // Only what stands before the first `?` or `#` can be the path: an escape in the query
        // (`?redirect_uri=https%3A%2F%2F…`, common in OAuth links) cannot change it, and would
        // otherwise cost such URLs a second parse that always comes back equal.
        let replaced: [UInt8]? = input.withUTF8 { bytes in
            let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
            return Self.hasEncodedSeparator(UnsafeBufferPointer(rebasing: bytes[..<end]))
                ? Self.decodingSeparators(bytes) : nil
        }
        guard let replaced else { return nil }
        // A text that no longer parses has no path to read; the other readings still apply.
        guard let reparsed = try? URLRecord.parse(String(decoding: replaced, as: UTF8.self)),
            !reparsed.hasOpaquePath,
            reparsed.slice(0, reparsed.pathRange.lowerBound) == parsed.slice(0, parsed.pathRange.lowerBound)
        else { return nil }
        return reparsed
    }

    /// The WHATWG pathname of the decoded-separator reading (``decodedSeparatorForm(of:)``):
    /// `url`'s pathname with every `%2F`/`%5C` read as `/` and its dot segments resolved again
    /// by the URL parser, escapes, `;` parameters, empty segments and a trailing `/` kept as the
    /// standard keeps them (`/admin%2F` → `/admin/`, `/x/..%2Fadmin/` → `/admin/`), for
    /// `match.urlPatterns`, which match pathnames as the standard spells them. Nil when the
    /// path has no encoded separator or the text so read does not parse to the same URL up to
    /// its path.
    package static func decodedSeparatorPathname(of url: URLRecord) -> String? {
        guard !url.hasOpaquePath else { return nil }
        let range = url.pathRange
        let replaced: [UInt8]? = url.withBytes(range.lowerBound, range.upperBound) { bytes in
            Self.hasEncodedSeparator(bytes) ? Self.decodingSeparators(bytes) : nil
        }
        guard let replaced else { return nil }
        let href = url.href
        let text =
            String(url.slice(0, range.lowerBound)) + String(decoding: replaced, as: UTF8.self)
            + String(url.slice(range.upperBound, href.utf8.count))
        guard let reparsed = try? URLRecord.parse(text), !reparsed.hasOpaquePath,
            reparsed.slice(0, reparsed.pathRange.lowerBound) == url.slice(0, range.lowerBound)
        else { return nil }
        return reparsed.pathname
    }

    /// Whether path bytes have a `%2F`, `%2f`, `%5C` or `%5c`.
    private static func hasEncodedSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), Self.isEncodedSeparator(bytes[index + 1], bytes[index + 2]) {
                return true
            }
            index += 1
        }
        return false
    }

    /// Whether `%` followed by these two bytes is `%2F` or `%5C` (hex in either case).
    private static func isEncodedSeparator(_ high: UInt8, _ low: UInt8) -> Bool {
        switch (high, low | 0x20) {
        case (UInt8(ascii: "2"), UInt8(ascii: "f")), (UInt8(ascii: "5"), UInt8(ascii: "c")): return true
        default: return false
        }
    }

    /// The path bytes with every encoded separator replaced by `/`.
    private static func decodingSeparators(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                Self.isEncodedSeparator(bytes[index + 1], bytes[index + 2])
            {
                output.append(UInt8(ascii: "/"))
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    /// Whether normalizing would leave these path bytes as they are.
    ///
    /// An opaque path is its own form unless it has a `%`. A hierarchical path is, unless it has
    /// a `%` (an escape to decode or re-case), a `;` (parameters to strip), an empty segment
    /// (`//`, or a trailing `/` other than the root) or a `.`/`..` segment (the WHATWG parser
    /// removes those, but this check does not rely on it). Anything else goes the slow way.
    @usableFromInline static func isOwnForm(_ bytes: UnsafeBufferPointer<UInt8>, isOpaque: Bool) -> Bool {
        ownFormScan(bytes, isOpaque: isOpaque).isOwnForm
    }

    /// ``isOwnForm(_:isOpaque:)``, and whether an own form has an ASCII upper-case letter (its
    /// folded form then differs), in the same pass; `hasUpperCase` means nothing when not own form.
    @usableFromInline static func ownFormScan(
        _ bytes: UnsafeBufferPointer<UInt8>, isOpaque: Bool
    ) -> (isOwnForm: Bool, hasUpperCase: Bool) {
        if isOpaque {
            let isOwn = !bytes.contains(UInt8(ascii: "%"))
            return (isOwn, isOwn && bytes.contains { $0 &- UInt8(ascii: "A") < 26 })
        }
        guard bytes.first == UInt8(ascii: "/") else { return (false, false) }
        var segmentLength = 0
        var segmentDots = 0
        var isFirst = true
        var hasUpperCase = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"):
                if !isFirst, segmentLength == 0 || segmentDots == segmentLength && segmentDots <= 2 {
                    return (false, false)
                }
                isFirst = false
                segmentLength = 0
                segmentDots = 0
            case UInt8(ascii: "%"), UInt8(ascii: ";"):
                return (false, false)
            case UInt8(ascii: "."):
                segmentLength += 1
                segmentDots += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                segmentLength += 1
                hasUpperCase = true
            default:
                segmentLength += 1
            }
        }
        // The last segment: empty means a trailing `/` (fine only for the root path `/`).
        if segmentLength == 0 { return (bytes.count == 1, false) }
        return (!(segmentDots == segmentLength && segmentDots <= 2), hasUpperCase)
    }

    /// The general case: decodes, strips parameters, merges `/` and removes dot segments,
    /// writing straight into one output buffer: `/` only ever appears there as a separator (an
    /// escaped `%2F` is not unreserved and stays escaped), so `..` can drop the previous
    /// segment by cutting at the last `/`.
    @usableFromInline init(normalizing source: String, _ range: Range<Int>, isOpaque: Bool) {
        var source = source
        let text: String = source.withUTF8 { whole in
            let lower = max(0, min(range.lowerBound, whole.count))
            let upper = max(lower, min(range.upperBound, whole.count))
            let input = UnsafeBufferPointer(rebasing: whole[lower..<upper])
            return isOpaque
                ? String(decoding: Self.decodeUnreserved(input), as: UTF8.self) : Self.normalizedHierarchical(input)
        }
        self.init(textForm: Substring(text))
    }

    /// ``normalizeHierarchical(_:into:)`` as a string. The bytes are written into a temporary
    /// buffer (on the stack for the usual short path) and copied once into the string, which
    /// needs no allocation of its own up to 15 bytes: a path that is not its own match form
    /// (`/%6Cogout`, `/a/../b;x`) costs one allocation at most, not an array and a string.
    private static func normalizedHierarchical(_ input: UnsafeBufferPointer<UInt8>) -> String {
        // Each input byte writes at most three (a `%` that starts no escape becomes `%25`), and
        // a path that does not start with `/` gets one more.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: input.count * 3 + 1) { buffer in
            let count = normalizeHierarchical(input, into: buffer)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// Writes the match form of hierarchical path bytes into `output` and returns its length;
    /// `output` has room for three bytes per input byte and one more (see the caller).
    private static func normalizeHierarchical(
        _ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        var count = 0
        // Every byte is written here: the room always suffices, and the check keeps a miscount
        // from ever writing past the buffer.
        func write(_ byte: UInt8) {
            guard count < output.count else { return }
            output[count] = byte
            count += 1
        }
        var index = 0
        while index < input.count {
            // `index` is at a `/` (WHATWG paths of special and hierarchical URLs start with one).
            if input[index] == UInt8(ascii: "/") { index += 1 }
            let segmentStart = count
            write(UInt8(ascii: "/"))
            var inParameters = false
            while index < input.count, input[index] != UInt8(ascii: "/") {
                var byte = input[index]
                var width = 1
                if byte == UInt8(ascii: "%"), index + 2 < input.count,
                    let high = PercentEncodeSet.hexValue(input[index + 1]), let low = PercentEncodeSet.hexValue(input[index + 2])
                {
                    width = 3
                    let decoded = high << 4 | low
                    if Self.isUnreserved(decoded) {
                        byte = decoded
                    } else if !inParameters {
                        write(UInt8(ascii: "%"))
                        write(Self.upperHex(high))
                        write(Self.upperHex(low))
                        index += width
                        continue
                    }
                }
                index += width
                if byte == UInt8(ascii: ";") && width == 1 { inParameters = true }
                if inParameters { continue }
                if byte == UInt8(ascii: "%") && width == 1 {
                    // A `%` that starts no escape is written as `%25`: left bare, `/%3%30` would
                    // become `/%30` here and `/0` when normalized again (found by FuzzURL).
                    write(UInt8(ascii: "%"))
                    write(UInt8(ascii: "2"))
                    write(UInt8(ascii: "5"))
                } else {
                    write(byte)
                }
            }
            switch count - segmentStart {
            case 1:  // empty segment: merged away
                count = segmentStart
            case 2 where output[segmentStart + 1] == UInt8(ascii: "."):
                count = segmentStart
            case 3 where output[segmentStart + 1] == UInt8(ascii: ".") && output[segmentStart + 2] == UInt8(ascii: "."):
                // The previous segment goes too: cut at the last `/` before this one.
                count = segmentStart
                while count > 0 {
                    count -= 1
                    if output[count] == UInt8(ascii: "/") { break }
                }
            default:
                break
            }
        }
        if count == 0 { write(UInt8(ascii: "/")) }
        return count
    }

    /// Whether `matches` holds for the path or one of its leading whole-segment parts,
    /// longest first, ending with `/`: `/a/b` → `/a/b`, `/a`, `/`. These are the prefixes that
    /// cover it. Slices, not new strings. Finding the slices is linear in the path, but a
    /// `matches` that hashes each one is not (the lengths add up quadratically): requests use
    /// it only where `matches` compares lengths first (``FewKeys``); larger sets walk a
    /// ``SegmentTrie``.
    package static func anyLeadingSubpath(of path: Substring, _ matches: (Substring) -> Bool) -> Bool {
        var current = path
        while true {
            if matches(current) { return true }
            guard let slash = current.utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
            if slash == current.startIndex { return current != "/" && matches("/") }
            current = current[..<slash]
        }
    }

    /// Whether the prefix `key` (a match form) covers `path`: equal, or a leading whole-segment
    /// part of it (`/` covers every path that starts with `/`). One comparison of `key`'s bytes.
    package static func isCovered(_ path: Substring, byPrefix key: String) -> Bool {
        let pathBytes = path.utf8
        let keyBytes = key.utf8
        guard pathBytes.first == UInt8(ascii: "/"), pathBytes.starts(with: keyBytes) else { return false }
        if keyBytes.count == 1 || keyBytes.count == pathBytes.count { return true }
        let next = pathBytes.index(pathBytes.startIndex, offsetBy: keyBytes.count)
        return pathBytes[next] == UInt8(ascii: "/")
    }

    /// Decodes `%XX` when XX is an unreserved byte, upper-cases the hex of every other escape.
    package static func decodeUnreserved(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "%")) else { return Array(bytes) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = PercentEncodeSet.hexValue(bytes[index + 1]), let low = PercentEncodeSet.hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    output.append(decoded)
                } else {
                    output.append(UInt8(ascii: "%"))
                    output.append(upperHex(high))
                    output.append(upperHex(low))
                }
                index += 3
            } else if byte == UInt8(ascii: "%") {
                // A `%` that starts no escape: `%25`, so that a second pass decodes nothing more.
                output.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "5")])
                index += 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    @inlinable package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    package static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
