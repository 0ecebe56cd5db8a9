/// Match forms' bytes scanned in place, through the string they slice.
///
/// The `utf8` view's generic `firstIndex(of:)` costs calls per byte in the WebAssembly build,
/// where Embedded Swift leaves the view's subscript and index step out of line: finding dots
/// and slashes was a quarter of a 500-handler decision there (docs/performance.md, "Issue 43").
/// `Substring.utf8`'s own `withContiguousStorageIfAvailable` goes through `Slice`'s generic one;
/// the base string's is a direct read of its storage (every native string has contiguous UTF-8).
extension Substring {
    /// The index of the first UTF-8 byte `byte` at or after `start`, or nil: `utf8[start...]
    /// .firstIndex(of: byte)`, as one scan of the bytes.
    func firstUTF8Index(of byte: UInt8, from start: Index) -> Index? {
        let whole = base.utf8
        let lower = whole.distance(from: whole.startIndex, to: start)
        let upper = whole.distance(from: whole.startIndex, to: endIndex)
        let scanned: Int?? = whole.withContiguousStorageIfAvailable { bytes in
            var offset = lower
            while offset < upper {
                if bytes[offset] == byte { return offset }
                offset += 1
            }
            return nil
        }
        switch scanned {
        case .some(.some(let offset)): return whole.index(whole.startIndex, offsetBy: offset)
        case .some(.none): return nil
        case .none: return utf8[start...].firstIndex(of: byte)
        }
    }

    /// Calls `body` with this substring's UTF-8 bytes: read in place through the base string's
    /// storage (every native string has contiguous UTF-8), copied only for one that has none.
    @inline(__always)
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let whole = base.utf8
        let lower = whole.distance(from: whole.startIndex, to: startIndex)
        let upper = whole.distance(from: whole.startIndex, to: endIndex)
        if let result = whole.withContiguousStorageIfAvailable({ body(UnsafeBufferPointer(rebasing: $0[lower..<upper])) }) {
            return result
        }
        return Array(utf8).withUnsafeBufferPointer(body)
    }
}
