#if canImport(Glibc)
    import Glibc
#endif

/// The monotonic clock in whole nanoseconds, for timing requests.
///
/// `ContinuousClock.now` and `Duration.components` cost ~550 instructions per request for
/// two readings and one difference; one `clock_gettime` (vDSO) and integer arithmetic do
/// the same job.
enum MonotonicTime {
    /// Nanoseconds since an arbitrary fixed point (boot); only differences mean anything.
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(max(time.tv_sec, 0)) &* 1_000_000_000 &+ UInt64(max(time.tv_nsec, 0))
    }
}
