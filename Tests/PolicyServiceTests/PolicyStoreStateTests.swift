import Foundation
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

@testable import PolicyService

/// `PolicyStore` keeps its state (snapshot, last failure, history) as one value behind one lock,
/// and puts reloads in a row with a lock of their own: what readers see and what reloads from
/// several threads (signal, file watch, HTTP) do together.
@Suite("policy store state and reload order", .tags(.sanitizerRelevant))
struct PolicyStoreStateTests {
    static let valid = #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example"]}}]}"#
    static let otherValid = #"{"handlers":[{"name":"b","type":"cancel","match":{"hosts":["b.example"]}}]}"#
    static let invalid = #"{"handlers":[{"name":"a","type":"no-such-type"}]}"#

    private static func file(_ contents: String) throws -> String {
        let path = TestScratch.root + "/policy-store-state-\(UUID().uuidString).json"
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A config that takes a while to compile (hundreds of handlers), so reloads that were not
    /// put in a row would overlap.
    static let larger =
        #"{"handlers":["#
        + (0..<400).map { #"{"name":"h\#($0)","type":"cancel","match":{"hosts":["h\#($0).example"]}}"# }
        .joined(separator: ",") + "]}"

    @Test("reloads asked for at once run one after another: exactly one applies the new file")
    func concurrentReloadsAreSerialised() throws {
        let path = try Self.file(Self.larger)
        let store = PolicyStore(configPath: path)
        let outcomes = Mutex<[PolicyStore.ReloadOutcome]>([])
        let done = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        // Threads of their own (not the 2-thread cooperative pool), released together, so the
        // reloads really overlap; readers run beside them the whole time.
        for index in 0..<16 {
            done.enter()
            Thread {
                start.wait()
                if index.isMultiple(of: 2) {
                    let outcome = store.reload(trigger: "test-\(index)")
                    outcomes.withLock { $0.append(outcome) }
                } else {
                    for _ in 0..<200 {
                        _ = store.snapshot
                        _ = store.lastReloadFailure
                        _ = store.recentReloads
                    }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<16 { start.signal() }
        done.wait()
        let results = outcomes.withLock { $0 }.map(\.result)
        // Unserialised reloads would each see no running policy and each report `reloaded`.
        #expect(results.count == 8)
        #expect(results.filter { $0 == .reloaded }.count == 1)
        #expect(results.filter { $0 == .unchanged }.count == 7)
        #expect(store.snapshot?.revision == PolicyBundle.revision(of: Array(Self.larger.utf8)))
        #expect(store.recentReloads.count == PolicyStore.reloadHistoryLength)
        #expect(store.lastReloadFailure == nil)
    }

    @Test("a failure is recorded, a later good reload clears it with the swap, and the history is newest first")
    func failureThenRecovery() throws {
        let path = try Self.file(Self.valid)
        let store = PolicyStore(configPath: path)
        #expect(store.reload(trigger: "start").result == .reloaded)
        let first = try #require(store.snapshot?.revision)

        try Self.invalid.write(toFile: path, atomically: true, encoding: .utf8)
        let failed = store.reload(trigger: "bad")
        #expect(failed.result == .failed)
        #expect(failed.revision == first)
        #expect(store.snapshot?.revision == first)
        #expect(store.lastReloadFailure?.errors == failed.errors)

        try Self.otherValid.write(toFile: path, atomically: true, encoding: .utf8)
        let recovered = store.reload(trigger: "good")
        #expect(recovered.result == .reloaded)
        #expect(recovered.previousRevision == first)
        #expect(store.snapshot?.revision == PolicyBundle.revision(of: Array(Self.otherValid.utf8)))
        #expect(store.lastReloadFailure == nil)
        #expect(store.recentReloads.map(\.outcome.trigger) == ["good", "bad", "start"])

        // More attempts than the history keeps: the oldest go.
        for index in 0..<PolicyStore.reloadHistoryLength { _ = store.reload(trigger: "again-\(index)") }
        #expect(store.recentReloads.count == PolicyStore.reloadHistoryLength)
        #expect(store.recentReloads.first?.outcome.trigger == "again-\(PolicyStore.reloadHistoryLength - 1)")
    }

    @Test("two failures in a row: each its own generation, the later one reported")
    func failureGenerations() throws {
        let path = try Self.file(Self.invalid)
        let store = PolicyStore(configPath: path)
        _ = store.reload(trigger: "one")
        let one = try #require(store.lastReloadFailure)
        _ = store.reload(trigger: "two")
        let two = try #require(store.lastReloadFailure)
        #expect(two.generation == one.generation + 1)
        #expect(store.snapshot == nil)
    }
}
