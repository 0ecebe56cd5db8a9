public import Foundation

/// The one directory this test process writes its temporary files under, removed when the
/// process exits.
///
/// Many temporary paths (config files, daemon data directories, SQLite databases, signing keys)
/// are handed to a daemon, a CLI run or the code under test by path and outlive any value a test
/// could clean up in; putting them all under one per-process root means a run leaves nothing in
/// `/tmp` even when a test fails half-way. Owners that know when they are done (a daemon that has exited) still remove
/// their part earlier, so the root stays small during a long run. The name is short because
/// Unix socket paths under it are limited to 107 bytes.
public enum TestScratch {
    /// `/tmp/navpolicyd-tests-<pid>-<random>`, created on first use.
    public static let root: String = {
        let path = NSTemporaryDirectory() + "navpolicyd-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
        // 0700: signing keys are written under it. A failure here surfaces as the first write
        // under the root failing, with its path.
        try? FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Runs on the test runner's normal exit, after every test has finished and released its
        // daemons (their deinit waits for the process to exit).
        atexit { try? FileManager.default.removeItem(atPath: TestScratch.root) }
        return path
    }()

    /// `root` as a directory URL.
    public static var url: URL { URL(fileURLWithPath: root, isDirectory: true) }

    /// A fresh path under the root: `name` followed by a UUID and `suffix`; nothing is created.
    public static func path(_ name: String, suffix: String = "") -> String {
        root + "/\(name)-\(UUID().uuidString)\(suffix)"
    }
}
