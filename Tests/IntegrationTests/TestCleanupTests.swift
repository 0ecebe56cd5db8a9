import Foundation
import TestScratchSupport
import Testing

/// The suite cleans up after itself: a daemon's state must not outlive the test that started it.
@Suite("test cleanup")
struct TestCleanupTests {
    @Test("a daemon's made-up data directory exists while it runs and is gone once it has exited")
    func daemonDataDirectoryRemovedAfterExit() throws {
        var daemon: DaemonProcess? = try DaemonProcess()
        let directory = try #require(daemon?.ownedDataDirectory)
        #expect(directory.hasPrefix(TestScratch.root + "/"))
        #expect(FileManager.default.fileExists(atPath: directory))
        daemon = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("a data directory the test names is the test's: left in place after the daemon exits")
    func namedDataDirectoryKept() throws {
        let directory = TestScratch.path("named-data")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var daemon: DaemonProcess? = try DaemonProcess(environment: ["NAVPOLICY_DATA_DIR": directory])
        #expect(daemon?.ownedDataDirectory == nil)
        daemon = nil
        #expect(FileManager.default.fileExists(atPath: directory))
    }
}
