import Dispatch
import Foundation
import HTTPServer
import Synchronization
import TestSelection
import Testing

/// Graceful shutdown and asynchronous responses.
///
/// Responders signal when a request has arrived, so shutdown starts while it is surely in
/// flight; timing-based waits are unreliable when parallel tests saturate both cores.
@Suite(.tags(.live, .sanitizerRelevant)) struct ShutdownTests {
    /// Signals `arrived`, then takes `delay` to answer.
    struct SignallingSlowResponder: HTTPResponder {
        let arrived: DispatchSemaphore
        let delay: useconds_t

        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            arrived.signal()
            usleep(delay)
            return .now(.text("slow done"))
        }
    }

    /// Runs curl on a background queue; `wait()` returns its result.
    final class BackgroundCurl: Sendable {
        private let result = Mutex<ProcessResult?>(nil)
        private let finished = DispatchSemaphore(value: 0)

        init(_ arguments: [String]) {
            DispatchQueue.global().async {
                let outcome = try? curl(arguments)
                self.result.withLock { $0 = outcome }
                self.finished.signal()
            }
        }

        func wait() -> ProcessResult? {
            finished.wait()
            return result.withLock { $0 }
        }
    }

    @Test func slowRequestInFlightFinishesDuringDrain() throws {
        let arrived = DispatchSemaphore(value: 0)
        let (server, port) = try startServer(responder: SignallingSlowResponder(arrived: arrived, delay: 600_000))
        let slow = BackgroundCurl(["-i", "http://127.0.0.1:\(port)/slow"])
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        let started = ContinuousClock.now
        server.shutdown(drainTimeout: .seconds(5))
        let elapsed = ContinuousClock.now - started
        let result = try #require(slow.wait())
        #expect(statusAndBody(result.stdout).status == 200)
        #expect(statusAndBody(result.stdout).body == "slow done")
        #expect(result.stdout.contains("Connection: close"))
        #expect(elapsed < .seconds(4), "shutdown waited for the request, not for the deadline")
        #expect(try curl(["http://127.0.0.1:\(port)/"]).exitCode != 0, "no new connections after shutdown")
    }

    /// Answers after 50 ms, except `/stuck`, which signals `arrived` and takes 20 s.
    struct DelayedResponder: HTTPResponder {
        let arrived: DispatchSemaphore

        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            let arrived = arrived
            return .later {
                if request.path == "/stuck" { arrived.signal() }
                try? await Task.sleep(for: request.path == "/stuck" ? .seconds(20) : .milliseconds(50))
                return .text("async \(request.path)")
            }
        }
    }

    /// Async, with every blocking wait off the cooperative pool: the responder runs in a
    /// `Task`, which blocked pool threads would starve when tests run in parallel.
    @Test func asyncResponderAnswersAndStuckOnesGet503OnShutdown() async throws {
        let arrived = DispatchSemaphore(value: 0)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, problemTypePrefix: testProblemTypePrefix),
            responder: DelayedResponder(arrived: arrived))
        let port = try server.start()
        #expect(try await curlOffPool(["http://127.0.0.1:\(port)/quick"]).stdout == "async /quick")
        async let stuck = curlOffPool(["-i", "http://127.0.0.1:\(port)/stuck"])
        #expect(await signalled(arrived, withinSeconds: 10))
        await offCooperativePool { server.shutdown(drainTimeout: .milliseconds(200)) }
        let result = try await stuck
        #expect(statusAndBody(result.stdout).status == 503)
        #expect(problemType(statusAndBody(result.stdout).body) == testProblemTypePrefix + "service-unavailable")
    }
}
