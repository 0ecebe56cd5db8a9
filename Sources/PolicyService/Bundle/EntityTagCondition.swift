/// An `If-None-Match` condition (RFC 9110 §13.1.2): `*` or a list of entity tags, compared
/// with the weak comparison (§8.8.3.2: opaque tags equal, `W/` ignored).
///
/// Strict about syntax but never failing the request: a member that is not an entity tag
/// (unquoted, unterminated, a bad character) is skipped and the rest of the list still
/// counts; a field with no usable member matches nothing, so the client gets the full 200.
/// Works on the field's UTF-8 bytes, where `obs-text` (0x80–0xFF) is a byte range.
struct EntityTagCondition: Sendable, Equatable {
    /// `*`: matches any current representation.
    private(set) var matchesAny = false
    /// The opaque tags listed, quotes included, weak or strong alike.
    private(set) var opaqueTags: [[UInt8]] = []

    private static let quote = UInt8(ascii: "\"")
    private static let comma = UInt8(ascii: ",")

    /// The condition of every `If-None-Match` field line of a request (RFC 9110 §5.3: several
    /// lines are one comma-separated list); nil when the request has none.
    init?(fieldValues: [String]) {
        guard !fieldValues.isEmpty else { return nil }
        for value in fieldValues { parse(Array(value.utf8)) }
    }

    /// True when `entityTag` (a quoted tag as this server sends it) matches.
    func matches(_ entityTag: String) -> Bool {
        if matchesAny { return true }
        let opaque = Array(entityTag.utf8)
        let tag = opaque.starts(with: Array("W/".utf8)) ? Array(opaque.dropFirst(2)) : opaque
        return opaqueTags.contains(tag)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// etagc = %x21 / %x23-7E / obs-text: visible characters except the double quote.
    private static func isTagByte(_ byte: UInt8) -> Bool { byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80 }

    private mutating func parse(_ field: [UInt8]) {
        var index = 0
        while index < field.count {
            let byte = field[index]
            if Self.isWhitespace(byte) || byte == Self.comma {
                index += 1
                continue
            }
            let memberEnd = Self.endOfMember(field, from: index)
            let member = Self.trimmed(field[index..<memberEnd])
            if member.elementsEqual("*".utf8) {
                matchesAny = true
            } else if let tag = Self.opaqueTag(member) {
                opaqueTags.append(tag)
            }
            // Anything else is not an entity tag: this member is ignored, the others still count.
            index = memberEnd
        }
    }

    /// `[W/] DQUOTE *etagc DQUOTE` → the quoted opaque tag; nil when `member` is anything else.
    private static func opaqueTag(_ member: ArraySlice<UInt8>) -> [UInt8]? {
        let tag = member.starts(with: "W/".utf8) ? member.dropFirst(2) : member
        guard tag.count >= 2, tag.first == quote, tag.last == quote,
            tag.dropFirst().dropLast().allSatisfy(isTagByte)
        else { return nil }
        return Array(tag)
    }

    /// The index of the comma that ends the member starting at `start` (a comma inside a
    /// quoted tag does not, since etagc allows commas), or the end of the field.
    private static func endOfMember(_ field: [UInt8], from start: Int) -> Int {
        var inQuotes = false
        var index = start
        while index < field.count {
            if field[index] == quote { inQuotes.toggle() }
            if field[index] == comma && !inQuotes { return index }
            index += 1
        }
        return field.count
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        return slice
    }
}
