/// Decoding of `application/x-www-form-urlencoded` text (WHATWG URL §5.1), used for queries.
///
/// Works on the query as a slice of the request target: nothing is copied until a name or
/// value is decoded, and ``firstValue(named:in:)`` decodes only the value it returns.
public enum FormURLDecoding {
    /// Splits `text` on `&`, then each part on its first `=`; '+' becomes a space and
    /// percent escapes are decoded. Empty parts are skipped; invalid escapes stay literal
    /// and invalid UTF-8 becomes U+FFFD, so hostile input never fails.
    package static func pairs(_ text: Substring) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var parts = RawPairs(text.utf8)
        while let part = parts.next() {
            result.append((name: decode(part.name), value: decode(part.value)))
        }
        return result
    }

    /// The decoded value of the first pair whose decoded name is `name`, or nil; the same
    /// answer as searching ``pairs(_:)``, without decoding the other pairs.
    package static func firstValue(named name: String, in text: Substring) -> String? {
        var parts = RawPairs(text.utf8)
        while let part = parts.next() {
            if nameMatches(part.name, name) { return decode(part.value) }
        }
        return nil
    }

    /// Whether an encoded name decodes to `name`; compared in place unless it has escapes.
    private static func nameMatches(_ encoded: Substring.UTF8View, _ name: String) -> Bool {
        if needsDecoding(encoded) { return decode(encoded) == name }
        return encoded.elementsEqual(name.utf8)
    }

    private static func needsDecoding(_ component: some Collection<UInt8>) -> Bool {
        component.contains { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }
    }

    /// Percent-decodes one component, treating '+' as a space.
    package static func decode(_ component: some Collection<UInt8>) -> String {
        // Most names and values have no escapes: one copy, no intermediate array.
        guard needsDecoding(component) else { return String(decoding: component, as: UTF8.self) }
        // Decoding only shrinks the text, so the input's length is enough room; the
        // initializer repairs invalid UTF-8 (an escaped lone byte) with U+FFFD.
        return String(unsafeUninitializedCapacity: component.count) { output -> Int in
            var written = 0
            var index = component.startIndex
            while index < component.endIndex, written < output.count {
                let byte = component[index]
                var decoded = byte
                if byte == UInt8(ascii: "+") {
                    decoded = UInt8(ascii: " ")
                } else if byte == UInt8(ascii: "%"), let escaped = escapedByte(in: component, after: index) {
                    decoded = escaped
                    index = component.index(index, offsetBy: 2)
                }
                // Otherwise not a valid escape: the '%' stays literal, as browsers do.
                output[written] = decoded
                written += 1
                component.formIndex(after: &index)
            }
            return written
        }
    }

    /// The byte of a `%XX` escape whose '%' is at `percent`, or nil when two hex digits do not follow.
    private static func escapedByte<Bytes: Collection<UInt8>>(in bytes: Bytes, after percent: Bytes.Index) -> UInt8? {
        let first = bytes.index(after: percent)
        guard first < bytes.endIndex else { return nil }
        let second = bytes.index(after: first)
        guard second < bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) else {
            return nil
        }
        return high << 4 | low
    }

    /// The value of one hexadecimal digit of a `%XX` escape (either case), or nil. Public so
    /// that the service's in-place query reader decodes escapes exactly as this does.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The still-encoded name and value of each non-empty `&`-separated part, as slices of the query.
    private struct RawPairs: IteratorProtocol {
        private var rest: Substring.UTF8View

        init(_ query: Substring.UTF8View) { rest = query }

        mutating func next() -> (name: Substring.UTF8View, value: Substring.UTF8View)? {
            while !rest.isEmpty {
                let end = rest.firstIndex(of: UInt8(ascii: "&")) ?? rest.endIndex
                let part = rest[rest.startIndex..<end]
                rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
                if part.isEmpty { continue }
                if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                    return (name: part[part.startIndex..<equals], value: part[part.index(after: equals)...])
                }
                return (name: part, value: part[part.endIndex...])
            }
            return nil
        }
    }
}
