import Foundation
import TestSelection
import Testing

@testable import NavpolicydCommands

/// Signals that arrive while the daemon starts are kept, not dropped and not acted on early.
@Suite("StartupSignals", .tags(.sanitizerRelevant))
struct StartupSignalsTests {
    @Test("a stop during the start is kept for markRunning; after it, signals are handled at once")
    func stopDuringStart() {
        let startup = StartupSignals()
        #expect(startup.stopRequested(SIGTERM) == .deferred)
        #expect(startup.stopRequested(SIGINT) == .deferred)
        #expect(startup.reloadRequested() == .deferred)
        let pending = startup.markRunning()
        #expect(pending.stopSignal == SIGTERM)
        #expect(pending.reloadPending)
        #expect(startup.stopRequested(SIGINT) == .handleNow)
        #expect(startup.reloadRequested() == .handleNow)
    }

    @Test("nothing arrived: markRunning reports nothing")
    func quietStart() {
        let pending = StartupSignals().markRunning()
        #expect(pending.stopSignal == nil)
        #expect(!pending.reloadPending)
    }
}
