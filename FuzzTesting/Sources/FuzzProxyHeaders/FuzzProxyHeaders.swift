import HTTPServer
import HTTPTypes
import PolicyProxy

/// The proxy's header handling: what ``HopByHop/stripped(_:excluding:)`` forwards never holds a
/// hop-by-hop field, a field named in `Connection`, or an excluded one, and keeps every other
/// field in order; ``HeaderFieldSyntax`` flags exactly the fields with a bad name or value.
///
/// Input: `name:value` lines (LF); a line without a colon is a name with an empty value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProxyHeaders(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    var headers = HTTPHeaders()
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
        let value = colon < line.endIndex ? String(decoding: line[(colon + 1)...], as: UTF8.self) : ""
        headers.add(name: HTTPFieldName(name), value: value)
    }
    let excluding = ["Host", "X-Forwarded-For"]
    let forwarded = HopByHop.stripped(headers, excluding: excluding)

    var named: [String] = []
    for value in headers.values(for: "Connection") {
        // Split on the comma byte, not on Characters: a comma followed by a combining mark is
        // one grapheme cluster, and HTTP lists are bytes (found by this target: `a,\u{7A7}`).
        for token in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let trimmed = token.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            // An empty list member (`close,,`) names no field (RFC 9110 §5.6.1).
            if !trimmed.isEmpty { named.append(String(decoding: trimmed.reversed(), as: UTF8.self)) }
        }
    }
    let dropped = HopByHop.fixed + excluding + named
    var expected = HTTPHeaders()
    for field in headers where !dropped.contains(where: { ASCIICaseInsensitive.equal($0, field.name) }) {
        expected.add(name: HTTPFieldName(field.name), value: field.value)
    }
    if forwarded != expected {
        fatalError("forwarded fields differ from the input minus hop-by-hop fields: \(Array(forwarded)) vs \(Array(expected))")
    }

    let invalid = headers.first { field in
        field.name.utf8.isEmpty
            || !field.name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                    || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
            || field.value.utf8.contains { $0 != 0x09 && ($0 < 0x20 || $0 == 0x7F) }
    }
    if HeaderFieldSyntax.firstInvalidField(in: headers) != invalid?.name {
        fatalError("HeaderFieldSyntax disagrees with RFC 9110 field syntax on \(Array(headers))")
    }
    return 0
}
