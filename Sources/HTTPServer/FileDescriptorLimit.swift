import JSONSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Makes room in the process's file-descriptor limit for the connections a server accepts.
///
/// Every connection is a descriptor (a proxied one two: the client and libcurl's origin
/// connection). systemd and most shells start services with a soft limit of 1024 and a
/// much higher hard limit; with the soft limit, accept fails with EMFILE long before
/// ``HTTPServerConfiguration/connectionLimit`` and every client is locked out.
enum FileDescriptorLimit {
    /// Descriptors kept for everything else (log files, SQLite, libcurl, the listeners).
    static let reserve = 256

    /// Raises the soft limit to the hard limit when it is below `connections` (doubled for
    /// proxied connections) plus ``reserve``; logs what it did, or that the hard limit is
    /// too low.
    static func raise(toHold connections: Int, log: (HTTPServerLogEvent.Level, String, JSONObject) -> Void) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(clamping: connections * 2 + reserve)
        guard limit.rlim_cur < wanted else { return }
        let before = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        if limit.rlim_cur > before, setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            log(.info, "http.fd_limit_raised", ["from": .number(Double(before)), "to": .number(Double(limit.rlim_cur))])
        }
        if limit.rlim_cur < wanted {
            log(
                .warning, "http.fd_limit_low",
                [
                    "limit": .number(Double(limit.rlim_cur)), "wanted": .number(Double(wanted)),
                    "connectionLimit": .number(Double(connections)),
                ])
        }
    }
}
