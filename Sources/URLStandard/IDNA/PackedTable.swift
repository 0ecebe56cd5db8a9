/// Decoding of, and lookups in, the generated Unicode tables of `IDNATables`.
///
/// The generator writes each table as base64 text (a string literal compiles instantly, a huge
/// integer array literal does not); `decode` turns it into `[UInt32]` once, at first use, from
/// the lazily initialised (and therefore thread-safe) static `let`s of the tables' users.
package enum PackedTable {
    /// Decodes a base64 literal of little-endian 32-bit words; line breaks are skipped.
    /// The literals are generated, so malformed text is a generator bug: it yields an empty table
    /// (every lookup then falls back to its default) rather than a crash.
    package static func decode(_ text: StaticString) -> [UInt32] {
        text.withUTF8Buffer { bytes -> [UInt32] in
            var words: [UInt32] = []
            words.reserveCapacity(bytes.count * 3 / 16)
            var accumulator: UInt32 = 0
            var bits = 0
            var word: UInt32 = 0
            var byteInWord: UInt32 = 0
            for byte in bytes {
                let sextet: UInt32
                switch byte {
                case 0x41...0x5A: sextet = UInt32(byte - 0x41)
                case 0x61...0x7A: sextet = UInt32(byte - 0x61 + 26)
                case 0x30...0x39: sextet = UInt32(byte - 0x30 + 52)
                case 0x2B: sextet = 62
                case 0x2F: sextet = 63
                case 0x3D, 0x0A, 0x0D, 0x20: continue
                default: return []
                }
                accumulator = (accumulator << 6) | sextet
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    let byteValue = (accumulator >> UInt32(bits)) & 0xFF
                    word |= byteValue << (8 * byteInWord)
                    byteInWord += 1
                    if byteInWord == 4 {
                        words.append(word)
                        word = 0
                        byteInWord = 0
                    }
                }
            }
            return words
        }
    }

    /// Index of the last element of the ascending `array` that is `<= key`, or nil if none is.
    @inline(__always)
    package static func lastIndex(atOrBelow key: UInt32, in array: [UInt32]) -> Int? {
        var low = 0
        var high = array.count
        // Invariant: array[..<low] <= key < array[high...].
        while low < high {
            let mid = low + (high - low) / 2
            if array[mid] <= key { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }

    /// Looks up the 8-bit property of `scalar` in a covering table of `start << 8 | value` words.
    @inline(__always)
    static func property(of scalar: UInt32, in table: [UInt32]) -> UInt8 {
        guard let index = lastIndex(atOrBelow: scalar << 8 | 0xFF, in: table) else { return 0 }
        return UInt8(truncatingIfNeeded: table[index])
    }
}
