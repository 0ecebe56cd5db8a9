#if NAVPOLICYD_SANITIZER_LOCKS
    import LockSupport

    /// Sanitizer builds: every `Mutex` in this module is a lock ThreadSanitizer can see
    /// (see ``LockSupport/PThreadMutex``); a declaration in the module shadows the imported
    /// `Synchronization.Mutex`. The same file is in every module that uses `Mutex`, and
    /// `make lint` keeps the copies identical; LockSupport/PThreadMutex.swift says why it
    /// cannot be one file.
    typealias Mutex<Value> = PThreadMutex<Value>
#endif
