import Synchronization

/// The ext_authz gRPC listener's series: every answered call by method and status, and the
/// connections refused at accept. Rendered only when that listener runs. Method labels are a
/// fixed set (an unknown `:path` is `other`), so a client cannot grow the series.
final class GRPCMetrics: Sendable {
    /// The methods served, by `:path`, with their label.
    static let methods = [ExtAuthzGRPCResponder.checkPath: "Check", ExtAuthzGRPCResponder.healthPath: "Health"]

    private struct State {
        var enabled = false
        var requests: [Key: UInt64] = [:]
        var refusedConnections: UInt64 = 0
    }

    private struct Key: Hashable, Comparable {
        let method: String
        let status: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.method, lhs.status) < (rhs.method, rhs.status) }
    }

    private let state = Mutex(State())

    /// Turns the series on (the gRPC listener runs).
    func enable() { state.withLock { $0.enabled = true } }

    /// One answered call: its `:path` and its status (see `GRPCServerObserver`).
    func answered(path: String, status: String) {
        let key = Key(method: Self.methods[path] ?? "other", status: status)
        state.withLock { $0.requests[key, default: 0] += 1 }
    }

    /// A connection closed at accept (the total or per-address limit).
    func connectionRefused() { state.withLock { $0.refusedConnections += 1 } }

    func render() -> String {
        let snapshot = state.withLock { $0 }
        guard snapshot.enabled else { return "" }
        var out = "# HELP navpolicyd_grpc_requests_total ext_authz gRPC calls answered, by method and status "
        out += "(the gRPC status code; http_415 / http_405 for requests that were not gRPC).\n"
        out += "# TYPE navpolicyd_grpc_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_grpc_requests_total{method=\"\(key.method)\",status=\"\(key.status)\"} \(count)\n"
        }
        out += "# HELP navpolicyd_grpc_connections_refused_total ext_authz gRPC connections closed at accept "
        out += "(server.connectionLimit, perIPConnectionLimit or perSubnetConnectionLimit reached, or only the slots "
        out += "kept for small networks left).\n"
        out += "# TYPE navpolicyd_grpc_connections_refused_total counter\n"
        out += "navpolicyd_grpc_connections_refused_total \(snapshot.refusedConnections)\n"
        return out
    }
}
