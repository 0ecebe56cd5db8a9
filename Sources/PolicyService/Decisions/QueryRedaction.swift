import JSONSupport
import PolicySections

#if canImport(Glibc)
    import Glibc
#endif

/// `decisionLog.redactQueryParameters`, compiled once per policy: which query parameters'
/// values the decision log replaces with ``marker``, and the password of a URL's userinfo,
/// which it always replaces (`https://user:secret@host/` is logged `https://user:REDACTED@host/`
/// with or without the setting: a password in a URL is a secret by what it is, not by name).
///
/// The log must not become a store of secrets (OAuth `code`, payment tokens, e-mail
/// addresses), so the rule errs towards hiding too much:
/// - Everything after the first `?` or `#` is parameters: the query and the fragment alike
///   (`#access_token=…`, `#/callback?code=…`), split at `&`, `;`, `?` and `#`.
/// - A name is compared after `+` becomes a space and percent-escapes are decoded (repeatedly,
///   so `%2563ode` is `code` too, up to ``QueryParameterName/decodingDepth`` levels; a name that would still
///   decode further is treated as listed), then read as the common server stacks read it
///   (``QueryParameterName/normalizedName(_:)``): `CODE`, `%63ode`, `co%64e+`, `access.token`, `access token`
///   and `access[token` all name what is listed as `code` or `access_token`.
/// - A value of another parameter that, once decoded, holds a redacted parameter (a
///   `return=https%3A%2F%2Fshop%2Fcb%3Fcode%3D…` made by a `{url}` location) is replaced whole.
/// - A bare entry (no `=`) is a name and is kept, unless it decodes to a redacted parameter
///   with its value (`code%3DSECRET`); `"*"` replaces every value and every bare entry.
struct QueryRedaction: Sendable, Equatable {
    /// A run of a URL's UTF-8 bytes, read in place: the log redacts the URL's own storage
    /// without copying it into an array first.
    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// What a redacted value becomes: unreserved characters only, so a redacted URL still
    /// parses and serializes to itself.
    static let marker = "REDACTED"

    /// Normalized names (see ``QueryParameterName/normalizedName(_:)``).
    private let names: Set<String>
    /// The names that are plain lower-case ASCII, as bytes: a raw name with nothing to decode is
    /// compared with these byte by byte, without building a string (the usual case, on every
    /// logged decision).
    private let plainNames: [[UInt8]]
    /// Every name is plain: a plain raw name that matches none of them matches nothing.
    private let allNamesPlain: Bool
    private static let markerBytes = Array(marker.utf8)
    /// `"*"` was listed.
    private let everyValue: Bool
    /// The most UTF-8 bytes a name can have and still be canonically equivalent to a listed one
    /// (a canonical decomposition takes at most four times a text's bytes; twice that, to be
    /// safe). A longer name is not looked up: a `String`'s hash normalizes it first, quadratic in
    /// a run of combining marks (outside attack 15, F3: 707 ms for one logged decision).
    private let longestEquivalentName: Int

    /// The rule for the configured names; `"*"` means every value.
    init(names configured: [String]) {
        everyValue = configured.contains("*")
        names = Set(configured.filter { $0 != "*" }.map { Self.normalizedName(Array($0.utf8)[...]) })
        plainNames = names.map { Array($0.utf8) }.filter { $0.allSatisfy(Self.isPlain) }
        allNamesPlain = plainNames.count == names.count
        longestEquivalentName = 8 * (names.map(\.utf8.count).max() ?? 0)
    }

