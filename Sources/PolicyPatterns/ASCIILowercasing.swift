/// ASCII-only lower-casing: Unicode case mapping would change what a byte-level
/// comparison sees (and non-ASCII is percent-encoded or punycode by now anyway).
/// Returns the same string, without copying, when it has no upper-case letter.
/// In the patterns layer, the lowest that folds case, so that the path match form, the engine
/// and the authoring tools fold it the same way.
@inlinable package func asciiLowercased(_ text: String) -> String {
    var text = text
    // `withUTF8` scans contiguous bytes; iterating `utf8` generically costs several times more.
    return text.withUTF8 { bytes -> String? in
        guard bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        }
    } ?? text
}

/// ``asciiLowercased(_:)`` for a slice: the same slice when it has no upper-case letter.
@inlinable package func asciiLowercased(_ text: Substring) -> Substring {
    var text = text
    let lowered = text.withUTF8 { bytes -> String? in
        guard bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }
    return lowered.map { Substring($0) } ?? text
}
