// Generated from scripts/templates/SanitizerLocks.swift by scripts/generate-sanitizer-locks.sh
// (`make lint` fails when a copy differs): edit the template and run the script, not this copy.
#if NAVPOLICYD_SANITIZER_LOCKS
    import LockSupport

    /// Sanitizer builds: every `Mutex` in this module is a lock ThreadSanitizer can see
    /// (see ``LockSupport/PThreadMutex``); a declaration in the module shadows the imported
    /// `Synchronization.Mutex`. Every module that uses `Mutex` has this file;
    /// LockSupport/PThreadMutex.swift says why it cannot be one file.
    typealias Mutex<Value> = PThreadMutex<Value>
#endif
