/// The client's side of a `CONNECT` tunnel's TLS handshake, from its first byte until the relay
/// starts, as a pure state machine (no sockets): bytes in, whole records to pass on out.
///
/// Why it exists: the origin reads the client's bytes as a stream of TLS records. If the proxy
/// passed on anything it had not parsed as whole records (a record's first half pipelined after
/// the ClientHello, say), the origin could be inside a record the proxy never saw begin, and a
/// second ClientHello after a HelloRetryRequest could be read by the two differently: the proxy
/// a harmless one, the origin one naming a host nobody decided (issue 38, item 1). So the origin
/// gets only records read here whole, and every ClientHello it can act on starts at a record
/// boundary the proxy shares with it.
///
/// What may come, in order (anything else is a ``Refusal`` and the tunnel is closed before the
/// origin gets it):
/// 1. ``Phase/firstHello``: the first ClientHello (one or more handshake records, ending at a
///    record's end), held back until whole and its server name checked.
/// 2. ``Phase/firstAnswer``: passed on, waiting for the origin's answer. Only one
///    ChangeCipherSpec record (`14 03 0x 00 01 01`, RFC 8446 §D.4) may come meanwhile; a client
///    that sends anything else (early data, another handshake record) is closed.
///    When the origin answers (``originAnswered(_:)``), no partial record may be held.
/// 3. ``Phase/secondHello`` after a HelloRetryRequest: the ChangeCipherSpec record if not sent
///    yet, then a second ClientHello naming exactly the server name of the first (RFC 8446
///    §4.1.2 lets a client change only the key shares, cookie, early data and padding).
/// 4. ``Phase/secondAnswer``: passed on, waiting for the origin's answer to it; the client may
///    send nothing meanwhile (its ChangeCipherSpec comes before the second hello, or after the
///    answer, RFC 8446 §D.4). The answer must be a
///    ServerHello that is no second HelloRetryRequest (RFC 8446 §4.1.4 makes that an error):
///    otherwise a third ClientHello would go to the origin unread.
/// 5. ``Phase/relay``: the relay carries the rest; nothing is held.
///
/// The origin's answer (``HelloRetry/Reading``, every message of its records read) must be a
/// ServerHello; an alert ends the tunnel (the caller passes it to the client and closes);
/// anything else before the ServerHello (a TLS 1.2 HelloRequest, say), a message after a retry
/// in its record, or a malformed ServerHello closes the tunnel before the client's next bytes
/// reach the origin.
///
/// Bounded: a ClientHello's records are at most ``ClientHello/maxBytes``; between hellos only a
/// 6-byte record may be held; any other record is refused on its first byte.
public struct ClientHandshake: Sendable {
    /// Where the handshake is.
    public enum Phase: Equatable, Sendable {
        case firstHello
        case firstAnswer
        case secondHello
        case secondAnswer
        case relay
        /// Refused: nothing more is read or passed on.
        case refused
    }

    /// Why the tunnel is closed.
    public struct Refusal: Error, Equatable, Sendable {
        public enum Kind: Sendable {
            /// The first bytes are no ClientHello.
            case notTLS
            /// A ClientHello names another host than the tunnel's (or than the first one).
            case serverName
            /// A record out of place: pipelined, partial when the origin answered, or not a hello.
            case framing
            /// The origin answered a ClientHello with an alert: the handshake ended there.
            case originAlert
            /// The origin's answer is no ServerHello (another message first, a second retry).
            case originAnswer
        }

        public let kind: Kind
        /// For the log.
        public let detail: String
    }

    public private(set) var phase = Phase.firstHello
    /// Received and not passed on; always starts at a record boundary.
    private var held: [UInt8] = []
    private var firstServerName: String?
    private var changeCipherSpecSeen = false
    /// Why a first ClientHello's server name does not let the tunnel on (nil: it does).
    private let serverNameProblem: @Sendable (String?) -> String?

    /// A handshake whose first ClientHello must pass `serverNameProblem` (nil: accepted).
    public init(serverNameProblem: @escaping @Sendable (String?) -> String?) {
        self.serverNameProblem = serverNameProblem
    }

    /// Bytes received and not passed on (a partial record or a hello not yet whole).
    public var heldBytes: Int { held.count }

