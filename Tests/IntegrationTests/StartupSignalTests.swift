import Foundation
import Testing

/// A stop signal sent the moment the daemon says it is listening is always acted on: the
/// signal sources are registered before the start, so the signal cannot fall between
/// `signal(SIG_IGN)` and a source's registration (where the kernel drops it and the daemon
/// would run on; this hung an AddressSanitizer CI run once).
@Suite("signals right after start")
struct StartupSignalTests {
    @Test("SIGTERM or SIGINT right after the listening line drains and exits 0, every time")
    func stopRightAfterListening() throws {
        for round in 0..<12 {
            let daemon = try DaemonProcess()
            let signalNumber = round.isMultiple(of: 2) ? SIGTERM : SIGINT
            daemon.signal(signalNumber)
            let status = daemon.waitForExit(timeout: 15)
            #expect(status == 0, "round \(round): exit status \(String(describing: status))")
            #expect(daemon.waitForLog(timeout: 1) { $0.contains("shutdown.finished") } != nil, "round \(round)")
        }
    }
}
