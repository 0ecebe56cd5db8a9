import NavigationPolicy
import Testing

@testable import PolicyService

/// `server.perIPConnectionLimit` and `server.perSubnetConnectionLimit`: defaults derived
/// below `connectionLimit`, explicit values checked against it with a pointer.
@Suite("connection sharing settings")
struct ConnectionSharingSettingsTests {
    private func settings(_ server: String) throws(ConfigError) -> ServerSettings {
        let document = #"{"handlers": [], "server": \#(server)}"#
        return ServerSettings.from(try ServerSettings.compiler.compile(Array(document.utf8)))
    }

    @Test(
        "defaults scale with connectionLimit and stay below it",
        arguments: [
            (4096, 256, 1024), (100_000, 256, 1024), (1024, 256, 512), (64, 16, 32), (4, 1, 2), (2, 1, 1),
        ])
    func derivedDefaults(total: Int, perIP: Int, perSubnet: Int) throws {
        let derived = try settings(#"{"connectionLimit": \#(total)}"#)
        #expect(derived.perIPConnectionLimit == perIP)
        #expect(derived.perSubnetConnectionLimit == perSubnet)
        #expect(derived.perIPConnectionLimit < total && derived.perSubnetConnectionLimit < total)
    }

    @Test("the section's absence gives 4096 / 256 / 1024")
    func plainDefaults() throws {
        let plain = try settings("{}")
        #expect(plain.connectionLimit == 4096 && plain.perIPConnectionLimit == 256 && plain.perSubnetConnectionLimit == 1024)
        #expect(plain == ServerSettings(), "the decoded defaults are the struct's")
    }

    @Test("an explicit per-address limit raises the derived network limit; 0 turns both off")
    func explicitPerIP() throws {
        #expect(try settings(#"{"perIPConnectionLimit": 2000}"#).perSubnetConnectionLimit == 2000)
        let open = try settings(#"{"perIPConnectionLimit": 0}"#)
        #expect(open.perIPConnectionLimit == 0 && open.perSubnetConnectionLimit == 0)
        #expect(try settings(#"{"perIPConnectionLimit": 0, "perSubnetConnectionLimit": 500}"#).perSubnetConnectionLimit == 500)
    }

    @Test(
        "unfair limits are refused at their pointer",
        arguments: [
            (#"{"connectionLimit": 64, "perIPConnectionLimit": 64}"#, "/server/perIPConnectionLimit"),
            (#"{"connectionLimit": 64, "perIPConnectionLimit": 100}"#, "/server/perIPConnectionLimit"),
            (#"{"perSubnetConnectionLimit": 4096}"#, "/server/perSubnetConnectionLimit"),
            (#"{"perIPConnectionLimit": 300, "perSubnetConnectionLimit": 299}"#, "/server/perIPConnectionLimit"),
            (#"{"perSubnetConnectionLimit": -1}"#, "/server/perSubnetConnectionLimit"),
            (#"{"connectionLimit": 1}"#, "/server/connectionLimit"),
        ])
    func refused(server: String, pointer: String) {
        do {
            _ = try settings(server)
            Issue.record("\(server) compiled")
        } catch {
            #expect("\(error)".contains(pointer), "\(error)")
        }
    }

    @Test("the admin listener keeps its own small limits whatever the API listener's are")
    func adminLimits() {
        #expect(PolicyDaemon.adminPerIPConnectionLimit < PolicyDaemon.adminPerSubnetConnectionLimit)
        #expect(PolicyDaemon.adminPerSubnetConnectionLimit < PolicyDaemon.adminConnectionLimit)
    }
}
