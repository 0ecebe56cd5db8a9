/// Collects the entries of one ``SortedKeyTable`` flat (all key bytes in one array) and writes
/// the table's bytes: the one encoder behind `navpolicyd compile` and a JSON load's large lists.
///
/// Flat on purpose: a million hosts as one `[UInt8]` per key cost a million allocations and
/// ~60 MB; here they cost their bytes plus 8 bytes each.
struct SortedKeyTableBuilder {
    private var keyBytes: [UInt8] = []
    /// Where each added key ends in `keyBytes` (it starts where the previous one ends).
    private var keyEnds: [UInt32] = []
    private var configIndices: [UInt32] = []
    /// Entries written differently from their key, by the order they were added in (few).
    private var written: [Int: String] = [:]

    /// Room for `count` keys of about `bytesPerKey` bytes.
    init(reservingCapacity count: Int = 0, bytesPerKey: Int = 0) {
        keyEnds.reserveCapacity(count)
        configIndices.reserveCapacity(count)
        keyBytes.reserveCapacity(count * bytesPerKey)
    }

    /// How many keys were added (repeats included).
    var count: Int { keyEnds.count }

    /// Adds a key (match form) with its position in the config list and, when it differs
    /// from the key, its text as written.
    mutating func add(_ key: some Collection<UInt8>, configIndex: Int, written text: String?) {
        if let text { written[keyEnds.count] = text }
        keyBytes.append(contentsOf: key)
        keyEnds.append(UInt32(truncatingIfNeeded: keyBytes.count))
        configIndices.append(UInt32(truncatingIfNeeded: configIndex))
    }

    /// The table bytes: keys sorted byte-wise, a key added twice kept once with its first config
    /// index (the entry explain names, as a scan of the list in order would).
    func encode() -> [UInt8] {
        keyBytes.withUnsafeBufferPointer { bytes in
            keyEnds.withUnsafeBufferPointer { ends in
                configIndices.withUnsafeBufferPointer { indices in
                    Self.encode(bytes: bytes, ends: ends, indices: indices, written: written)
                }
            }
        }
    }

    /// One entry in the sort: its first eight key bytes big-endian (zero-padded), so most
    /// comparisons are one integer compare; equal prefixes fall back to the whole keys.
    private struct SortItem {
        var prefix: UInt64
        var entry: UInt32
    }

    private static func encode(
        bytes: UnsafeBufferPointer<UInt8>, ends: UnsafeBufferPointer<UInt32>, indices: UnsafeBufferPointer<UInt32>,
        written: [Int: String]
    ) -> [UInt8] {
        func key(_ entry: Int) -> UnsafeBufferPointer<UInt8> {
            let start = entry == 0 ? 0 : Int(ends[entry - 1])
            return UnsafeBufferPointer(rebasing: bytes[start..<Int(ends[entry])])
        }
        var items: [SortItem] = []
        items.reserveCapacity(ends.count)
        for entry in 0..<ends.count {
            var prefix: UInt64 = 0
            let text = key(entry)
            for offset in 0..<8 {
                prefix = prefix << 8 | UInt64(offset < text.count ? text[offset] : 0)
            }
            items.append(SortItem(prefix: prefix, entry: UInt32(entry)))
        }
        // Zero padding keeps prefix order consistent with byte order: a shorter key that is a
        // prefix of a longer one sorts first either way, and a real zero byte ties into the full compare.
        items.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            let order = SortedKeyTable.compare(
                UnsafeRawBufferPointer(key(Int(left.entry))), UnsafeRawBufferPointer(key(Int(right.entry))))
            if order != 0 { return order < 0 }
            return indices[Int(left.entry)] < indices[Int(right.entry)]
        }
        var unique: [Int] = []
        unique.reserveCapacity(items.count)
        var keysLength = 0
        var maxKeyLength = 0
        for item in items {
            let entry = Int(item.entry)
            if let last = unique.last,
                SortedKeyTable.compare(UnsafeRawBufferPointer(key(last)), UnsafeRawBufferPointer(key(entry))) == 0
            {
                continue
            }
            unique.append(entry)
            keysLength += key(entry).count
            maxKeyLength = max(maxKeyLength, key(entry).count)
        }
        var records: [(position: Int, text: String)] = []
        var writtenLength = 0
        for (position, entry) in unique.enumerated() {
            guard let text = written[entry] else { continue }
            records.append((position, text))
            writtenLength += text.utf8.count
        }
        var writer = ImageWriter()
        writer.bytes.reserveCapacity(
            SortedKeyTable.headerLength + (unique.count * 2 + 1) * 4 + keysLength + records.count * 12 + writtenLength)
        writer.u32(unique.count)
        writer.u32(maxKeyLength)
        writer.u32(keysLength)
        writer.u32(records.count)
        writer.u32(writtenLength)
        var offset = 0
        writer.u32(offset)
        for entry in unique {
            offset += key(entry).count
            writer.u32(offset)
        }
        for entry in unique { writer.u32(Int(indices[entry])) }
        for entry in unique { writer.append(key(entry)) }
        var textOffset = 0
        for record in records {
            writer.u32(record.position)
            writer.u32(textOffset)
            writer.u32(record.text.utf8.count)
            textOffset += record.text.utf8.count
        }
        for record in records { writer.append(record.text.utf8) }
        return writer.bytes
    }

    /// The table, in memory of its own, checked as an image's table is (it cannot fail for
    /// bytes ``encode()`` wrote; if it ever did, the caller reports it rather than trusting them).
    func build() throws(PolicyImageError) -> SortedKeyTable {
        let image = PolicyImageBytes(copying: encode())
        return try SortedKeyTable(image: image, window: ImageReader(image.buffer))
    }
}
