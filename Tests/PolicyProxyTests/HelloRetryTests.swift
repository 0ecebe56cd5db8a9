import PolicyProxy
import Testing

/// The origin's answer to a ClientHello (issue 38, F3): a ServerHello, a HelloRetryRequest, or
/// an alert that ends the tunnel — anything else first closes it. Every handshake message of
/// the answer's records is read, reassembled across records (issue 41 round: a colluding
/// origin's second hello hidden after the first message, or in a retry's second record).
@Suite("HelloRetry: the origin's answer to a ClientHello, every message of its records read")
struct HelloRetryTests {
    static let retryRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]
    static let otherRandom = [UInt8](repeating: 7, count: 32)

    static func vector16(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }

    /// `supported_versions` naming TLS 1.3, as a TLS 1.3 ServerHello and every retry carry it.
    static let tls13: [UInt8] = [0x00, 0x2B, 0x00, 0x02, 0x03, 0x04]
    /// A `cookie` extension (44) of `count` bytes, the first 0x02: a retry's second record can start with it.
    static func cookie(_ count: Int) -> [UInt8] {
        [0x00, 0x2C] + vector16(vector16([0x02] + [UInt8](repeating: 0x5A, count: count - 1)))
    }

    /// A ServerHello handshake message: `extensions` nil for a TLS 1.2 one without any.
    static func message(_ random: [UInt8], extensions: [UInt8]? = HelloRetryTests.tls13) -> [UInt8] {
        let body = [0x03, 0x03] + random + [0x00, 0x13, 0x01, 0x00] + (extensions.map(vector16) ?? [])
        return [0x02, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    static func record(_ body: [UInt8], type: UInt8 = 0x16) -> [UInt8] { [type, 0x03, 0x03] + vector16(body) }

    /// `message` in records cut at `cuts` (offsets into it, ascending).
    static func records(_ message: [UInt8], cutAt cuts: [Int]) -> [UInt8] {
        let bounds = [0] + cuts + [message.count]
        return zip(bounds, bounds.dropFirst()).flatMap { record(Array(message[$0..<$1])) }
    }

    static let plainMessage = message(otherRandom)
    static let retryMessage = message(retryRandom)
    static let tls12Message = message(otherRandom, extensions: nil)
    static let plain = record(plainMessage)
    static let retry = record(retryMessage)
    static let tls12 = record(tls12Message)
    static let changeCipherSpec: [UInt8] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01]
    static let alert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x70]
    /// TLS 1.2 HelloRequest (type 0, empty).
    static let helloRequest: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00]

    static func isInvalid(_ reading: HelloRetry.Reading) -> Bool {
        if case .invalid = reading { return true }
        return false
    }

    @Test("a ServerHello relays, a retry's whole record is measured, an alert is measured")
    func answers() {
        #expect(HelloRetry.read(Self.plain) == .serverHello)
        #expect(HelloRetry.read(Self.tls12) == .serverHello)
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
            #expect(
                Self.isInvalid(HelloRetry.read(first + Self.retry)), "\(first) read as \(HelloRetry.read(first + Self.retry))")
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
        #expect(Self.isInvalid(HelloRetry.read(Self.changeCipherSpec + Self.changeCipherSpec, afterRetry: true)))
        #expect(Self.isInvalid(HelloRetry.read(Self.changeCipherSpec + Self.plain)), "a ChangeCipherSpec before the first answer")
    }

    @Test(
        "the three shapes of the attack: two retries in a record, a ServerHello then a retry in one, a retry split over records")
    func attackShapes() {
        // Two retries in one record: the second is no longer skipped with the record.
        #expect(Self.isInvalid(HelloRetry.read(Self.record(Self.retryMessage + Self.retryMessage))))
        // A ServerHello (TLS 1.3 or 1.2) and a retry in one record, first answer or second.
        for hello in [Self.plainMessage, Self.tls12Message] {
            for afterRetry in [false, true] {
                let answer = Self.record(hello + Self.retryMessage)
                #expect(Self.isInvalid(HelloRetry.read(answer, afterRetry: afterRetry)), "\(hello.count) \(afterRetry)")
            }
        }
        // A retry whose second record starts with 0x02 (inside its cookie): the landed code read
        // that record as the answer to the second hello, a ServerHello, so the real answer went unread.
        let long = Self.message(Self.retryRandom, extensions: Self.tls13 + Self.cookie(60))
        let cut = long.count - 60
        #expect(long[cut] == 0x02)
        let split = Self.records(long, cutAt: [cut])
        #expect(HelloRetry.read(split + Self.changeCipherSpec) == .retry(length: split.count))
        for end in 0..<split.count { #expect(HelloRetry.read(Array(split.prefix(end))) == .needMore, "\(end)") }
    }

    @Test("a ServerHello or a retry cut into records at every point is read whole, its record's end measured")
    func reassembledAtEveryCut() {
        for (message, isRetry) in [(Self.retryMessage, true), (Self.plainMessage, false), (Self.tls12Message, false)] {
            for cut in 1..<message.count {
                for points in [[cut], [1, cut], [cut, message.count - 1]] {
                    let cuts = Set(points).sorted()
                    let answer = Self.records(message, cutAt: cuts)
                    let expected: HelloRetry.Reading = isRetry ? .retry(length: answer.count) : .serverHello
                    #expect(HelloRetry.read(answer + Self.changeCipherSpec) == expected, "cuts \(cuts)")
                    #expect(HelloRetry.read(Array(answer.dropLast())) == .needMore, "cuts \(cuts)")
                }
            }
        }
        // An alert inside a ServerHello split over records is no alert to pass on.
        let split = Self.records(Self.plainMessage, cutAt: [10])
        #expect(Self.isInvalid(HelloRetry.read(Array(split.prefix(15)) + Self.alert)))
    }

    @Test(
        "a TLS 1.2 ServerHello may share its record with the rest of the flight, never with a hello; a TLS 1.3 one with nothing")
    func afterTheServerHello() {
        let certificate: [UInt8] = [0x0B, 0x00, 0x00, 0x03, 1, 2, 3]
        let done: [UInt8] = [0x0E, 0x00, 0x00, 0x00]
        #expect(HelloRetry.read(Self.record(Self.tls12Message + certificate + done)) == .serverHello)
        // A certificate going on in the next record: the relay passes it.
        #expect(HelloRetry.read(Self.record(Self.tls12Message + [0x0B, 0x00, 0x10, 0x00, 1, 2])) == .serverHello)
        for after in [[0x01, 0x00, 0x00, 0x00], [0x02], done + [0x02, 0x00], [0x08, 0x00, 0x00, 0x00]] as [[UInt8]] {
            #expect(Self.isInvalid(HelloRetry.read(Self.record(Self.tls12Message + after))), "\(after)")
        }
        for after in [certificate, done, [0x00]] {
            #expect(Self.isInvalid(HelloRetry.read(Self.record(Self.plainMessage + after))), "TLS 1.3 then \(after)")
            #expect(Self.isInvalid(HelloRetry.read(Self.record(Self.retryMessage + after))), "a retry then \(after)")
        }
    }

    @Test("a ServerHello's framing must add up: each malformed one is invalid, not a ServerHello")
    func strictFraming() {
        func body(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
        let tls12Version: [UInt8] = [0x03, 0x03]
        let random = Self.otherRandom
        // An empty session id, TLS_AES_128_GCM_SHA256, no compression.
        let fixed: [UInt8] = [0x00, 0x13, 0x01, 0x00]
        let extensions = Self.vector16(Self.tls13)
        let longSessionID: [UInt8] = [33] + [UInt8](repeating: 0, count: 33) + [0x13, 0x01, 0x00]
        let malformed: [(String, [UInt8])] = [
            ("legacy_version 1.3", body([0x03, 0x04], random, fixed, extensions)),
            ("short random", body(tls12Version, Array(random.prefix(20)))),
            ("session id of 33", body(tls12Version, random, longSessionID)),
            ("no compression", body(tls12Version, random, [0x00, 0x13, 0x01])),
            ("one byte of extensions", body(tls12Version, random, fixed, [0x00])),
            ("extensions too long", body(tls12Version, random, fixed, [0x00, 0x07], Self.tls13)),
            ("bytes after the extensions", body(tls12Version, random, fixed, extensions, [0x00])),
            ("a truncated extension", body(tls12Version, random, fixed, Self.vector16([0x00, 0x2B, 0x00, 0x03, 3, 4]))),
            ("two supported_versions", body(tls12Version, random, fixed, Self.vector16(Self.tls13 + Self.tls13))),
            (
                "supported_versions of 3 bytes",
                body(tls12Version, random, fixed, Self.vector16([0x00, 0x2B, 0x00, 0x03, 3, 4, 0]))
            ),
            ("TLS 1.3 compressed", body(tls12Version, random, [0x00, 0x13, 0x01, 0x01], extensions)),
            ("TLS 1.3 from legacy 1.0 fields", body([0x03, 0x01], random, fixed, extensions)),
            ("a retry without extensions", body(tls12Version, Self.retryRandom, fixed)),
            ("a retry without supported_versions", body(tls12Version, Self.retryRandom, fixed, Self.vector16(Self.cookie(4)))),
        ]
        for (name, body) in malformed {
            let message: [UInt8] = [0x02, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
            let reading = HelloRetry.read(Self.record(message))
            #expect(Self.isInvalid(reading), "\(name): \(reading)")
        }
        // The control: the same fields, well formed, are a ServerHello.
        #expect(HelloRetry.read(Self.record(Self.message(random))) == .serverHello)
        // A ServerHello announcing more than the cap is refused on its header, before it comes.
        #expect(Self.isInvalid(HelloRetry.read(Self.record([0x02, 0x00, 0x40, 0x00, 0x03]))))
    }

    @Test("the bytes read before the answer is told are bounded: a retry in tiny records past the cap is refused")
    func bounded() {
        let big = Self.message(Self.retryRandom, extensions: Self.tls13 + Self.cookie(12_000))
        #expect(HelloRetry.read(Self.records(big, cutAt: [8_000])) == .retry(length: big.count + 10))
        let tiny = Self.records(big, cutAt: Array(stride(from: 2, to: big.count, by: 2)))
        #expect(Self.isInvalid(HelloRetry.read(tiny)))
        #expect(HelloRetry.maxBytes < tiny.count)
    }

    @Test("random answers cut anywhere: two hellos up to the first one's record end never open the relay; prefixes read needMore")
    func randomAnswers() {
        var generator = SystemRandomNumberGenerator()
        let long = Self.message(Self.retryRandom, extensions: Self.tls13 + Self.cookie(60))
        let messages: [[UInt8]] = [
            Self.retryMessage, long, Self.plainMessage, Self.tls12Message, [0x0B, 0x00, 0x00, 0x02, 9, 9],
            [0x00, 0x00, 0x00, 0x00],
        ]
        for _ in 0..<3_000 {
            // One to three messages, in records cut at random points, sometimes one byte changed.
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) { stream += messages.randomElement(using: &generator) ?? [] }
            var cuts = Set<Int>()
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                cuts.insert(Int.random(in: 1..<stream.count, using: &generator))
            }
            var answer = Self.records(stream, cutAt: cuts.sorted())
            let mutated = Int.random(in: 0..<4, using: &generator) == 0
            if mutated {
                answer[Int.random(in: 0..<answer.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let reading = HelloRetry.read(answer)
            for end in stride(from: 0, to: answer.count, by: 5) {
                let early = HelloRetry.read(Array(answer.prefix(end)))
                #expect(early == .needMore || early == reading, "prefix \(end) of \(answer): \(early) vs \(reading)")
            }
            guard !mutated, let span = Self.firstHelloSpan(stream, cuts: cuts.sorted()) else { continue }
            // What a client reads up to where the proxy decides: one hello, and a retry ends there.
            switch reading {
            case .serverHello where span.hellos > 1:
                Issue.record("\(span.hellos) hellos read as one ServerHello: \(answer)")
            case .retry(let length):
                #expect(span.hellos == 1 && length == span.end, "\(span) \(answer)")
            default:
                break
            }
        }
    }

    /// Where the record that ends `stream`'s first message (a hello) ends, in the records cut at
    /// `cuts`, and how many hello messages (type 2) start before there — as a client reads them.
    static func firstHelloSpan(_ stream: [UInt8], cuts: [Int]) -> (end: Int, hellos: Int)? {
        guard stream.first == 0x02, stream.count >= 4 else { return nil }
        let firstEnd = 4 + (Int(stream[1]) << 16 | Int(stream[2]) << 8 | Int(stream[3]))
        let bounds = cuts + [stream.count]
        guard let record = bounds.firstIndex(where: { $0 >= firstEnd }) else { return nil }
        let streamEnd = bounds[record]
        var hellos = 0
        var at = 0
        while at + 4 <= stream.count, at < streamEnd {
            if stream[at] == 0x02 { hellos += 1 }
            at += 4 + (Int(stream[at + 1]) << 16 | Int(stream[at + 2]) << 8 | Int(stream[at + 3]))
        }
        return (streamEnd + 5 * (record + 1), hellos)
    }
}
