import Synchronization

/// Bounds the intake requests waiting on the database at once (`intake.maxWaitingRequests`).
///
/// A request waiting on storage keeps its connection open, and connections count against
/// `server.perIPConnectionLimit`: behind a reverse proxy every client shares one address, so
/// a stalled database would otherwise let intake fill the slots `/v1/decide` and `/healthz`
/// need. Past the bound an intake request is answered 503 at once, without waiting.
final class IntakeStorageGate: Sendable {
    private let waiting = Atomic<Int>(0)
    /// Most requests waiting at once.
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Takes a place, or answers false when all are taken; a true answer is paired with one ``leave()``.
    func enter() -> Bool {
        let now = waiting.add(1, ordering: .acquiringAndReleasing).newValue
        guard now <= limit else {
            waiting.subtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// Gives the place back.
    func leave() { waiting.subtract(1, ordering: .acquiringAndReleasing) }

    /// Requests waiting now (for `/metrics`).
    var count: Int { waiting.load(ordering: .relaxed) }
}
