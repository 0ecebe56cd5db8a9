import JSONSupport
import NavigationPolicy
import TestSelection
import Testing

@testable import PolicyService

/// `server.connectionMemoryLimitBytes` below what a head at the documented limits needs
/// is refused when the config compiles (validate, serve and reload share this compiler).
@Suite("connection memory minimum", .tags(.sanitizerRelevant))
struct ConnectionMemoryMinimumTests {
    private func compile(pool: Int) throws(ConfigError) -> CompiledPolicy {
        let document = """
            {"defaultDecision": "allow", "server": {"connectionMemoryLimitBytes": \(pool)},
             "handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}]}
            """
        return try ServerSettings.compiler.compile(Array(document.utf8))
    }

    @Test("16 KiB, which cannot hold an 8192-byte target plus 16384 bytes of fields, is refused")
    func belowMinimumRefused() {
        do {
            _ = try compile(pool: 16_384)
            Issue.record("a 16 KiB pool compiled")
        } catch {
            let text = "\(error)"
            #expect(text.contains("connectionMemoryLimitBytes"), "\(text)")
            #expect(text.contains("minimum 32768"), "\(text)")
        }
    }

    @Test("the default and the minimum itself are accepted")
    func minimumAccepted() throws {
        let policy = try compile(pool: ServerSettings.minimumConnectionMemoryBytes)
        #expect(ServerSettings.from(policy).connectionMemoryLimitBytes == 32_768)
    }
}
