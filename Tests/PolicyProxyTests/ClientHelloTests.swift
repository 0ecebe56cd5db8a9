import PolicyProxy
import Testing

/// A ClientHello as a client writes it: `extensions` are (type, data) pairs; `records` splits
/// the handshake message into that many TLS records.
func clientHello(extensions: [(UInt16, [UInt8])]?, records: Int = 1, sessionID: Int = 32) -> [UInt8] {
    var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0xAB, count: 32)
    body += [UInt8(sessionID)] + [UInt8](repeating: 1, count: sessionID)
    body += [0x00, 0x04, 0x13, 0x01, 0x13, 0x02]  // two cipher suites
    body += [0x01, 0x00]  // null compression
    if let extensions {
        var encoded: [UInt8] = []
        for (type, data) in extensions {
            encoded += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
        body += [UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)] + encoded
    }
    let message: [UInt8] = [0x01, UInt8(body.count >> 16), UInt8((body.count >> 8) & 0xFF), UInt8(body.count & 0xFF)] + body
    var out: [UInt8] = []
    let size = (message.count + records - 1) / records
    var offset = 0
    while offset < message.count {
        let part = message[offset..<min(message.count, offset + size)]
        out += [0x16, 0x03, 0x01, UInt8(part.count >> 8), UInt8(part.count & 0xFF)] + part
        offset += size
    }
    return out
}

/// The `server_name` extension's data for these names (type 0 = host_name).
func serverNameData(_ names: [(UInt8, String)]) -> [UInt8] {
    var list: [UInt8] = []
    for (type, name) in names {
        let bytes = Array(name.utf8)
        list += [type, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }
    return [UInt8(list.count >> 8), UInt8(list.count & 0xFF)] + list
}

@Suite("ClientHello: the server name read without crypto, bounded, never trapping")
struct ClientHelloTests {
    @Test("the host_name of server_name is read, across records and among other extensions")
    func readsServerName() {
        let extensions: [(UInt16, [UInt8])] = [(0x000a, [0, 2, 0, 29]), (0x0000, serverNameData([(0, "allowed.test")]))]
        for records in 1...4 {
            let bytes = clientHello(extensions: extensions, records: records)
            #expect(ClientHello.read(bytes) == .complete(serverName: "allowed.test", length: bytes.count), "\(records)")
        }
    }

    @Test("no extensions or no server_name: complete without a name")
    func withoutServerName() {
        let bare = clientHello(extensions: nil)
        #expect(ClientHello.read(bare) == .complete(serverName: nil, length: bare.count))
        let other = clientHello(extensions: [(0x002b, [2, 3, 4])])
        #expect(ClientHello.read(other) == .complete(serverName: nil, length: other.count))
    }

    @Test("every proper prefix needs more; the first byte decides non-TLS at once")
    func prefixes() {
        let bytes = clientHello(extensions: [(0, serverNameData([(0, "a.example")]))], records: 3)
        for end in 1..<bytes.count {
            #expect(ClientHello.read(bytes[..<end]) == .needMore, "prefix \(end)")
        }
        #expect(ClientHello.read(Array("GET / HTTP/1.1\r\n".utf8)) == .invalid("not a TLS handshake record"))
        #expect(ClientHello.read([0x17, 0x03, 0x03]) == .invalid("not a TLS handshake record"))
    }

    @Test("ambiguous or malformed hellos are invalid: two names, two extensions, bad lengths, trailing bytes")
    func malformed() {
        let two = clientHello(extensions: [(0, serverNameData([(0, "a.test"), (0, "b.test")]))])
        #expect(ClientHello.read(two) == .invalid("two host_name entries"))
        let twice = clientHello(extensions: [(0, serverNameData([(0, "a.test")])), (0, serverNameData([(0, "b.test")]))])
        #expect(ClientHello.read(twice) == .invalid("two server_name extensions"))
        let control = clientHello(extensions: [(0, serverNameData([(0, "a\u{0}.test")]))])
        #expect(ClientHello.read(control) == .invalid("a host_name that is not an ASCII host name"))
        let empty = clientHello(extensions: [(0, [0, 0])])
        #expect(ClientHello.read(empty) == .invalid("a malformed server_name extension"))
        var trailing = clientHello(extensions: nil)
        trailing += [0x16, 0x03, 0x01, 0x00, 0x01, 0x00]
        // The hello ended in its first record: the next record is not read.
        #expect(ClientHello.read(trailing) == .complete(serverName: nil, length: trailing.count - 6))
        var oversized = [UInt8](repeating: 0, count: 5)
        oversized[0] = 0x16
        oversized[1] = 0x03
        oversized[3] = 0x40
        oversized[4] = 0x01  // 16385 > 2^14
        #expect(ClientHello.read(oversized) == .invalid("a record length out of range"))
    }

    @Test("a server_name list with anything but one host_name is invalid: other types before or after it, trailing bytes")
    func serverNameListShape() {
        // Issue 38, F8: the parser skipped the type-1 entry and read allowed.test; an origin
        // reading the first entry would act on blocked.test.
        for names in [[(1, "blocked.test"), (0, "allowed.test")], [(0, "allowed.test"), (1, "blocked.test")], [(2, "x")]]
            as [[(UInt8, String)]]
        {
            let hello = clientHello(extensions: [(0, serverNameData(names))])
            guard case .invalid(let reason) = ClientHello.read(hello) else {
                Issue.record("accepted \(names)")
                continue
            }
            #expect(reason.contains("not host_name"), "\(reason)")
        }
        // A byte after the list inside the extension's data.
        let trailing = clientHello(extensions: [(0, serverNameData([(0, "allowed.test")]) + [0])])
        #expect(ClientHello.read(trailing) == .invalid("a malformed server_name extension"))
        // A list whose length claims a byte more than its one entry holds.
        var short = serverNameData([(0, "allowed.test")])
        short[1] += 1
        short.append(0)
        #expect(ClientHello.read(clientHello(extensions: [(0, short)])) == .invalid("a malformed server_name entry"))
    }

    @Test("a ClientHello larger than the cap is refused without waiting for it")
    func capped() {
        let huge = clientHello(extensions: [(0x0015, [UInt8](repeating: 0, count: 20_000))], records: 2)
        #expect(ClientHello.read(huge.prefix(9)) == .invalid("too large"))
    }

    @Test("mutated hellos never trap and never name a host the bytes do not hold")
    func mutations() {
        let seed = clientHello(extensions: [(0x000a, [0, 2, 0, 29]), (0, serverNameData([(0, "allowed.test")]))], records: 2)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if case .complete(let name?, _) = ClientHello.read(bytes) {
                let utf8 = Array(name.utf8)
                #expect(bytes.indices.contains { bytes[$0...].starts(with: utf8) })
            }
        }
    }
}
