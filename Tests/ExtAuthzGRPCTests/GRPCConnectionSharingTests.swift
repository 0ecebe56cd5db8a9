import Testing

@testable import GRPCServer

/// How the gRPC listener takes the `server` section's connection limits under its thread cap.
@Suite("gRPC connection sharing")
struct GRPCConnectionSharingTests {
    static func shared(total: Int, perAddress: Int, perSubnet: Int) -> (Int, Int, Int) {
        var configuration = GRPCServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shareConnections(total: total, perAddress: perAddress, perSubnet: perSubnet)
        return (
            configuration.connectionLimit, configuration.perAddressConnectionLimit,
            configuration.perSubnetConnectionLimit
        )
    }

    @Test("the defaults (4096 / 256 / 1024) under the 1024-thread cap: a network gets half, an address a quarter")
    func defaultsUnderTheCap() {
        // Before issue 38: 1024 in total and 256 per address, no network share: four
        // addresses filled the listener.
        #expect(Self.shared(total: 4096, perAddress: 256, perSubnet: 1024) == (1024, 256, 512))
    }

    @Test("limits below the cap are kept as configured")
    func limitsBelowTheCap() {
        #expect(Self.shared(total: 64, perAddress: 8, perSubnet: 32) == (64, 8, 32))
        #expect(Self.shared(total: 16, perAddress: 4, perSubnet: 8) == (16, 4, 8))
        #expect(Self.shared(total: 2000, perAddress: 100, perSubnet: 900) == (1024, 100, 900))
    }

    @Test("a per-address limit the cap leaves at or above the total becomes a quarter of it, never above the network's")
    func perAddressAboveTheCap() {
        #expect(Self.shared(total: 8000, perAddress: 2000, perSubnet: 4000) == (1024, 256, 512))
        #expect(Self.shared(total: 8000, perAddress: 700, perSubnet: 600) == (1024, 600, 600))
    }

    @Test("0 turns a limit off as on the HTTP listeners: no per-address limit is the total, no network share stays off")
    func zeroTurnsLimitsOff() {
        #expect(Self.shared(total: 4096, perAddress: 0, perSubnet: 0) == (1024, 1024, 0))
        #expect(Self.shared(total: 100, perAddress: 0, perSubnet: 40) == (100, 40, 40))
    }
}
