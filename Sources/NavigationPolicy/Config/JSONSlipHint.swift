public import JSONSupport

/// Words for the JSON mistakes people make when writing config by hand, which a parser
/// only reports as an unexpected byte: a trailing comma, a comment, single quotes, a BOM.
public enum JSONSlipHint {
    /// The parse error with its line and column, plus a hint when the cause is a common slip.
    public static func describe(_ error: JSONParseError, in bytes: some Collection<UInt8>) -> String {
        let text = Array(bytes)
        let base = "invalid JSON at line \(error.line), column \(error.column): \(error.reason)"
        guard let hint = hint(at: error.offset, in: text) else { return base }
        return base + " (\(hint))"
    }

    static func hint(at offset: Int, in bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return "the file starts with a UTF-8 byte order mark; save it without BOM"
        }
        guard offset >= 0, offset < bytes.count else { return nil }
        let byte = bytes[offset]
        if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "#") {
            return "JSON has no comments; remove it, or put the note in a \"name\""
        }
        if byte == UInt8(ascii: "'") { return "JSON strings use double quotes, not single quotes" }
        if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
            // Look back past whitespace for the comma that has nothing after it.
            var back = offset - 1
            while back >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[back]) { back -= 1 }
            if back >= 0, bytes[back] == UInt8(ascii: ",") {
                return "trailing comma before \"\(Character(Unicode.Scalar(byte)))\"; JSON allows none"
            }
        }
        if (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") {
            return "keys and strings need double quotes"
        }
        return nil
    }
}
