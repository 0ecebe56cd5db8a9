import CCurl

/// The header lines of one forwarded request as the `curl_slist` that CURLOPT_HTTPHEADER
/// reads, laid out in one buffer that stays with its easy handle and is reused by every
/// request the handle carries.
///
/// `curl_slist_append` costs two allocations per line (the node and a copy of the text),
/// about ten per allowed request; this list costs none once its buffer is large enough.
/// libcurl only reads the nodes (the owner frees a list it passed, never libcurl), and it
/// reads them until the option is set again: the buffer must not change while a transfer
/// uses it, so ``TransferLoop`` rebuilds it only for the next transfer on the same handle.
final class RequestFieldLines {
    /// One line: `name`, then `separator` (`": "`, `";"` for an empty value, `":"` to
    /// suppress a field libcurl would add), then `value`.
    private struct Line {
        var name: String
        var separator: StaticString
        var value: String

        var byteCount: Int { name.utf8.count + separator.utf8CodeUnitCount + value.utf8.count }
    }

    private var pending: [Line] = []
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0

    init() {}

    deinit {
        buffer?.deallocate()
    }

    /// Adds a line to the list the next ``build()`` lays out. Names and values are checked
    /// field syntax (token names, no control characters): no NUL can end a line early.
    func append(_ name: String, _ separator: StaticString, _ value: String) {
        pending.append(Line(name: name, separator: separator, value: value))
    }

    /// Lays out the lines appended since the last build as a NUL-terminated `curl_slist`
    /// chain and returns its first node (nil for no lines). The previous list is gone.
    func build() -> UnsafeMutablePointer<curl_slist>? {
        defer { pending.removeAll(keepingCapacity: true) }
        guard !pending.isEmpty else { return nil }
        let nodeStride = MemoryLayout<curl_slist>.stride
        let nodesSize = pending.count * nodeStride
        var textSize = 0
        for line in pending { textSize += line.byteCount + 1 }
        let needed = nodesSize + textSize
        if needed > capacity {
            buffer?.deallocate()
            capacity = max(needed, 2 * capacity, 512)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: MemoryLayout<curl_slist>.alignment)
        }
        guard let buffer else { return nil }
        // Bounds, checked once: `needed` was summed from the same immutable Strings written
        // below (nodes, then each line's bytes and a NUL), and `capacity >= needed`. Every
        // write advances `offset` by exactly what that sum counted for it, so none leaves
        // the buffer; the precondition guards the arithmetic against a future edit.
        precondition(needed <= capacity)
        let nodes = buffer.bindMemory(to: curl_slist.self, capacity: pending.count)
        // CChar, as libcurl reads it; Int8 and UInt8 may alias, so bytes are stored as UInt8.
        let text = (buffer + nodesSize).bindMemory(to: CChar.self, capacity: textSize)
        var offset = 0
        for (index, line) in pending.enumerated() {
            let start = text + offset
            offset = Self.write(line.name.utf8, to: text, at: offset)
            offset = line.separator.withUTF8Buffer { Self.write($0, to: text, at: offset) }
            offset = Self.write(line.value.utf8, to: text, at: offset)
            text[offset] = 0
            offset += 1
            let next = index + 1 < pending.count ? nodes + (index + 1) : nil
            (nodes + index).initialize(to: curl_slist(data: start, next: next))
        }
        precondition(offset == textSize)
        return nodes
    }

    /// Copies `bytes` to `offset` in the text (inside the size ``build()`` checked) and
    /// returns the offset after them.
    private static func write(_ bytes: String.UTF8View, to text: UnsafeMutablePointer<CChar>, at offset: Int) -> Int {
        // One copy of the contiguous UTF-8 (native Strings always have it); the view is the fallback.
        if let written = bytes.withContiguousStorageIfAvailable({ write($0, to: text, at: offset) }) { return written }
        var offset = offset
        for byte in bytes {
            text[offset] = CChar(bitPattern: byte)
            offset += 1
        }
        return offset
    }

    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to text: UnsafeMutablePointer<CChar>, at offset: Int) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return offset }
        UnsafeMutableRawPointer(text + offset).copyMemory(from: base, byteCount: bytes.count)
        return offset + bytes.count
    }
}
