import Foundation
import Synchronization

/// The optional NDJSON decision log, written off the request path.
///
/// Requests append a finished line to a bounded in-memory buffer and return; one writer
/// thread drains it to the file. When the disk is slower than the traffic the buffer fills
/// and new lines are dropped and counted, rather than slowing decisions down.
public final class DecisionLog: Sendable {
    private struct Buffer {
        var lines: [[UInt8]] = []
        var closed = false
    }

    private let buffer = Mutex(Buffer())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let capacity: Int
    private let handle: FileHandle
    private let onDrop: @Sendable () -> Void

    /// Opens (creating or appending to) `path`.
    public init(path: String, capacity: Int = 8192, onDrop: @escaping @Sendable () -> Void) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.handle = handle
        self.capacity = capacity
        self.onDrop = onDrop
        let thread = Thread { [self] in self.drainLoop() }
        thread.name = "decision-log"
        thread.start()
    }

    /// Queues one line (without its newline); never blocks on I/O.
    public func append(_ line: [UInt8]) {
        let accepted = buffer.withLock { buffer -> Bool in
            guard !buffer.closed, buffer.lines.count < capacity else { return false }
            buffer.lines.append(line)
            return true
        }
        if accepted { wakeUp.signal() } else { onDrop() }
    }

    /// Writes what is buffered and stops the writer; lines appended afterwards are dropped.
    public func close() {
        buffer.withLock { $0.closed = true }
        wakeUp.signal()
        finished.wait()
        try? handle.close()
    }

    private func drainLoop() {
        while true {
            wakeUp.wait()
            let (lines, closed) = buffer.withLock { buffer -> ([[UInt8]], Bool) in
                let taken = buffer.lines
                buffer.lines.removeAll(keepingCapacity: true)
                return (taken, buffer.closed)
            }
            if !lines.isEmpty {
                var chunk: [UInt8] = []
                chunk.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
                for line in lines {
                    chunk.append(contentsOf: line)
                    chunk.append(0x0A)
                }
                try? handle.write(contentsOf: chunk)
            }
            if closed {
                finished.signal()
                return
            }
        }
    }
}
