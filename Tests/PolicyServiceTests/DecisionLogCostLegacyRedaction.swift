// The string-based redaction the decision log used before it redacted in place (main at
// ec64e4a, Sources/PolicyService/Decisions/QueryRedaction.swift), kept verbatim apart from its
// name and comments as the oracle of DecisionLogCostRedactionTests: the in-place writer must
// produce the same bytes for every URL. Not product code; do not "fix" it.

struct LegacyQueryRedaction: Sendable {
    /// What a redacted value becomes: unreserved characters only, so a redacted URL still
    /// parses and serializes to itself.
    static let marker = "REDACTED"

    /// Normalized names (see ``normalizedName(_:)``).
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

    /// Levels of percent-decoding looked through; what is still escaped deeper is hidden.
    private static let decodingDepth = 4

    /// The rule for the configured names; `"*"` means every value.
    init(names configured: [String]) {
        everyValue = configured.contains("*")
        names = Set(configured.filter { $0 != "*" }.map { Self.normalizedName(Array($0.utf8)[...]) })
        plainNames = names.map { Array($0.utf8) }.filter { $0.allSatisfy(Self.isPlain) }
        allNamesPlain = plainNames.count == names.count
    }

    /// A byte a name may hold and still be compared as it is: not an escape, `+`, a bracket,
    /// a space or a control character, and ASCII.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "+")
            && byte != UInt8(ascii: "[")
    }

    /// Whether the raw name `raw` is a listed one.
    private func isListed(_ raw: ArraySlice<UInt8>) -> Bool {
        guard raw.allSatisfy(Self.isPlain) else {
            // A name still escaped past the levels looked through is hidden, not trusted, as a
            // value is (`%2525252563ode` is `code` to an application that decodes five times).
            let (name, stillEscaped) = Self.normalized(raw)
            return stillEscaped || names.contains(name)
        }
        for name in plainNames where name.count == raw.count {
            if zip(name, raw).allSatisfy({ $0 == Self.asciiLowercased($1) }) { return true }
        }
        // A plain name that none matched can still equal a non-ASCII configured name lower-cased.
        return !allNamesPlain && names.contains(Self.normalizedName(raw))
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// No parameter is redacted: the log writes URLs as they are, at no cost.
    var isEmpty: Bool { !everyValue && names.isEmpty }

    /// `url` with the redacted values replaced, or nil when nothing in it is redacted.
    func redact(_ url: String) -> String? {
        guard !isEmpty else { return nil }
        let bytes = Array(url.utf8)
        guard let start = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return nil
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        out.append(contentsOf: bytes[...start])
        guard redactParameters(bytes[(start + 1)...], into: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `region` to `out` with its redacted values replaced; returns whether any was.
    private func redactParameters(_ region: ArraySlice<UInt8>, into out: inout [UInt8]) -> Bool {
        var changed = false
        var entryStart = region.startIndex
        var index = region.startIndex
        while index <= region.endIndex {
            if index == region.endIndex || Self.isSeparator(region[index]) {
                let entry = region[entryStart..<index]
                if let kept = keptPart(entry) {
                    out.append(contentsOf: kept)
                    out.append(contentsOf: Self.markerBytes)
                    changed = true
                } else {
                    out.append(contentsOf: entry)
                }
                if index < region.endIndex { out.append(region[index]) }
                entryStart = index + 1
            }
            index += 1
        }
        return changed
    }

    /// What of the entry is kept before ``marker`` (its name and `=`; nothing for a bare entry
    /// under `"*"`), or nil when the entry keeps its value.
    private func keptPart(_ entry: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
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

    /// Whether `value`, decoded, carries a parameter this rule redacts (a URL in a query value).
    private func hidesRedacted(_ value: ArraySlice<UInt8>, depth: Int) -> Bool {
        guard value.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return false }
        // Escapes nested deeper than we look through are hidden rather than trusted.
        guard depth <= Self.decodingDepth else { return true }
        let decoded = Self.formDecoded(value)
        var entryStart = decoded.startIndex
        for index in decoded.indices where Self.isSeparator(decoded[index]) {
            if entryHidesRedacted(decoded[entryStart..<index], depth: depth) { return true }
            entryStart = index + 1
        }
        return entryHidesRedacted(decoded[entryStart...], depth: depth)
    }

    private func entryHidesRedacted(_ entry: ArraySlice<UInt8>, depth: Int) -> Bool {
        // A bare entry may still be escaped text (a URL encoded twice): look one level deeper.
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { return hidesRedacted(entry, depth: depth + 1) }
        let value = entry[(equals + 1)...]
        guard !value.isEmpty else { return false }
        return isListed(entry[..<equals]) || hidesRedacted(value, depth: depth + 1)
    }

    /// Where one parameter ends: `&`, `;` (the old HTML separator), `?` and `#` (a fragment or
    /// a second `?` still reads as parameters to some applications).
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// A parameter name as compared: `+` as space, escapes decoded until none is left (at most
    /// ``decodingDepth`` times), spaces trimmed, a `[…]` suffix dropped, lower-cased.
    static func normalizedName(_ raw: ArraySlice<UInt8>) -> String {
        normalized(raw).name
    }

    /// ``normalizedName(_:)`` and whether the name would still decode further after
    /// ``decodingDepth`` levels.
    private static func normalized(_ raw: ArraySlice<UInt8>) -> (name: String, stillEscaped: Bool) {
        // The URL parser removes every ASCII tab and newline from its input (WHATWG URL), so
        // `co<TAB>de` in the logged, as-sent URL is `code` to the daemon and to the application:
        // they are dropped here too, at every decoding level (hiding more, never less).
        let isRemoved = { (byte: UInt8) in byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var name = raw.contains(where: isRemoved) ? ArraySlice(raw.filter { !isRemoved($0) }) : raw
        var stillEscaped = false
        for level in 0...decodingDepth {
            guard name.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { break }
            let decoded = formDecoded(name).filter { !isRemoved($0) }
            if decoded.elementsEqual(name) { break }
            // One level more than is looked through still changes the name: it is hidden.
            guard level < decodingDepth else {
                stillEscaped = true
                break
            }
            name = decoded[...]
        }
        if let bracket = name.firstIndex(of: UInt8(ascii: "[")), bracket > name.startIndex {
            name = name[..<bracket]
        }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x00 }
        guard let first = name.firstIndex(where: { !isSpace($0) }), let last = name.lastIndex(where: { !isSpace($0) })
        else { return ("", stillEscaped) }
        return (String(decoding: name[first...last], as: UTF8.self).lowercased(), stillEscaped)
    }

    /// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; a `%` not
    /// followed by two hex digits stays as it is (as WHATWG's percent-decode does).
    private static func formDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%"), let high = hexValue(bytes, index + 1), let low = hexValue(bytes, index + 2) {
                out.append(high << 4 | low)
                index += 3
                continue
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out
    }

    private static func hexValue(_ bytes: ArraySlice<UInt8>, _ index: Int) -> UInt8? {
        guard index >= bytes.startIndex, index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return bytes[index] - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return bytes[index] - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return bytes[index] - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
