import JSONSupport

/// What the last exported call produced, for JavaScript to read out of linear memory: a
/// decision or a policy's description as JSON, or a failure's JSON object.
///
/// One buffer, reused and grown: a call returns only a status, and JavaScript reads the bytes
/// at ``pointer`` (``count`` of them) before its next call into the module.
enum CallResult {
    // The module is single-threaded (one WebAssembly instance, one JavaScript thread).
    nonisolated(unsafe) private static var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    nonisolated(unsafe) private(set) static var count = 0
    /// The writer every call renders into; reusing it keeps a decision free of buffer allocations.
    nonisolated(unsafe) static var writer = JSONWriter(reservingCapacity: 4096)

    static var pointer: UnsafeRawPointer? { UnsafeRawPointer(storage.baseAddress) }

    /// Makes ``writer``'s bytes the result, and clears the writer for the next call.
    static func publishWriter() {
        writer.bytes.withUnsafeBytes { publish($0) }
        writer.removeAll()
    }

    /// Makes a copy of `bytes` the result.
    static func publish(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > storage.count {
            storage.deallocate()
            storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        }
        if let source = bytes.baseAddress, let target = storage.baseAddress {
            target.copyMemory(from: source, byteCount: bytes.count)
        }
        count = bytes.count
    }

    /// Makes `value`, serialized, the result.
    static func publish(_ value: JSONValue) {
        writer.removeAll()
        writer.write(value)
        publishWriter()
    }
}
