import Foundation
import HTTPServer
import Synchronization
import TestSelection
import Testing

/// One responder answering some routes on the worker thread and others after a suspension,
/// and body limits chosen per path.
@Suite(.tags(.live, .sanitizerRelevant)) struct RoutingResponderTests {
    /// `/later/...` answers after 20 ms from a task; everything else at once with the body size.
    final class MixedResponder: HTTPResponder {
        let laterCalls = Atomic<Int>(0)

        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            guard request.path.hasPrefix("/later") else { return .now(.text("now \(request.body.count)")) }
            laterCalls.add(1, ordering: .relaxed)
            return .later {
                try? await Task.sleep(for: .milliseconds(20))
                return .text("later \(request.path)")
            }
        }
    }

    /// Async, with curl off the cooperative pool: the `.later` routes answer from a `Task`,
    /// which a blocked pool thread would starve when tests run in parallel.
    @Test func nowAndLaterRoutesShareOneServer() async throws {
        let responder = MixedResponder()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, problemTypePrefix: testProblemTypePrefix), responder: responder
        )
        let port = try server.start()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        #expect(try await curlOffPool(["http://127.0.0.1:\(port)/fast"]).stdout == "now 0")
        #expect(try await curlOffPool(["http://127.0.0.1:\(port)/later/1"]).stdout == "later /later/1")
        // Keep-alive across a suspended request and a synchronous one on the same connection.
        let both = try await curlOffPool(["http://127.0.0.1:\(port)/later/2", "http://127.0.0.1:\(port)/fast"])
        #expect(both.stdout == "later /later/2now 0")
        #expect(responder.laterCalls.load(ordering: .relaxed) == 2)
    }

    @Test func bodyLimitsApplyPerPath() throws {
        let configuration = HTTPServerConfiguration(
            port: 0, maxBodyBytes: 100, bodyLimitsByPath: ["/upload": 10_000], problemTypePrefix: testProblemTypePrefix)
        let server = HTTPServer(configuration: configuration, responder: MixedResponder())
        let port = try server.start()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let body = Data(repeating: 0x61, count: 5_000)
        let upload = try curl(["--data-binary", "@-", "http://127.0.0.1:\(port)/upload?x=1"], stdin: body)
        #expect(upload.stdout == "now 5000")
        let other = try curl(["-i", "--data-binary", "@-", "http://127.0.0.1:\(port)/other"], stdin: body)
        #expect(statusAndBody(other.stdout).status == 413)
        let tooBig = try curl(["-i", "--data-binary", "@-", "http://127.0.0.1:\(port)/upload"], stdin: Data(count: 20_000))
        #expect(statusAndBody(tooBig.stdout.replacingOccurrences(of: "HTTP/1.1 100 Continue\r\n\r\n", with: "")).status == 413)
    }
}
