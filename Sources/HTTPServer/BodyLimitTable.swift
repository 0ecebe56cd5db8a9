/// The per-path body limits of ``HTTPServerConfiguration/bodyLimitsByPath``, laid out once
/// at server start for the lookup every request makes.
///
/// The dictionary lookup cost ≈ 1.1k instructions per request (a String built from the
/// path, then hashed); here each configured path is a byte array, and a target matches when
/// it starts with those bytes and ends there or continues with `?`. No String, no hashing,
/// no scan for the `?`: a handful of paths, each rejected by its length or first bytes.
struct BodyLimitTable: Sendable {
    private let entries: [(path: [UInt8], limit: Int)]

    /// Takes the configured limits as they are (validated by the daemon's start-up).
    init(_ limitsByPath: [String: Int]) {
        // Sorted so the order (and so which entry a lookup meets first) does not depend on
        // the dictionary's hash seed; paths are distinct, so at most one can match anyway.
        entries = limitsByPath.map { (path: Array($0.key.utf8), limit: $0.value) }.sorted {
            $0.path.lexicographicallyPrecedes($1.path)
        }
    }

    /// The limit for a raw request target (its path, up to the first `?`), if it has one.
    func limit(forTarget rawTarget: String) -> Int? {
        limit(forTarget: Array(rawTarget.utf8))
    }

    /// ``limit(forTarget:)-(String)`` on the target's bytes (what the server holds).
    func limit(forTarget target: [UInt8]) -> Int? {
        guard !entries.isEmpty else { return nil }
        return target.withUnsafeBufferPointer { bytes in
            for entry in entries where Self.isPath(entry.path, of: bytes) { return entry.limit }
            return nil
        }
    }

    /// Whether `target` is `path` or `path?…`.
    private static func isPath(_ path: [UInt8], of target: UnsafeBufferPointer<UInt8>) -> Bool {
        guard target.count >= path.count else { return false }
        if target.count > path.count && target[path.count] != UInt8(ascii: "?") { return false }
        return path.withUnsafeBufferPointer { path in
            // Both buffers hold at least `path.count` bytes (checked above).
            var index = 0
            while index < path.count {
                guard path[index] == target[index] else { return false }
                index += 1
            }
            return true
        }
    }
}
