import Foundation
import HTTPServer
import JSONSupport
import NavigationPolicy
import PolicyProxy
import Synchronization

/// HTTPS through the forward proxy: `CONNECT host:port` decided on its host before any byte
/// moves, the TLS ClientHello's server name held to that host, then a byte relay (no
/// interception: the proxy never holds a key and the client sees the origin's certificate).
///
/// The order is the guarantee: decide `https://host:port/` (cancel → 403 with the decision's
/// `X-Navigation-*` fields, the socket closed) → port in `proxy.connect.ports` → resolve
/// (`proxy.resolve` pins first) and refuse internal addresses nobody pinned → `200 Connection
/// established` → read the whole ClientHello (bounded in size and time) and refuse it unless
/// its SNI names the decided host → only then connect to the origin and pass the ClientHello
/// on. A refused tunnel never reaches the origin. Until the relay starts, the client's bytes
/// reach the origin only as whole records `ClientHandshake` read (`TunnelHandshake` runs it).
final class ConnectTunnels: Sendable {
    private let decisions: DecisionPoint
    private let settings: ConnectSettings
    private let timeouts: (connect: Int, clientHello: Int, idle: Int)
    private let metrics: TunnelMetrics
    private let log: EventLog
    private let refusals: DestinationRefusalLog
    private let problems = ProblemRenderer()
    /// Where internal destinations are refused (nil: `proxy.allowInternalDestinations`).
    private let internalRule: InternalDestinations?
    /// `proxy.resolve`: lower-case `host:port` → the pinned address.
    private let pins: [String: TunnelSockets.Address]
    /// Whether the listener is a reverse proxy (then it tunnels nothing).
    private let reverse: Bool
    /// The answer to a cancelled decision, as the proxy gives it for `http:` (policy page or problem).
    private let cancelled: @Sendable (EnforcedDecision, HTTPRequest) -> HTTPResponse
    private let open = Mutex(OpenTunnels())

    /// Tunnels holding a slot (from the decision until the relay ends), in all and per client.
    private struct OpenTunnels {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    init(
        decisions: DecisionPoint, settings: ProxySettings, metrics: Metrics, log: EventLog,
        refusals: DestinationRefusalLog, cancelled: @escaping @Sendable (EnforcedDecision, HTTPRequest) -> HTTPResponse
    ) {
        self.decisions = decisions
        self.settings = settings.connect
        timeouts = (
            settings.connectTimeoutMilliseconds, settings.connect.clientHelloTimeoutMilliseconds,
            settings.connect.idleTimeoutSeconds * 1000
        )
        self.metrics = metrics.tunnels
        self.log = log
        self.refusals = refusals
        self.cancelled = cancelled
        internalRule = InternalDestinations(settings)
        reverse = settings.upstream != nil
        var pins: [String: TunnelSockets.Address] = [:]
        for entry in settings.resolve {
            if let address = TunnelSockets.Address(numeric: entry.address) { pins[entry.hostAndPort.lowercased()] = address }
        }
        self.pins = pins
    }

    /// Tunnels relaying now (the `navpolicyd_proxy_tunnels` gauge).
    var openTunnels: Int { metrics.openTunnels }

