/// Serializes JSON into UTF-8 bytes without going through Foundation.
///
/// Decisions are written on every request, so the writer appends straight into a byte
/// buffer; members are written in the order they were added.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes into `buffer`'s storage, emptied: a caller that keeps one buffer per thread
    /// reuses its capacity instead of allocating a new one per document.
    public init(reusing buffer: consuming [UInt8]) {
        bytes = consume buffer
        bytes.removeAll(keepingCapacity: true)
    }

    /// Empties the output, keeping its storage for what is written next.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends bytes that are already JSON (formatted on the stack by the caller).
    public mutating func writeRaw(bytes raw: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// The output as a String (always valid UTF-8: input strings are Swift Strings).
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number): writeNumber(number)
        case .string(let text): writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a literal that is already JSON.
    ///
    /// String literals passed to `writeRaw` land here: a `StaticString` is its bytes and a
    /// length, with none of the checks a `String`'s storage needs before it can be read.
    public mutating func writeRaw(_ text: StaticString) {
        // withUTF8Buffer also covers the one-scalar form a single-character literal may take.
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends text that is already JSON (a pre-serialized fragment held as a String).
    @_disfavoredOverload
    public mutating func writeRaw(_ text: String) {
        // One copy of the String's own storage (literals and native Strings have one):
        // appending the UTF8View element by element cost ~200 instructions per member name.
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }

    /// Appends a number; integral values print without a fraction, non-finite ones as null
    /// (JSON has no NaN or infinity).
    public mutating func writeNumber(_ number: Double) {
        if !number.isFinite {
            writeRaw("null")
        } else if number.rounded() == number, abs(number) < 9.007_199_254_740_992e15 {
            writeRaw(String(Int64(number)))
        } else {
            writeRaw(String(number))
        }
    }

    /// Appends a quoted string, or `null` for nil.
    public mutating func writeOptionalString(_ text: String?) {
        if let text { writeString(text) } else { writeRaw("null") }
    }

    /// Appends a quoted, escaped string.
    public mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        appendContents(of: text)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `first + second` as one quoted, escaped string, without building it.
    public mutating func writeString(joining first: String, _ second: String) {
        bytes.append(UInt8(ascii: "\""))
        appendContents(of: first)
        appendContents(of: second)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `text` escaped as a JSON string's contents, without the quotes: the caller's
    /// literals around it carry them, so a member costs one append fewer on each side.
    public mutating func writeStringContents(_ text: String) {
        appendContents(of: text)
    }

    /// Appends `utf8` escaped as a JSON string's contents, without the quotes. The bytes must
    /// be valid UTF-8: a String's bytes, or a run of them cut next to an ASCII character (the
    /// decision log writes a URL this way between the values it redacts).
    public mutating func writeStringContents(utf8: UnsafeBufferPointer<UInt8>) {
        appendEscaping(utf8)
    }

    /// Appends again what was written at `range` of the output: a value written twice (the
    /// decision log's request URL, repeated as the decision's) costs a copy, not a second
    /// escaping.
    public mutating func writeCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "writeCopy outside the output")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: range.count) { copy in
            bytes.withUnsafeBufferPointer { _ = copy.initialize(fromContentsOf: $0[range]) }
            bytes.append(contentsOf: UnsafeBufferPointer(copy))
        }
    }

    /// Inserts a literal that is already JSON at `offset` of the output: for a member whose
    /// presence is only known once what follows it is written (the decision log's
    /// `"redacted":true`, known once its URLs are).
    public mutating func insertRaw(_ text: StaticString, at offset: Int) {
        precondition(offset >= 0 && offset <= bytes.count, "insertRaw outside the output")
        text.withUTF8Buffer { bytes.insert(contentsOf: $0, at: offset) }
    }

    private mutating func appendContents(of text: String) {
        // Over the String's own storage when it has one (native and small Strings do); a
        // bridged or foreign String is first made native.
        let appended: Void? = text.utf8.withContiguousStorageIfAvailable { appendEscaping($0) }
        if appended == nil {
            var text = text
            text.withUTF8 { appendEscaping($0) }
        }
    }

    /// Appends `utf8` with the characters JSON requires escaped, copying the runs between
    /// them in one go (most strings are one such run).
    private mutating func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        let raw = UnsafeRawBufferPointer(utf8)
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            // Eight bytes at a time while none needs escaping. The load reads
            // index..<index + 8, inside the buffer by the condition just above it.
            if count - index >= 8 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if !Self.anyNeedsEscape(word) {
                    index += 8
                    continue
                }
            }
            let byte = utf8[index]
            if Self.needsEscape(byte) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscaped(byte)
                runStart = index + 1
            }
            index += 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any of the eight bytes of `word` is one ``needsEscape(_:)`` accepts, without
    /// looking at them one by one: the first term has a byte's high bit set when that byte is
    /// below 0x20, ``zeroByte(_:)`` of `word ^ c` when it equals `c`. Borrows only run upwards
    /// from a byte that matches, so the test for "any" is exact; bytes of 0x80 and above never
    /// match (their own high bit is masked out by `~word`).
    private static func anyNeedsEscape(_ word: UInt64) -> Bool {
        let below0x20 = (word &- lowBits &* 0x20) & ~word & highBits
        let quote = zeroByte(word ^ (lowBits &* 0x22))
        let backslash = zeroByte(word ^ (lowBits &* 0x5C))
        let delete = zeroByte(word ^ (lowBits &* 0x7F))
        return (below0x20 | quote | backslash | delete) != 0
    }

    /// The high bit of each zero byte of `word` set (exact for "any byte is zero").
    private static func zeroByte(_ word: UInt64) -> UInt64 {
        (word &- lowBits) & ~word & highBits
    }

    // Byte by byte, without array literals: those allocate on every escaped character.
    private mutating func appendEscaped(_ byte: UInt8) {
        let backslash = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), backslash:
            bytes.append(backslash)
            bytes.append(byte)
        case 0x0A:
            bytes.append(backslash)
            bytes.append(UInt8(ascii: "n"))
        case 0x0D:
            bytes.append(backslash)
            bytes.append(UInt8(ascii: "r"))
        case 0x09:
            bytes.append(backslash)
            bytes.append(UInt8(ascii: "t"))
        case 0x00..<0x20, 0x7F:
            bytes.append(backslash)
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        default: bytes.append(byte)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

extension JSONValue {
    /// The compact JSON text of this value.
    public var serialized: String {
        var writer = JSONWriter()
        writer.write(self)
        return writer.string
    }

    /// The compact JSON text of this value as UTF-8 bytes.
    public var serializedBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
