import HTTPServer
import JSONSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One response buffer per worker thread, reused for every JSON body the thread writes on
/// the synchronous path, so that a decision's body costs no allocation once the thread has
/// written its first one.
///
/// The response shares the buffer's storage (copy-on-write): the server copies the bytes
/// into libmicrohttpd and drops the response, leaving this thread's reference the only one,
/// so the next `removeAll(keepingCapacity:)` reuses the storage in place. If anything still
/// holds the previous body, the write copies first: reuse is an optimisation, never a
/// shared mutation.
enum ThreadResponseBuffer {
    private static let scratch = ThreadScratch()

    /// A body written by `write` into the calling thread's buffer.
    static func json(reservingCapacity capacity: Int, _ write: (inout JSONWriter) -> Void) -> [UInt8] {
        scratch.json(reservingCapacity: capacity, write)
    }
}

/// A byte buffer per thread for one purpose (response bodies, decision-log lines), so that
/// text written on every request reuses its storage instead of allocating it.
///
/// Each purpose has its own instance (its own thread-specific key): a log line is written
/// while the response body is still open in the other buffer.
final class ThreadScratch: Sendable {
    /// Buffers whose capacity grew beyond this (a large batch, a 64 KiB URL) are not kept: a
    /// thread should not hold hundreds of kilobytes for the rare request that needed them.
    static let largestKeptCapacity = 16 * 1024

    private final class Storage {
        var bytes: [UInt8] = []
    }

    /// The thread-specific slot; nil if the process ran out of keys (then every use
    /// allocates, as without the scratch).
    private let key: pthread_key_t?

    init() {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Storage>.fromOpaque(pointer).release()
        }
        self.key = created == 0 ? key : nil
    }

    /// The calling thread's storage, created on its first use.
    private var storage: Storage? {
        guard let key else { return nil }
        if let existing = pthread_getspecific(key) {
            return Unmanaged<Storage>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = Storage()
        let retained = Unmanaged.passRetained(created)
        guard pthread_setspecific(key, retained.toOpaque()) == 0 else {
            retained.release()
            return nil
        }
        return created
    }

    /// Runs `body` with a writer over the thread's emptied buffer, and keeps the buffer for the
    /// next call: the bytes must not outlive `body` (copy them out inside it).
    func withWriter<Result>(reservingCapacity capacity: Int, _ body: (inout JSONWriter) -> Result) -> Result {
        var writer = takeWriter(reservingCapacity: capacity)
        let result = body(&writer)
        keep(writer.bytes)
        return result
    }

    /// A document written by `write` into the calling thread's buffer; the result shares the
    /// buffer's storage until either is written again.
    func json(reservingCapacity capacity: Int, _ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = takeWriter(reservingCapacity: capacity)
        write(&writer)
        let document = writer.bytes
        keep(document)
        return document
    }

    /// A writer over the slot's storage, taken out of the slot so the writer holds the only
    /// reference and empties it in place.
    private func takeWriter(reservingCapacity capacity: Int) -> JSONWriter {
        var taken: [UInt8] = []
        if let storage { swap(&taken, &storage.bytes) }
        if taken.capacity < capacity { taken.reserveCapacity(capacity) }
        return JSONWriter(reusing: consume taken)
    }

    private func keep(_ bytes: [UInt8]) {
        if bytes.capacity <= Self.largestKeptCapacity, let storage { storage.bytes = bytes }
    }
}
