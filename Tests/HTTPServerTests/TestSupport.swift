import Foundation
import HTTPServer
import JSONSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Responder used by the live tests.
struct TestResponder: HTTPResponder {
    func respond(to request: HTTPRequest) -> HTTPResponderResult { .now(response(for: request)) }

    private func response(for request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/echo":
            return HTTPResponse(
                status: 200, headers: HTTPHeaders([("Content-Type", "application/octet-stream")]), body: request.body)
        default:
            let query = request.queryItems.map { JSONValue.array([.string($0.name), .string($0.value)]) }
            return .json(
                .object([
                    "method": .string(request.method), "path": .string(request.path),
                    "query": .array(query), "remoteAddress": .string(request.remoteAddress),
                    "version": .string(request.httpVersion),
                ]))
        }
    }
}

/// Collects log events for assertions.
final class LogCollector: Sendable {
    private let events = Mutex<[HTTPServerLogEvent]>([])
    var logger: HTTPServerLogger { { event in self.events.withLock { $0.append(event) } } }
    var all: [HTTPServerLogEvent] { events.withLock { $0 } }

    /// Whether an event matching `predicate` arrives within `seconds` (polled every 10 ms).
    /// For events written after something a client can already observe: the connection
    /// sweep shuts a socket down first and logs the cut afterwards.
    func eventually(within seconds: Double = 5, _ predicate: (HTTPServerLogEvent) -> Bool) -> Bool {
        for _ in 0..<max(1, Int(seconds * 100)) {
            if all.contains(where: predicate) { return true }
            usleep(10_000)
        }
        return all.contains(where: predicate)
    }
}

/// The problem `type` prefix these tests give the server: a product's own URN, not
/// navpolicyd's, since the module is generic.
let testProblemTypePrefix = "urn:example:problem:"

/// Starts a server on an ephemeral loopback port.
func startServer(
    _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(port: 0, problemTypePrefix: testProblemTypePrefix),
    responder: any HTTPResponder = TestResponder(), logs: LogCollector = LogCollector()
) throws -> (server: HTTPServer, port: UInt16) {
    let server = HTTPServer(configuration: configuration, responder: responder, logger: logs.logger)
    let port = try server.start()
    return (server, port)
}

struct ProcessResult: Sendable {
    var exitCode: Int32
    var stdout: String
    var stderr: String
}

/// Runs curl with `arguments` and waits for it.
func curl(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["--silent", "--max-time", "10"] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    // Read before waiting: a full pipe would block curl forever.
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        exitCode: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: err, as: UTF8.self))
}

/// Sends raw bytes on a fresh TCP connection and returns everything read until the server
/// closes (or `timeout` passes): for requests curl refuses to send.
func rawExchange(port: UInt16, _ request: [UInt8], timeoutSeconds: Int = 3) -> String {
    rawOutcome(port: port, request, timeoutSeconds: timeoutSeconds).text
}

/// The status code and body of a raw HTTP/1.1 response.
func statusAndBody(_ response: String) -> (status: Int, body: String) {
    let statusLine = response.split(separator: "\r\n", maxSplits: 1).first ?? ""
    let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    let body = response.range(of: "\r\n\r\n").map { String(response[$0.upperBound...]) } ?? ""
    return (status, body)
}

/// The `type` member of a problem+json body, or nil.
func problemType(_ body: String) -> String? {
    (try? JSONParser().parse(body))?.objectValue?["type"]?.stringValue
}

/// A TCP socket connected to 127.0.0.1:`port` whose reads time out after `timeoutSeconds`,
/// or nil when the connection fails.
func connectedLoopbackSocket(port: UInt16, timeoutSeconds: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}

/// Runs `body` on a thread of its own and suspends until it returns.
///
/// Swift Testing runs test functions, synchronous ones included, on Swift's cooperative pool,
/// which has one thread per core (two on the CI machine). A test that blocks a pool thread in
/// a curl or semaphore wait while the server under test needs a `Task` (`.later` routes,
/// asynchronous responders) starves that task once parallel tests block the other threads
/// too, and the request times out. A dedicated thread keeps the pool free for the server.
func offCooperativePool<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        let thread = Thread {
            do throws(Failure) {
                continuation.resume(returning: .success(try body()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        thread.start()
    }
    return try outcome.get()
}

/// ``curl(_:stdin:)`` run off the cooperative pool, for tests whose server answers from a `Task`.
func curlOffPool(_ arguments: [String], stdin: Data? = nil) async throws -> ProcessResult {
    try await offCooperativePool { try curl(arguments, stdin: stdin) }
}

/// Waits up to `seconds` for `semaphore` off the cooperative pool; true when it was signalled.
func signalled(_ semaphore: DispatchSemaphore, withinSeconds seconds: Int) async -> Bool {
    await offCooperativePool { semaphore.wait(timeout: .now() + .seconds(seconds)) == .success }
}
