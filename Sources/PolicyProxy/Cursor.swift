/// A bounds-checked reader over part of a byte array: every read returns nil (or false)
/// instead of trapping when the bytes run out. The TLS parsers (``ClientHello``, ``ServerHello``)
/// read hostile bytes only through it.
struct Cursor {
    private let bytes: [UInt8]
    private var position: Int
    private let end: Int

    /// `count` bytes from `start`, clamped to the array.
    init(_ bytes: [UInt8], from start: Int, count: Int) {
        self.bytes = bytes
        position = min(max(0, start), bytes.count)
        end = min(bytes.count, position + max(0, count))
    }

    var isAtEnd: Bool { position >= end }

    /// The bytes not read yet.
    var remaining: ArraySlice<UInt8> { bytes[position..<end] }

    /// The byte at `index` from the start of the window (0 past its end), for fixed headers
    /// whose length was checked.
    func byte(_ index: Int) -> Int {
        position + index < end ? Int(bytes[position + index]) : 0
    }

    /// Two bytes big-endian at `index` of the window (0 past its end).
    func uint16(_ index: Int) -> Int {
        byte(index) << 8 | byte(index + 1)
    }

    mutating func skip(_ count: Int) -> Bool {
        guard end - position >= count else { return false }
        position += count
        return true
    }

    mutating func uint8() -> Int? {
        guard end - position >= 1 else { return nil }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func uint16() -> Int? {
        guard end - position >= 2 else { return nil }
        defer { position += 2 }
        return uint16(0)
    }

    /// A vector with a `lengthBytes`-byte length prefix, as a cursor over its contents.
    mutating func vector(lengthBytes: Int) -> Cursor? {
        let length: Int?
        switch lengthBytes {
        case 1: length = uint8()
        case 2: length = uint16()
        default: length = nil
        }
        guard let length, end - position >= length else { return nil }
        defer { position += length }
        return Cursor(bytes, from: position, count: length)
    }

    /// Skips a vector whose length must not exceed `max`.
    mutating func skipVector(lengthBytes: Int, max: Int) -> Bool {
        guard let vector = vector(lengthBytes: lengthBytes) else { return false }
        return vector.remaining.count <= max
    }
}
