import Foundation
import HTTPServer
import JSONSupport

/// Logs refused bearer tokens as `auth.failed` events: which route, from which peer and why
/// (`missing`, `malformed`, `wrong`), never the token or any part of it.
///
/// Rate-limited (``RateLimitedEvent``: at most ``linesPerSecond`` lines a second; the next line
/// written says how many were left out), so a client guessing tokens cannot flood the log.
final class AuthFailureLog: Sendable {
    /// Why a request was refused.
    enum Reason: String {
        /// No `Authorization` field.
        case missing
        /// An `Authorization` field that is not `Bearer <token>` with a token of visible ASCII.
        case malformed
        /// A well-formed bearer token that is not the configured one.
        case wrong
    }

    static let linesPerSecond = 20

    private let line: RateLimitedEvent

    init(
        log: EventLog, metrics: Metrics? = nil,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        line = RateLimitedEvent(
            "auth.failed", level: .warning, limit: Self.linesPerSecond, windowMilliseconds: 1_000, log: log,
            metrics: metrics, now: now)
    }

    /// The reason the presented `Authorization` fields (which did not authorize) were refused;
    /// more than one is `malformed`.
    static func reason(for fields: [String]) -> Reason {
        guard fields.count <= 1 else { return .malformed }
        return reason(for: fields.first)
    }

    /// The reason `authorization` (the presented field, which did not authorize) was refused.
    static func reason(for authorization: String?) -> Reason {
        guard let authorization else { return .missing }
        let bytes = Array(authorization.utf8)
        let scheme: StaticString = "bearer "
        guard bytes.count > scheme.utf8CodeUnitCount, ASCIICaseInsensitive.hasPrefix(bytes, lowercase: scheme) else {
            return .malformed
        }
        let token = bytes.dropFirst(scheme.utf8CodeUnitCount)
        guard token.count <= AdminToken.maximumLength, token.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            return .malformed
        }
        return .wrong
    }

    /// Logs one refusal (unless over the rate limit).
    func record(route: String, realm: String, request: HTTPRequest) {
        line.record {
            [
                "route": .string(route), "method": .string(request.method), "peer": .string(request.remoteAddress),
                "reason": .string(Self.reason(for: request.headers.values(for: .authorization)).rawValue),
                "realm": .string(realm),
            ]
        }
    }
}
