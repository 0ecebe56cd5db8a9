/// Decoding of, and lookups in, the generated Unicode tables of `IDNATables` (and of the regexp's
/// property and case-folding tables, in PolicyPatterns).
///
/// A generator writes each table as a string literal (a string literal compiles instantly, a
/// huge integer array literal does not); `decode` turns it into `[UInt32]` once, at first use,
/// from the lazily initialised (and therefore thread-safe) static `let`s of the tables' users.
package enum PackedTable {
    /// Decodes a table literal: `~` and then, per word, its difference from the word before
    /// (modulo 2^32, zigzag-coded) as a base64 VLQ: 5 bits a character, least significant first,
    /// the sixth bit set while more follow (scripts/lib/packed_table.py); line breaks are skipped.
    /// Sorted and run-coded tables take one or two characters a word: a third of the data of
    /// base64 of the words, which matters in the WebAssembly build's download
    /// (docs/performance.md, issue 43).
    ///
    /// The literals are generated, so malformed text is a generator bug: it yields an empty table
    /// (every lookup then falls back to its default) rather than a crash.
    package static func decode(_ text: StaticString) -> [UInt32] {
        text.withUTF8Buffer { bytes -> [UInt32] in
            guard bytes.first == UInt8(ascii: "~") else { return [] }
            return decodeDifferences(bytes.dropFirst())
        }
    }

    /// The `~` form's words: each a base64 VLQ of the zigzag-coded difference from the one before.
    private static func decodeDifferences(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt32] {
        var words: [UInt32] = []
        words.reserveCapacity(bytes.count / 2)
        var previous: UInt32 = 0
        var zigzag: UInt32 = 0
        var shift: UInt32 = 0
        for byte in bytes {
            let digit: UInt32
            switch base64Digit(byte) {
            case .digit(let value): digit = value
            case .skipped: continue
            case .invalid: return []
            }
            // A 32-bit value takes at most 7 digits (35 bits); more is a generator bug.
            guard shift < 35, shift < 30 || (digit & 31) >> (32 - shift) == 0 else { return [] }
            zigzag |= (digit & 31) << shift
            if digit & 32 != 0 {
                shift += 5
                continue
            }
            let difference = (zigzag >> 1) ^ (0 &- (zigzag & 1))
            previous &+= difference
            words.append(previous)
            zigzag = 0
            shift = 0
        }
        return shift == 0 ? words : []
    }

    /// What one character of a base64 literal is.
    private enum Base64Character {
        case digit(UInt32)
        /// A line break or padding, which the literals' layout adds.
        case skipped
        case invalid
    }

    @inline(__always)
    private static func base64Digit(_ byte: UInt8) -> Base64Character {
        switch byte {
        case 0x41...0x5A: .digit(UInt32(byte - 0x41))
        case 0x61...0x7A: .digit(UInt32(byte - 0x61 + 26))
        case 0x30...0x39: .digit(UInt32(byte - 0x30 + 52))
        case 0x2B: .digit(62)
        case 0x2F: .digit(63)
        case 0x3D, 0x0A, 0x0D, 0x20: .skipped
        default: .invalid
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
}
