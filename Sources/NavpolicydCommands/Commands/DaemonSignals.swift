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
        // Blocked in this (main) thread from here on, and so in every thread it starts later
        // (the listeners' threads): a signal sent before libdispatch has taken it over stays
        // pending for the source's signalfd instead of meeting `SIG_IGN` in a thread that
        // does not block it, where the kernel drops it (a CI run under load 35 lost a SIGTERM
        // that way: the daemon listened, ignored the stop and served on).
        var handled = Self.handledSet()
        pthread_sigmask(SIG_BLOCK, &handled, nil)
        for signalNumber in Self.handled {
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
        Self.waitForDispatchHandlers()
    }

    /// The signals `serve` handles.
    private static let handled = [SIGHUP, SIGTERM, SIGINT, SIGUSR1]

    private static func handledSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signalNumber in handled { sigaddset(&set, signalNumber) }
        return set
    }

    /// Whether `action` is `SIG_IGN` (C function pointers are compared by address).
    private static func isIgnored(_ action: sigaction) -> Bool {
        guard let handler = action.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(handler, to: UInt.self) == unsafeBitCast(SIG_IGN, to: UInt.self)
    }

    /// Waits until libdispatch has installed its handler for every handled signal.
    ///
    /// `resume()` registers a signal source later, on libdispatch's manager thread, which then
    /// replaces `SIG_IGN` with a handler that hands the signal to the source's signalfd. Until
    /// then a signal delivered to a thread that does not block it is dropped; once this
    /// returns, the daemon may say it is listening. Bounded: were a libdispatch to register
    /// without a handler, the start would go on after a second as before.
    private static func waitForDispatchHandlers() {
        let deadline = ContinuousClock.now.advanced(by: .seconds(1))
        for signalNumber in handled {
            var current = sigaction()
            while ContinuousClock.now < deadline {
                sigaction(signalNumber, nil, &current)
                if !Self.isIgnored(current) { break }
                usleep(1_000)
            }
        }
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
        var handled = handledSet()
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
