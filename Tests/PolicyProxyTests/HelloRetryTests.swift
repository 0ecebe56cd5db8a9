import PolicyProxy
import Testing

/// The origin's answer to a ClientHello (issue 38, F3): a ServerHello, a HelloRetryRequest, or
/// an alert that ends the tunnel — anything else first closes it.
@Suite("HelloRetry: the origin's answer to a ClientHello read record by record")
struct HelloRetryTests {
    static let retryRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// A ServerHello record with `random` (and `extra` bytes of body after it).
    static func serverHello(_ random: [UInt8], extra: Int = 6) -> [UInt8] {
        let message: [UInt8] = [0x02, 0x00, 0x00, UInt8(34 + extra), 0x03, 0x03] + random + [UInt8](repeating: 0, count: extra)
        return [0x16, 0x03, 0x03, 0x00, UInt8(message.count)] + message
    }

    static let plain = serverHello([UInt8](repeating: 7, count: 32))
    static let retry = serverHello(retryRandom)
    static let changeCipherSpec: [UInt8] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01]
    static let alert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x70]
    /// TLS 1.2 HelloRequest (type 0, empty).
    static let helloRequest: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00]

    @Test("a ServerHello relays, a retry's whole record is measured, an alert is measured")
    func answers() {
        #expect(HelloRetry.read(Self.plain) == .serverHello)
        #expect(HelloRetry.read(Self.retry + Self.changeCipherSpec) == .retry(length: Self.retry.count))
        #expect(HelloRetry.read(Self.alert + Self.retry) == .alert(length: 7))
        for end in 0..<Self.retry.count { #expect(HelloRetry.read(Array(Self.retry.prefix(end))) == .needMore, "\(end)") }
        for end in 0..<Self.alert.count { #expect(HelloRetry.read(Array(Self.alert.prefix(end))) == .needMore, "\(end)") }
    }

    @Test("the attack's first answers — a HelloRequest, application data, a CCS, a bad alert — are invalid, not 'other'")
    func invalidFirstAnswers() {
        for first in [
            Self.helloRequest, [0x17, 0x03, 0x03, 0x00, 0x01, 0x00], Self.changeCipherSpec,
            [0x15, 0x03, 0x03, 0x00, 0x03, 1, 2, 3], [0x16, 0x02, 0x00, 0x00, 0x04], [0x16, 0x03, 0x03, 0x00, 0x00],
            Array("HTTP/1.1 200 OK\r\n".utf8),
        ] {
            guard case .invalid = HelloRetry.read(first + Self.retry) else {
                Issue.record("\(first) read as \(HelloRetry.read(first + Self.retry))")
                continue
            }
        }
    }

    @Test("after a retry: one ChangeCipherSpec may come first, then the answer is read as the first was")
    func afterRetry() {
        #expect(HelloRetry.read(Self.changeCipherSpec + Self.plain, afterRetry: true) == .serverHello)
        #expect(HelloRetry.read(Self.plain, afterRetry: true) == .serverHello)
        #expect(
            HelloRetry.read(Self.changeCipherSpec + Self.retry, afterRetry: true)
                == .retry(length: Self.changeCipherSpec.count + Self.retry.count))
        #expect(HelloRetry.read(Self.changeCipherSpec + Self.alert, afterRetry: true) == .alert(length: 13))
        for end in 1...Self.changeCipherSpec.count {
            #expect(HelloRetry.read(Array(Self.changeCipherSpec.prefix(end)), afterRetry: true) == .needMore)
        }
        guard case .invalid = HelloRetry.read(Self.changeCipherSpec + Self.changeCipherSpec, afterRetry: true) else {
            Issue.record("two ChangeCipherSpec records accepted")
            return
        }
        guard case .invalid = HelloRetry.read(Self.changeCipherSpec + Self.plain) else {
            Issue.record("a ChangeCipherSpec before the first answer accepted")
            return
        }
    }

    @Test("a ServerHello split before its random is undecidable")
    func undecidable() {
        #expect(HelloRetry.read([0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x26]) == .undecidable)
    }
}
