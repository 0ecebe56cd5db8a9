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

    /// Opens `path` for appending, creating it if needed.
    ///
    /// `O_APPEND` (rather than seeking to the end once) keeps writes at the end after a
    /// `copytruncate` rotation, and works for pipes and `/dev/stdout`, which cannot seek.
    public init(path: String, capacity: Int = 8192, onDrop: @escaping @Sendable () -> Void) throws(DecisionLogError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw DecisionLogError(path: path, reason: String(cString: strerror(errno)))
        }
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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
        // One batched write per wake-up: the writer never holds the buffer lock during I/O.
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

/// The decision log file could not be opened.
public struct DecisionLogError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "decision log \(path): \(reason)" }
}
