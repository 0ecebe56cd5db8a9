/// The bytes of a compiled policy image, kept alive for as long as any table reads them.
///
/// The core does no I/O: a front end maps the file (or reads it, or decodes it from a bundle)
/// and hands the bytes over with what releases them (`munmap`, `deallocate`). Every table of a
/// loaded policy holds this object, so the mapping lives exactly as long as the policy.
public final class PolicyImageBytes: @unchecked Sendable {
    // Unchecked: the buffer is never written after init, and `release` runs once, in deinit.
    /// The image, read-only.
    public let buffer: UnsafeRawBufferPointer
    private let release: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Wraps bytes owned elsewhere; `release` is called once when the last reader is gone.
    public init(buffer: UnsafeRawBufferPointer, release: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.buffer = buffer
        self.release = release
    }

    /// A private copy of `bytes` (bundles, tests, and a file that could not be mapped).
    public convenience init(copying bytes: some Collection<UInt8>) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        // One memcpy for contiguous bytes: called from another module this init is not
        // specialized, and the generic element-by-element copy took 3 of the 4.7 s
        // `bench --client` spent loading a 27 MB compiled bundle.
        let copied = bytes.withContiguousStorageIfAvailable { source -> Bool in
            storage.copyMemory(from: UnsafeRawBufferPointer(source))
            return true
        }
        if copied == nil { _ = storage.initializeMemory(as: UInt8.self, from: bytes) }
        // The window starts at the allocation, so its base address is what `deallocate` needs.
        self.init(buffer: UnsafeRawBufferPointer(rebasing: storage[0..<bytes.count])) { window in
            window.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
        }
    }

    deinit { release(buffer) }

    var count: Int { buffer.count }
}
