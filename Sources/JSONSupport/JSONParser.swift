/// Why a JSON text could not be parsed, with the place a person needs to fix it.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. "expected ',' or '}' after an object member".
    public var reason: String
    /// 1-based line and column of the offending byte.
    public var line: Int
    public var column: Int
    /// 0-based byte offset of the offending byte.
    public var offset: Int

    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Strict on purpose: configs and request bodies are security inputs, so there are no
/// comments, no trailing commas, no NaN, and nesting is capped so that hostile input
/// cannot exhaust the stack.
public struct JSONParser {
    /// Deepest array/object nesting accepted.
    public var maximumDepth: Int
    /// Whether a repeated member name in one object is a parse error.
    ///
    /// On by default: parsers disagree on which duplicate wins (most keep the last, a
    /// first-match lookup keeps the first), so `{"url":"…/home","url":"…/logout"}` would
    /// be judged on one URL while another component acts on the other. Only a caller that
    /// reports duplicates itself, with their JSON pointers (the config compiler), turns it off.
    public var rejectsDuplicateMembers: Bool

    public init(maximumDepth: Int = 64, rejectsDuplicateMembers: Bool = true) {
        self.maximumDepth = maximumDepth
        self.rejectsDuplicateMembers = rejectsDuplicateMembers
    }

    /// Parses a complete JSON text (surrounding whitespace allowed, nothing else).
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let buffer = Array(bytes)
        var cursor = Cursor(
            bytes: buffer, maximumDepth: maximumDepth, rejectsDuplicateMembers: rejectsDuplicateMembers)
        guard String(validating: buffer, as: UTF8.self) != nil else {
            throw cursor.error("the text is not valid UTF-8", at: Self.firstInvalidUTF8Offset(buffer))
        }
        cursor.skipWhitespace()
        let value = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        if cursor.position < buffer.count {
            throw cursor.error("unexpected content after the JSON value")
        }
        return value
    }

    /// Parses JSON text given as a String.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int {
        // Scan sequence by sequence: the first one that does not decode is the culprit.
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= bytes.count,
                String(validating: bytes[index..<index + length], as: UTF8.self) != nil
            else { return index }
            index += length
        }
        return bytes.count
    }
}

struct Cursor {
    let bytes: [UInt8]
    let maximumDepth: Int
    let rejectsDuplicateMembers: Bool
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int, rejectsDuplicateMembers: Bool) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.rejectsDuplicateMembers = rejectsDuplicateMembers
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let end = min(offset ?? position, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[0..<end] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONParseError(reason: reason, line: line, column: column, offset: end)
    }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    mutating func expect(_ literal: String, value: JSONValue) throws(JSONParseError) -> JSONValue {
        for expected in literal.utf8 {
            guard current == expected else { throw error("invalid literal, expected '\(literal)'") }
            position += 1
        }
        return value
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expect("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character, expected a value")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var object = JSONObject()
        var seenKeys = RepeatedKeys()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(object)
        }
        // Room for the few members most objects have: growing from one slot reallocates at the
        // second and third member (~0.1G instructions over a 100k-handler config's objects).
        object.members.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key in object") }
            let keyOffset = position
            let key = try parseString()
            if rejectsDuplicateMembers {
                try rejectDuplicate(key, in: object, seen: &seenKeys, at: keyOffset)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after object key") }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            object.append(key, value)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(object)
            default: throw error("expected ',' or '}' after an object member")
            }
        }
    }

    /// Throws when `key` already names a member of `object` (compared after unescaping, so
    /// `"url"` and `"\u0075rl"` are the same member, as every consumer will see them; byte for
    /// byte, as JSON compares names: ``RepeatedKeys``).
    private func rejectDuplicate(_ key: String, in object: JSONObject, seen: inout RepeatedKeys, at offset: Int)
        throws(JSONParseError)
    {
        if seen.repeats(key, at: object.members.count, in: object.members) {
            throw error("duplicate member \"\(key)\" in one object", at: offset)
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("expected ',' or ']' after an array element")
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw error("invalid number") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = current, isDigit(next) { throw error("numbers must not have leading zeros") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let next = current, isDigit(next) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let next = current, isDigit(next) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw error("number out of range", at: start)
        }
        return .number(number)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        // Fast path: most strings have no escapes; decode them straight from the input.
        // Fast twin kept (issue 44): without it, loading and compiling generate-rules.py 100000 costs +17.2% instructions.
        var end = position
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[position..<end], as: UTF8.self)
                position = end + 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        var output: [UInt8] = Array(bytes[position..<end])
        position = end
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &output)
            case 0x00..<0x20:
                throw error("control character in string (must be escaped)")
            default:
                output.append(byte)
                position += 1
            }
        }
    }

    mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in \\u escape") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            output.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw error("invalid escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
