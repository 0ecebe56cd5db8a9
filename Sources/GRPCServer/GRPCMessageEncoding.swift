/// `grpc-message` is percent-encoded (gRPC PROTOCOL-HTTP2.md): bytes outside printable ASCII,
/// and `%` itself, become `%XX`, so any error text is a valid header value.
enum GRPCMessageEncoding {
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%") {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
