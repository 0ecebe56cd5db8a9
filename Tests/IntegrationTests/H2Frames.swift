import Foundation

/// Raw HTTP/2 frames for the gRPC listener's live tests: what a misbehaving client sends (a
/// stream opened and never ended, a reset, an HPACK table size update) and the frames the
/// server sends back, read off a ``RawConnection``. Header blocks use only the static HPACK
/// table and literals without indexing, so frames can be sent in any order on any connection.
enum H2Frames {
    /// The frame types and error codes the tests look for (RFC 9113 sections 6 and 7).
    static let data: UInt8 = 0x0, headers: UInt8 = 0x1, rstStream: UInt8 = 0x3, settings: UInt8 = 0x4
    static let goaway: UInt8 = 0x7
    static let noError: UInt32 = 0x0, cancel: UInt32 = 0x8, compressionError: UInt32 = 0x9
    static let enhanceYourCalm: UInt32 = 0xB

    /// The client connection preface and an empty SETTINGS frame.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(type: settings, stream: 0, payload: [])

    /// One frame: the 9-byte header and its payload.
    static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count >> 16 & 0xFF), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF), type, flags]
            + withUnsafeBytes(of: (stream & 0x7FFF_FFFF).bigEndian) { Array($0) } + payload
    }

    /// A gRPC request's HEADERS (END_HEADERS; END_STREAM when `endStream`): `:method POST`,
    /// `:scheme http`, `:path`, `:authority`, `content-type: application/grpc`. `prefix` goes
    /// first in the header block (an HPACK dynamic table size update, say).
    static func requestHeaders(stream: UInt32, path: String, endStream: Bool = false, prefix: [UInt8] = []) -> [UInt8] {
        func literal(index: UInt8, _ value: String) -> [UInt8] { [index, UInt8(value.utf8.count)] + Array(value.utf8) }
        let block =
            prefix + [0x83, 0x86] + literal(index: 0x04, path) + literal(index: 0x01, "localhost")
            + [0x0F, 0x10, 16] + Array("application/grpc".utf8)
        return frame(type: headers, flags: 0x04 | (endStream ? 0x01 : 0), stream: stream, payload: block)
    }

    /// A whole unary call on `stream`: HEADERS, then one DATA frame (END_STREAM) carrying
    /// `message` behind the gRPC 5-byte prefix.
    static func call(stream: UInt32, path: String, message: [UInt8] = []) -> [UInt8] {
        let length = UInt32(message.count)
        let prefixed = [0] + withUnsafeBytes(of: length.bigEndian) { Array($0) } + message
        return requestHeaders(stream: stream, path: path) + frame(type: data, flags: 0x01, stream: stream, payload: prefixed)
    }

    /// SETTINGS with `entries` (identifier, value), e.g. `(0x4, 0)`: SETTINGS_INITIAL_WINDOW_SIZE 0,
    /// a client that takes no response body until it sends WINDOW_UPDATE.
    static func settings(_ entries: [(UInt16, UInt32)]) -> [UInt8] {
        let payload = entries.flatMap { id, value in
            withUnsafeBytes(of: id.bigEndian) { Array($0) } + withUnsafeBytes(of: value.bigEndian) { Array($0) }
        }
        return frame(type: settings, stream: 0, payload: payload)
    }

    /// RST_STREAM with `code`.
    static func reset(stream: UInt32, code: UInt32 = cancel) -> [UInt8] {
        frame(type: rstStream, stream: stream, payload: withUnsafeBytes(of: code.bigEndian) { Array($0) })
    }

    /// A received frame.
    struct Frame {
        let type: UInt8
        let flags: UInt8
        let stream: UInt32
        let payload: ArraySlice<UInt8>

        /// The error code of a GOAWAY (after the last stream id) or an RST_STREAM.
        var errorCode: UInt32? {
            let offset = type == H2Frames.goaway ? 4 : type == H2Frames.rstStream ? 0 : -1
            guard offset >= 0, payload.count >= offset + 4 else { return nil }
            let start = payload.startIndex + offset
            return payload[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    /// The whole frames at the start of `bytes`.
    static func parse(_ bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            let stream = bytes[(offset + 5)..<(offset + 9)].reduce(0) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
            frames.append(
                Frame(
                    type: bytes[offset + 3], flags: bytes[offset + 4], stream: stream,
                    payload: bytes[(offset + 9)..<(offset + 9 + length)]))
            offset += 9 + length
        }
        return frames
    }
}

/// What one raw HTTP/2 connection has received so far, read without waiting.
final class H2Reader {
    let connection: RawConnection
    private(set) var bytes: [UInt8] = []
    private(set) var closed = false

    init(_ connection: RawConnection) { self.connection = connection }

    /// Reads what has arrived; true once the server has closed the connection.
    @discardableResult
    func poll() -> Bool {
        while !closed {
            let (chunk, peerClosed) = connection.receiveAvailable(maxBytes: 65_536)
            bytes += chunk
            if peerClosed { closed = true }
            if chunk.isEmpty { break }
        }
        return closed
    }

    /// Polls every 50 ms until `done` holds or `seconds` pass; whether it held.
    func wait(seconds: Double, until done: (H2Reader) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            poll()
            if done(self) { return true }
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The frames received so far.
    var frames: [H2Frames.Frame] { H2Frames.parse(bytes) }
}
