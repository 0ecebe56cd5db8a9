import Foundation
import TestScratchSupport
import Testing

/// A stop signal sent the moment the daemon says it is listening is always acted on: the
/// signals are blocked in the daemon's threads and libdispatch's handlers are installed before
/// the start, so the signal cannot fall between `signal(SIG_IGN)` and a source's registration
/// on libdispatch's manager thread (where the kernel drops it and the daemon would run on; this
/// hung an AddressSanitizer CI run once, and a loaded run of ListenerLifecycleTests later).
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

    @Test("a SIGTERM sent while the config loads ends the daemon even when it inherited SIGTERM blocked")
    func stopDuringLoadWithInheritedMask() throws {
        // A config that takes a moment to compile, so the signal lands before `serve` installs
        // its handlers (20,000 hosts: well under a second in a debug build).
        let hosts = (0..<20_000).map { "\"h\($0).example\"" }.joined(separator: ",")
        let config = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "big", "type": "cancel", "match": {"hosts": [\#(hosts)]}}]}"#)
        for round in 0..<3 {
            let process = Process()
            process.executableURL = BinaryRunner.binary
            process.arguments = ["serve", "--config", config, "--listen", "127.0.0.1:0"]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["NAVPOLICY_DATA_DIR": TestScratch.path("navpolicyd-data")]) { _, new in new }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            // Spawned with SIGTERM blocked, as from a libdispatch worker thread (which CI's
            // sanitizer run did: the signal stayed pending, `SIG_IGN` discarded it, and the
            // daemon served on while the test waited for its exit forever).
            var blocked = sigset_t()
            var previous = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            try process.run()
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            let stillRunning = process.isRunning
            if stillRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(!stillRunning, "round \(round): the daemon ignored a SIGTERM sent during its start")
        }
    }
}
