#if NAVPOLICYD_SANITIZER_LOCKS
    import LockSupport

    /// Sanitizer builds: every `Mutex` in this module is a lock ThreadSanitizer can see
    /// (see ``LockSupport/PThreadMutex``); a declaration in the module shadows the imported
    /// `Synchronization.Mutex`.
    typealias Mutex<Value> = PThreadMutex<Value>
#endif
