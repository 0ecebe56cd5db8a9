#if canImport(Glibc)
    import Glibc
#endif

/// Listening sockets passed by systemd (`LISTEN_FDS`, from `navpolicyd.socket`), matched to
/// the daemon's listeners by `FileDescriptorName=`: `api`, `admin`, `proxy`.
///
/// With socket activation systemd owns the sockets: they keep listening while the service
/// restarts, so `systemctl restart` queues connections instead of refusing them.
public struct SocketActivation: Sendable, Equatable {
    /// Why the passed sockets cannot be used.
    public struct SetupError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the variable.
        public let description: String
    }

    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    static let firstDescriptor: Int32 = 3
    /// The names a socket may carry, one per listener.
    public static let listenerNames = ["api", "admin", "proxy"]

    /// The API listener's socket (`FileDescriptorName=api`, or the only socket when unnamed).
    public var api: Int32?
    /// The admin listener's socket (`FileDescriptorName=admin`).
    public var admin: Int32?
    /// The proxy listener's socket (`FileDescriptorName=proxy`).
    public var proxy: Int32?

    public init(api: Int32? = nil, admin: Int32? = nil, proxy: Int32? = nil) {
        self.api = api
        self.admin = admin
        self.proxy = proxy
    }

    /// The sockets `environment` passes to process `pid`; nil when none are passed, or
    /// when `LISTEN_PID` names another process (the variables were inherited, not meant
    /// for us, as `sd_listen_fds` decides).
    public static func fromEnvironment(_ environment: [String: String], pid: Int32? = nil) -> Result<
        SocketActivation?, SetupError
    > {
        guard let pidText = environment["LISTEN_PID"], !pidText.isEmpty else { return .success(nil) }
        guard let listenPID = Int32(pidText) else {
            return .failure(SetupError(description: "LISTEN_PID \"\(pidText)\" is not a process id"))
        }
        guard listenPID == (pid ?? getpid()) else { return .success(nil) }
        let countText = environment["LISTEN_FDS"] ?? ""
        guard let count = Int(countText), (1...listenerNames.count).contains(count) else {
            return .failure(
                SetupError(
                    description: "LISTEN_FDS \"\(countText)\" must be 1 to \(listenerNames.count) sockets (api, admin, proxy)"))
        }
        let names: [String]
        if let text = environment["LISTEN_FDNAMES"], !text.isEmpty {
            names = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        } else {
            names = count == 1 ? ["api"] : []
        }
        guard names.count == count else {
            return .failure(
                SetupError(
                    description: "LISTEN_FDNAMES must name each of the \(count) sockets (FileDescriptorName=api, admin or proxy)")
            )
        }
        var activation = SocketActivation()
        for (offset, name) in names.enumerated() {
            let descriptor = firstDescriptor + Int32(offset)
            switch name {
            case "api" where activation.api == nil: activation.api = descriptor
            case "admin" where activation.admin == nil: activation.admin = descriptor
            case "proxy" where activation.proxy == nil: activation.proxy = descriptor
            case "api", "admin", "proxy":
                return .failure(SetupError(description: "LISTEN_FDNAMES names \"\(name)\" twice"))
            default:
                return .failure(
                    SetupError(
                        description: "LISTEN_FDNAMES: socket \"\(name)\" is not api, admin or proxy (set FileDescriptorName=)"))
            }
        }
        guard activation.api != nil else {
            return .failure(SetupError(description: "LISTEN_FDNAMES has no \"api\" socket; the API listener needs one"))
        }
        return .success(activation)
    }

    /// Removes the variables so that processes the daemon starts do not take them for theirs.
    public static func clearEnvironment() {
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
    }
}
