/// Header fields in the order they were received or added.
///
/// Names keep their original spelling; lookups take an ``HTTPFieldName`` and compare names
/// case-insensitively (ASCII, ``ASCIICaseInsensitive``), as RFC 9110 §5.1 requires. Duplicates
/// are kept so that callers can detect them.
public struct HTTPHeaders: Sendable, Sequence, Equatable {
    /// One header field.
    public typealias Field = (name: String, value: String)

    private var fields: [(name: String, value: String)]

    /// Creates headers from `(name, value)` pairs, keeping their order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Creates headers from `(name, value)` pairs with typed names (`[(.contentType, "…")]`),
    /// keeping their order.
    public init(_ fields: [(HTTPFieldName, String)]) {
        self.fields = fields.map { (name: $0.0.rawName, value: $0.1) }
    }

    /// The number of fields, duplicates included.
    public var count: Int { fields.count }

    /// The value of the first field named `name` (case-insensitive), or nil.
    public subscript(name: HTTPFieldName) -> String? {
        for field in fields where name.matches(field.name) { return field.value }
        return nil
    }

    /// The values of every field named `name` (case-insensitive), in order.
    public func values(for name: HTTPFieldName) -> [String] {
        fields.filter { name.matches($0.name) }.map(\.value)
    }

    /// Just `Content-Type`, with room for the fields responders usually add after it
    /// (caching, decision headers): one allocation for the whole set.
    public static func contentType(_ value: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)
        headers.add(name: .contentType, value: value)
        return headers
    }

    /// How many fields are named `name` (case-insensitive), without collecting their values.
    public func count(of name: HTTPFieldName) -> Int {
        fields.reduce(0) { $0 + (name.matches($1.name) ? 1 : 0) }
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
    public mutating func add(name: HTTPFieldName, value: String) {
        fields.append((name: name.rawName, value: value))
    }

    /// Removes every field named `name` (case-insensitive) and appends one with `value`.
    public mutating func replaceOrAdd(name: HTTPFieldName, value: String) {
        fields.removeAll { name.matches($0.name) }
        fields.append((name: name.rawName, value: value))
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
