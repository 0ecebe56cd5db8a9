import HTTPServer

/// The `/v1/decide` query read straight from its raw bytes: where each known parameter's
/// value is, decoded only when the decision reads it.
///
/// Building `[(name, value)]` and a dictionary cost seven allocations per GET; this finds the
/// six names in place and decodes the `url` value (the only one usually longer than a small
/// String) once. It recognizes only the common, valid shape: every name known, none repeated.
/// Anything else (an unknown or repeated name, an escaped name) is ``Scan/needsFullParse``,
/// and the caller falls back to the item-by-item reading, which words every error.
enum DecideQuery {
    /// A value's bytes, still form-encoded: offsets into the raw query.
    typealias Span = Range<Int>

    /// What scanning found.
    enum Scan {
        /// Every name was one of the known keys, at most once each.
        case parsed(DecideMembers<Span>)
        /// Something needs the full, error-reporting reading.
        case needsFullParse
    }

    /// Finds the known parameters in `query` (`&`-separated, each `name=value` or a bare
    /// `name`; empty parts skipped, as `application/x-www-form-urlencoded` does).
    static func scan(_ query: UnsafeBufferPointer<UInt8>) -> Scan {
        var found = DecideMembers<Span>()
        var start = 0
        while start <= query.count {
            var end = start
            while end < query.count, query[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                var equals = start
                while equals < end, query[equals] != UInt8(ascii: "=") { equals += 1 }
                let value = equals < end ? (equals + 1)..<end : end..<end
                // Any other name, an escaped one, or a repeat needs the full reading.
                guard let name = DecideMemberName(query, start..<equals), found.assign(name, value) else {
                    return .needsFullParse
                }
            }
            start = end + 1
        }
        return .parsed(found)
    }

    /// The value decoded as form data ('+' is a space, `%XX` escapes decoded, an invalid escape
    /// kept literally, invalid UTF-8 replaced by U+FFFD): what `HTTPRequest.queryItems` gives.
    /// Decoded text is never longer than its encoding, so one buffer of that size suffices;
    /// up to 15 bytes that buffer is a small String, with no allocation.
    static func decode(_ span: Span, in query: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: span.count) { output in
            var written = 0
            var index = span.lowerBound
            while index < span.upperBound {
                let byte = query[index]
                if byte == UInt8(ascii: "+") {
                    output[written] = UInt8(ascii: " ")
                } else if byte == UInt8(ascii: "%"), index + 2 < span.upperBound,
                    let high = FormURLDecoding.hexValue(query[index + 1]), let low = FormURLDecoding.hexValue(query[index + 2])
                {
                    output[written] = high << 4 | low
                    index += 2
                } else {
                    output[written] = byte
                }
                written += 1
                index += 1
            }
            return written
        }
    }

    /// Whether the value decodes to exactly `text` (ASCII), without building it.
    static func value(_ span: Span, in query: UnsafeBufferPointer<UInt8>, is text: StaticString) -> Bool {
        // The values compared here ("true", "false") have no bytes that need escaping; an
        // escaped spelling of them takes the decoding path.
        guard span.count == text.utf8CodeUnitCount else {
            return decode(span, in: query).utf8.elementsEqual(
                UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        let expected = text.utf8Start
        for offset in 0..<span.count where query[span.lowerBound + offset] != expected[offset] {
            return decode(span, in: query).utf8.elementsEqual(
                UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        return true
    }
}
