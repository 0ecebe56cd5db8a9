import Foundation

/// A value behind an `NSLock`, with the standard library mutex's calling shape (`withLock`).
///
/// Why not that mutex: every module that uses it must also compile the sanitizer-lock shim over
/// `LockSupport` (`scripts/generate-sanitizer-locks.sh`), which is Linux-only, while this module
/// builds for iOS and Android apps. `NSLock` is a pthread mutex wherever Foundation runs, so
/// ThreadSanitizer sees it too.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    // Only read or written inside `withLock`: the lock is what makes the class Sendable.
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
