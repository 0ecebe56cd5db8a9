import TestSelection
import Testing

@testable import PolicyProxy

/// The proxied body's buffer and backpressure, driven event by event without libcurl or sockets.
@Suite("body relay state machine", .tags(.sanitizerRelevant))
struct BodyRelayStateMachineTests {
    private func offer(_ machine: inout BodyRelayStateMachine, _ bytes: [UInt8]) -> BodyRelayStateMachine.ReceiveAction {
        bytes.withUnsafeBytes { machine.receive($0) }
    }

    private func read(_ machine: inout BodyRelayStateMachine, upTo count: Int) -> (BodyRelayStateMachine.ReadAction, [UInt8]) {
        var destination = [UInt8](repeating: 0, count: count)
        let action = destination.withUnsafeMutableBytes { machine.read(into: $0) }
        if case .copied(let copied, _) = action { return (action, Array(destination.prefix(copied))) }
        return (action, [])
    }

    @Test("bytes pass through in order; the end comes after the last byte")
    func passThrough() {
        var machine = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        #expect(offer(&machine, [1, 2, 3]) == .take(wakeReader: false))
        #expect(offer(&machine, [4]) == .take(wakeReader: false))
        #expect(machine.finish(.complete) == false)
        let first = read(&machine, upTo: 2)
        #expect(first.0 == .copied(count: 2, resumeTransfer: false) && first.1 == [1, 2])
        #expect(read(&machine, upTo: 10).1 == [3, 4])
        #expect(read(&machine, upTo: 10).0 == .end)
    }

    @Test("a reader that found nothing is woken once by the next bytes or by the end")
    func wakesWaitingReader() {
        var machine = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        #expect(read(&machine, upTo: 4).0 == .wait)
        #expect(offer(&machine, [1]) == .take(wakeReader: true))
        #expect(offer(&machine, [2]) == .take(wakeReader: false))
        #expect(read(&machine, upTo: 4).1 == [1, 2])
        #expect(read(&machine, upTo: 4).0 == .wait)
        #expect(machine.finish(.failed) == true)
        #expect(machine.finish(.complete) == false)
        #expect(machine.end == .failed)
        #expect(read(&machine, upTo: 4).0 == .failed)
    }

    @Test("at highWater the transfer pauses; the reader resumes it once, at lowWater or below")
    func backpressure() {
        var machine = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        #expect(offer(&machine, Array(0..<8)) == .take(wakeReader: false))
        #expect(offer(&machine, [8]) == .pauseTransfer)
        #expect(machine.isPaused && machine.unread == 8)
        #expect(read(&machine, upTo: 3).0 == .copied(count: 3, resumeTransfer: false))
        #expect(read(&machine, upTo: 3).0 == .copied(count: 3, resumeTransfer: true))
        #expect(!machine.isPaused && machine.unread == 2)
        #expect(read(&machine, upTo: 1).0 == .copied(count: 1, resumeTransfer: false))
        // The offered bytes were not taken when paused: libcurl offers them again.
        #expect(offer(&machine, [8]) == .take(wakeReader: false))
        #expect(read(&machine, upTo: 8).1 == [7, 8])
    }

    @Test("closing drops the buffer, cancels a running transfer and aborts later writes")
    func close() {
        var running = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        #expect(offer(&running, [1, 2]) == .take(wakeReader: false))
        #expect(running.close() == true)
        #expect(running.unread == 0)
        #expect(offer(&running, [3]) == .abortTransfer)
        var finished = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        _ = finished.finish(.complete)
        #expect(finished.close() == false)
    }

    @Test("the complete body is handed over whole only after a complete end")
    func completeBody() {
        var machine = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        #expect(offer(&machine, [1, 2, 3]) == .take(wakeReader: false))
        #expect(machine.takeCompleteBody() == nil)
        _ = read(&machine, upTo: 1)
        _ = machine.finish(.complete)
        #expect(machine.takeCompleteBody() == [2, 3])
        #expect(read(&machine, upTo: 4).0 == .end)
        var failed = BodyRelayStateMachine(highWater: 8, lowWater: 2)
        _ = failed.finish(.failed)
        #expect(failed.takeCompleteBody() == nil)
    }
}
