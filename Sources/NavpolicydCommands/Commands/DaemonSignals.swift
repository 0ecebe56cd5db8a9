import Dispatch
import Foundation
import PolicyService

/// Every signal `serve` handles, in one place: SIGHUP reloads, SIGTERM/SIGINT drain and exit,
/// SIGUSR1 reopens the decision log (after logrotate renamed it).
///
/// The signals are turned into dispatch events, so nothing runs in signal context. Installed
/// before the daemon starts: a signal sent once it is listening (or READY=1) must find its
/// source registered. A stop or reload that arrives during the start is held by
/// ``StartupSignals`` and carried out by ``daemonRunning()``.
final class DaemonSignals: Sendable {
    private let daemon: PolicyDaemon
    private let log: EventLog
    private let startup = StartupSignals()
    /// Kept alive for as long as the signals are handled.
    private let sources: [SignalSource]

    /// A dispatch source handed between threads: only created and kept (`DispatchSource`
    /// itself is thread-safe but not marked `Sendable`).
    private struct SignalSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    /// Takes the signals over from their default actions.
    init(daemon: PolicyDaemon, log: EventLog) {
        self.daemon = daemon
        self.log = log
        let queue = DispatchQueue(label: "navpolicyd.signals")
        let startup = startup
        var sources: [SignalSource] = []
        for signalNumber in [SIGHUP, SIGTERM, SIGINT, SIGUSR1] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                switch signalNumber {
                case SIGUSR1:
                    daemon.reopenDecisionLog()
                case SIGHUP:
                    if startup.reloadRequested() == .handleNow { _ = daemon.reload(trigger: "signal") }
                default:
                    if startup.stopRequested(signalNumber) == .handleNow {
                        Self.stop(daemon: daemon, log: log, signal: signalNumber)
                    }
                }
            }
            source.resume()
            sources.append(SignalSource(source: source))
        }
        self.sources = sources
    }

    /// The signals `serve` handles, unblocked in the calling (main) thread before the config
    /// is read, so a SIGTERM during a long start ends the process as its default action says.
    ///
    /// A blocked signal mask is inherited across exec: a daemon spawned from a libdispatch
    /// worker thread (a Swift program's `Process`, some supervisors) starts with SIGTERM blocked,
    /// so a stop sent while the config compiles stayed pending, and the `SIG_IGN` of ``init``
    /// then discarded it: the daemon went on to serve after being told to stop. Threads the
    /// daemon starts later inherit this mask (libdispatch's workers block what they must).
    static func unblockInheritedMask() {
        var handled = sigset_t()
        sigemptyset(&handled)
        for signalNumber in [SIGHUP, SIGTERM, SIGINT, SIGUSR1] { sigaddset(&handled, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// The daemon has started: carries out a stop or reload that arrived meanwhile.
    func daemonRunning() {
        let pending = startup.markRunning()
        if let stopSignal = pending.stopSignal {
            Self.stop(daemon: daemon, log: log, signal: stopSignal)
        } else if pending.reloadPending {
            _ = daemon.reload(trigger: "signal")
        }
    }

    /// Parks the calling (main) thread for good; SIGTERM or SIGINT end the process.
    ///
    /// Not dispatchMain(): it pthread_exits the main thread, and AddressSanitizer then flags
    /// libdispatch's signal thread writing into the poisoned stack of the caller's frame
    /// (sigfillset in _dispatch_sigmask) on every SIGHUP and SIGTERM, which made ASan unusable
    /// on the daemon. Nothing here uses the main queue.
    func park() {
        let parked = DispatchSemaphore(value: 0)
        withExtendedLifetime(sources) { parked.wait() }
    }

    /// SIGTERM/SIGINT: drain every listener and exit.
    private static func stop(daemon: PolicyDaemon, log: EventLog, signal signalNumber: Int32) -> Never {
        log.log(.info, "shutdown.started", ["signal": .string(signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")])
        daemon.shutdown()
        log.log(.info, "shutdown.finished")
        exit(ExitCode.success)
    }
}