    /// Answers one `CONNECT`: a refusal now, or the connection taken over for the tunnel.
    func route(_ request: HTTPRequest) -> HTTPResponderResult {
        guard !reverse else { return refuse(.notAProxyRequest(reverseConfigured: true), reason: nil) }
        guard let target = Self.authority(request.rawTarget) else { return refuse(.invalidConnectTarget, reason: nil) }
        let url = "https://\(target.host):\(target.port)/"
        guard let record = try? URLRecord.parse(url), Self.tunnelHost(record.hostname) != nil else {
            return refuse(.invalidConnectTarget, reason: nil)
        }
        guard settings.ports.contains(target.port) else {
            return refuse(.connectPortRefused(target.port, allowed: settings.ports), reason: "port")
        }
        // Decided like any navigation to the origin: the chain sees the host (IDNA, IPv4 forms
        // and internal-host classes apply) and the method CONNECT; no path exists to match.
        let enforced: EnforcedDecision
        do throws(ServiceProblem) {
            enforced = try decisions.on(.tunnel).enforce(
                NavigationRequest(url: url, method: "CONNECT"), clientAddress: request.remoteAddress)
        } catch {
            return .now(Self.closing(problems.response(error)))
        }
        guard enforced.decision.verdict == .allow else {
            metrics.tunnelRefused(reason: "policy")
            return .now(Self.closing(cancelled(enforced, request)))
        }
        let peer = request.remoteAddress
        if let limit = reserve(for: peer) {
            metrics.tunnelRefused(reason: "limit")
            return .now(Self.closing(decorated(problems.response(limit), enforced)))
        }
        // WHATWG serializes an IPv6 host in brackets; the resolver and the SNI rule want it bare.
        var host = record.hostname
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let tunnel = Tunnel(
            host: host, isAddress: Self.isAddress(record.host), port: target.port,
            pinKey: (record.hostname + ":" + String(target.port)).lowercased(), url: url, peer: peer, enforced: enforced)
        return .takeOver { [self] connection in
            let thread = Thread { [self] in
                run(tunnel, on: connection)
                release(peer)
            }
            thread.name = "navpolicyd-tunnel"
            thread.start()
        }
    }

    /// One allowed `CONNECT`, from the decision on.
    private struct Tunnel: Sendable {
        let host: String
        /// The host is an IP address: a ClientHello must then carry no server name.
        let isAddress: Bool
        let port: Int
        let pinKey: String
        let url: String
        let peer: String
        let enforced: EnforcedDecision
    }

