import Foundation

/// The `Idempotency-Key` of one share. Create it once when the user shares, store it with the
/// pending item, and send the same key on every retry: the daemon then stores the share once
/// and replays its first answer (docs/intake.md).
public struct IdempotencyKey: Sendable, Hashable, CustomStringConvertible {
    /// The header value.
    public let value: String

    /// A new random key (a UUID) for a new share.
    public init() {
        self.value = UUID().uuidString.lowercased()
    }

    /// A key read back from storage. Throws when the daemon would refuse it: 1 to 255 visible
    /// ASCII characters.
    public init(_ value: String) throws(ShareIntakeRequestError) {
        guard (1...255).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ShareIntakeRequestError(
                field: "idempotencyKey", reason: "an Idempotency-Key is 1 to 255 visible ASCII characters")
        }
        self.value = value
    }

    public var description: String { value }
}
