import HTTPTypes
import Synchronization

/// A request's header fields as received: the name and value bytes of every field back to
/// back in one buffer, with each field's offsets, turned into an ``HTTPHeaders`` of Strings
/// only when a responder first reads ``HTTPRequest/headers``.
///
/// Copying every field into two Strings and an array while the head was walked cost ≈ 600
/// instructions per field (≈ 1.8k for curl's three), and most routes (`GET /v1/decide`,
/// `/healthz`) never read a field: the checks the server makes run on the bytes while they
/// are collected. The Strings are made exactly as the collection made them before (the
/// interned literal for a common name spelled the usual way, else the bytes decoded with
/// invalid UTF-8 replaced), in the order received.
///
/// Lifetimes: a connection's request context keeps one of these and reuses it for the next
/// request when nothing else references it (`isKnownUniquelyReferenced`); a request handed to
/// a task keeps its own reference, so the context then starts a new one. The bytes are
/// written only before the request is handed out (by the connection's worker thread, the
/// only holder then) and never after; the Strings made on first read are kept under a lock,
/// since copies of a request may be read on several threads.
final class ReceivedHeaderFields: @unchecked Sendable {
    /// Offsets of one field in ``bytes``.
    private struct Span {
        var nameStart: Int
        var nameCount: Int
        var valueStart: Int
        var valueCount: Int
    }

    /// The Strings once made; their array is kept (emptied, not freed) for the next request,
    /// so a route that reads the fields allocates no array on a keep-alive connection.
    private struct Materialized {
        var headers = HTTPHeaders()
        var isMade = false
    }

    // Exempt from the runtime exclusivity check (`swift_beginAccess`, ≈ 115 instructions per
    // access, three per field appended): only the connection's worker thread writes them,
    // before the request is handed out or once nothing else references this instance, and no
    // access to either nests inside another access to the same one.
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    @exclusivity(unchecked) private var spans: [Span] = []
    private let materialized = Mutex(Materialized())
    /// Whether ``headers`` was read since the last ``removeAll()`` (set under the lock), so
    /// that emptying an instance whose fields nobody read takes no lock.
    private let wasMaterialized = Atomic<Bool>(false)

    init() {
        // Room for a browser's head without growing: one allocation each per connection.
        bytes.reserveCapacity(1024)
        spans.reserveCapacity(16)
    }

    /// The number of fields received.
    var count: Int { spans.count }

    /// Appends one field (only while the head is collected, before the request is handed out).
    func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.assumingMemoryBound(to: UInt8.self))
        let valueStart = bytes.count
        bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
        spans.append(Span(nameStart: nameStart, nameCount: name.count, valueStart: valueStart, valueCount: value.count))
    }

    /// Empties the fields for the next request of the connection, keeping the storage; only
    /// for an instance nothing else references.
    func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        // Nothing else references this instance (the caller checked), so no read of `headers`
        // can race with this one; the acquiring load sees a flag set on another thread.
        guard wasMaterialized.load(ordering: .acquiring) else { return }
        materialized.withLock { made in
            made.headers.removeAll(keepingCapacity: true)
            made.isMade = false
        }
        wasMaterialized.store(false, ordering: .releasing)
    }

    /// The fields as Strings, made on the first call and kept.
    var headers: HTTPHeaders {
        materialized.withLock { made in
            if !made.isMade {
                made.headers.reserveCapacity(spans.count)
                add(to: &made.headers)
                made.isMade = true
                wasMaterialized.store(true, ordering: .releasing)
            }
            return made.headers
        }
    }

    private func add(to headers: inout HTTPHeaders) {
        bytes.withUnsafeBytes { all in
            for span in spans {
                // Every span was appended with bytes of its own counts at its offsets.
                let name = UnsafeRawBufferPointer(rebasing: all[span.nameStart..<(span.nameStart + span.nameCount)])
                let value = UnsafeRawBufferPointer(rebasing: all[span.valueStart..<(span.valueStart + span.valueCount)])
                headers.add(name: InternedTokens.fieldName(name), value: String(decoding: value, as: UTF8.self))
            }
        }
    }
}
