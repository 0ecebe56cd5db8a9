public import HTTPTypes

/// Header fields that describe one connection, not the message (RFC 9110 §7.6.1), so a
/// proxy must not forward them; plus the fields a proxy rewrites itself.
public enum HopByHop {
    /// Always connection-specific, whatever `Connection` lists.
    package static let fixed: [String] = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// `headers` without hop-by-hop fields, without the fields named in `Connection`, and
    /// without `excluding` (names the forwarder sets itself; compared ignoring case).
    public static func stripped(_ headers: HTTPHeaders, excluding: [String] = []) -> HTTPHeaders {
        // The result gets its capacity once: this runs for both directions of every
        // forwarded request, and the callers add a few fields after it.
        let connection = ConnectionFields(headers)
        var result = HTTPHeaders()
        result.reserveCapacity(headers.count + 4)
        for field in headers where isForwarded(field.name, connection: connection, excluding: excluding) {
            result.add(name: HTTPFieldName(field.name), value: field.value)
        }
        return result
    }

    /// The `Connection` fields of one message, found once: most messages have none or one,
    /// and those need no array of field names (the general case rescans the message).
    struct ConnectionFields {
        private let headers: HTTPHeaders
        private let count: Int
        private let only: String?
        /// Bit `n` set: some element of the `Connection` values is `n` bytes long (bit 63: 63
        /// or more). A name of any other length is listed by none, so it needs no scan: the
        /// typical `Connection: keep-alive` has one length, and this check runs for every
        /// field of both messages of a forwarded request.
        private let elementLengths: UInt64

        init(_ headers: HTTPHeaders) {
            var count = 0
            var first: String?
            var lengths: UInt64 = 0
            // The length first: the comparison is a call with two views per field.
            for field in headers where field.name.utf8.count == 10 && HTTPFieldName.connection.matches(field.name) {
                count += 1
                if first == nil { first = field.value }
                lengths |= HopByHop.elementLengths(of: field.value)
            }
            self.headers = headers
            self.count = count
            only = count == 1 ? first : nil
            elementLengths = lengths
        }

        /// Whether any of the message's `Connection` fields lists `name`.
        func list(_ name: String) -> Bool {
            guard count > 0, elementLengths & HopByHop.lengthBit(name.utf8.count) != 0 else { return false }
            if let only { return HopByHop.lists(only, name) }
            for field in headers where HTTPFieldName.connection.matches(field.name) {
                if HopByHop.lists(field.value, name) { return true }
            }
            return false
        }
    }

    /// The bit of ``ConnectionFields``' length mask for an element of `length` bytes.
    private static func lengthBit(_ length: Int) -> UInt64 {
        1 << UInt64(min(length, 63))
    }

    /// The length mask of the non-empty elements of one comma-separated value, each without
    /// the blanks around it (the same elements ``lists(_:_:)`` compares).
    private static func elementLengths(of value: String) -> UInt64 {
        var value = value
        return value.withUTF8 { list in
            var mask: UInt64 = 0
            forEachElement(of: list) { first, last in mask |= lengthBit(last - first) }
            return mask
        }
    }

    /// Calls `body` with the bounds (start, end) of each non-empty element of a
    /// comma-separated list, blanks around it excluded; stops when `body` returns true.
    @discardableResult
    private static func forEachElement(
        of list: UnsafeBufferPointer<UInt8>, _ body: (_ first: Int, _ last: Int) -> Bool
    ) -> Bool {
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var start = 0
        while start < list.count {
            var end = start
            while end < list.count, list[end] != UInt8(ascii: ",") { end += 1 }
            var first = start
            var last = end
            while first < last, isBlank(list[first]) { first += 1 }
            while last > first, isBlank(list[last - 1]) { last -= 1 }
            // Empty elements (",,") name nothing, not even a field with an empty name.
            if last > first, body(first, last) { return true }
            start = end + 1
        }
        return false
    }

    private static func forEachElement(of list: UnsafeBufferPointer<UInt8>, _ body: (_ first: Int, _ last: Int) -> Void) {
        forEachElement(of: list) { first, last -> Bool in
            body(first, last)
            return false
        }
    }

    /// Whether a field called `name` is forwarded: not hop-by-hop, not in `excluding`, and
    /// not listed in the message's `Connection` fields.
    ///
    /// Everything is compared in place, ignoring ASCII case (a different length rejects at
    /// once): no lower-cased names, no array of `Connection` tokens per message.
    static func isForwarded(_ name: String, connection: ConnectionFields, excluding: [String]) -> Bool {
        var name = name
        if name.withUTF8(isFixed) { return false }
        let length = name.utf8.count
        for excluded in excluding where excluded.utf8.count == length && ASCIICaseInsensitive.equal(excluded, name) {
            return false
        }
        return !connection.list(name)
    }

    /// Whether `name` is one of ``fixed``, ignoring ASCII case: chosen by length, so most
    /// names are rejected without a comparison (this runs for every field in both directions;
    /// a `contains` over ``fixed`` cost ~500 instructions per field).
    private static func isFixed(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 2: return equals(name, "te")
        case 7: return equals(name, "trailer") || equals(name, "upgrade")
        case 10: return equals(name, "connection") || equals(name, "keep-alive")
        case 16: return equals(name, "proxy-connection")
        case 17: return equals(name, "transfer-encoding")
        case 18: return equals(name, "proxy-authenticate")
        case 19: return equals(name, "proxy-authorization")
        default: return false
        }
    }

    /// Whether `bytes` spell `lowercaseName` ignoring ASCII case.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercaseName: StaticString) -> Bool {
        ASCIICaseInsensitive.equal(UnsafeRawBufferPointer(bytes), lowercase: lowercaseName)
    }

    /// Whether the comma-separated `value` has `name` as one of its elements (blanks around
    /// an element ignored, ASCII case ignored).
    private static func lists(_ value: String, _ name: String) -> Bool {
        // On contiguous UTF-8 (native Strings always have it; the view is the fallback): this
        // runs for every field of a message that has a Connection field, as responses do.
        var value = value
        var name = name
        return value.withUTF8 { list in name.withUTF8 { name in lists(list, name) } }
    }

    private static func lists(_ list: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        forEachElement(of: list) { first, last in
            last - first == name.count
                && ASCIICaseInsensitive.equal(
                    UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: list[first..<(first + name.count)])),
                    UnsafeRawBufferPointer(name))
        }
    }
}
