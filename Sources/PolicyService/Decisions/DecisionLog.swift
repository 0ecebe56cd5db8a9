import Foundation
public import PolicySections
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The optional NDJSON decision log, written off the request path.
///
/// Requests copy a finished line into a bounded in-memory buffer and return; one writer
/// thread drains it to the file. The buffer is one contiguous run of bytes, the lines with
/// their newlines, plus where each ends: a line costs a copy, not an allocation, and a batch
/// goes to the file as it lies, in one `write`. The writer swaps the buffer with a spare of
/// its own under the lock, so neither side allocates once both have grown to the traffic. When the disk is slower than the traffic the buffer fills
/// and new lines are dropped and counted, rather than slowing decisions down.
///
/// The writer is woken once per batch, not once per line: the line that finds the buffer
/// empty wakes it, and it then waits ``flushInterval`` for more before writing them all in one
/// `write`. Waking it for every line cost each request a futex wake and a context switch, which
/// halved GET `/v1/decide` throughput with the log on (bench/decision-log-cost.sh: 0.50 of
/// the same daemon without the log on a 2-core machine). A line reaches the file at most
/// ``flushInterval`` later; a full half of the buffer, a reopen and shutdown do not wait.
///
/// The file has a byte budget (`decisionLog.maxBytes`): the writer knows the file's size
/// (measured when it opens the file, then counted), and a line that would take the file past
/// the budget is dropped and counted too, so a flood of decisions cannot fill the disk. The
/// budget is per file: reopening after a rotation measures the new file and starts afresh.
public final class DecisionLog: Sendable {
    private struct Buffer {
        var batch = Batch()
        var closed = false
        /// A reopen was asked for (SIGUSR1); the writer does it before its next write.
        var reopenRequested = false
    }

    /// How long the writer lets a batch gather after the first line of it arrives.
    static let flushInterval: UInt32 = 20_000  // microseconds

    private let buffer = Mutex(Buffer())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let capacity: Int
    private let onDrop: @Sendable () -> Void
    /// The budget in force, read before each write (a reload may change it).
    private let maximumBytes: @Sendable () -> Int
    /// Called once per file, on the writer thread, when its first line is refused for the budget.
    private let onFull: @Sendable (_ fileBytes: Int, _ maximumBytes: Int) -> Void
    /// The configured path, opened again on ``reopen()``.
    public let path: String
    /// Reports the outcome of each reopen (nil = success, else the reason), on the writer thread.
    private let onReopen: @Sendable (_ failure: String?) -> Void
    /// The writer's count of the file's bytes (``OpenFile/bytes``), for the status page.
    private let writtenBytes = Atomic<Int>(0)

    /// The bytes in the current file as the writer counts them: its size when opened plus
    /// every line written since (what `decisionLog.maxBytes` is checked against).
    public var fileBytes: Int { writtenBytes.load(ordering: .relaxed) }

    /// Opens `path` for appending, creating it if needed.
    ///
    /// `O_APPEND` (rather than seeking to the end once) keeps writes at the end after a
    /// `copytruncate` rotation, and works for pipes and `/dev/stdout`, which cannot seek.
    /// - Parameters:
    ///   - maximumBytes: the budget for the file (``DecisionLogSettings/maxBytes``).
    ///   - onFull: told when a file reaches its budget (once per file).
    public init(
        path: String, capacity: Int = 8192, onDrop: @escaping @Sendable () -> Void,
        onReopen: @escaping @Sendable (_ failure: String?) -> Void = { _ in },
        maximumBytes: @escaping @Sendable () -> Int = { DecisionLogSettings.defaultMaxBytes },
        onFull: @escaping @Sendable (_ fileBytes: Int, _ maximumBytes: Int) -> Void = { _, _ in }
    ) throws(DecisionLogError) {
        let descriptor = try Self.open(path)
        self.path = path
        self.capacity = capacity
        self.onDrop = onDrop
        self.onReopen = onReopen
        self.maximumBytes = maximumBytes
        self.onFull = onFull
        let file = OpenFile(descriptor)
        writtenBytes.store(file.bytes, ordering: .relaxed)
        let thread = Thread { [self] in self.drainLoop(file) }
        thread.name = "decision-log"
        thread.start()
    }

    /// Queues one line (without its newline); never blocks on I/O.
    public func append(_ line: [UInt8]) {
        line.withUnsafeBufferPointer { append($0) }
    }

    /// Queues one line (without its newline), copying it; never blocks on I/O.
    public func append(_ line: UnsafeBufferPointer<UInt8>) {
        // nil: dropped; true: the writer must be woken (first line of a batch, or half full).
        let wake = buffer.withLock { buffer -> Bool? in
            guard !buffer.closed, buffer.batch.count < capacity else { return nil }
            buffer.batch.append(line)
            return buffer.batch.count == 1 || buffer.batch.count == capacity / 2
        }
        switch wake {
        case nil: onDrop()
        case true?: wakeUp.signal()
        case false?: break
        }
    }

