/// A JSON document as a value tree.
///
/// Objects keep their members in document order (and keep duplicate keys) so that
/// validators can report a duplicate key with its position instead of silently
/// keeping the last one, and so that writers reproduce a stable field order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's kind, for error messages ("expected a string, got an array").
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The string payload, or nil for any other kind.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object payload, or nil for any other kind.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array payload, or nil for any other kind.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The boolean payload, or nil for any other kind.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as an exact integer, or nil when it is not a number or has a fraction.
    ///
    /// Also nil beyond `Int`'s range, which is 32 bits in the WebAssembly build: `Int(value)`
    /// would trap there on a config's or a bundle's large number (issue 43).
    public var integerValue: Int? { wholeNumberValue.flatMap { Int(exactly: $0) } }

    /// The number as an exact integer of 64 bits on every platform, or nil when it is not a
    /// number, has a fraction or is beyond ±2^53 (where a double stops being exact).
    ///
    /// What a reader uses that must tell "out of range" from "not a whole number" alike with a
    /// 32-bit `Int` (the WebAssembly build) and a 64-bit one.
    public var wholeNumberValue: Int64? {
        guard case .number(let value) = self, value.rounded() == value,
            value >= -9_007_199_254_740_992, value <= 9_007_199_254_740_992
        else { return nil }
        return Int64(exactly: value)
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON object: members in document order, duplicates kept.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public var members: [JSONMember]

    public init(_ members: [JSONMember] = []) {
        self.members = members
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { JSONMember($0.0, $0.1) }
    }

    /// The value of the first member named `key`.
    public subscript(key: String) -> JSONValue? {
        for member in members where member.key.hasSameUTF8(as: key) { return member.value }
        return nil
    }

    /// Appends a member (no de-duplication: callers build objects with distinct keys).
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(JSONMember(key, value))
    }

    public var keys: [String] { members.map { $0.key } }
}
