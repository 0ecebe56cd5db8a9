import NavigationPolicy
import Testing

/// The ranges and named classes behind `hosts` entries like `10.0.0.0/8` and `@loopback`, and
/// behind the proxies' check of the address they connect to.
@Suite("Address ranges and classes")
struct AddressClassTests {
    private func address(_ host: String) throws -> IPAddress {
        try #require(IPAddress(URLHost.parse(host.contains(":") ? "[\(host)]" : host)))
    }

    @Test(
        "every spelling that reaches loopback is in @loopback",
        arguments: [
            "127.0.0.1", "127.1.2.3", "127.255.255.255", "0.0.0.0", "0", "0.1.2.3", "::1", "::", "::ffff:127.0.0.1",
            "64:ff9b::7f00:1", "::ffff:0:127.0.0.1", "::ffff:0:7f00:1", "0x7f.1", "2130706433", "0177.0.0.1", "::ffff:0.0.0.0",
        ])
    func loopbackSpellings(host: String) throws {
        #expect(AddressClass.loopback.contains(try address(host)), "\(host)")
        #expect(AddressClass.internal.contains(try address(host)), "\(host)")
    }

    @Test(
        "public addresses are in no class",
        arguments: [
            "1.1.1.1", "8.8.8.8", "126.255.255.255", "128.0.0.0", "172.32.0.1", "172.15.255.255", "192.169.0.1",
            "100.128.0.1", "169.253.255.255", "2001:db8::1", "::2", "fe00::1", "fec0::1", "::127.0.0.1",
        ])
    func publicAddresses(host: String) throws {
        for addressClass in AddressClass.allCases {
            #expect(!addressClass.contains(try address(host)), "\(host) in \(addressClass.entry)")
        }
    }

    @Test("each class holds its own ranges and not the others'")
    func classMembership() throws {
        let cases: [(String, AddressClass)] = [
            ("10.20.30.40", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private),
            ("100.64.0.1", .private), ("100.127.255.255", .private), ("fc00::1", .private), ("fd12:3456::1", .private),
            ("64:ff9b:1::7f00:1", .private), ("64:ff9b:1:ffff::1", .private),
            ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
            ("0.0.0.0", .unspecified), ("::", .unspecified),
        ]
        for (host, expected) in cases {
            let value = try address(host)
            #expect(expected.contains(value), "\(host) not in \(expected.entry)")
            #expect(AddressClass.internal.contains(value), "\(host) not in @internal")
            for other in [AddressClass.private, .linkLocal, .unspecified] where other != expected {
                #expect(!other.contains(value), "\(host) also in \(other.entry)")
            }
        }
        #expect(!AddressClass.unspecified.contains(try address("127.0.0.1")))
    }

    @Test("localhost and every name under it, with or without a trailing dot")
    func localhostNames() {
        for name in ["localhost", "localhost.", "foo.localhost", "a.b.localhost.", "x-y.localhost"] {
            #expect(AddressClass.isLocalhostName(Substring(name)), "\(name)")
        }
        for name in ["localhostx", "notlocalhost", "localhost.com", "xlocalhost.", "local", ""] {
            #expect(!AddressClass.isLocalhostName(Substring(name)), "\(name)")
        }
        #expect(AddressClass.loopback.coversLocalhostNames && AddressClass.internal.coversLocalhostNames)
        #expect(!AddressClass.private.coversLocalhostNames)
    }

    @Test("class entries are exact names")
    func entries() {
        #expect(AddressClass(entry: "@loopback") == .loopback)
        #expect(AddressClass(entry: "@link-local") == .linkLocal)
        #expect(AddressClass(entry: "@internal") == .internal)
        #expect(AddressClass(entry: "@Loopback") == nil)
        #expect(AddressClass(entry: "loopback") == nil)
        #expect(AddressClass(entry: "@") == nil)
    }

    @Test("CIDR ranges: IPv4, IPv6, and the IPv4 forms inside IPv6")
    func ranges() throws {
        let ten = try #require(try AddressRange.parse("10.0.0.0/8")?.get())
        #expect(ten.contains(try address("10.255.0.1")))
        #expect(ten.contains(try address("::ffff:10.1.2.3")))
        #expect(ten.contains(try address("64:ff9b::a01:203")))
        #expect(!ten.contains(try address("11.0.0.1")))
        #expect(ten.description == "10.0.0.0/8")
        let ula = try #require(try AddressRange.parse("fd00::/8")?.get())
        #expect(ula.contains(try address("fd12::1")))
        #expect(!ula.contains(try address("fc00::1")))
        #expect(ula.description == "fd00::/8")
        #expect(try AddressRange.parse("[::1]/128")?.get().contains(try address("::1")) == true)
        #expect(try AddressRange.parse("0.0.0.0/0")?.get().contains(try address("203.0.113.9")) == true)
        #expect(try AddressRange.parse("0.0.0.0/0")?.get().contains(try address("2001:db8::1")) == false)
        #expect(AddressRange.parse("example.com") == nil, "no slash: not a range")
    }

    @Test(
        "malformed ranges are refused with a reason",
        arguments: [
            "10.0.0.1/8", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x", "/8", "example.com/8", "10.0.0.0/08", "fd00::1/8",
        ])
    func malformedRanges(text: String) throws {
        let result = try #require(AddressRange.parse(text))
        guard case .failure(let error) = result else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.reason.contains(text), "\(error.reason)")
    }

    @Test("socket addresses: 4 and 16 network-order bytes")
    func socketBytes() throws {
        #expect(IPAddress(networkBytes: [127, 0, 0, 1]) == IPAddress(ipv4: 0x7F00_0001))
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1]
        #expect(IPAddress(networkBytes: mapped) == IPAddress(ipv4: 0x7F00_0001))
        let loopback6: [UInt8] = Array(repeating: 0, count: 15) + [1]
        #expect(IPAddress(networkBytes: loopback6).map(AddressClass.loopback.contains) == true)
        #expect(IPAddress(networkBytes: [1, 2, 3]) == nil)
    }
}
