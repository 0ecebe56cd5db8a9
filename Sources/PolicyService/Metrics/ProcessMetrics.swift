import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The standard `process_*` gauges and counters (Prometheus client-library conventions), read
/// from `/proc/self` at scrape time. A value that cannot be read is left out, never made up.
enum ProcessMetrics {
    /// The process's `/proc/self/stat` fields that the metrics use.
    struct Stat: Equatable {
        /// utime + stime, in clock ticks.
        var cpuTicks: UInt64
        /// Start time after boot, in clock ticks.
        var startTicks: UInt64
        var virtualBytes: UInt64
        var residentPages: UInt64
    }

    /// Parses `/proc/self/stat`. The command name (field 2) is in parentheses and may hold
    /// spaces and parentheses itself, so fields are counted from its last `)`.
    static func parseStat(_ text: String) -> Stat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is index 0; utime is field 14, stime 15, starttime 22,
        // vsize 23, rss 24.
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> UInt64? {
            let index = number - 3
            guard fields.indices.contains(index) else { return nil }
            return UInt64(fields[index])
        }
        guard let utime = field(14), let stime = field(15), let start = field(22), let vsize = field(23),
            let rss = field(24)
        else { return nil }
        return Stat(cpuTicks: utime + stime, startTicks: start, virtualBytes: vsize, residentPages: rss)
    }

    /// `btime` from `/proc/stat`: boot time in Unix seconds.
    static func parseBootTime(_ text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    static func render() -> String {
        var out = ""
        func gauge(_ name: String, _ type: String, _ help: String, _ value: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = UInt64(max(0, sysconf(Int32(_SC_PAGESIZE))))
        let stat = (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)).flatMap(parseStat)
        if let stat, ticksPerSecond > 0 {
            gauge(
                "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
                "\(Double(stat.cpuTicks) / ticksPerSecond)")
        }
        if let stat {
            gauge("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", "\(stat.virtualBytes)")
            gauge(
                "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
                "\(stat.residentPages * pageSize)")
        }
        if let stat, ticksPerSecond > 0,
            let boot = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap(parseBootTime)
        {
            gauge(
                "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
                "\(boot + Double(stat.startTicks) / ticksPerSecond)")
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing itself holds one descriptor open while it runs.
            gauge("process_open_fds", "gauge", "Number of open file descriptors.", "\(max(0, descriptors.count - 1))")
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            gauge("process_max_fds", "gauge", "Maximum number of open file descriptors.", "\(limit.rlim_cur)")
        }
        return out
    }
}