    /// Asks the writer to open ``path`` anew (logrotate's `create`: the file was renamed away).
    /// Lines still buffered go to the new file, so the renamed file is complete once the
    /// reopen is reported; none is lost, and each batch goes out in one write to one file, so
    /// no line is torn across the two. When the path cannot be opened the writer keeps the old
    /// file (losing nothing) and reports the failure.
    public func reopen() {
        buffer.withLock { $0.reopenRequested = true }
        wakeUp.signal()
    }

    /// Writes what is buffered and stops the writer; lines appended afterwards are dropped.
    public func close() {
        buffer.withLock { $0.closed = true }
        wakeUp.signal()
        finished.wait()
    }

    private static func open(_ path: String) throws(DecisionLogError) -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw DecisionLogError(path: path, reason: String(cString: strerror(errno)))
        }
        return descriptor
    }

    /// The writer's file: its descriptor and how many bytes it holds.
    ///
    /// A plain descriptor, not a `FileHandle`: `FileHandle.write(contentsOf:)` cost ~3,000
    /// instructions a batch on top of the system call (bench/decision-log-count.sh).
    private struct OpenFile {
        let descriptor: Int32
        /// The size when opened (0 for a pipe or terminal) plus every byte written since.
        var bytes: Int
        /// Whether a line was already refused for the budget (``onFull`` is told once per file).
        var full = false

        init(_ descriptor: Int32) {
            var status = stat()
            // A regular file may already hold lines (a restart without rotation): they count.
            bytes = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
            self.descriptor = descriptor
        }

        /// Writes all of `bytes`, resuming after a partial write or a signal; stops at an
        /// error (a full disk loses the rest of this batch, as the next batch may succeed).
        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }

        func close() {
            _ = Glibc.close(descriptor)
        }
    }

    /// The writer thread: it alone owns the file handle, so a reopen swaps it between writes.
    private func drainLoop(_ initial: OpenFile) {
        var file = initial
        // The writer's half of the double buffer: swapped with the requests' half under the
        // lock, written and emptied outside it.
        var lines = Batch()
        // One batched write per wake-up: the writer never holds the buffer lock during I/O.
        while true {
            wakeUp.wait()
            // Let the batch gather, unless shutdown, a reopen or a half-full buffer is waiting.
            let urgent = buffer.withLock { $0.closed || $0.reopenRequested || $0.batch.count >= capacity / 2 }
            if !urgent { usleep(Self.flushInterval) }
            let (closed, reopen) = buffer.withLock { buffer -> (Bool, Bool) in
                swap(&lines, &buffer.batch)
                defer { buffer.reopenRequested = false }
                return (buffer.closed, buffer.reopenRequested)
            }
            if reopen {
                do throws(DecisionLogError) {
                    let descriptor = try Self.open(path)
                    file.close()
                    file = OpenFile(descriptor)
                    writtenBytes.store(file.bytes, ordering: .relaxed)
                    onReopen(nil)
                } catch {
                    onReopen(error.reason)
                }
            }
            if !lines.isEmpty { write(lines, to: &file) }
            lines.empty()
            if closed {
                file.close()
                finished.signal()
                return
            }
        }
    }
}

extension DecisionLog {
    /// Writes what fits in the budget as one batch; drops and counts the rest. Lines are whole
    /// or absent: the file never ends in a cut line because of the budget.
    private func write(_ lines: Batch, to file: inout OpenFile) {
        let budget = maximumBytes()
        // Usually the whole batch fits and goes out as it lies.
        var chunk: [UInt8] = []
        var dropped = 0
        if file.bytes + lines.bytes.count > budget {
            var start = 0
            for end in lines.ends {
                if file.bytes + chunk.count + (end - start) <= budget {
                    chunk.append(contentsOf: lines.bytes[start..<end])
                } else {
                    dropped += 1
                }
                start = end
            }
        }
        let kept = dropped == 0 ? lines.bytes : chunk
        if !kept.isEmpty {
            // Counted as written even if the write fails: a disk error must not reopen the budget.
            file.bytes += kept.count
            writtenBytes.store(file.bytes, ordering: .relaxed)
            kept.withUnsafeBufferPointer { file.write($0) }
        }
        guard dropped > 0 else { return }
        for _ in 0..<dropped { onDrop() }
        if !file.full {
            file.full = true
            onFull(file.bytes, budget)
        }
    }
}

/// The decision log file could not be opened.
public struct DecisionLogError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "decision log \(path): \(reason)" }
}

/// Queued decision-log lines: their bytes back to back, each with its newline, and where each
/// ends.
private struct Batch {
    private(set) var bytes: [UInt8] = []
    /// The offset just past each line's newline in ``bytes``.
    private(set) var ends: [Int] = []

    /// A batch keeps storage up to this for the next one; a burst of long lines does not pin
    /// its megabytes for good.
    private static let keptCapacity = 4 << 20

    var count: Int { ends.count }
    var isEmpty: Bool { ends.isEmpty }

    mutating func append(_ line: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: line)
        bytes.append(0x0A)
        ends.append(bytes.count)
    }

    /// Removes every line, keeping the storage unless it grew past ``keptCapacity``.
    mutating func empty() {
        if bytes.capacity > Self.keptCapacity {
            bytes = []
            ends = []
        } else {
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
        }
    }
}
