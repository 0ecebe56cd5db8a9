import Synchronization

/// `navpolicyd_ext_authz_checks_total{transport, result}`: every check Envoy asked, by
/// transport (`http`, `grpc`) and what it got (`allow`, `deny`, `invalid`).
///
/// `navpolicyd_grpc_requests_total` counts gRPC calls by gRPC status, where a denial is a
/// successful call (status 0) like an allow; this family says what the answer was, as
/// Envoy's own `ext_authz.ok` / `ext_authz.denied` counters do, on both transports.
/// Rendered once either ext_authz listener runs, every series present from 0.
final class ExtAuthzMetrics: Sendable {
    /// Which ext_authz transport asked.
    enum Transport: Int, CaseIterable, Sendable {
        case http, grpc

        var label: String { self == .http ? "http" : "grpc" }
    }

    /// What the check got.
    enum Result: Int, CaseIterable, Sendable {
        /// Allowed: the request goes on to the upstream.
        case allow
        /// Denied: the policy cancelled it, or no policy is loaded yet (503, fail closed).
        case deny
        /// Not decided: the check request itself was malformed (400, `INVALID_ARGUMENT`), or the
        /// listener refused it before any check (the HTTP layer's 413, 501, 414, 431 and framing
        /// 400s; a gRPC Check answered `RESOURCE_EXHAUSTED` or another transport error).
        case invalid

        var label: String {
            switch self {
            case .allow: "allow"
            case .deny: "deny"
            case .invalid: "invalid"
            }
        }
    }

    /// One counter per transport and result, index `transport * 3 + result`.
    private let counts: InlineArray<6, Atomic<UInt64>> = InlineArray { _ in Atomic(0) }
    private let enabled = Atomic<Bool>(false)

    /// Turns the family on (an ext_authz listener runs).
    func enable() { enabled.store(true, ordering: .relaxed) }

    /// Counts one check.
    func record(_ transport: Transport, _ result: Result) {
        counts[transport.rawValue * Result.allCases.count + result.rawValue].wrappingAdd(1, ordering: .relaxed)
    }

    func render() -> String {
        guard enabled.load(ordering: .relaxed) else { return "" }
        var out = "# HELP navpolicyd_ext_authz_checks_total ext_authz checks answered, by transport and result "
        out += "(allow, deny: cancelled or no policy, invalid: the check request could not be decided).\n"
        out += "# TYPE navpolicyd_ext_authz_checks_total counter\n"
        for transport in Transport.allCases {
            for result in Result.allCases {
                let value = counts[transport.rawValue * Result.allCases.count + result.rawValue].load(ordering: .relaxed)
                out += "navpolicyd_ext_authz_checks_total{transport=\"\(transport.label)\",result=\"\(result.label)\"} \(value)\n"
            }
        }
        return out
    }
}