    /// A byte a name may hold and still be compared as it is: not an escape, `+`, a bracket,
    /// a space or a control character, and ASCII.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "+")
            && byte != UInt8(ascii: "[")
    }

    /// Whether the raw name `raw` is a listed one.
    private func isListed(_ raw: Bytes) -> Bool {
        guard raw.allSatisfy(Self.isPlain) else {
            // A name still escaped past the levels looked through is hidden, not trusted, as a
            // value is (`%2525252563ode` is `code` to an application that decodes five times).
            let (name, stillEscaped) = QueryParameterName.normalized(raw)
            return stillEscaped || (name.utf8.count <= longestEquivalentName && names.contains(name))
        }
        for name in plainNames where name.count == raw.count {
            if zip(name, raw).allSatisfy({ $0 == Self.folded($1) }) { return true }
        }
        // A plain name that none matched can still equal a non-ASCII configured name lower-cased.
        guard !allNamesPlain else { return false }
        let name = QueryParameterName.normalized(raw).name
        return name.utf8.count <= longestEquivalentName && names.contains(name)
    }

    /// A plain name's byte as ``QueryParameterName/normalizedName(_:)`` reads it: lower-cased, `.` as `_` (PHP).
    private static func folded(_ byte: UInt8) -> UInt8 {
        if byte == UInt8(ascii: ".") { return UInt8(ascii: "_") }
        return byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// No parameter is redacted: only a userinfo password is (``passwordRange(in:)``), which
    /// costs a look at the URL's scheme and authority.
    var isEmpty: Bool { !everyValue && names.isEmpty }

    /// `url` with the redacted values (and its password) replaced, or nil when nothing in it is redacted.
    func redact(_ url: String) -> String? {
        Self.withUTF8(url) { bytes -> String? in
            var out: [UInt8] = []
            var kept = 0
            let changed = replacedValues(in: bytes) { value in
                if out.isEmpty { out.reserveCapacity(bytes.count + 16) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[kept..<value.lowerBound]))
                out.append(contentsOf: Self.markerBytes)
                kept = value.upperBound
            }
            guard changed else { return nil }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[kept...]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Writes `url` into `writer` as the contents of a JSON string (escaped, no quotes), with
    /// the redacted values replaced; returns whether any was. The decision log's way: it reads
    /// the URL's bytes in place and escapes them straight into the line, where ``redact(_:)``
    /// builds a String to be escaped afterwards (the same bytes, DecisionLogCostRedactionTests).
    func write(_ url: String, into writer: inout JSONWriter) -> Bool {
        Self.withUTF8(url) { bytes -> Bool in
            var kept = 0
            let changed = replacedValues(in: bytes) { value in
                writer.writeStringContents(utf8: UnsafeBufferPointer(rebasing: bytes[kept..<value.lowerBound]))
                Self.markerBytes.withUnsafeBufferPointer { writer.writeRaw(bytes: $0) }
                kept = value.upperBound
            }
            writer.writeStringContents(utf8: UnsafeBufferPointer(rebasing: bytes[kept...]))
            return changed
        }
    }

    /// `body` over `text`'s UTF-8 bytes: its own storage when it has one (native Strings do).
    private static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Calls `replace` with the range of each value to be replaced by ``marker``, in order, and
    /// returns whether there was any: the userinfo password first, then the parameters
    /// (everything after the first `?` or `#`).
    private func replacedValues(in url: UnsafeBufferPointer<UInt8>, _ replace: (Range<Int>) -> Void) -> Bool {
        var changed = false
        if let password = Self.passwordRange(in: url) {
            replace(password)
            changed = true
        }
        guard !isEmpty, let start = url.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
        else {
            return changed
        }
        var entryStart = start + 1
        var index = entryStart
        while index <= url.endIndex {
            if index == url.endIndex || Self.isSeparator(url[index]) {
                let entry = url[entryStart..<index]
                if let kept = keptPart(entry) {
                    replace(kept.endIndex..<index)
                    changed = true
                }
                entryStart = index + 1
            }
            index += 1
        }
        return changed
    }

    /// What of the entry is kept before ``marker`` (its name and `=`; nothing for a bare entry
    /// under `"*"`), or nil when the entry keeps its value.
    private func keptPart(_ entry: Bytes) -> Bytes? {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else {
            // A bare entry is a name without a value, except under "*", which hides anything,
            // and one that decodes to a listed parameter with its value (`code%3DSECRET`).
            guard !entry.isEmpty, !entry.elementsEqual(Self.markerBytes),
                everyValue || hidesRedacted(entry, depth: 1)
            else { return nil }
            return entry[entry.startIndex..<entry.startIndex]
        }
        let value = entry[(equals + 1)...]
        guard !value.isEmpty, !value.elementsEqual(Self.markerBytes) else { return nil }
        guard everyValue || isListed(entry[..<equals]) || hidesRedacted(value, depth: 1) else { return nil }
        return entry[...equals]
    }

    /// Where the password of `url`'s userinfo lies (`https://user:PASSWORD@host/`), nil when it
    /// has none or it already is the marker.
    ///
    /// Read as loosely as the URL parser reads a URL as sent, so that every spelling it takes
    /// for a password is found: leading spaces and controls are skipped, any number of `/` and
    /// (special schemes) `\` after the scheme, tabs and newlines anywhere (the parser drops
    /// them); the authority ends at `/`, `?`, `#` (and `\` for special schemes), its userinfo
    /// at the last `@`, the user name at the first `:`. Where the parser would see no authority
    /// (`mailto:a:b@c`), the text is still hidden: more, never less.
    static func passwordRange(in url: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        // No `@` anywhere, no userinfo: one memchr instead of walking the scheme and authority
        // byte by byte, on every logged URL (~450 instructions a line, bench/decision-log-count.sh).
        guard let base = url.baseAddress, memchr(base, Int32(UInt8(ascii: "@")), url.count) != nil else { return nil }
        var index = url.startIndex
        while index < url.endIndex, url[index] <= 0x20 { index += 1 }
        let schemeStart = index
        guard index < url.endIndex, isASCIILetter(url[index]) else { return nil }
        while index < url.endIndex, url[index] != UInt8(ascii: ":") {
            let byte = url[index]
            guard
                isASCIILetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || isRemovedByParser(byte)
            else { return nil }
            index += 1
        }
        guard index < url.endIndex else { return nil }
        let special = isSpecialScheme(url[schemeStart..<index])
        index += 1
        let isSlash = { (byte: UInt8) in byte == UInt8(ascii: "/") || (special && byte == UInt8(ascii: "\\")) }
        while index < url.endIndex, isSlash(url[index]) || isRemovedByParser(url[index]) { index += 1 }
        let authorityStart = index
        var lastAt: Int?
        while index < url.endIndex {
            let byte = url[index]
            if isSlash(byte) || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { lastAt = index }
            index += 1
        }
        guard let at = lastAt,
            let colon = url[authorityStart..<at].firstIndex(of: UInt8(ascii: ":")), colon + 1 < at
        else { return nil }
        let password = url[(colon + 1)..<at]
        guard !password.elementsEqual(markerBytes) else { return nil }
        return (colon + 1)..<at
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// ASCII tab and newlines: the URL parser removes them wherever they are.
    private static func isRemovedByParser(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The WHATWG special schemes (`\` is a separator in their URLs), compared case-insensitively
    /// with tabs and newlines dropped, as the parser reads a scheme. Byte by byte, without a
    /// String: every logged URL asks.
    private static func isSpecialScheme(_ scheme: Bytes) -> Bool {
        // At most five letters, packed into one integer: distinct for distinct names.
        var packed: UInt64 = 0
        var count = 0
        for byte in scheme where !isRemovedByParser(byte) {
            guard count < 5 else { return false }
            packed = packed << 8 | UInt64(byte | 0x20)
            count += 1
        }
        return specialSchemes.contains(packed)
    }

    private static let specialSchemes: [UInt64] = ["http", "https", "ws", "wss", "ftp", "file"].map {
        $0.utf8.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Whether `value`, decoded, carries a parameter this rule redacts (a URL in a query value).
    private func hidesRedacted(_ value: Bytes, depth: Int) -> Bool {
        guard value.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return false }
        // Escapes nested deeper than we look through are hidden rather than trusted.
        guard depth <= QueryParameterName.decodingDepth else { return true }
        return QueryParameterName.formDecoded(value).withUnsafeBufferPointer { decoded in
            var entryStart = decoded.startIndex
            for index in decoded.indices where Self.isSeparator(decoded[index]) {
                if entryHidesRedacted(decoded[entryStart..<index], depth: depth) { return true }
                entryStart = index + 1
            }
            return entryHidesRedacted(decoded[entryStart...], depth: depth)
        }
    }

    private func entryHidesRedacted(_ entry: Bytes, depth: Int) -> Bool {
        // A bare entry may still be escaped text (a URL encoded twice): look one level deeper.
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { return hidesRedacted(entry, depth: depth + 1) }
        let value = entry[(equals + 1)...]
        guard !value.isEmpty else { return false }
        return isListed(entry[..<equals]) || hidesRedacted(value, depth: depth + 1)
    }

    /// Where one parameter ends: `&`, `;` (the old HTML separator), `?` and `#` (a fragment or
    /// a second `?` still reads as parameters to some applications).
    private static func isSeparator(_ byte: UInt8) -> Bool {
        // All four are below 64: one shift and mask per byte of every logged URL, not four
        // comparisons.
        byte < 64 && (separatorBits >> UInt64(byte)) & 1 != 0
    }

    /// Bit `b` set for each separator byte `b`: `&` 0x26, `;` 0x3B, `?` 0x3F, `#` 0x23.
    private static var separatorBits: UInt64 { 1 << 0x26 | 1 << 0x3B | 1 << 0x3F | 1 << 0x23 }

    /// A parameter name as compared (``QueryParameterName/normalizedName(_:)``, where the
    /// `decisionLog` section's validator reads names by the same rule).
    static func normalizedName(_ raw: ArraySlice<UInt8>) -> String { QueryParameterName.normalizedName(raw) }
}
