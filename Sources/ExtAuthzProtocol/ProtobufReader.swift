/// A strict reader of the protobuf wire format over one message's bytes.
///
/// Strict where the format allows a choice: a truncated varint or length, a varint longer than
/// 10 bytes, field number 0, the group wire types (3, 4: proto2 only, never in the messages this
/// package reads) and the undefined wire types 6 and 7 are errors, never a guess. Unknown fields
/// of the four defined wire types are skipped, as the protobuf rules say, so a newer Envoy that
/// sends fields this package does not know is still understood.
struct ProtobufReader {
    /// The wire types of the protobuf encoding that a proto3 message may contain.
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Whether every byte was read.
    var atEnd: Bool { position >= bytes.endIndex }

    /// The next field's number and wire type; nil at the end of the message.
    mutating func nextField(in message: String) throws(ProtobufError) -> (number: UInt64, wireType: WireType)? {
        guard !atEnd else { return nil }
        let key = try varint(in: message)
        let number = key >> 3
        guard number != 0 else { throw ProtobufError("\(message): field number 0") }
        guard number <= 536_870_911 else { throw ProtobufError("\(message): field number \(number) out of range") }
        let rawType = UInt8(truncatingIfNeeded: key & 7)
        guard let wireType = WireType(rawValue: rawType) else {
            let kind =
                rawType == 3 || rawType == 4 ? "group (wire type \(rawType)) not supported" : "wire type \(rawType) undefined"
            throw ProtobufError("\(message): field \(number): \(kind)")
        }
        return (number, wireType)
    }

    /// A base-128 varint of at most 10 bytes.
    mutating func varint(in message: String) throws(ProtobufError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.endIndex else { throw ProtobufError("\(message): truncated varint") }
            let byte = bytes[position]
            position += 1
            // The 10th byte may only carry the top bit of a 64-bit value.
            if shift == 63 && byte > 1 { throw ProtobufError("\(message): varint overflows 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// The payload of a length-delimited field (a string, bytes or an embedded message).
    mutating func lengthDelimited(in message: String) throws(ProtobufError) -> ArraySlice<UInt8> {
        let length = try varint(in: message)
        let remaining = bytes.endIndex - position
        guard length <= UInt64(remaining) else {
            throw ProtobufError("\(message): length \(length) runs past the end (\(remaining) bytes left)")
        }
        let end = position + Int(length)
        defer { position = end }
        return bytes[position..<end]
    }

    /// A string field: proto3 requires valid UTF-8.
    mutating func string(in message: String, field: String) throws(ProtobufError) -> String {
        let payload = try lengthDelimited(in: message)
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw ProtobufError("\(message).\(field): not valid UTF-8")
        }
        return text
    }

    /// Skips the payload of a field this reader does not need.
    mutating func skip(_ wireType: WireType, in message: String) throws(ProtobufError) {
        switch wireType {
        case .varint: _ = try varint(in: message)
        case .lengthDelimited: _ = try lengthDelimited(in: message)
        case .fixed64: try advance(8, in: message)
        case .fixed32: try advance(4, in: message)
        }
    }

    /// Reads a field the schema declares with `expected` wire type; any other type is an error
    /// (a string sent as a varint is not the field this reader was written for).
    func require(_ wireType: WireType, _ expected: WireType, in message: String, field: String) throws(ProtobufError) {
        guard wireType == expected else {
            throw ProtobufError("\(message).\(field): wire type \(wireType.rawValue), expected \(expected.rawValue)")
        }
    }

    private mutating func advance(_ count: Int, in message: String) throws(ProtobufError) {
        guard bytes.endIndex - position >= count else { throw ProtobufError("\(message): truncated fixed-width field") }
        position += count
    }
}
