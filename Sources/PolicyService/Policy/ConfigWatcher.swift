import Foundation
import Synchronization

/// Notices when the config file changes on disk and asks for a reload.
///
/// Polls `stat` (following symlinks) rather than using inotify because the ways configs are
/// replaced differ: in-place writes change size and mtime; editors and tools rename a new
/// file over the old one (new inode); Kubernetes swaps a `..data` symlink under a mounted
/// ConfigMap, which inotify on the file itself never sees. A changed identity triggers a
/// reload; the store then compares content hashes, so a `touch` costs one read.
public final class ConfigWatcher: Sendable {
    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
        var resolvedPath: String
    }

    private let path: String
    private let stopped = Atomic<Bool>(false)
    private let interval: Duration
    private let onChange: @Sendable () -> Void

    public init(path: String, interval: Duration, onChange: @escaping @Sendable () -> Void) {
        self.path = path
        self.interval = interval
        self.onChange = onChange
    }

    /// Starts the polling thread; it runs until ``stop()``.
    public func start() {
        let thread = Thread { [self] in self.run() }
        thread.name = "config-watch"
        thread.start()
    }

    /// Ends the polling thread after its current interval.
    public func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    // A loop with a reachable exit, one poll per call: an optimized build may drop the
    // releases of values made in a loop that never exits (the intake writer's leak, docs/performance.md),
    // which here would keep one resolved path per poll.
    private func run() {
        var last = identity()
        while !stopped.load(ordering: .relaxed) {
            last = poll(after: last)
        }
    }

    /// Sleeps one interval, then reloads if the file's identity changed; returns the identity to compare next.
    @inline(never)
    private func poll(after last: FileIdentity?) -> FileIdentity? {
        Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
        // A missing file (mid-swap, moved away) is not a change: wait until something is
        // there again, and then reload even when it is the same file moved back, so the
        // reload failure recorded meanwhile (SIGHUP, HTTP) is cleared by an `unchanged`.
        guard let current = identity() else { return nil }
        guard current != last else { return last }
        onChange()
        return current
    }

    private func identity() -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec, resolvedPath: resolved)
    }
}
