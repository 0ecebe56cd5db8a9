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
    /// Bodies whose capacity grew beyond this (a large batch) are not kept: a thread should
    /// not hold hundreds of kilobytes for the rare request that needed them.
    static let largestKeptCapacity = 16 * 1024

    private final class Storage {
        var bytes: [UInt8] = []
    }

    /// The thread-specific slot; nil if the process ran out of keys (then every body is
    /// allocated, as before).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Storage>.fromOpaque(pointer).release()
        }
        return created == 0 ? key : nil
    }()

    /// The calling thread's storage, created on its first use.
    private static var storage: Storage? {
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

    /// A body written by `write` into the calling thread's buffer.
    static func json(reservingCapacity capacity: Int, _ write: (inout JSONWriter) -> Void) -> [UInt8] {
        guard let storage else {
            var writer = JSONWriter(reservingCapacity: capacity)
            write(&writer)
            return writer.bytes
        }
        // Taken out of the slot, so the writer holds the only reference and empties it in place.
        var taken: [UInt8] = []
        swap(&taken, &storage.bytes)
        if taken.capacity < capacity { taken.reserveCapacity(capacity) }
        var writer = JSONWriter(reusing: consume taken)
        write(&writer)
        let body = writer.bytes
        if body.capacity <= largestKeptCapacity { storage.bytes = body }
        return body
    }
}
