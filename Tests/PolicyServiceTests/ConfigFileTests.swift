import Foundation
import TestScratchSupport
import Testing

@testable import PolicyService

/// Issue 12: one size cap for config files, in the CLI and on every daemon reload.
@Suite("config file size cap")
struct ConfigFileTests {
    private static func file(_ contents: String) throws -> String {
        let path = TestScratch.root + "/config-file-tests-\(UUID().uuidString).json"
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a file of exactly the limit is read whole; one byte more is refused")
    func limitIsInclusive() throws {
        let path = try Self.file("0123456789")
        #expect(try ConfigFile.read(path, maxBytes: 10) == Array("0123456789".utf8))
        #expect(throws: ConfigFile.ReadError.tooLarge(limit: 9)) { try ConfigFile.read(path, maxBytes: 9) }
    }

    @Test("an endless source is refused after limit + 1 bytes, never read whole")
    func endlessSourceIsRefused() {
        // /dev/zero never ends: a reader that loads the whole file would not return.
        #expect(throws: ConfigFile.ReadError.tooLarge(limit: 1 << 20)) {
            try ConfigFile.read("/dev/zero", maxBytes: 1 << 20)
        }
    }

    @Test("missing files and directories get their own reasons")
    func unreadable() {
        #expect(throws: ConfigFile.ReadError.missing) { try ConfigFile.read("/nonexistent/navpolicy.json", maxBytes: 100) }
        #expect(throws: ConfigFile.ReadError.unreadable) { try ConfigFile.read(NSTemporaryDirectory(), maxBytes: 100) }
    }

    @Test("the limit: flag, else environment, else 64 MiB; anything but a positive number is an error")
    func limitResolution() throws {
        let variable = ConfigFile.environmentVariable
        #expect(try ConfigFile.maxBytes(flag: nil, environment: [:]).get() == 64 << 20)
        #expect(try ConfigFile.maxBytes(flag: nil, environment: [variable: "1000"]).get() == 1000)
        #expect(try ConfigFile.maxBytes(flag: "20", environment: [variable: "1000"]).get() == 20)
        for bad in ["0", "-1", "1e6", "64MiB", " 10"] {
            guard case .failure(let error) = ConfigFile.maxBytes(flag: bad, environment: [:]) else {
                Issue.record("accepted --max-config-bytes \(bad)")
                continue
            }
            #expect(error.message == "--max-config-bytes \(bad): expected a positive number of bytes")
        }
        guard case .failure(let error) = ConfigFile.maxBytes(flag: nil, environment: [variable: "lots"]) else {
            Issue.record("accepted \(variable)=lots")
            return
        }
        #expect(error.message.hasPrefix(variable))
    }

    @Test("a reload of a file over the limit is refused, reported, and the running policy keeps serving")
    func reloadRefusesOversizedFile() throws {
        let small = #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example"]}}]}"#
        let path = try Self.file(small)
        let initial = try PolicySnapshot.build(from: Array(small.utf8)).get()
        let store = PolicyStore(configPath: path, initial: initial, maxConfigBytes: 200)
        let padded =
            #"{"handlers":[{"name":"b","type":"cancel","match":{"hosts":["b.example"]}}],"#
            + #""description":""# + String(repeating: "x", count: 300) + #""}"#
        try padded.write(toFile: path, atomically: true, encoding: .utf8)
        let outcome = store.reload(trigger: "test")
        #expect(outcome.result == .failed)
        #expect(
            outcome.errors == [
                "\(path): is larger than the limit of 200 bytes (raise it with --max-config-bytes or NAVPOLICY_MAX_CONFIG_BYTES)"
            ])
        #expect(store.snapshot?.revision == initial.revision)
        #expect(store.lastReloadFailure?.errors == outcome.errors)
    }
}
