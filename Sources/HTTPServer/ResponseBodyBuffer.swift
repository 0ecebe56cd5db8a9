import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A keep-alive connection's reusable storage for response bodies, lent to libmicrohttpd
/// instead of letting it `malloc` a copy of every body (`MHD_RESPMEM_MUST_COPY`).
///
/// Lifetimes: the bytes are lent to exactly one MHD response at a time. `lend(_:)` takes the
/// buffer (an atomic flag) before writing into it and hands MHD a retained reference as the
/// response's free-callback argument; MHD calls that callback when it destroys the response
/// (after the last byte was sent, when the connection closes, or at once if the response is
/// never queued), which gives the buffer back and releases the reference. So the storage is
/// never overwritten while MHD may still send from it, whatever the connection does next
/// (suspension and resumption, HEAD, a failed queue, a close), and it is never freed while MHD
/// still holds it, even after the connection's context is gone. If the buffer is still lent
/// (it cannot be in MHD 0.9.75, which destroys a connection's response before it calls the
/// access handler for the next request, but nothing here depends on that), the caller falls
/// back to a copying response.
///
/// `@unchecked Sendable`: the free callback may run on another thread (daemon shutdown);
/// the storage is written only by the holder of the flag (acquire), and given back only by
/// MHD's callback after its last read (release).
final class ResponseBodyBuffer: @unchecked Sendable {
    /// Bodies larger than this are copied by MHD as before: a connection should not hold a
    /// large buffer for the rare big answer.
    static let largestLentBody = 16 * 1024

    private let isLent = Atomic<Bool>(false)
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0

    deinit { free(storage) }

    /// An MHD response (owned by the caller) whose body is a copy of `body` in this buffer,
    /// or nil when the buffer is lent, the body is empty or too large, or memory ran out: then
    /// the caller creates a copying response.
    func lend(_ body: [UInt8]) -> OpaquePointer? {
        guard !body.isEmpty, body.count <= Self.largestLentBody else { return nil }
        guard isLent.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return nil
        }
        guard let destination = reserve(body.count) else {
            isLent.store(false, ordering: .releasing)
            return nil
        }
        body.withUnsafeBytes { source in
            destination.copyMemory(from: source.baseAddress ?? UnsafeRawPointer(destination), byteCount: source.count)
        }
        let lentReference = Unmanaged.passRetained(self).toOpaque()
        guard
            let response = MHD_create_response_from_buffer_with_free_callback_cls(
                body.count, destination, mhdResponseBodyReturned, lentReference)
        else {
            // MHD did not take the reference, so its callback will not run.
            mhdResponseBodyReturned(lentReference)
            return nil
        }
        return response
    }

    /// Storage for at least `count` bytes; only called while this buffer is taken.
    private func reserve(_ count: Int) -> UnsafeMutableRawPointer? {
        if let storage, capacity >= count { return storage }
        // Round up so that bodies that vary a little (decisions) do not reallocate each time.
        let rounded = max(512, (count + 511) & ~511)
        free(storage)
        storage = malloc(rounded)
        capacity = storage == nil ? 0 : rounded
        return storage
    }

    /// MHD is done with the response that borrowed the bytes.
    fileprivate func returned() {
        isLent.store(false, ordering: .releasing)
    }
}

/// MHD's free callback for lent bodies: gives the buffer back and drops MHD's reference.
private let mhdResponseBodyReturned: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    let buffer = Unmanaged<ResponseBodyBuffer>.fromOpaque(pointer)
    buffer.takeUnretainedValue().returned()
    buffer.release()
}
