/// Bounds-checked little-endian reads from an image window: every read names its offset in the
/// file when it falls outside, so a corrupt image is refused with a place, never read past.
struct ImageReader {
    let bytes: UnsafeRawBufferPointer
    /// Where `bytes` starts in the file, for error messages.
    let base: Int

    init(_ bytes: UnsafeRawBufferPointer, base: Int = 0) {
        self.bytes = bytes
        self.base = base
    }

    func u32(_ offset: Int, _ what: String) throws(PolicyImageError) -> Int {
        guard offset >= 0, offset <= bytes.count - 4 else {
            throw PolicyImageError("\(what): truncated", at: base + offset)
        }
        let value = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        // Past 2^31 - 1 only where Int is 32 bits (the WebAssembly build), where Int(value) would trap.
        guard let result = Int(exactly: value) else {
            throw PolicyImageError("\(what): \(value) is out of range", at: base + offset)
        }
        return result
    }

    func u64(_ offset: Int, _ what: String) throws(PolicyImageError) -> Int {
        guard offset >= 0, offset <= bytes.count - 8 else {
            throw PolicyImageError("\(what): truncated", at: base + offset)
        }
        let value = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        guard value <= UInt64(Int32.max) * 4, let result = Int(exactly: value) else {
            throw PolicyImageError("\(what): \(value) is out of range", at: base + offset)
        }
        return result
    }

    /// The window `offset..<offset+length`, refused when any of it lies outside.
    func window(_ offset: Int, _ length: Int, _ what: String) throws(PolicyImageError) -> ImageReader {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw PolicyImageError("\(what): \(length) bytes at offset \(base + offset) run past the end", at: base + offset)
        }
        return ImageReader(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), base: base + offset)
    }
}

/// Little-endian appends for the writer.
struct ImageWriter {
    var bytes: [UInt8] = []

    mutating func u32(_ value: Int) {
        let value = UInt32(truncatingIfNeeded: value)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u64(_ value: Int) {
        let value = UInt64(truncatingIfNeeded: value)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func append(_ other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }
}
