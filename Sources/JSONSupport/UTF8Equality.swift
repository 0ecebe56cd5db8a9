/// Byte equality of UTF-8 text: JSON's own equality of member names and of strings, and what a
/// policy compares untrusted text with.
///
/// `==` and hashing on `String` are canonical equivalence: `"\u{212A}1"` (KELVIN SIGN) equals
/// `"K1"`, and deciding that for a string that is not known to be NFC normalizes it, which for a
/// long run of combining marks of alternating classes costs the square of its length: one member
/// name of 64 KiB in a `POST /v1/decide` body took 2.8 s of CPU to compare with `"url"`, and config
/// keys alike (outside attack 14, R1 and R3). Bytes compare in time linear in the shorter text.
package enum UTF8Bytes {
    /// Byte equality of two buffers, eight bytes at a time (the generic `elementsEqual` cost
    /// as much as the allocation a URL parse saves with it).
    package static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        let left = UnsafeRawBufferPointer(a)
        let right = UnsafeRawBufferPointer(b)
        var offset = 0
        // Each load reads bytes offset..<offset+8, all below count by the loop condition.
        while offset + 8 <= a.count {
            guard
                left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < a.count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }
}

extension String {
    /// Whether this string and `other` are the same UTF-8 bytes (``UTF8Bytes``), read in place:
    /// the UTF-8 views' `elementsEqual` walks each byte through the generic iterator, which cost
    /// half a decision in the WebAssembly build.
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in UTF8Bytes.equal(left, right) }
        }
        guard case .some(.some(let same)) = compared else { return utf8.elementsEqual(other.utf8) }
        return same
    }
}

/// A string as a set's or dictionary's key by its UTF-8 bytes (``UTF8Bytes``): hashing a
/// `String` normalizes it first, which a hostile key makes quadratic.
package struct UTF8Key: Hashable, Sendable {
    package let text: String

    package init(_ text: String) { self.text = text }

    package func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }

    package static func == (left: UTF8Key, right: UTF8Key) -> Bool { left.text.hasSameUTF8(as: right.text) }
}

extension Sequence<String> {
    /// Whether one of these strings is `text` byte for byte (``String/hasSameUTF8(as:)``): how
    /// a member name read from JSON is looked up among the names a reader knows.
    package func containsSameUTF8(_ text: String) -> Bool { contains { $0.hasSameUTF8(as: text) } }
}
