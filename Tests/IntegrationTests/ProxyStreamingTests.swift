import Foundation
import TestSelection
import Testing

/// Runs curl to completion; the exit status tells a cut body (18, 56) from a whole one.
private func curlExit(_ arguments: [String]) throws -> BinaryRunner.Result {
    try BinaryRunner.run(["-s", "-g"] + arguments, executable: URL(fileURLWithPath: "/usr/bin/curl"))
}

/// A `/proc/PID/status` figure in bytes (`VmRSS`, `VmHWM`).
private func memoryFigure(_ name: String, of process: Process) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(name + ":") })
    let kilobytes = try #require(Int(line.dropFirst(name.count + 1).filter(\.isNumber)))
    return kilobytes * 1024
}

@Suite("proxy streaming: bodies flow through, memory stays bounded", .serialized, .tags(.live, .sanitizerRelevant))
struct ProxyStreamingTests {
    @Test("a body the origin is still sending reaches the client before the origin finishes")
    func firstBytesArriveEarly() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]

        // The origin holds "last" back for 1 s, under the 1.5 s silence timeout.
        let whole = try curlExit(proxy + ["-i", origin.baseURL + "/drip?pause=1"])
        #expect(whole.status == 0)
        #expect(whole.stdout.hasSuffix("first\nlast\n"))
        #expect(whole.stdout.lowercased().contains("transfer-encoding: chunked"))

        // Stop reading after 0.5 s: only a streaming proxy has relayed "first" by then.
        let early = try curlExit(proxy + ["-N", "--max-time", "0.5", origin.baseURL + "/drip?pause=1"])
        #expect(early.status == 28)
        #expect(early.stdout == "first\n")
    }

    @Test("64 MiB pass through a fast and a stalled client without the proxy holding the body")
    func memoryStaysBounded() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        _ = try Curl.request(origin.baseURL + "/warm-up", ["-x", "127.0.0.1:\(port)"])
        let baseline = try memoryFigure("VmRSS", of: daemon.process)
        let size = 64 << 20

        let fast = try curlExit([
            "-x", "127.0.0.1:\(port)", "-o", "/dev/null", "-w", "%{size_download}", origin.baseURL + "/huge?mb=64",
        ])
        #expect(fast.stdout == "\(size)")

        // A client that stops reading: the proxy pauses the origin instead of buffering.
        let stalled = try RawConnection(port: port)
        stalled.send("GET \(origin.baseURL)/huge?mb=64 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        var received = stalled.receive(maxBytes: 65_536).count
        Thread.sleep(forTimeInterval: 1)
        let whileStalled = try memoryFigure("VmRSS", of: daemon.process)
        while true {
            let chunk = stalled.receive(maxBytes: 1 << 20)
            if chunk.isEmpty { break }
            received += chunk.count
        }
        #expect(received > size)
        #expect(received < size + 4096)

        // Buffering either body whole would add at least 64 MiB.
        let peak = try memoryFigure("VmHWM", of: daemon.process)
        #expect(whileStalled - baseline < 24 << 20, "RSS grew by \(whileStalled - baseline) bytes while stalled")
        #expect(peak - baseline < 32 << 20, "peak RSS \(peak - baseline) bytes above the baseline")
    }

    @Test("an origin that goes silent mid-body is cut after timeoutMilliseconds; the proxy keeps serving")
    func silentOriginIsCut() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]

        let cut = try curlExit(proxy + ["--max-time", "20", origin.baseURL + "/drip?pause=5"])
        #expect(cut.status == 18 || cut.status == 56, "curl exit \(cut.status)")
        #expect(cut.stdout == "first\n")
        #expect(try Curl.request(origin.baseURL + "/after", proxy).status == 200)
    }

    @Test("maxResponseBytes: a larger declared body is 502 before anything is sent; HEAD is exempt")
    func responseLimitAndHead() throws {
        let origin = try TestOrigin()
        let config = proxyTestConfig(origin: origin, proxySection: #"{"maxResponseBytes": 4096}"#)
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]

        let tooLarge = try Curl.request(origin.baseURL + "/big", proxy)
        #expect(tooLarge.status == 502)
        #expect(tooLarge.body.contains("maxResponseBytes (4096 bytes)"))
        #expect(try Curl.request(origin.baseURL + "/small", proxy).status == 200)

        // HEAD transfers no body, so the limit does not apply; the origin's length is relayed.
        let head = try Curl.request(origin.baseURL + "/huge?mb=3", proxy + ["-I"])
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "\(3 << 20)")
    }

    @Test("SIGTERM while a body is streaming: the client's body is cut and the daemon exits 0")
    func shutdownDuringStream() throws {
        let origin = try TestOrigin()
        var config = proxyTestConfig(origin: origin, proxySection: #"{"timeoutMilliseconds": 30000}"#)
        // The drain lets in-flight requests finish for 1 s; this stream would take 20.
        config.insert(contentsOf: #""server": {"drainTimeoutSeconds": 1}, "#, at: config.index(after: config.startIndex))
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        let client = try RawConnection(port: port)
        client.send("GET \(origin.baseURL)/drip?pause=20 HTTP/1.1\r\nHost: x\r\n\r\n")
        var received = String(decoding: client.receive(maxBytes: 4096), as: UTF8.self)
        if !received.contains("first") { received += String(decoding: client.receive(maxBytes: 4096), as: UTF8.self) }
        #expect(received.contains("first"))

        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 15) == 0)
        #expect(client.receive(maxBytes: 4096).isEmpty)
    }
}
