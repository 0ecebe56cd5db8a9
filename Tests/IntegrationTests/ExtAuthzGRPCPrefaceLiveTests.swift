import Foundation
import TestSelection
import Testing

/// Round h2, info 3: the h2c connection preface is the connection's head, so it gets
/// `server.headTimeoutSeconds` (it had `idleTimeoutSeconds`): a connection that sends nothing
/// gives its per-address slot back at the head deadline.
@Suite("ext_authz gRPC: the connection preface has the head deadline, live", .serialized, .tags(.live, .sanitizerRelevant))
struct ExtAuthzGRPCPrefaceLiveTests {
    @Test("a connection that sends nothing is closed after server.headTimeoutSeconds, not idleTimeoutSeconds")
    func silentConnectionClosedAtTheHeadDeadline() throws {
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""headTimeoutSeconds": 1, "idleTimeoutSeconds": 120"#))
        let silent = try RawConnection(port: port)
        // Reads until the server closes (or the test socket's own 20 s receive timeout).
        let (types, elapsed) = ExtAuthzGRPCLiveTests.framesUntilClose(silent, seconds: 30)
        #expect(types.isEmpty, "frames before any preface: \(types)")
        #expect(elapsed >= 0.8 && elapsed < 10, "closed after \(elapsed) s; headTimeoutSeconds is 1, idleTimeoutSeconds 120")
        try ExtAuthzGRPCLiveTests.stillServes(port)
        _ = daemon
    }
}
