import Foundation

/// The lines of a stream, each at most ``maximumLineBytes``: how `diff --log`, `diff --urls` and
/// `canonicalize --ndjson` read their input.
///
/// Their docs promise flat memory, but `getline` and `readLine` hold a whole line however long:
/// one 400 MB line took 1.59 GB (issue 38, item 13). Here a line is gathered in a buffer that
/// never grows past the bound; a longer one stops the read with an error naming its line
/// number, before the rest of it is read.
enum BoundedLines {
    /// The longest line read: 64 times the decision log's longest line (16 KiB), far above any
    /// URL or request a line carries.
    static let maximumLineBytes = 1 << 20

    /// Calls `body` with each line's bytes (without its newline) and its 1-based number, from
    /// `file`, which is read to its end; `name` (a path, or `stdin`) is what errors say.
    /// - Throws: what `body` throws; a ``ReplayError`` naming the line when one is longer than
    ///   `maximumBytes`, or when the stream cannot be read.
    static func each(
        in file: UnsafeMutablePointer<FILE>, name: String, maximumBytes: Int = maximumLineBytes,
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws(ReplayError) -> Void
    ) throws(ReplayError) {
        let chunkSize = 1 << 16
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkSize)
        defer { chunk.deallocate() }
        guard let base = chunk.baseAddress else { return }
        // The start of a line that spans chunks, never more than `maximumBytes`.
        var pending: [UInt8] = []
        var number = 0
        func tooLong() -> ReplayError {
            ReplayError(message: "\(name):\(number + 1): line longer than \(maximumBytes) bytes (the most one line may hold)")
        }
        while true {
            let count = fread(base, 1, chunkSize, file)
            if count == 0 {
                guard ferror(file) == 0 else { throw ReplayError(message: "\(name): cannot be read") }
                break
            }
            var start = 0
            while start < count {
                let rest = count - start
                guard let found = memchr(base + start, 0x0A, rest) else {
                    guard pending.count + rest <= maximumBytes else { throw tooLong() }
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<count]))
                    break
                }
                let end = found.assumingMemoryBound(to: UInt8.self) - base
                guard pending.count + (end - start) <= maximumBytes else { throw tooLong() }
                number += 1
                if pending.isEmpty {
                    try body(UnsafeBufferPointer(rebasing: chunk[start..<end]), number)
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
                    try pending.withUnsafeBufferPointer { line throws(ReplayError) in try body(line, number) }
                    pending.removeAll(keepingCapacity: true)
                }
                start = end + 1
            }
        }
        // A last line without its newline.
        if !pending.isEmpty {
            number += 1
            try pending.withUnsafeBufferPointer { line throws(ReplayError) in try body(line, number) }
        }
    }
}
