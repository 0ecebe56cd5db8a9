import Foundation
import TestSelection
import Testing

/// Origins that fail mid-answer (issue 12, upstream faults): the client gets a clean 502/504
/// or a cut connection, never a mended answer and never bytes meant for another request; the
/// proxy keeps serving afterwards on a clean connection.
@Suite("proxy: upstream faults", .serialized, .tags(.live, .sanitizerRelevant))
struct UpstreamFaultTests {
    /// Sends one request through the proxy on its own connection and reads until it closes.
    func exchange(proxyPort: Int, url: String) throws -> (status: Int, declaredLength: Int?, body: [UInt8]) {
        let connection = try RawConnection(port: proxyPort)
        connection.send("GET \(url) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        var data: [UInt8] = []
        while true {
            let chunk = connection.receive(maxBytes: 65_536)
            if chunk.isEmpty { break }
            data += chunk
        }
        guard let headEnd = data.firstRange(of: Array("\r\n\r\n".utf8)) else { return (0, nil, []) }
        let head = String(decoding: data[..<headEnd.lowerBound], as: UTF8.self).lowercased()
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
        return (status, length, Array(data[headEnd.upperBound...]))
    }

    @Test("reset mid-body, a body shorter than its Content-Length, an origin that never answers: 502/504 or a cut")
    func brokenAnswers() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        for (path, filler) in [("/reset-mid-body", UInt8(ascii: "a")), ("/short-body", UInt8(ascii: "b"))] {
            let answer = try exchange(proxyPort: port, url: origin.baseURL + path)
            if answer.status == 200 {
                // Streaming had begun: the only honest end is a cut, short of the declared length.
                let declared = try #require(answer.declaredLength, "\(path): a relayed 200 keeps its framing")
                #expect(answer.body.count < declared, "\(path): the cut body must not look complete")
                #expect(answer.body.allSatisfy { $0 == filler }, "\(path): only the origin's own bytes")
            } else {
                #expect(answer.status == 502, "\(path): \(answer.status)")
            }
            // The next request is answered whole, by its own response.
            let after = try Curl.request(origin.baseURL + "/after\(path)", ["-x", "127.0.0.1:\(port)"])
            #expect(after.status == 200)
            #expect(after.body.contains("origin /after\(path)"))
        }
        let silent = try exchange(proxyPort: port, url: origin.baseURL + "/slow")
        #expect(silent.status == 504)
    }

    @Test("an origin that sends 100 Continue twice: the final answer is relayed alone, or 502")
    func doubleContinue() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        let answer = try exchange(proxyPort: port, url: origin.baseURL + "/double-continue")
        if answer.status == 200 {
            #expect(String(decoding: answer.body, as: UTF8.self) == "after-continues")
        } else {
            #expect(answer.status == 502, "\(answer.status)")
        }
        let after = try Curl.request(origin.baseURL + "/after", ["-x", "127.0.0.1:\(port)"])
        #expect(after.body.contains("origin /after"))
    }
}
