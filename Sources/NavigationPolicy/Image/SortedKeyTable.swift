/// A sorted table of match-form keys inside a policy image, looked up in place by binary
/// search: no key is copied out, no entry allocated, so a million hosts cost their mapped pages.
///
/// Layout (little-endian `u32`s, offsets relative to the table): `count`, `maxKeyLength`,
/// `keysLength`, `writtenCount`, `writtenLength`; then `count + 1` key offsets into the key
/// bytes; `count` config indices (the entry's position in its `match` list, for explain);
/// the key bytes, strictly ascending; `writtenCount` records `(position, offset, length)` for
/// entries written differently from their key (`PAY.example.com`, `*.example.com`), ascending
/// by position; their text. ``init(image:window:)`` checks all of it once, in O(n), so a
/// lookup's reads stay inside the table whatever the bytes were.
package struct SortedKeyTable: Sendable {
    private let image: PolicyImageBytes
    package let count: Int
    /// No key is longer: a request value longer than this is not looked up at all, which bounds
    /// a lookup's cost by the table, not by the request (a 32 KB path has many leading parts).
    let maxKeyLength: Int
    private let offsetsStart: Int
    private let indicesStart: Int
    private let keysStart: Int
    private let writtenStart: Int
    private let writtenCount: Int
    private let writtenTextStart: Int

    static let headerLength = 20

    /// Checks a table at `window` of `image` (offsets, lengths, order) and opens it.
    init(image: PolicyImageBytes, window: ImageReader) throws(PolicyImageError) {
        let count = try window.u32(0, "table entry count")
        let maxKeyLength = try window.u32(4, "table key length bound")
        let keysLength = try window.u32(8, "table key bytes length")
        let writtenCount = try window.u32(12, "table written-form count")
        let writtenLength = try window.u32(16, "table written-form bytes length")
        // Summed in UInt64, where five u32 terms cannot overflow; in Int they would on a 32-bit
        // `Int` (the WebAssembly build). Once it equals the window's length every term fits an Int.
        let expected = Self.expectedLength(
            count: count, keysLength: keysLength, writtenCount: writtenCount, writtenLength: writtenLength)
        guard expected == UInt64(window.bytes.count) else {
            throw PolicyImageError(
                "table of \(count) keys should be \(expected) bytes long, the section holds \(window.bytes.count)",
                at: window.base)
        }
        self.image = image
        self.count = count
        self.maxKeyLength = maxKeyLength
        offsetsStart = window.base + Self.headerLength
        indicesStart = offsetsStart + (count + 1) * 4
        keysStart = indicesStart + count * 4
        writtenStart = keysStart + keysLength
        self.writtenCount = writtenCount
        writtenTextStart = writtenStart + writtenCount * 12
        guard window.base >= 0, writtenTextStart + writtenLength <= image.count else {
            throw PolicyImageError("table runs past the end of the image", at: window.base)
        }
        try validate(keysLength: keysLength, writtenLength: writtenLength)
    }

    /// Offsets ascend from 0 to the key bytes' length, keys are strictly ascending (binary
    /// search relies on it) and within `maxKeyLength`, written forms lie in their bytes.
    private func validate(keysLength: Int, writtenLength: Int) throws(PolicyImageError) {
        guard offset(0) == 0, offset(count) == keysLength else {
            throw PolicyImageError("table key offsets do not span the key bytes", at: offsetsStart)
        }
        var previous: UnsafeRawBufferPointer?
        for position in 0..<count {
            let start = offset(position)
            let end = offset(position + 1)
            // `end <= keysLength` before the slice: ascending offsets alone do not stop one
            // offset from jumping past the key bytes (the next pair would catch it, one key late).
            guard start <= end, end <= keysLength, end - start <= maxKeyLength else {
                throw PolicyImageError("table key \(position) has a bad offset or length", at: offsetsStart + position * 4)
            }
            let key = UnsafeRawBufferPointer(rebasing: image.buffer[(keysStart + start)..<(keysStart + end)])
            if let previous, Self.compare(previous, key) >= 0 {
                throw PolicyImageError("table keys are not strictly ascending at key \(position)", at: keysStart + start)
            }
            previous = key
        }
        var lastPosition = -1
        for record in 0..<writtenCount {
            let base = writtenStart + record * 12
            let position = u32(base)
            let start = u32(base + 4)
            let length = u32(base + 8)
            guard position > lastPosition, position < count, start <= writtenLength, length <= writtenLength - start else {
                throw PolicyImageError("table written-form record \(record) is out of order or out of range", at: base)
            }
            lastPosition = position
        }
    }

    /// The table's byte length for its header's numbers (all read as u32s, so no overflow).
    static func expectedLength(count: Int, keysLength: Int, writtenCount: Int, writtenLength: Int) -> UInt64 {
        let (count, writtenCount) = (UInt64(count), UInt64(writtenCount))
        return UInt64(headerLength) + (count + 1) * 4 + count * 4 + UInt64(keysLength) + writtenCount * 12
            + UInt64(writtenLength)
    }

    private func u32(_ absolute: Int) -> Int {
        Self.saturatingInt(UInt32(littleEndian: image.buffer.loadUnaligned(fromByteOffset: absolute, as: UInt32.self)))
    }

    /// A stored u32 as an Int; one past `Int.max` (only on a 32-bit `Int`, the WebAssembly build,
    /// where `Int(value)` would trap) reads as `Int.max`, which every bound in `validate` refuses,
    /// with the message a 64-bit build gives for the same bytes.
    static func saturatingInt(_ value: UInt32) -> Int { Int(exactly: value) ?? .max }

    private func offset(_ position: Int) -> Int { u32(offsetsStart + position * 4) }

    private func key(_ position: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: image.buffer[(keysStart + offset(position))..<(keysStart + offset(position + 1))])
    }

    /// The key at `position`, as text (explain and summaries only).
    package func keyText(_ position: Int) -> String { String(decoding: key(position), as: UTF8.self) }

    /// The entry's position in its config list.
    func configIndex(_ position: Int) -> Int { u32(indicesStart + position * 4) }

    /// The entry as written in config, when that differs from its key.
    func writtenText(_ position: Int) -> String? {
        var low = 0
        var high = writtenCount
        while low < high {
            let middle = (low + high) / 2
            let recorded = u32(writtenStart + middle * 12)
            if recorded == position {
                let start = writtenTextStart + u32(writtenStart + middle * 12 + 4)
                let length = u32(writtenStart + middle * 12 + 8)
                return String(decoding: UnsafeRawBufferPointer(rebasing: image.buffer[start..<(start + length)]), as: UTF8.self)
            }
            if recorded < position { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The position of `wanted`, or nil.
    func position(of wanted: Substring) -> Int? {
        guard wanted.utf8.count <= maxKeyLength, count > 0 else { return nil }
        var wanted = wanted
        return wanted.withUTF8 { bytes in position(of: UnsafeRawBufferPointer(bytes)) }
    }

    func contains(_ wanted: Substring) -> Bool { position(of: wanted) != nil }

    private func position(of wanted: UnsafeRawBufferPointer) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            let order = Self.compare(key(middle), wanted)
            if order == 0 { return middle }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Byte-wise order: negative, zero or positive as `left` sorts before, with or after `right`.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let shared = min(left.count, right.count)
        var index = 0
        while index < shared {
            let difference = Int(left[index]) - Int(right[index])
            if difference != 0 { return difference }
            index += 1
        }
        return left.count - right.count
    }
}

/// One entry a table is built from.
struct SortedKeyEntry {
    var key: [UInt8]
    var configIndex: Int
    /// As written, when it differs from the key.
    var written: String?
}

extension SortedKeyTable {
    /// The table bytes for `entries`: sorted by key, a key listed twice kept once with its
    /// first config index (the entry explain names, as the JSON chain does).
    static func encode(_ entries: [SortedKeyEntry]) -> [UInt8] {
        var builder = SortedKeyTableBuilder(reservingCapacity: entries.count)
        for entry in entries { builder.add(entry.key, configIndex: entry.configIndex, written: entry.written) }
        return builder.encode()
    }
}
