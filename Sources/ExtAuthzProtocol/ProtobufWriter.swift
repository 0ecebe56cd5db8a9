/// Appends protobuf wire-format fields to a byte buffer: the few encodings the responses need.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    /// A varint field (int32 with a non-negative value, enum, bool); proto3 omits zero.
    mutating func varint(_ number: UInt32, _ value: UInt64) {
        guard value != 0 else { return }
        key(number, wireType: 0)
        appendVarint(value)
    }

    /// A string field; proto3 omits the empty string.
    mutating func string(_ number: UInt32, _ value: String) {
        guard !value.isEmpty else { return }
        lengthDelimited(number, Array(value.utf8))
    }

    /// An embedded message, written even when empty (its presence is what a reader sees).
    mutating func message(_ number: UInt32, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        lengthDelimited(number, inner.bytes)
    }

    private mutating func lengthDelimited(_ number: UInt32, _ payload: [UInt8]) {
        key(number, wireType: 2)
        appendVarint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    private mutating func key(_ number: UInt32, wireType: UInt8) {
        appendVarint(UInt64(number) << 3 | UInt64(wireType))
    }

    private mutating func appendVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
