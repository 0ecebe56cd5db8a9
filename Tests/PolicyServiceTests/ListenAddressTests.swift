import PolicySections
import Testing

@testable import PolicyService

/// Attack round 8, F10: `::1:0` was read as `[::1]:0`. An IPv6 address without brackets has no
/// one reading beside a port, so it is refused with a message that says how to write it.
@Suite("listen addresses: IPv6 in brackets")
struct ListenAddressTests {
    @Test("an unbracketed IPv6 address with a port is refused, saying how to write it")
    func unbracketedIPv6IsRefused() {
        for text in ["::1:0", "::1:8080", "fe80::1:443", "::1", "::0:80"] {
            guard case .failure(let error) = ListenAddress.parse(text) else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(error.reason == "an IPv6 address goes in brackets before its port: [::1]:8080", "\(text)")
        }
        #expect(ListenAddress.parse("[::1]:0") == .success(ListenAddress(host: "::1", port: 0)))
        #expect(ListenAddress.parse("127.0.0.1:8080") == .success(ListenAddress(host: "127.0.0.1", port: 8080)))
        #expect(ListenAddress.parse("localhost:0") == .success(ListenAddress(host: "127.0.0.1", port: 0)))
    }

    @Test("the config says so at the member's pointer")
    func refusedInTheConfig() {
        let issues = DaemonSectionParityTests.outcome(
            PolicyService.ServerSettings.compiler, #"{"handlers":[],"server":{"listen":"::1:0"}}"#)
        #expect(issues.count == 1 && issues.first?.hasPrefix("/server/listen: ") == true, "\(issues)")
        #expect(issues.first?.contains("[::1]:8080") == true, "\(issues)")
    }
}

/// Outside attack 16, F4: the listen address's checks walk `Character`s, which a long run of
/// combining marks makes quadratic; nothing that long is a listen address.
@Suite("listen addresses: bounded length")
struct ListenAddressLengthTests {
    @Test("a text over 256 bytes is refused before it is read, naming the bound")
    func longTextIsRefused() {
        let text = "127.0.0.1" + String(repeating: "\u{0301}", count: 40_000) + ":8080"
        guard case .failure(let error) = ListenAddress.parse(text) else {
            Issue.record("accepted")
            return
        }
        #expect(error.reason == "longer than 256 bytes: not a listen address")
        let longest = "[" + String(repeating: "0:", count: 7) + "1]:65535"
        #expect(ListenAddress.parse(longest) == .success(ListenAddress(host: "::1", port: 65535)))
    }
}
