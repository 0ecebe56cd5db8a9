/// Header fields in the order they were received or added.
///
/// Names keep their original spelling; lookups compare names case-insensitively (ASCII),
/// as RFC 9110 §5.1 requires. Duplicates are kept so that callers can detect them.
public struct HTTPHeaders: Sendable, Sequence, Equatable {
    /// One header field.
    public typealias Field = (name: String, value: String)

    private var fields: [(name: String, value: String)]

    /// Creates headers from `(name, value)` pairs, keeping their order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The number of fields, duplicates included.
    public var count: Int { fields.count }

    /// The value of the first field named `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        for field in fields where Self.namesMatch(field.name, name) { return field.value }
        return nil
    }

    /// The values of every field named `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Just `Content-Type`, with room for the fields responders usually add after it
    /// (caching, decision headers): one allocation for the whole set.
    public static func contentType(_ value: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)
        headers.add(name: "Content-Type", value: value)
        return headers
    }

    /// How many fields are named `name` (case-insensitive), without collecting their values.
    public func count(of name: String) -> Int {
        fields.reduce(0) { $0 + (Self.namesMatch($1.name, name) ? 1 : 0) }
    }

    /// Makes room for `capacity` fields, so building a response's or request's fields
    /// allocates once instead of on every doubling.
    public mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Removes every field; `keepingCapacity` keeps the storage for reuse (a server reading
    /// the next request's fields into the same value).
    public mutating func removeAll(keepingCapacity: Bool = false) {
        guard keepingCapacity else {
            fields = []
            return
        }
        // Popped one by one: `Array.removeAll(keepingCapacity: true)` goes through the
        // generic `replaceSubrange` (≈ 400 instructions for a 3-field request, on every
        // request of a keep-alive connection); a pop is a count decrement and a release.
        while fields.popLast() != nil {}
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive) and appends one with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
        fields.append((name: name, value: value))
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Whether two field names are equal ignoring ASCII case, without allocating lowercased copies.
    public static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        // Most comparisons are between different names: the length rejects them at once.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Over the contiguous UTF-8 of both (native and small Strings always have it): a
        // plain byte loop, where `elementsEqual` on the views cost ~450 instructions a call.
        if let matched = lhs.utf8.withContiguousStorageIfAvailable({ left in
            rhs.utf8.withContiguousStorageIfAvailable { namesMatch(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer($0)) }
        }), let matched {
            return matched
        }
        return lhs.utf8.elementsEqual(rhs.utf8) { asciiLowercased($0) == asciiLowercased($1) }
    }

    /// ``namesMatch(_:_:)`` on the names' bytes (as a server receives them): equal ignoring
    /// ASCII case, only A–Z folded.
    public static func namesMatch(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var index = 0
        while index < lhs.count {
            guard asciiLowercased(lhs[index]) == asciiLowercased(rhs[index]) else { return false }
            index += 1
        }
        return true
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