    /// The tunnel's own thread: resolve, answer 200, check the ClientHello, connect, relay.
    private func run(_ tunnel: Tunnel, on connection: TakenConnection) {
        let addresses: [TunnelSockets.Address]
        if let pinned = pins[tunnel.pinKey] {
            addresses = [pinned]
        } else if let literal = TunnelSockets.Address(numeric: tunnel.host) {
            addresses = [literal]
        } else {
            addresses = TunnelSockets.resolve(tunnel.host)
        }
        guard !addresses.isEmpty else {
            metrics.tunnelRefused(reason: "unresolved")
            connection.respond(Self.closing(decorated(problems.response(.unresolvedHost), tunnel.enforced)))
            return
        }
        let admitted = addresses.filter { address in
            guard let rule = internalRule, let ip = IPAddress(networkBytes: address.bytes) else { return true }
            return rule.admits(ip, port: tunnel.port, url: tunnel.url)
        }
        guard let address = admitted.first else {
            metrics.tunnelRefused(reason: ProxyMetrics.internalDestination)
            refusals.record(url: tunnel.url, address: addresses[0].text, peer: tunnel.peer, decisionID: tunnel.enforced.id)
            connection.respond(Self.closing(decorated(problems.response(.internalDestination), tunnel.enforced)))
            return
        }
        var head = "HTTP/1.1 200 Connection established\r\n"
        var fields = HTTPHeaders()
        EnforcementHeaders.add(tunnel.enforced.decision, id: tunnel.enforced.id, includeLocation: false, to: &fields)
        for field in fields { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        let started = ContinuousClock.now
        let helloDeadline = started.advanced(by: .milliseconds(timeouts.clientHello))
        // Nothing of MHD's is ever written after this: the connection ends with close().
        defer { connection.close() }
        guard TunnelSockets.writeAll(Array(head.utf8), to: connection.socket, until: helloDeadline) else { return }
        let clientSide = ClientHandshake { [tunnel] name in Self.serverNameMismatch(name, tunnel: tunnel) }
        let outcome = TunnelHandshake.run(
            client: connection.socket, handshake: clientSide, firstDeadline: helloDeadline,
            answerMilliseconds: timeouts.clientHello
        ) {
            TunnelSockets.connect(to: address, port: tunnel.port, timeoutMilliseconds: timeouts.connect)
        }
        let origin: Int32
        let handshake: (fromClient: Int, fromOrigin: Int)
        switch outcome {
        case .relay(let socket, let fromClient, let fromOrigin):
            origin = socket
            handshake = (fromClient, fromOrigin)
        case .refused(let reason, let detail):
            refused(tunnel, reason: reason.rawValue, detail: detail)
            return
        case .gone:
            return
        }
        defer { close(origin) }
        metrics.tunnelOpened()
        let relay = TunnelRelay(client: connection.socket, origin: origin, idleTimeoutMilliseconds: timeouts.idle)
        let ending = relay.run()
        metrics.tunnelClosed(
            bytesFromClient: relay.bytesFromClient + handshake.fromClient,
            bytesFromOrigin: relay.bytesFromOrigin + handshake.fromOrigin)
        let elapsed = started.duration(to: .now)
        log.log(
            .info, "proxy.tunnel_closed",
            [
                "host": .string(tunnel.host), "port": .number(Double(tunnel.port)), "peer": .string(tunnel.peer),
                "decisionId": .string(tunnel.enforced.id), "ending": .string(ending.rawValue),
                "bytesUpstream": .number(Double(relay.bytesFromClient + handshake.fromClient)),
                "bytesDownstream": .number(Double(relay.bytesFromOrigin + handshake.fromOrigin)),
                "seconds": .number(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18),
            ])
    }

    /// Why the ClientHello's server name does not let the tunnel on, or nil when it does.
    /// Compared after the same canonicalization as the decided host (IDNA, case, one
    /// trailing dot: ``tunnelHost(_:)``), so `EXAMPLE.com` and `xn--…` spellings of the decided
    /// host pass; a name with an empty label passes never.
    static func serverNameMismatch(_ serverName: String?, host: String, isAddress: Bool) -> String? {
        guard let serverName else {
            // RFC 6066 forbids IP literals in SNI: a tunnel to an address carries none.
            return isAddress ? nil : "the ClientHello names no server (no SNI) for the host \(host)"
        }
        guard !isAddress else { return "the ClientHello names \(serverName) in a tunnel to the address \(host)" }
        guard let record = try? URLRecord.parse("https://\(serverName)/"), !Self.isAddress(record.host),
            let named = Self.tunnelHost(record.hostname), named == Self.tunnelHost(host)
        else { return "the ClientHello names \(serverName), not \(host)" }
        return nil
    }

    private static func serverNameMismatch(_ serverName: String?, tunnel: Tunnel) -> String? {
        serverNameMismatch(serverName, host: tunnel.host, isAddress: tunnel.isAddress)
    }

    /// Whether a parsed host is an IP address (not a domain, which is what SNI may carry).
    private static func isAddress(_ host: URLHost?) -> Bool {
        guard let host else { return false }
        if case .domain = host { return false }
        return true
    }

    /// A parsed host (WHATWG `hostname`) as tunnels compare it — without its one trailing dot —
    /// or nil when a tunnel may not go there: empty, or with an empty label (`a..b`, `b..`,
    /// `.b`). The one place tunnel hosts are validated, for the CONNECT authority and the SNI
    /// alike: WHATWG keeps empty labels, so `blocked.test..` would otherwise be decided as a
    /// host no rule names and reach `blocked.test` (issue 38, F9). Checked after parsing, so
    /// percent-encoded and ideographic full stops count too.
    static func tunnelHost(_ hostname: String) -> Substring? {
        let host = hostname.hasSuffix(".") ? hostname.dropLast() : Substring(hostname)
        // An IPv6 literal has no labels; its brackets keep it apart from a domain.
        if host.hasPrefix("[") { return host }
        guard !host.isEmpty, !host.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { return nil }
        return host
    }

    /// Logs and counts a tunnel closed before anything reached the origin.
    private func refused(_ tunnel: Tunnel, reason: String, detail: String) {
        metrics.tunnelRefused(reason: reason)
        log.log(
            .warning, "proxy.tunnel_refused",
            [
                "host": .string(tunnel.host), "port": .number(Double(tunnel.port)), "peer": .string(tunnel.peer),
                "decisionId": .string(tunnel.enforced.id), "reason": .string(reason), "detail": .string(detail),
            ])
    }

    /// Takes a slot for `peer`, or returns the limit it would pass.
    private func reserve(for peer: String) -> ProblemDetails? {
        let (total, perIP) = (settings.maxTunnels, settings.maxTunnelsPerIP)
        return open.withLock { open -> ProblemDetails? in
            if open.total >= total { return .tunnelLimit(status: 503, limit: total, what: "proxy.connect.maxTunnels") }
            if open.perAddress[peer, default: 0] >= perIP {
                return .tunnelLimit(status: 429, limit: perIP, what: "proxy.connect.maxTunnelsPerIP")
            }
            open.total += 1
            open.perAddress[peer, default: 0] += 1
            return nil
        }
    }

    private func release(_ peer: String) {
        open.withLock { open in
            open.total -= 1
            let left = open.perAddress[peer, default: 1] - 1
            open.perAddress[peer] = left > 0 ? left : nil
        }
    }

    private func refuse(_ problem: ProblemDetails, reason: String?) -> HTTPResponderResult {
        if let reason { metrics.tunnelRefused(reason: reason) }
        return .now(Self.closing(problems.response(problem)))
    }

    /// `response` with the decision's `X-Navigation-*` fields (an allowed tunnel refused later).
    private func decorated(_ response: HTTPResponse, _ enforced: EnforcedDecision) -> HTTPResponse {
        var response = response
        var headers = response.headers
        EnforcementHeaders.add(enforced.decision, id: enforced.id, includeLocation: false, to: &headers)
        response.headers = headers
        return response
    }

    /// `response` with `Connection: close`: no tunnel means the connection ends (RFC 9110
    /// §9.3.6: the client must not reuse it as if a tunnel were there).
    static func closing(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        var headers = response.headers
        headers.replaceOrAdd(name: .connection, value: "close")
        response.headers = headers
        return response
    }

    /// `host` and `port` of an authority-form target (`example.com:443`, `[::1]:443`): the port
    /// is required, nothing else (userinfo, path, query) may be there.
    ///
    /// Read by bytes: as `Character`s, a `:` or `/` followed by a combining mark was not one, and
    /// a host of combining marks cost the square of its length (18.9 ms at 6 KiB; outside attack
    /// 16, F5).
    static func authority(_ target: String) -> (host: String, port: Int)? {
        let bytes = Array(target.utf8)
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let host = bytes[..<colon]
        let portText = bytes[(colon + 1)...]
        guard !host.isEmpty, (1...5).contains(portText.count), portText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = Int(String(decoding: portText, as: UTF8.self)), (1...65_535).contains(port)
        else { return nil }
        let refused = Array("/?#@\\ \t".utf8)
        guard !host.contains(where: refused.contains) else { return nil }
        if host.first == UInt8(ascii: "[") {
            guard host.last == UInt8(ascii: "]") else { return nil }
        } else if host.contains(UInt8(ascii: ":")) {
            return nil
        }
        return (String(decoding: host, as: UTF8.self), port)
    }
}

extension ProblemDetails {
    /// 400: a `CONNECT` target that is not `host:port`, or whose host has an empty label.
    static let invalidConnectTarget = ProblemDetails(
        kind: "invalid-connect-target", title: "Bad request", status: 400,
        detail: "A CONNECT target must be host:port (authority form, RFC 9110 §9.3.6), such as example.com:443, "
            + "with no empty label in the host.")

    /// 403: a `CONNECT` to a port outside `proxy.connect.ports`.
    static func connectPortRefused(_ port: Int, allowed: [Int]) -> ProblemDetails {
        ProblemDetails(
            kind: "connect-port-refused", title: "Forbidden", status: 403,
            detail: "This proxy tunnels only to ports " + allowed.map(String.init).joined(separator: ", ")
                + " (proxy.connect.ports), not \(port).")
    }

    /// 503 or 429: too many tunnels open, in all or from this client.
    static func tunnelLimit(status: HTTPStatus, limit: Int, what: String) -> ProblemDetails {
        ProblemDetails(
            kind: "tunnel-limit", title: status == 429 ? "Too many requests" : "Service unavailable", status: status,
            detail: "\(limit) tunnels are open (\(what)); try again when one has closed.")
    }

    /// 502: the `CONNECT` host has no address.
    static let unresolvedHost = ProblemDetails(
        kind: "bad-gateway", title: "Bad gateway", status: 502, detail: "The host of the CONNECT target does not resolve.")
}
