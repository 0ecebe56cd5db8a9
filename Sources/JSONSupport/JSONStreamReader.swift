/// Reads a JSON text container by container, so a caller can take a large array one element
/// at a time and drop each element's tree before reading the next.
///
/// Same grammar, limits and error messages (with the same offsets) as ``JSONParser``: the
/// structural steps below are the parser's object and array loops cut at each member, and
/// every value read whole goes through the parser itself. Duplicate member names are
/// returned to the caller (who reports them), as with `rejectsDuplicateMembers: false`.
public struct JSONStreamReader {
    private enum Container {
        case object
        case array
    }

    private var cursor: Cursor
    /// Open containers, innermost last; its count is the nesting depth the parser would track.
    private var open: [Container] = []
    /// Whether the innermost container has not yielded a member or element yet.
    private var atFirstEntry = false

    /// Validates `bytes` as UTF-8 and positions the reader at the root value.
    public init(_ bytes: [UInt8], maximumDepth: Int = 64) throws(JSONParseError) {
        cursor = Cursor(bytes: bytes, maximumDepth: maximumDepth, rejectsDuplicateMembers: false)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw cursor.error("the text is not valid UTF-8", at: JSONParser.firstInvalidUTF8Offset(bytes))
        }
        cursor.skipWhitespace()
    }

    /// The offset of the next unread byte. With ``byteCount`` it lets a caller reading a large
    /// array one element at a time estimate how many elements are left from the size of those
    /// read so far (the config compiler sizes its tables that way).
    public var offset: Int { cursor.position }

    /// The length of the text in bytes.
    public var byteCount: Int { cursor.bytes.count }

    /// Whether the next value is an object (`{`).
    public var nextIsObject: Bool { cursor.current == UInt8(ascii: "{") }

    /// Whether the next value is an array (`[`).
    public var nextIsArray: Bool { cursor.current == UInt8(ascii: "[") }

    /// Reads the next value whole (a member's value, an array element, or the root).
    public mutating func readValue() throws(JSONParseError) -> JSONValue {
        try cursor.parseValue(depth: open.count)
    }

    /// Whether the next value is a string (`"`).
    public var nextIsString: Bool { cursor.current == UInt8(ascii: "\"") }

    /// When the next value is a string with no escape, hands its bytes (valid UTF-8: the whole
    /// text was checked at init) to `body` in place and moves past it; otherwise returns nil and
    /// reads nothing, and the caller reads the value with ``readValue()``.
    ///
    /// For lists of a million strings: no `String` and no tree node is made per element.
    public mutating func readPlainString<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard cursor.current == UInt8(ascii: "\"") else { return nil }
        let start = cursor.position + 1
        var end = start
        let result = cursor.bytes.withUnsafeBufferPointer { bytes -> Result? in
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") { return body(UnsafeBufferPointer(rebasing: bytes[start..<end])) }
                // An escape or a control byte (an error the parser reports): the general path.
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                end += 1
            }
            return nil
        }
        if result != nil { cursor.position = end + 1 }
        return result
    }

    /// Enters the object that is the next value; then call ``nextMemberKey()`` until it returns nil.
    public mutating func beginObject() throws(JSONParseError) {
        try enter(.object)
    }

    /// Enters the array that is the next value; then call ``nextElement()`` until it returns false.
    public mutating func beginArray() throws(JSONParseError) {
        try enter(.array)
    }

    /// The next member's key, with the reader at its value; nil after the object's `}`.
    public mutating func nextMemberKey() throws(JSONParseError) -> String? {
        if atFirstEntry {
            atFirstEntry = false
            if cursor.current == UInt8(ascii: "}") {
                cursor.position += 1
                open.removeLast()
                return nil
            }
        } else {
            cursor.skipWhitespace()
            switch cursor.current {
            case UInt8(ascii: ","): cursor.position += 1
            case UInt8(ascii: "}"):
                cursor.position += 1
                open.removeLast()
                return nil
            default: throw cursor.error("expected ',' or '}' after an object member")
            }
        }
        cursor.skipWhitespace()
        guard cursor.current == UInt8(ascii: "\"") else { throw cursor.error("expected a string key in object") }
        let key = try cursor.parseString()
        cursor.skipWhitespace()
        guard cursor.current == UInt8(ascii: ":") else { throw cursor.error("expected ':' after object key") }
        cursor.position += 1
        cursor.skipWhitespace()
        return key
    }

    /// Whether another element follows (the reader is then at it); false after the array's `]`.
    public mutating func nextElement() throws(JSONParseError) -> Bool {
        if atFirstEntry {
            atFirstEntry = false
            if cursor.current == UInt8(ascii: "]") {
                cursor.position += 1
                open.removeLast()
                return false
            }
        } else {
            cursor.skipWhitespace()
            switch cursor.current {
            case UInt8(ascii: ","): cursor.position += 1
            case UInt8(ascii: "]"):
                cursor.position += 1
                open.removeLast()
                return false
            default: throw cursor.error("expected ',' or ']' after an array element")
            }
        }
        cursor.skipWhitespace()
        return true
    }

    /// Checks that only whitespace follows the root value.
    public mutating func finish() throws(JSONParseError) {
        cursor.skipWhitespace()
        if cursor.position < cursor.bytes.count {
            throw cursor.error("unexpected content after the JSON value")
        }
    }

    private mutating func enter(_ container: Container) throws(JSONParseError) {
        let opening = container == .object ? UInt8(ascii: "{") : UInt8(ascii: "[")
        guard cursor.current == opening else {
            throw cursor.error(container == .object ? "expected an object" : "expected an array")
        }
        guard open.count + 1 <= cursor.maximumDepth else {
            throw cursor.error("nesting deeper than \(cursor.maximumDepth) levels")
        }
        open.append(container)
        cursor.position += 1
        cursor.skipWhitespace()
        atFirstEntry = true
    }
}
