#if canImport(Glibc)
    import Glibc
#endif

/// Hands heap memory that is free again back to the system.
///
/// glibc keeps freed memory in its arenas for reuse and returns little of it on its own, and
/// a reload frees a lot at once: the replaced snapshot and the parse tree of the new config.
/// Reloads run on whichever thread asked (the signal queue, the file watcher, an HTTP task),
/// each with its own arena, so without a trim RSS settled at the high-water mark of every
/// arena a big reload had touched: issue 12 measured 630 MB held after going back from two
/// 100,000-handler configs to 3 handlers, with under 1 MB of it in use.
enum HeapTrim {
    #if canImport(Glibc)
        private typealias MallocTrim = @convention(c) (Int) -> Int32
        /// `malloc_trim` is glibc's own (malloc.h), so the Glibc module does not import it:
        /// looked up once in the global scope (nil handle = RTLD_DEFAULT). Nil under another libc.
        private static let mallocTrim: MallocTrim? = dlsym(nil, "malloc_trim").map {
            unsafeBitCast($0, to: MallocTrim.self)
        }
    #endif

    /// `malloc_trim(0)`: returns the free pages of every arena (nothing where there is no glibc).
    static func releaseFreeMemory() {
        #if canImport(Glibc)
            _ = mallocTrim?(0)
        #endif
    }
}
