import Foundation

/// Runs curl against a daemon, as the README tells users to.
enum Curl {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        }
    }

    /// `curl -s -g -i ARGS URL` (`-g`: brackets in URLs are data, not globs), parsed into status, last response's headers (lower-cased names) and body.
    static func request(_ url: String, _ arguments: [String] = []) throws -> Response {
        let output = try standardOutput(of: "/usr/bin/curl", ["-s", "-g", "-i", "--max-time", "20"] + arguments + [url])
        return parse(output)
    }

    /// Runs a program to completion and returns what it wrote to stdout (stderr is dropped).
    static func standardOutput(of executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func parse(_ raw: String) -> Response {
        var rest = Substring(raw)
        var status = 0
        var headers: [String: String] = [:]
        // Skip interim responses (100 Continue) by taking the last head before the body.
        while let headEnd = rest.range(of: "\r\n\r\n") {
            let head = rest[..<headEnd.lowerBound]
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/") else { break }
            status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
            headers = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            rest = rest[headEnd.upperBound...]
            if status != 100 { break }
        }
        return Response(status: status, headers: headers, body: String(rest))
    }
}

/// A raw TCP client for requests curl refuses to send (conflicting framing, duplicate Host,
/// slow uploads).
final class RawConnection {
    private let socket: Int32

    /// A connection to 127.0.0.1:`port`, from `source` when given (any 127.0.0.0/8 address
    /// works on Linux: how the live tests play clients of other addresses and networks).
    init(port: Int, source: String? = nil) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw DaemonError("socket() failed") }
        self.socket = socket
        if let source, Self.withAddress(source, { bind(socket, $0, $1) }) != 0 {
            throw DaemonError("bind(\(source)) failed: errno \(errno)")
        }
        guard Self.withAddress("127.0.0.1", port: port, { connect(socket, $0, $1) }) == 0 else {
            throw DaemonError("connect() failed")
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(socket) }

    /// Calls `body` (`bind`, `connect`) with the IPv4 address `host`:`port`.
    private static func withAddress(
        _ host: String, port: Int = 0, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    func send(_ text: String) {
        send(bytes: Array(text.utf8))
    }

    /// Sends raw bytes (binary protocols: HTTP/2 frames).
    func send(bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if result <= 0 { return }
            sent += result
        }
    }

    /// What has arrived, without waiting, and whether the peer has closed.
    func receiveAvailable(maxBytes: Int) -> (bytes: [UInt8], closed: Bool) {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 { return (Array(buffer[..<count]), false) }
        return ([], count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
    }

    /// One `recv` of at most `maxBytes`; empty when the peer closed (or after the timeout).
    func receive(maxBytes: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[..<count]) : []
    }

    /// Reads until the peer closes or a complete response with Content-Length has arrived.
    func receiveResponse() -> Curl.Response {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[..<count])
            let text = String(decoding: data, as: UTF8.self)
            if let headEnd = text.range(of: "\r\n\r\n") {
                let head = text[..<headEnd.lowerBound].lowercased()
                if let lengthLine = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                    text[headEnd.upperBound...].utf8.count >= length
                {
                    break
                }
            }
        }
        return Curl.parse(String(decoding: data, as: UTF8.self))
    }
}
