import PolicyProxy

/// The tunnel's ClientHello reader on hostile bytes: never traps, never reads past the cap, and
/// is consistent with itself — a complete reading's length is within the input, reading just
/// those bytes gives the same answer, and a name it returns is bytes the input holds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientHello(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    let reading = ClientHello.read(bytes)
    guard case .complete(let name, let length) = reading else { return 0 }
    guard length <= bytes.count, length <= ClientHello.maxBytes else {
        fatalError("complete reading of \(length) bytes from \(bytes.count) (cap \(ClientHello.maxBytes))")
    }
    guard ClientHello.read(bytes.prefix(length)) == reading else {
        fatalError("the hello's own bytes read differently")
    }
    if let name {
        let utf8 = Array(name.utf8)
        guard !utf8.isEmpty, utf8.count <= 253, bytes.indices.contains(where: { bytes[$0...].starts(with: utf8) }) else {
            fatalError("a name the input does not hold: \(name)")
        }
    }
    return 0
}
