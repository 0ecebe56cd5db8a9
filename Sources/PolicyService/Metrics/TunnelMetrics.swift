import Synchronization

/// The `CONNECT` tunnel series of the proxy listener: tunnels open now, bytes relayed, and
/// tunnels refused by reason. Written once per tunnel event (never per byte: a relay reports
/// its totals when it ends), so one lock is enough.
public final class TunnelMetrics: Sendable {
    /// Why a `CONNECT` got no tunnel, or had it closed before the relay started.
    /// `policy`: the decision cancelled it (403); `port`: not in `proxy.connect.ports` (403);
    /// `internal-destination`: resolved to an internal address nobody pinned (403);
    /// `unresolved`: the host has no address (502); `limit`: `proxy.connect.maxTunnels` or
    /// `maxTunnelsPerIP` reached (503/429); `not-tls`: the first bytes are no ClientHello, or a
    /// record before the relay is out of place (`ClientHandshake`);
    /// `client-hello-timeout`: none within `proxy.connect.clientHelloTimeoutMilliseconds`;
    /// `sni-mismatch`: the ClientHello names another host (or none, or names one for an IP);
    /// `connect-failed`: the origin could not be reached; `origin-answer`: the origin answered a
    /// ClientHello with an alert (passed on) or with no ServerHello first, or a second retry.
    static let refusalReasons = [
        "policy", "port", "internal-destination", "unresolved", "limit", "not-tls", "client-hello-timeout",
        "sni-mismatch", "connect-failed", "origin-answer",
    ]

    private struct State {
        var open = 0
        var opened: UInt64 = 0
        var bytesFromClient: UInt64 = 0
        var bytesFromOrigin: UInt64 = 0
        var refused: [String: UInt64] = Dictionary(uniqueKeysWithValues: TunnelMetrics.refusalReasons.map { ($0, 0) })
    }

    private let state = Mutex(State())

    init() {}

    /// A tunnel started relaying.
    func tunnelOpened() {
        state.withLock {
            $0.open += 1
            $0.opened += 1
        }
    }

    /// A relaying tunnel ended after moving these bytes.
    func tunnelClosed(bytesFromClient: Int, bytesFromOrigin: Int) {
        state.withLock {
            $0.open -= 1
            $0.bytesFromClient += UInt64(max(0, bytesFromClient))
            $0.bytesFromOrigin += UInt64(max(0, bytesFromOrigin))
        }
    }

    /// A tunnel refused; `reason` is one of ``refusalReasons``.
    func tunnelRefused(reason: String) {
        state.withLock { $0.refused[reason, default: 0] += 1 }
    }

    /// Tunnels relaying now.
    var openTunnels: Int { state.withLock { $0.open } }

    func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ series: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in series { out += "\(name)\(labels) \(value)\n" }
        }
        family("navpolicyd_proxy_tunnels", "gauge", "CONNECT tunnels open (relaying) now.", [("", "\(snapshot.open)")])
        family(
            "navpolicyd_proxy_tunnels_opened_total", "counter", "CONNECT tunnels that started relaying.",
            [("", "\(snapshot.opened)")])
        family(
            "navpolicyd_proxy_tunnel_bytes_total", "counter",
            "Bytes relayed through ended CONNECT tunnels, by direction (upstream = client to origin).",
            [
                (#"{direction="upstream"}"#, "\(snapshot.bytesFromClient)"),
                (#"{direction="downstream"}"#, "\(snapshot.bytesFromOrigin)"),
            ])
        family(
            "navpolicyd_proxy_tunnel_refusals_total", "counter",
            "CONNECT requests refused, or tunnels closed before any byte reached the origin, by reason.",
            snapshot.refused.sorted { $0.key < $1.key }.map { (#"{reason=""# + $0.key + #""}"#, "\($0.value)") })
        return out
    }
}
