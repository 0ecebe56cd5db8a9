import TestSelection
import Testing

@testable import HTTPServer

/// The per-request call sequence and body limits, without sockets.
@Suite(.tags(.inProcess)) struct RequestStateMachineTests {
    @Test func eachHandlerCallIsInterpretedByTheMachine() {
        var machine = RequestStateMachine(maxBodyBytes: 10)
        let none: [UInt8] = []
        #expect(machine.handlerCalled(withUpload: none) == .readHead)
        // Until the head is reported, another call still asks for it.
        #expect(machine.handlerCalled(withUpload: none) == .readHead)
        #expect(machine.headersReceived(problem: nil, declaredContentLength: 3) == .readMore)
        #expect(machine.handlerCalled(withUpload: Array("abc".utf8)) == .readMore)
        #expect(machine.handlerCalled(withUpload: none) == .respond(body: Array("abc".utf8)))
        #expect(machine.handlerCalled(withUpload: none) == .ignore)
        machine.suspended()
        #expect(machine.handlerCalled(withUpload: none) == .ignore)
        machine.resumed(with: HTTPResponse(status: 204))
        #expect(machine.handlerCalled(withUpload: none) == .send(HTTPResponse(status: 204)))
        #expect(machine.handlerCalled(withUpload: none) == .ignore)
    }

    @Test func anOversizedChunkedBodyIsAnsweredOnTheFinalCall() {
        var machine = RequestStateMachine(maxBodyBytes: 2, discardLimitBytes: 10)
        _ = machine.handlerCalled(withUpload: [UInt8]())
        _ = machine.headersReceived(problem: nil, declaredContentLength: nil)
        #expect(machine.handlerCalled(withUpload: [1, 2, 3]) == .readMore)
        #expect(machine.handlerCalled(withUpload: [UInt8]()) == .reject(.payloadTooLarge(limit: 2)))
    }

    @Test func bodylessRequestRespondsOnTheFinalCallNotTheFirst() {
        var machine = RequestStateMachine(maxBodyBytes: 10)
        #expect(machine.headersReceived(problem: nil, declaredContentLength: nil) == .readMore)
        #expect(machine.requestEnded() == .respond(body: []))
        machine.responseSent()
        #expect(machine.state == .finished)
        #expect(machine.requestEnded() == .ignore)
    }

    @Test func chunksAccumulateInOrder() {
        var machine = RequestStateMachine(maxBodyBytes: 10)
        _ = machine.headersReceived(problem: nil, declaredContentLength: 6)
        #expect(machine.bodyReceived(Array("abc".utf8)) == .readMore)
        #expect(machine.bodyReceived(Array("def".utf8)) == .readMore)
        #expect(machine.requestEnded() == .respond(body: Array("abcdef".utf8)))
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() {
        var machine = RequestStateMachine(maxBodyBytes: 4)
        #expect(machine.headersReceived(problem: nil, declaredContentLength: 4) == .readMore)
        #expect(machine.bodyReceived([1, 2, 3, 4]) == .readMore)
        #expect(machine.requestEnded() == .respond(body: [1, 2, 3, 4]))
    }

    @Test func declaredLengthOverTheLimitIsRejectedBeforeReading() {
        var machine = RequestStateMachine(maxBodyBytes: 4)
        guard case .reject(let problem) = machine.headersReceived(problem: nil, declaredContentLength: 5) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(problem.status == 413)
        #expect(problem.kind == "payload-too-large")
        #expect(machine.bodyReceived([1]) == .ignore)
    }

    @Test func chunkedBodyOverTheLimitIsDiscardedThenAnswered413() {
        var machine = RequestStateMachine(maxBodyBytes: 4, discardLimitBytes: 10)
        _ = machine.headersReceived(problem: nil, declaredContentLength: nil)
        #expect(machine.bodyReceived([1, 2, 3]) == .readMore)
        #expect(machine.bodyReceived([4, 5, 6]) == .readMore)
        #expect(machine.state == .discardingBody(discarded: 2))
        #expect(machine.bodyReceived([7, 8]) == .readMore)
        #expect(machine.requestEnded() == .reject(.payloadTooLarge(limit: 4)))
    }

    @Test func endlessOversizedBodyAbortsTheConnection() {
        var machine = RequestStateMachine(maxBodyBytes: 4, discardLimitBytes: 10)
        _ = machine.headersReceived(problem: nil, declaredContentLength: nil)
        #expect(machine.bodyReceived(Array(repeating: 0, count: 8)) == .readMore)
        #expect(machine.bodyReceived(Array(repeating: 0, count: 8)) == .abortConnection)
        #expect(machine.state == .finished)
    }

    @Test func headerProblemIsRejectedImmediately() {
        var machine = RequestStateMachine(maxBodyBytes: 4)
        let problem = ProblemDetails.badRequest(kind: "duplicate-host", detail: "x")
        #expect(machine.headersReceived(problem: problem, declaredContentLength: 1) == .reject(problem))
        #expect(machine.requestEnded() == .ignore)
    }

    @Test func suspendedRequestSendsTheResponseAfterResume() {
        var machine = RequestStateMachine(maxBodyBytes: 4)
        _ = machine.headersReceived(problem: nil, declaredContentLength: nil)
        _ = machine.requestEnded()
        machine.suspended()
        #expect(machine.handlerCalledAfterResume() == .ignore)
        machine.resumed(with: .text("ok"))
        #expect(machine.handlerCalledAfterResume() == .send(.text("ok")))
        #expect(machine.state == .finished)
    }

    @Test func zeroLimitAcceptsOnlyEmptyBodies() {
        var machine = RequestStateMachine(maxBodyBytes: 0)
        #expect(machine.headersReceived(problem: nil, declaredContentLength: 0) == .readMore)
        #expect(machine.requestEnded() == .respond(body: []))
    }
}
