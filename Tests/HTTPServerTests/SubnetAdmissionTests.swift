import TestSelection
import Testing

@testable import HTTPServer

/// The per-network share of the connection limit, without sockets: which addresses share a
/// budget, and that a network at its limit is refused until one of its connections closes.
@Suite("subnet admission", .tags(.inProcess))
struct SubnetAdmissionTests {
    static func ipv6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] } }

    @Test("IPv4 addresses share their /24; a mapped IPv6 address is its IPv4 /24")
    func ipv4Subnets() throws {
        let a = try #require(ClientSubnet(family: 4, bytes: [192, 0, 2, 1]))
        let b = try #require(ClientSubnet(family: 4, bytes: [192, 0, 2, 254]))
        let c = try #require(ClientSubnet(family: 4, bytes: [192, 0, 3, 1]))
        let mapped = try #require(ClientSubnet(family: 6, bytes: Self.ipv6([0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0209])))
        #expect(a == b && a == mapped)
        #expect(a != c)
        #expect(a.description == "192.0.2.0/24")
    }

    @Test("IPv6 addresses share their /64, and never an IPv4 /24")
    func ipv6Subnets() throws {
        let a = try #require(ClientSubnet(family: 6, bytes: Self.ipv6([0x2001, 0xdb8, 1, 2, 0xffff, 1, 2, 3])))
        let b = try #require(ClientSubnet(family: 6, bytes: Self.ipv6([0x2001, 0xdb8, 1, 2, 0, 0, 0, 9])))
        let c = try #require(ClientSubnet(family: 6, bytes: Self.ipv6([0x2001, 0xdb8, 1, 3, 0, 0, 0, 9])))
        // ::c000:200 has the same low bits as 192.0.2.0 but is an IPv6 network.
        let low = try #require(ClientSubnet(family: 6, bytes: Self.ipv6([0, 0, 0, 0, 0, 0, 0xc000, 0x0200])))
        #expect(a == b)
        #expect(a != c)
        #expect(low != ClientSubnet(ipv4: 192, 0, 2))
        #expect(a.description == "2001:db8:1:2::/64")
    }

    @Test("unknown families and short buffers have no subnet")
    func noSubnet() {
        #expect(ClientSubnet(family: 0, bytes: [UInt8](repeating: 0, count: 16)) == nil)
        #expect(ClientSubnet(family: 4, bytes: [10, 0]) == nil)
        #expect(ClientSubnet(family: 6, bytes: [UInt8](repeating: 0, count: 8)) == nil)
    }

    @Test("a network at its limit is refused until one of its connections closes; others are unaffected")
    func admission() {
        var admission = SubnetAdmission(limit: 3)
        let full = ClientSubnet(ipv4: 10, 0, 0)
        let other = ClientSubnet(ipv4: 10, 0, 1)
        for _ in 0..<3 {
            let admitted = admission.admit(full)
            #expect(admitted)
        }
        #expect(!admission.allows(full))
        let fourth = admission.admit(full)
        #expect(!fourth)
        #expect(admission.count(of: full) == 3, "a refusal records nothing")
        let otherAdmitted = admission.admit(other)
        #expect(otherAdmitted)
        admission.release(full)
        #expect(admission.allows(full))
        let again = admission.admit(full)
        #expect(again)
        for _ in 0..<3 { admission.release(full) }
        admission.release(other)
        #expect(admission.subnetCount == 0, "networks without connections are forgotten")
        admission.release(other)
        #expect(admission.count(of: other) == 0, "a release without a connection is harmless")
    }

    @Test("the last eighth of the total is kept for networks with few connections")
    func reserveForLightNetworks() {
        // 64 in total, 32 per network: 8 reserved for networks holding fewer than 8.
        var admission = SubnetAdmission(limit: 32, totalLimit: 64)
        #expect(admission.reserved == 8 && admission.lightNetworkConnections == 8)
        let first = ClientSubnet(ipv4: 10, 0, 1)
        let second = ClientSubnet(ipv4: 10, 0, 2)
        let light = ClientSubnet(ipv4: 10, 0, 3)
        let admittedFirst = (0..<40).filter { _ in admission.admit(first) }.count
        let admittedSecond = (0..<40).filter { _ in admission.admit(second) }.count
        #expect(admittedFirst == 32, "a network gets its limit while the total has room")
        #expect(admittedSecond == 24, "a second heavy network stops where the reserve begins (56 of 64)")
        let admittedLight = (0..<10).filter { _ in admission.admit(light) }.count
        #expect(admittedLight == 8, "a light network gets the reserved slots, up to the threshold")
        #expect(admission.total == 64)
        admission.release(first)
        #expect(!admission.allows(first), "a heavy network cannot take a freed reserved slot")
        #expect(admission.allows(ClientSubnet(ipv4: 10, 0, 4)), "a new network can")
        #expect(SubnetAdmission(limit: 1024, totalLimit: 4096).reserved == 512)
        #expect(SubnetAdmission(limit: 1024, totalLimit: 4096).lightNetworkConnections == 16)
        #expect(SubnetAdmission(limit: 0, totalLimit: 4096).reserved == 0, "no network limit, no reserve")
    }

    @Test("limit 0 admits everything")
    func unlimited() {
        var admission = SubnetAdmission(limit: 0)
        let admitted = (0..<10_000).allSatisfy { _ in admission.admit(ClientSubnet(ipv4: 10, 0, 0)) }
        #expect(admitted)
    }

    @Test("the sharing rule: per-address and per-network limits below the total, an address within its network")
    func sharingRule() {
        let fair = HTTPServerConfiguration.connectionSharingProblem
        #expect(fair(4096, 256, 1024) == nil)
        #expect(fair(64, 0, 0) == nil, "0 turns both off")
        #expect(fair(64, 64, 0)?.setting == "perIPConnectionLimit")
        #expect(fair(64, 8, 64)?.setting == "perSubnetConnectionLimit")
        #expect(fair(4096, 300, 200)?.setting == "perIPConnectionLimit")
        #expect(fair(4096, 0, 200) == nil, "a network limit alone is fair")
        #expect(
            HTTPServerConfiguration(connectionLimit: 128, problemTypePrefix: testProblemTypePrefix).connectionSharingProblem
                != nil, "256 per address of 128")
        #expect(
            HTTPServerConfiguration(problemTypePrefix: testProblemTypePrefix).connectionSharingProblem == nil,
            "the defaults are fair")
    }
}
