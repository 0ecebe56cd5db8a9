import PolicyProxy
import Testing

/// The tunnel's client-side record tracking (issue 38, item 1): only whole records read here
/// reach the origin, and a second ClientHello is read only at a boundary both sides share.
@Suite("ClientHandshake: the client's TLS records tracked from the first byte to the relay")
struct ClientHandshakeTests {
    static func hello(_ name: String?, records: Int = 1) -> [UInt8] {
        var extensions: [(UInt16, [UInt8])] = [(0x000a, [0, 2, 0, 29])]
        if let name { extensions.append((0, serverNameData([(0, name)]))) }
        return clientHello(extensions: extensions, records: records)
    }

    static let changeCipherSpec: [UInt8] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01]
    static let applicationData: [UInt8] = [0x17, 0x03, 0x03, 0x00, 0x04, 1, 2, 3, 4]
    /// The origin's HelloRetryRequest (its record's length does not matter to the machine).
    static let retry = HelloRetry.Reading.retry(length: 60)

    /// A handshake for a tunnel to allowed.test.
    static func machine() -> ClientHandshake {
        ClientHandshake { $0 == "allowed.test" ? nil : "names \($0 ?? "none")" }
    }

    /// Feeds `parts` in order; the bytes passed in all, or the first refusal.
    static func feed(_ machine: inout ClientHandshake, _ parts: [ArraySlice<UInt8>]) -> Result<[UInt8], ClientHandshake.Refusal> {
        var passed: [UInt8] = []
        for part in parts {
            switch machine.receive(part) {
            case .success(let bytes): passed += bytes
            case .failure(let refusal): return .failure(refusal)
            }
        }
        return .success(passed)
    }

    /// `bytes` cut at `cut` (two parts) — every split point of a stream is one of these.
    static func split(_ bytes: [UInt8], at cut: Int) -> [ArraySlice<UInt8>] {
        [bytes[..<cut], bytes[cut...]]
    }

    static func kind(_ result: Result<[UInt8], ClientHandshake.Refusal>) -> ClientHandshake.Refusal.Kind? {
        if case .failure(let refusal) = result { return refusal.kind }
        return nil
    }

    @Test("the first ClientHello is held until whole, at every split point and byte by byte, then passed exactly")
    func firstHelloAtEverySplit() {
        for records in 1...3 {
            let bytes = Self.hello("allowed.test", records: records)
            for cut in 0...bytes.count {
                var machine = Self.machine()
                if case .success(let early) = machine.receive(bytes[..<cut]) {
                    #expect(early.isEmpty || cut == bytes.count, "records \(records) cut \(cut)")
                }
                let rest = machine.receive(bytes[cut...])
                #expect(machine.phase == .firstAnswer, "records \(records) cut \(cut)")
                if cut < bytes.count { #expect(rest == .success(bytes)) }
                #expect(machine.heldBytes == 0)
            }
            var machine = Self.machine()
            #expect(Self.feed(&machine, bytes.indices.map { bytes[$0...$0] }) == .success(bytes))
        }
    }

    @Test("a ClientHello naming another host, or none, is refused before anything is passed")
    func firstHelloServerName() {
        for name in ["blocked.test", "ALLOWED.test.example", nil] as [String?] {
            var machine = Self.machine()
            #expect(Self.kind(machine.receive(Self.hello(name))) == .serverName, "\(name ?? "none")")
            #expect(machine.phase == .refused)
        }
        var plain = Self.machine()
        #expect(Self.kind(plain.receive(Array("GET / HTTP/1.1\r\n".utf8))) == .notTLS)
    }

    @Test("one ChangeCipherSpec may follow the first hello at any split; the origin's answer then opens the relay")
    func pipelinedChangeCipherSpec() {
        let stream = Self.hello("allowed.test", records: 2) + Self.changeCipherSpec
        for cut in 0...stream.count {
            var machine = Self.machine()
            #expect(Self.feed(&machine, Self.split(stream, at: cut)) == .success(stream), "cut \(cut)")
            #expect(machine.originAnswered(.serverHello) == nil)
            #expect(machine.phase == .relay)
        }
    }

    @Test("a partial record held when the origin answers closes the tunnel, for every prefix and every answer")
    func partialRecordWhenOriginAnswers() {
        let hello = Self.hello("allowed.test")
        for length in 1..<Self.changeCipherSpec.count {
            for answer in [HelloRetry.Reading.serverHello, Self.retry] {
                var machine = Self.machine()
                #expect(machine.receive(hello + Self.changeCipherSpec.prefix(length)) == .success(hello))
                #expect(machine.heldBytes == length)
                guard let refusal = machine.originAnswered(answer) else {
                    Issue.record("accepted \(length) held bytes")
                    continue
                }
                #expect(refusal.kind == .framing)
                #expect(machine.phase == .refused)
            }
        }
    }

    @Test("anything but a ChangeCipherSpec before the origin answers is refused on its first byte, whole or split")
    func nothingElseBeforeTheAnswer() {
        let hello = Self.hello("allowed.test")
        let others: [[UInt8]] = [
            Self.applicationData, Self.hello("allowed.test"), Self.hello("blocked.test"), [0x15, 0x03, 0x03, 0x00, 0x02, 1, 0],
            Array("GET /".utf8),
            // The issue's attack: a handshake record opened after the hello, its body to come after the retry.
            [0x16, 0x03, 0x03, 0x01, 0x00, 0x01, 0x00, 0x00, 0xFC],
            // Malformed ChangeCipherSpec records: a longer one, another payload, another version, two.
            [0x14, 0x03, 0x03, 0x00, 0x02, 0x01, 0x01], [0x14, 0x03, 0x03, 0x00, 0x01, 0x02], [0x14, 0x04, 0x03],
            Self.changeCipherSpec + Self.changeCipherSpec,
        ]
        for other in others {
            // In the same read as the hello: nothing at all is passed.
            var together = Self.machine()
            #expect(Self.kind(together.receive(hello + other)) == .framing, "\(other)")
            // In a later read: the hello went, the record does not.
            for length in 1...other.count where length == other.count || !Self.isPrefixOfAllowed(other.prefix(length)) {
                var later = Self.machine()
                #expect(later.receive(hello) == .success(hello))
                #expect(Self.kind(later.receive(other.prefix(length))) == .framing, "\(other) prefix \(length)")
            }
        }
    }

    /// Whether `bytes` could still become the one ChangeCipherSpec record allowed.
    static func isPrefixOfAllowed(_ bytes: ArraySlice<UInt8>) -> Bool {
        changeCipherSpec.starts(with: bytes)
    }

    @Test(
        "after a HelloRetryRequest: an optional ChangeCipherSpec and a second hello, split anywhere, are passed whole; its ServerHello opens the relay"
    )
    func secondHelloAtEverySplit() {
        let first = Self.hello("allowed.test")
        for changeCipherSpec in [[], Self.changeCipherSpec, [0x14, 0x03, 0x01, 0x00, 0x01, 0x01]] {
            for records in 1...2 {
                let stream = changeCipherSpec + Self.hello("allowed.test", records: records)
                for cut in 0...stream.count {
                    var machine = Self.machine()
                    _ = machine.receive(first)
                    #expect(machine.originAnswered(Self.retry) == nil)
                    #expect(machine.phase == .secondHello)
                    #expect(Self.feed(&machine, Self.split(stream, at: cut)) == .success(stream), "cut \(cut)")
                    #expect(machine.phase == .secondAnswer)
                    #expect(machine.heldBytes == 0)
                    #expect(machine.originAnswered(.serverHello) == nil)
                    #expect(machine.phase == .relay)
                }
            }
        }
    }

    @Test("the origin's answer must be a ServerHello: an alert ends, anything else refuses, after either hello")
    func originAnswers() {
        let refusals: [(HelloRetry.Reading, ClientHandshake.Refusal.Kind)] = [
            (.alert(length: 7), .originAlert), (.invalid("a HelloRequest"), .originAnswer),
        ]
        for (answer, kind) in refusals {
            var first = Self.machine()
            _ = first.receive(Self.hello("allowed.test"))
            #expect(first.originAnswered(answer)?.kind == kind, "\(answer)")
            #expect(first.phase == .refused)
            #expect(Self.kind(first.receive(Self.hello("blocked.test"))) == .framing)
            var second = Self.machine()
            _ = second.receive(Self.hello("allowed.test"))
            _ = second.originAnswered(Self.retry)
            _ = second.receive(Self.hello("allowed.test"))
            #expect(second.originAnswered(answer)?.kind == kind, "\(answer) after the retry")
            #expect(second.phase == .refused)
        }
    }

    @Test("after the second hello the machine waits: nothing more passes, and a second retry is refused")
    func secondAnswer() {
        // RFC 8446 §4.1.4: a second HelloRetryRequest is an error; a third hello never passes.
        var retried = Self.machine()
        _ = retried.receive(Self.hello("allowed.test"))
        _ = retried.originAnswered(Self.retry)
        #expect(retried.receive(Self.hello("allowed.test")) == .success(Self.hello("allowed.test")))
        #expect(retried.awaitsOrigin)
        #expect(retried.originAnswered(Self.retry)?.kind == .originAnswer)
        #expect(Self.kind(retried.receive(Self.hello("blocked.test"))) == .framing)
        // Client bytes before the answer to the second hello, whole or one byte of them, are refused.
        for other in [Self.hello("blocked.test"), Self.changeCipherSpec, Self.applicationData] {
            for length in [1, other.count] {
                var machine = Self.machine()
                _ = machine.receive(Self.hello("allowed.test") + Self.changeCipherSpec)
                _ = machine.originAnswered(Self.retry)
                _ = machine.receive(Self.hello("allowed.test"))
                #expect(Self.kind(machine.receive(other.prefix(length))) == .framing, "\(other.prefix(6)) \(length)")
            }
        }
    }

    @Test("a ChangeCipherSpec pipelined before the retry counts: a second one after it is refused")
    func oneChangeCipherSpecInAll() {
        var machine = Self.machine()
        let first = Self.hello("allowed.test") + Self.changeCipherSpec
        #expect(machine.receive(first) == .success(first))
        #expect(machine.originAnswered(Self.retry) == nil)
        #expect(Self.kind(machine.receive(Self.changeCipherSpec + Self.hello("allowed.test"))) == .framing)
    }

    @Test("the second hello must name exactly the first one's server; nothing may follow it")
    func secondHelloRules() {
        let cases: [([UInt8], ClientHandshake.Refusal.Kind)] = [
            (Self.hello("blocked.test"), .serverName),
            (Self.hello("ALLOWED.test"), .serverName),
            (Self.hello(nil), .serverName),
            (Self.hello("allowed.test") + Self.applicationData, .framing),
            (Self.hello("allowed.test") + Self.changeCipherSpec, .framing),
            (Self.applicationData, .framing),
            (Array("GET / HTTP/1.1\r\n".utf8), .framing),
        ]
        for (stream, kind) in cases {
            var machine = Self.machine()
            _ = machine.receive(Self.hello("allowed.test"))
            _ = machine.originAnswered(Self.retry)
            #expect(Self.kind(machine.receive(stream)) == kind, "\(stream.prefix(12))")
        }
    }

    @Test("a second ClientHello smuggled inside a record's length is never passed")
    func smuggledInsideARecord() {
        // The first hello's last record claims more bytes than the hello: they would hold another message.
        var first = Self.hello("allowed.test")
        let inner = Self.hello("blocked.test").dropFirst(5)
        let length = first.count - 5 + inner.count
        first[3] = UInt8(length >> 8)
        first[4] = UInt8(length & 0xFF)
        var machine = Self.machine()
        #expect(Self.kind(machine.receive(first + inner)) == .notTLS)
        // The same after the retry: a record holding the allowed hello and then a blocked one.
        var second = Self.hello("allowed.test")
        let secondLength = second.count - 5 + inner.count
        second[3] = UInt8(secondLength >> 8)
        second[4] = UInt8(secondLength & 0xFF)
        var retried = Self.machine()
        _ = retried.receive(Self.hello("allowed.test"))
        _ = retried.originAnswered(Self.retry)
        #expect(Self.kind(retried.receive(second + inner)) == .framing)
    }

    @Test("answers out of turn and invalid answers are refused; a refused handshake takes nothing more")
    func answers() {
        var early = Self.machine()
        #expect(early.originAnswered(.serverHello) != nil)
        var invalid = Self.machine()
        _ = invalid.receive(Self.hello("allowed.test"))
        #expect(invalid.originAnswered(.invalid("two retries in one record"))?.kind == .originAnswer)
        #expect(Self.kind(invalid.receive(Self.changeCipherSpec)) == .framing)
        var waiting = Self.machine()
        _ = waiting.receive(Self.hello("allowed.test"))
        #expect(waiting.originAnswered(.needMore) == nil)
        #expect(waiting.phase == .firstAnswer)
    }

    @Test("the bytes held are bounded by the ClientHello cap: a hello up to it passes, records past it are refused")
    func bounded() {
        let name = (UInt16(0), serverNameData([(0, "allowed.test")]))
        for (padding, records, passes) in [(15_000, 1, true), (15_850, 160, false), (16_400, 2, false)] {
            let hello = clientHello(extensions: [name, (0x0015, [UInt8](repeating: 0, count: padding))], records: records)
            var machine = Self.machine()
            var passed: [UInt8] = []
            var refusal: ClientHandshake.Refusal?
            for start in stride(from: 0, to: hello.count, by: 4096) where refusal == nil {
                switch machine.receive(hello[start..<min(hello.count, start + 4096)]) {
                case .success(let bytes): passed += bytes
                case .failure(let refused): refusal = refused
                }
                #expect(machine.heldBytes <= ClientHello.maxBytes)
            }
            #expect(passes ? passed == hello : refusal?.kind == .notTLS, "padding \(padding) in \(records) records")
        }
    }

    @Test("random streams cut anywhere: what is passed is always a prefix of what was sent, in whole records")
    func randomStreams() {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            Self.hello("allowed.test", records: 2), Self.hello("blocked.test"), Self.changeCipherSpec, Self.applicationData,
            [0x16, 0x03, 0x03, 0x00, 0x40, 0x01], [0x14, 0x03],
        ]
        for _ in 0..<5_000 {
            var stream = Self.hello("allowed.test", records: Int.random(in: 1...3, using: &generator))
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                stream += pieces.randomElement(using: &generator) ?? []
            }
            if Bool.random(using: &generator) {
                let index = Int.random(in: 0..<stream.count, using: &generator)
                stream[index] = UInt8.random(in: 0...255, using: &generator)
            }
            var machine = Self.machine()
            var passed: [UInt8] = []
            var offset = 0
            while offset < stream.count, machine.phase != .refused {
                let end = min(stream.count, offset + Int.random(in: 1...40, using: &generator))
                if case .success(let bytes) = machine.receive(stream[offset..<end]) { passed += bytes }
                offset = end
                if machine.phase == .firstAnswer, Bool.random(using: &generator) {
                    _ = machine.originAnswered(Bool.random(using: &generator) ? Self.retry : .serverHello)
                }
            }
            #expect(stream.starts(with: passed))
            // Whole records of the two types the handshake carries, back to back.
            var at = 0
            while at + 5 <= passed.count, [0x14, 0x16].contains(passed[at]) {
                at += 5 + (Int(passed[at + 3]) << 8 | Int(passed[at + 4]))
            }
            #expect(at == passed.count, "\(passed)")
        }
    }
}
