import Foundation
public import NavigationPolicy

extension BundleStamp {
    /// Why a bundle expired at `unixSeconds` is refused, in the RFC 3339 times `bundle verify`'s
    /// OK line prints: one wording for the client, `check --bundle` and `bundle verify`.
    public func expiryReason(atUnixSeconds unixSeconds: Int) -> String {
        "expired at \(Self.iso8601(unixSeconds: expiresAt)); it is \(Self.iso8601(unixSeconds: unixSeconds)) now"
    }

    /// Unix seconds as an RFC 3339 UTC time (`2026-12-05T00:00:00Z`), for people.
    public static func iso8601(unixSeconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}