    /// Takes the client's next bytes. Returns the whole records to pass on to the origin now
    /// (possibly none), or why the tunnel is closed; after a refusal nothing from this call is
    /// passed on.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> Result<[UInt8], Refusal> {
        guard phase != .refused else { return .failure(Refusal(kind: .framing, detail: "the tunnel was refused")) }
        held.append(contentsOf: bytes)
        var passed: [UInt8] = []
        while !held.isEmpty {
            switch next() {
            case .needMore:
                return .success(passed)
            case .pass(let count):
                passed += held[..<count]
                held.removeFirst(count)
            case .refuse(let refusal):
                return .failure(refuse(refusal))
            }
        }
        return .success(passed)
    }

    /// Whether a ClientHello was passed on and the origin's answer is awaited.
    public var awaitsOrigin: Bool { phase == .firstAnswer || phase == .secondAnswer }

    /// The origin's answer to the ClientHello passed on (``awaitsOrigin`` only): a
    /// HelloRetryRequest to the first opens ``Phase/secondHello``, a ServerHello
    /// ``Phase/relay``; anything else is refused (an alert as ``Refusal/Kind/originAlert``, for
    /// the caller to pass on before it closes). A partial record held now is refused: the
    /// client sent it before it could know the answer. Returns why the tunnel is closed, or nil.
    public mutating func originAnswered(_ answer: HelloRetry.Reading) -> Refusal? {
        guard awaitsOrigin else {
            return refuse(Refusal(kind: .framing, detail: "the origin answered out of turn"))
        }
        guard answer != .needMore else { return nil }
        guard held.isEmpty else {
            return refuse(
                Refusal(kind: .framing, detail: "\(held.count) bytes of a partial record were held when the origin answered"))
        }
        let which = phase == .firstAnswer ? "first" : "second"
        switch answer {
        case .needMore:
            return nil
        case .retry where phase == .firstAnswer:
            phase = .secondHello
        case .retry:
            // RFC 8446 §4.1.4: a second HelloRetryRequest is an error; relaying on would carry
            // a third ClientHello unread.
            return refuse(
                Refusal(kind: .originAnswer, detail: "the origin answered the second ClientHello with another HelloRetryRequest"))
        case .serverHello:
            phase = .relay
        case .alert:
            return refuse(Refusal(kind: .originAlert, detail: "the origin answered the \(which) ClientHello with an alert"))
        case .invalid(let reason):
            return refuse(Refusal(kind: .originAnswer, detail: "the origin answered the \(which) ClientHello with \(reason)"))
        }
        return nil
    }

    private enum Step {
        case needMore
        /// The first `count` held bytes are whole records to pass on.
        case pass(Int)
        case refuse(Refusal)
    }

    private mutating func refuse(_ refusal: Refusal) -> Refusal {
        phase = .refused
        held = []
        return refusal
    }

    /// What the held bytes (at least one) allow in this phase.
    private mutating func next() -> Step {
        switch phase {
        case .firstHello:
            return hello(first: true)
        case .firstAnswer:
            return changeCipherSpec(while: "before the origin answered the ClientHello")
        case .secondHello:
            if held.first == Self.changeCipherSpecType && !changeCipherSpecSeen {
                return changeCipherSpec(while: "after a HelloRetryRequest")
            }
            return hello(first: false)
        case .secondAnswer:
            // A client sends its one ChangeCipherSpec before the second hello or before its
            // encrypted flight (RFC 8446 §D.4), never here: nothing is allowed.
            return .refuse(
                Refusal(
                    kind: .framing,
                    detail: "a \(Self.recordName(held[0])) record before the origin answered the second ClientHello"))
        case .relay:
            return .refuse(
                Refusal(kind: .framing, detail: "a \(Self.recordName(held[0])) record once the relay started"))
        case .refused:
            return .refuse(Refusal(kind: .framing, detail: "the tunnel was refused"))
        }
    }

    /// A ClientHello starting the held bytes: passed once whole (it ends at a record's end).
    private mutating func hello(first: Bool) -> Step {
        switch ClientHello.read(held) {
        case .needMore:
            return .needMore
        case .invalid(let reason):
            return .refuse(
                Refusal(kind: first ? .notTLS : .framing, detail: first ? reason : "after a HelloRetryRequest: \(reason)"))
        case .complete(let name, let length):
            if first {
                if let problem = serverNameProblem(name) { return .refuse(Refusal(kind: .serverName, detail: problem)) }
                firstServerName = name
                phase = .firstAnswer
            } else {
                guard name == firstServerName else {
                    return .refuse(
                        Refusal(
                            kind: .serverName,
                            detail: "the second ClientHello (after a HelloRetryRequest) names \(name ?? "no server"), "
                                + "the first \(firstServerName ?? "none")"))
                }
                phase = .secondAnswer
            }
            return .pass(length)
        }
    }

    /// One ChangeCipherSpec record starting the held bytes, checked byte by byte so anything
    /// else is refused on its first wrong byte.
    private mutating func changeCipherSpec(while when: String) -> Step {
        guard held[0] == Self.changeCipherSpecType else {
            return .refuse(Refusal(kind: .framing, detail: "a \(Self.recordName(held[0])) record \(when)"))
        }
        guard !changeCipherSpecSeen else {
            return .refuse(Refusal(kind: .framing, detail: "a second ChangeCipherSpec record \(when)"))
        }
        // 14, 03, 00…04, then the length 1 and the one byte 01 (RFC 8446 §5, §D.4).
        let valid: [ClosedRange<UInt8>] = [0x14...0x14, 0x03...0x03, 0x00...0x04, 0x00...0x00, 0x01...0x01, 0x01...0x01]
        for (index, byte) in held.prefix(valid.count).enumerated() where !valid[index].contains(byte) {
            return .refuse(Refusal(kind: .framing, detail: "a malformed ChangeCipherSpec record \(when)"))
        }
        guard held.count >= valid.count else { return .needMore }
        changeCipherSpecSeen = true
        return .pass(valid.count)
    }

    private static let changeCipherSpecType: UInt8 = 0x14

    /// A record's content type by name (RFC 8446 §5.1), for the log.
    private static func recordName(_ type: UInt8) -> String {
        switch type {
        case 0x14: "ChangeCipherSpec"
        case 0x15: "alert"
        case 0x16: "handshake"
        case 0x17: "application-data"
        default: "non-TLS (first byte \(type))"
        }
    }
}
