import ExtAuthzProtocol

/// The ext_authz gRPC codec on hostile bytes: `CheckRequest` and `HealthCheckRequest` decoding
/// never traps, and is consistent with itself — a message that decodes has at most the
/// header bound, decodes the same way twice, and decodes the same when an unknown field (number
/// 15, length-delimited, which no message on the path declares) is appended, as the protobuf
/// rules for unknown fields require.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCheckRequest(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    _ = try? HealthCheckMessages.service(serialized: bytes[...])
    guard let request = try? CheckRequestMessage(serialized: bytes[...]) else { return 0 }
    guard request.headers.count <= CheckRequestMessage.maxHeaderCount else {
        fatalError("\(request.headers.count) headers past the bound \(CheckRequestMessage.maxHeaderCount)")
    }
    guard (try? CheckRequestMessage(serialized: bytes[...])) == request else { fatalError("decoded differently twice") }
    let extended = bytes + [0x7A, 0x02, 0x41, 0x42]  // field 15, wire type 2, "AB"
    guard (try? CheckRequestMessage(serialized: extended[...])) == request else {
        fatalError("an unknown trailing field changed the decoding")
    }
    return 0
}
