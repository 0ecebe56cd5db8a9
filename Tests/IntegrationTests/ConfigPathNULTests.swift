import Foundation
import Testing

/// Issue 38, item 14: a config path with `\u0000` passed `validate`, though the C library
/// reads it cut at the NUL (`/run/token\u0000.bak` opens `/run/token`). Every path-valued
/// field is refused at its JSON pointer, through the binary.
@Suite("config paths with NUL, through the binary")
struct ConfigPathNULTests {
    static let config = #"""
        {"handlers": [], "server": {"adminTokenFile": "/run/token\u0000.bak",
         "bundle": {"signingKeyFile": "/run/key.pem\u0000x"}},
         "intake": {"database": "/var/lib/x.db\u0000y", "tokenFile": "/run/t\u0000"}}
        """#

    @Test("validate refuses a NUL in every path field, with its pointer, exit 1")
    func refused() throws {
        let path = try BinaryRunner.temporaryFile(Self.config)
        let text = try BinaryRunner.run(["validate", "--config", path])
        #expect(text.status == 1, "\(text.stdout)")
        for pointer in ["/server/adminTokenFile", "/server/bundle/signingKeyFile", "/intake/database", "/intake/tokenFile"] {
            #expect(text.stderr.contains(pointer + ":"), "\(pointer): \(text.stderr)")
        }
        #expect(text.stderr.contains("a path cannot contain NUL"), "\(text.stderr)")
        let json = try BinaryRunner.run(["validate", "--config", path, "--format", "json"])
        #expect(json.status == 1)
        #expect(json.stdout.contains(#""pointer":"/server/adminTokenFile""#), "\(json.stdout)")
        #expect(json.stdout.contains(#""pointer":"/server/bundle/signingKeyFile""#), "\(json.stdout)")
    }
}
