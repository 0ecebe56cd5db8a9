#if canImport(Glibc)
    import Glibc
#endif

/// A mutual-exclusion lock over `pthread_mutex_t` with the calling shape of
/// `Synchronization.Mutex` (`init(_:)`, `withLock(_:)`), for sanitizer builds.
///
/// On Linux `Synchronization.Mutex` locks with raw futex system calls that ThreadSanitizer
/// does not intercept, so TSan sees no happens-before edge between two critical sections and
/// reports a race on every piece of state a `Mutex` guards, drowning any real report. TSan
/// intercepts `pthread_mutex_lock`, so with this lock a clean report means something. Each
/// module that uses `Mutex` has a `SanitizerLocks.swift` that, when compiled with
/// `-DNAVPOLICYD_SANITIZER_LOCKS` (scripts/sanitized-test.sh does), makes `Mutex` in that
/// module this type; normal builds keep `Synchronization.Mutex`.
///
/// Why a copy per module and not one declaration here: a typealias `Mutex` in LockSupport
/// would shadow `Synchronization.Mutex` (a module's declarations shadow those of a module
/// it imports) only in files that import LockSupport. A file that uses `Mutex` but imports
/// only Synchronization would silently keep the futex lock in sanitizer builds, with no
/// compile error, and TSan would be blind there again. A declaration inside the module
/// covers every file of it, so each module that uses `Mutex` compiles its own copy of
/// scripts/templates/SanitizerLocks.swift: scripts/generate-sanitizer-locks.sh writes the
/// copies, and with `--check` (run by `make lint`) fails when one differs from the template,
/// is missing, or is left in a module that no longer uses `Mutex`.
public final class PThreadMutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between lock and unlock of `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock guarding `initialValue`.
    public init(_ initialValue: Value) {
        value = initialValue
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the guarded value.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
