import Synchronization

/// Signals that arrive while the daemon is still starting, held until it runs.
///
/// The signal sources are installed before the daemon starts, so no SIGTERM, SIGINT or SIGHUP
/// sent once it is listening (or once systemd has READY=1) can fall into the moment between
/// `signal(SIG_IGN)` and a source's registration, where the kernel drops it: a test or an
/// orchestrator that stops the daemon right after "listening" would otherwise wait forever.
/// A stop or reload that comes before the daemon runs is not acted on at once (shutting down
/// a half-started daemon races its start); it is kept and carried out as soon as the start
/// returns.
final class StartupSignals: Sendable {
    /// What to do when a signal arrives.
    enum Arrival: Equatable {
        /// The daemon runs: handle the signal now.
        case handleNow
        /// The daemon is still starting: the signal is kept for ``markRunning()``.
        case deferred
    }

    private struct State {
        var running = false
        var stopSignal: Int32?
        var reloadPending = false
    }

    private let state = Mutex(State())

    init() {}

    /// A stop signal (SIGTERM/SIGINT) arrived.
    func stopRequested(_ signal: Int32) -> Arrival {
        state.withLock { state in
            if state.running { return .handleNow }
            if state.stopSignal == nil { state.stopSignal = signal }
            return .deferred
        }
    }

    /// A reload signal (SIGHUP) arrived.
    func reloadRequested() -> Arrival {
        state.withLock { state in
            if state.running { return .handleNow }
            state.reloadPending = true
            return .deferred
        }
    }

    /// The daemon runs from now on; returns what arrived while it was starting (a stop wins
    /// over a reload).
    func markRunning() -> (stopSignal: Int32?, reloadPending: Bool) {
        state.withLock { state in
            state.running = true
            return (state.stopSignal, state.reloadPending)
        }
    }
}
