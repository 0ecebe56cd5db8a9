import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory, the
/// server on a free loopback port with the default durability (fsync and
/// synchronous_commit on), stopped and removed by ``stop()`` or at process exit.
///
/// The server refuses to run as root and the tests run as root, so the cluster belongs to
/// Debian's `postgres` system user (created by the `postgresql` package) and every server
/// tool runs through `runuser`. Tests get a fresh database each from ``createDatabase()``.
final class PostgresCluster: Sendable {
    let directory: String
    let port: Int
    private static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap { Int($0) }.max().map { "\(root)/\($0)/bin" }
    }()
    private static let databaseCounter = Atomic<Int>(0)

    /// One cluster shared by the suites of this test process, started on first use.
    static let shared: Result<PostgresCluster, DaemonError> = {
        do {
            let cluster = try PostgresCluster()
            clusterToStopAtExit.withLock { $0.append(cluster.directory) }
            atexit { PostgresCluster.stopAllAtExit() }
            return .success(cluster)
        } catch let error as DaemonError {
            return .failure(error)
        } catch {
            return .failure(DaemonError("\(error)"))
        }
    }()
    private static let clusterToStopAtExit = Mutex<[String]>([])

    var uriBase: String { "postgresql://postgres@127.0.0.1:\(port)" }

    /// Creates and starts a cluster (about a second).
    init() throws {
        guard let binaries = Self.binaries else {
            throw DaemonError("PostgreSQL is not installed (scripts/install-deps.sh test installs postgresql)")
        }
        directory = NSTemporaryDirectory() + "navpolicyd-pg-\(UUID().uuidString)"
        port = try freeLoopbackPort()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.run("/usr/bin/chown", ["postgres:postgres", directory])
        try Self.asPostgres("\(binaries)/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync"])
        try start()
    }

    /// Starts (or restarts after ``stopServer()``) the server; returns once it accepts connections.
    func start() throws {
        guard let binaries = Self.binaries else { throw DaemonError("PostgreSQL is not installed") }
        // fsync stays on (the default): the durability the tests and benchmark claim is real.
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=on"
        try Self.asPostgres(
            "\(binaries)/pg_ctl", ["-D", directory + "/data", "-l", directory + "/log", "-o", options, "-w", "start"])
    }

    /// Stops the server (fast shutdown: open transactions are rolled back, clients disconnected).
    func stopServer() throws {
        guard let binaries = Self.binaries else { return }
        try Self.asPostgres("\(binaries)/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"])
    }

    /// Freezes the server and every backend with SIGSTOP: to its clients it looks like a hung
    /// host or a silent partition (connections stay open, nothing answers, the kernel still
    /// accepts new TCP connections into the listen backlog). ``thaw()`` undoes it.
    func freeze() throws { try signalServer(SIGSTOP) }

    /// Resumes a server ``freeze()`` stopped.
    func thaw() throws { try signalServer(SIGCONT) }

    /// Sends `signal` to the postmaster (the first line of `postmaster.pid`) and its children.
    private func signalServer(_ signal: Int32) throws {
        let pidFile = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
        guard let line = pidFile.split(separator: "\n").first, let postmaster = pid_t(line) else {
            throw DaemonError("no postmaster pid in \(directory)/data/postmaster.pid")
        }
        var processes = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { continue }
            // Fields after the command name: state, then the parent's pid.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { processes.append(pid) }
        }
        for pid in processes { kill(pid, signal) }
    }

    /// Stops the server and removes the cluster.
    func stop() {
        // A frozen server would ignore pg_ctl's signal and keep it waiting.
        try? thaw()
        try? stopServer()
        try? FileManager.default.removeItem(atPath: directory)
        Self.clusterToStopAtExit.withLock { $0.removeAll { $0 == directory } }
    }

    /// A new, empty database and its URI.
    func createDatabase() throws -> String {
        let name = "navpolicyd_\(getpid())_\(Self.databaseCounter.add(1, ordering: .relaxed).newValue)"
        guard let binaries = Self.binaries else { throw DaemonError("PostgreSQL is not installed") }
        try Self.asPostgres("\(binaries)/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name])
        return "\(uriBase)/\(name)"
    }

    /// A login role that must give `password` over TCP (the cluster trusts everyone else):
    /// its rule goes first in pg_hba.conf, and the server rereads the file.
    func addPasswordRole(_ role: String, password: String) throws {
        _ = try query("\(uriBase)/postgres", "CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
        let hba = directory + "/data/pg_hba.conf"
        let rules = try String(contentsOfFile: hba, encoding: .utf8)
        try Data(("host all \(role) 127.0.0.1/32 scram-sha-256\n" + rules).utf8).write(to: URL(fileURLWithPath: hba))
        _ = try query("\(uriBase)/postgres", "SELECT pg_reload_conf()")
    }

    /// Runs SQL through psql and returns its unaligned output.
    func query(_ uri: String, _ sql: String) throws -> String {
        guard let binaries = Self.binaries else { throw DaemonError("PostgreSQL is not installed") }
        return try Self.run("\(binaries)/psql", [uri, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    private static func stopAllAtExit() {
        guard let binaries else { return }
        for directory in clusterToStopAtExit.withLock({ $0 }) {
            _ = try? asPostgres("\(binaries)/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @discardableResult
    private static func asPostgres(_ tool: String, _ arguments: [String]) throws -> String {
        // env -C /: the postgres user cannot enter the test's working directory (root's).
        if getuid() == 0 {
            return try run("/usr/sbin/runuser", ["-u", "postgres", "--", "/usr/bin/env", "-C", "/", tool] + arguments)
        }
        return try run(tool, arguments)
    }

    /// Runs a tool to completion with posix_spawn and waitpid, its output in a temporary
    /// file, and no descriptor of the test process but 0-2 inherited (see below).
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "navpolicyd-pg-tool-\(UUID().uuidString).log"
        let errorPath = outputPath + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Close every other descriptor in the child: concurrent tests' pipes (curl's stdout)
        // are open without CLOEXEC, and a postgres server inheriting one keeps that curl's
        // reader waiting for EOF forever.
        // (glibc 2.34's addclosefrom_np, looked up at run time: Glibc's Swift module hides it.)
        guard let closeFrom = Self.addCloseFrom else { throw DaemonError("posix_spawn_file_actions_addclosefrom_np is missing") }
        _ = closeFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw DaemonError("cannot run \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw DaemonError("waitpid for \(executable) failed: errno \(errno)") }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS are macros Swift cannot import: exited normally when the
        // low 7 bits are 0, with the exit status in the next byte.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw DaemonError("\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(errors)\(output)")
        }
        return output
    }
}
