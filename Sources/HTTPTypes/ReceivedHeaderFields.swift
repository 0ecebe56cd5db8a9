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
package final class ReceivedHeaderFields: @unchecked Sendable {
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

    // The bytes and offsets live in storage this instance owns (grown by doubling, kept for
    // the next request): `Array.append(contentsOf:)` of a buffer cost ≈ 90 instructions a
    // call and `removeAll(keepingCapacity:)` ≈ 80, more than the Strings this type saves.
    // Every write is bounds-checked once against the capacity in `reserve` (`append` grows
    // first, then copies exactly `count` bytes); reads cover only `[0, byteCount)` and
    // `[0, spanCount)`. The fields are exempt from the runtime exclusivity check
    // (`swift_beginAccess`, ≈ 115 instructions per access): only the connection's worker
    // thread writes them, before the request is handed out or once nothing else references
    // this instance, and no access nests inside another access to the same field.
    @exclusivity(unchecked) private var bytes: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var byteCount = 0
    @exclusivity(unchecked) private var byteCapacity = 0
    @exclusivity(unchecked) private var spans: UnsafeMutablePointer<Span>?
    @exclusivity(unchecked) private var spanCount = 0
    @exclusivity(unchecked) private var spanCapacity = 0
    private let materialized = Mutex(Materialized())
    /// Whether ``headers`` was read since the last ``removeAll()`` (set under the lock), so
    /// that emptying an instance whose fields nobody read takes no lock.
    private let wasMaterialized = Atomic<Bool>(false)

    package init() {}

    deinit {
        bytes?.deallocate()
        spans?.deallocate()
    }

    /// The number of fields received.
    package var count: Int { spanCount }

    /// Appends one field (only while the head is collected, before the request is handed out).
    package func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let nameStart = byteCount
        let valueStart = nameStart + name.count
        reserveBytes(valueStart + value.count)
        reserveSpans(spanCount + 1)
        // Both reserves succeeded: `bytes` holds at least `valueStart + value.count` bytes and
        // `spans` at least `spanCount + 1` elements (they trap like Array when memory runs out).
        guard let bytes, let spans else { return }
        if let source = name.baseAddress { (bytes + nameStart).copyMemory(from: source, byteCount: name.count) }
        if let source = value.baseAddress { (bytes + valueStart).copyMemory(from: source, byteCount: value.count) }
        (spans + spanCount).initialize(
            to: Span(nameStart: nameStart, nameCount: name.count, valueStart: valueStart, valueCount: value.count))
        byteCount = valueStart + value.count
        spanCount += 1
    }

    private func reserveBytes(_ needed: Int) {
        guard needed > byteCapacity || bytes == nil else { return }
        let capacity = max(needed, byteCapacity * 2, 512)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        if let bytes {
            grown.copyMemory(from: bytes, byteCount: byteCount)
            bytes.deallocate()
        }
        bytes = grown
        byteCapacity = capacity
    }

    private func reserveSpans(_ needed: Int) {
        guard needed > spanCapacity || spans == nil else { return }
        let capacity = max(needed, spanCapacity * 2, 16)
        let grown = UnsafeMutablePointer<Span>.allocate(capacity: capacity)
        if let spans {
            grown.moveInitialize(from: spans, count: spanCount)
            spans.deallocate()
        }
        spans = grown
        spanCapacity = capacity
    }

    /// Empties the fields for the next request of the connection, keeping the storage; only
    /// for an instance nothing else references.
    package func removeAll() {
        // Spans are plain integers: nothing to deinitialize.
        byteCount = 0
        spanCount = 0
        // Nothing else references this instance (the caller checked), so no read of `headers`
        // can race with this one; the acquiring load sees a flag set on another thread.
        guard wasMaterialized.load(ordering: .acquiring) else { return }
        materialized.withLock { made in
            made.headers.removeAll(keepingCapacity: true)
            made.isMade = false
        }
        wasMaterialized.store(false, ordering: .releasing)
    }

    /// Calls `body` with the value bytes of the first field whose name matches `name` by
    /// ``ASCIICaseInsensitive`` (the field `HTTPHeaders`' subscript finds); nil when none has it.
    ///
    /// Reads the received bytes without making the fields into Strings: a route that needs one
    /// field (a POST's `Content-Type`) skipped ≈ 2.8k instructions of materializing them all.
    /// Safe from any thread holding a reference: the bytes are not written after the request
    /// is handed out (see the type's lifetimes).
    package func withFirstValue<Result>(
        named name: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        let all = UnsafeRawBufferPointer(start: bytes, count: byteCount)
        for span in UnsafeBufferPointer(start: spans, count: spanCount) where span.nameCount == name.count {
            // Every span was appended with bytes of its own counts at its offsets, inside `all`.
            let candidate = UnsafeRawBufferPointer(rebasing: all[span.nameStart..<(span.nameStart + span.nameCount)])
            guard ASCIICaseInsensitive.equal(candidate, name) else { continue }
            return body(UnsafeRawBufferPointer(rebasing: all[span.valueStart..<(span.valueStart + span.valueCount)]))
        }
        return nil
    }

    /// The fields as Strings, made on the first call and kept.
    package var headers: HTTPHeaders {
        materialized.withLock { made in
            if !made.isMade {
                made.headers.reserveCapacity(spanCount)
                add(to: &made.headers)
                made.isMade = true
                wasMaterialized.store(true, ordering: .releasing)
            }
            return made.headers
        }
    }

    private func add(to headers: inout HTTPHeaders) {
        let all = UnsafeRawBufferPointer(start: bytes, count: byteCount)
        for span in UnsafeBufferPointer(start: spans, count: spanCount) {
            // Every span was appended with bytes of its own counts at its offsets, inside `all`.
            let name = UnsafeRawBufferPointer(rebasing: all[span.nameStart..<(span.nameStart + span.nameCount)])
            let value = UnsafeRawBufferPointer(rebasing: all[span.valueStart..<(span.valueStart + span.valueCount)])
            headers.add(name: HTTPFieldName(InternedTokens.fieldName(name)), value: String(decoding: value, as: UTF8.self))
        }
    }
}
