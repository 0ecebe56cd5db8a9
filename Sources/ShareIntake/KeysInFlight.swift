import Synchronization

/// The Idempotency-Keys whose first request this process has not finished storing. A second
/// request with the same key gets 409 `idempotency-in-flight` at once instead of queueing
/// behind the first; both stores use it around their writer.
final class KeysInFlight: Sendable {
    private let keys = Mutex<Set<String>>([])

    /// Runs `store` while `key` is claimed (no key: just runs it); refuses when another request
    /// holds the key.
    func whileClaimed(
        _ key: String?, _ store: () async -> Result<IntakeStoreOutcome, IntakeFailure>
    ) async -> Result<IntakeStoreOutcome, IntakeFailure> {
        guard let key else { return await store() }
        guard keys.withLock({ $0.insert(key).inserted }) else {
            return .failure(
                IntakeFailure(
                    .idempotencyInFlight, "a request with this Idempotency-Key is still being stored; retry shortly",
                    extensions: ["retryAfter": .number(1)]))
        }
        let result = await store()
        _ = keys.withLock { $0.remove(key) }
        return result
    }
}
