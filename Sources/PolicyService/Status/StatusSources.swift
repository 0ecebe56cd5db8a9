import Foundation
import JSONSupport
import Synchronization

/// What the status report needs besides the policy store and the metrics: facts that are
/// known only once the daemon is wired and started.
struct StatusSources: Sendable {
    /// When the API was assembled (the counters' "since start").
    var startedAt = Date()
    /// The bound listeners, filled in by the daemon once they are listening.
    var listeners = ListenerDirectory()
    /// The decision log, when one is written (its path and the size of its file).
    var decisionLog: DecisionLog?
}

/// The daemon's bound listeners (`api`, `proxy`), as the status page lists them.
///
/// Written once per listener at start-up, after binding (port 0 becomes the real port), and
/// read by every status request.
public final class ListenerDirectory: Sendable {
    /// One bound listener.
    public struct Listener: Sendable, Equatable {
        /// What it serves: `api` or `proxy`.
        public var role: String
        /// `HOST:PORT` as bound.
        public var address: String
    }

    private let listeners = Mutex<[Listener]>([])

    /// An empty directory.
    public init() {}

    /// Records a bound listener.
    public func add(role: String, address: String) {
        listeners.withLock { $0.append(Listener(role: role, address: address)) }
    }

    /// The listeners in the order they were bound.
    public var all: [Listener] { listeners.withLock { $0 } }
}
