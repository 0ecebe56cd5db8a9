/// The one case-insensitive comparison HTTP uses: for field names (RFC 9110 §5.1), schemes,
/// media types and list tokens. Only the ASCII letters A–Z fold (to a–z); every other byte,
/// UTF-8 included, compares exactly, so no locale or Unicode folding can make two different
/// names equal.
///
/// On bytes, in place: no lower-cased copy is made (a `lowercased()` String per comparison
/// cost an allocation on paths that run for every field of every request).
public enum ASCIICaseInsensitive {
    /// `byte` with A–Z folded to a–z.
    @inlinable
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        // One subtraction and compare: bytes below "A" wrap to ≥ 26.
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `lhs` and `rhs` are equal ignoring ASCII case.
    @inlinable
    public static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var index = 0
        while index < lhs.count {
            guard lowercased(lhs[index]) == lowercased(rhs[index]) else { return false }
            index += 1
        }
        return true
    }

    /// Whether `bytes` spell `lowercase` (written in lower case) ignoring ASCII case.
    @inlinable
    public static func equal(_ bytes: UnsafeRawBufferPointer, lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        var index = 0
        while index < bytes.count {
            guard lowercased(bytes[index]) == expected[index] else { return false }
            index += 1
        }
        return true
    }

    /// Whether `bytes` start with `lowercase` (written in lower case) ignoring ASCII case.
    @inlinable
    public static func hasPrefix<Bytes: Collection<UInt8>>(_ bytes: Bytes, lowercase: StaticString) -> Bool {
        guard bytes.count >= lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        var offset = 0
        for byte in bytes.prefix(lowercase.utf8CodeUnitCount) {
            guard lowercased(byte) == expected[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Whether two Strings are equal ignoring ASCII case, without lower-cased copies.
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        // Most comparisons are between different names: the length rejects them at once.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Over the contiguous UTF-8 of both (native and small Strings always have it): a
        // plain byte loop, where `elementsEqual` on the views cost ~450 instructions a call.
        if let matched = lhs.utf8.withContiguousStorageIfAvailable({ left in
            rhs.utf8.withContiguousStorageIfAvailable { equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer($0)) }
        }), let matched {
            return matched
        }
        return lhs.utf8.elementsEqual(rhs.utf8) { lowercased($0) == lowercased($1) }
    }
}
