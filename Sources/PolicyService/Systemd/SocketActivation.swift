#if canImport(Glibc)
    import Glibc
#endif

/// Listening sockets passed by systemd (`LISTEN_FDS`, from `navpolicyd.socket`), matched to
/// the daemon's listeners by `FileDescriptorName=`: their roles (``listenerNames``).
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
    /// The names a socket may carry: the registered listeners' roles (`ListenerKind.all`).
    public static let listenerNames = ListenerKind.all.map(\.role)

    /// The passed sockets by listener role.
    private var sockets: [String: Int32] = [:]

    /// The socket passed for the listener `role`, if any.
    public func socket(named role: String) -> Int32? { sockets[role] }

    /// The given sockets of the first three listeners (a test's shorthand; the parser fills
    /// in any registered role).
    public init(api: Int32? = nil, admin: Int32? = nil, proxy: Int32? = nil) {
        sockets["api"] = api
        sockets["admin"] = admin
        sockets["proxy"] = proxy
    }

    /// The sockets `environment` passes to process `pid`; nil when none are passed, or
    /// when `LISTEN_PID` names another process (the variables were inherited, not meant
    /// for us, as `sd_listen_fds` decides).
    public static func fromEnvironment(_ environment: [String: String], pid: Int32? = nil) -> Result<
        SocketActivation?, SetupError
    > {
        fromEnvironment(environment, pid: pid, names: listenerNames)
    }

    /// ``fromEnvironment(_:pid:)`` with `listenerNames` the names a socket may carry (the roles
    /// of the listener kinds registered).
    static func fromEnvironment(_ environment: [String: String], pid: Int32? = nil, names listenerNames: [String])
        -> Result<SocketActivation?, SetupError>
    {
        let namesInWords = inWords(listenerNames)
        guard let pidText = environment["LISTEN_PID"], !pidText.isEmpty else { return .success(nil) }
        guard let listenPID = Int32(pidText) else {
            return .failure(SetupError(description: "LISTEN_PID \"\(pidText)\" is not a process id"))
        }
        guard listenPID == (pid ?? getpid()) else { return .success(nil) }
        let countText = environment["LISTEN_FDS"] ?? ""
        guard let count = Int(countText), (1...listenerNames.count).contains(count) else {
            return .failure(
                SetupError(
                    description:
                        "LISTEN_FDS \"\(countText)\" must be 1 to \(listenerNames.count) sockets (\(listenerNames.joined(separator: ", ")))"
                ))
        }
        let names: [String]
        if let text = environment["LISTEN_FDNAMES"], !text.isEmpty {
            names = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        } else {
            names = count == 1 ? [ListenerKind.api.role] : []
        }
        guard names.count == count else {
            return .failure(
                SetupError(
                    description: "LISTEN_FDNAMES must name each of the \(count) sockets (FileDescriptorName=\(namesInWords))")
            )
        }
        var activation = SocketActivation()
        for (offset, name) in names.enumerated() {
            guard listenerNames.contains(name) else {
                return .failure(
                    SetupError(description: "LISTEN_FDNAMES: socket \"\(name)\" is not \(namesInWords) (set FileDescriptorName=)")
                )
            }
            guard activation.sockets[name] == nil else {
                return .failure(SetupError(description: "LISTEN_FDNAMES names \"\(name)\" twice"))
            }
            activation.sockets[name] = firstDescriptor + Int32(offset)
        }
        // The only socket, unnamed, is the API listener's; the API listener always runs.
        guard activation.sockets[ListenerKind.api.role] != nil else {
            return .failure(SetupError(description: "LISTEN_FDNAMES has no \"api\" socket; the API listener needs one"))
        }
        return .success(activation)
    }

    /// Why two listeners would share one socket, nil when every passed socket is its own.
    ///
    /// One socket under two names (a descriptor and its duplicate, as a launcher can pass
    /// them), or two sockets bound to one address (`SO_REUSEPORT`), are one listening address:
    /// the kernel hands each connection to whichever listener accepts first, so the admin
    /// listener's routes (reload, diff, metrics) answered on the API's address (issue 38,
    /// item 14). Checked on the real descriptors, once, at start-up.
    public func sharedSocket() -> SetupError? {
        let passed = sockets.sorted { $0.key < $1.key }
        for (offset, first) in passed.enumerated() {
            for second in passed[(offset + 1)...] where Self.areOneSocket(first.value, second.value) {
                return SetupError(
                    description:
                        "the sockets named \"\(first.key)\" and \"\(second.key)\" are one listening socket (or one address); "
                        + "each listener needs its own, or the \(first.key == "admin" || second.key == "admin" ? "admin routes answer on the other's address" : "two listeners serve one address")"
                )
            }
        }
        return nil
    }

    /// The same open socket (device and inode), or two sockets bound to the same address.
    static func areOneSocket(_ first: Int32, _ second: Int32) -> Bool {
        var firstStatus = stat()
        var secondStatus = stat()
        if fstat(first, &firstStatus) == 0, fstat(second, &secondStatus) == 0,
            firstStatus.st_dev == secondStatus.st_dev, firstStatus.st_ino == secondStatus.st_ino
        {
            return true
        }
        guard let firstAddress = boundAddress(first), let secondAddress = boundAddress(second) else { return false }
        return firstAddress == secondAddress
    }

    /// The socket's bound address as bytes; nil when it has none worth comparing (not a
    /// socket, or an unnamed Unix socket, which every unnamed one shares).
    private static func boundAddress(_ descriptor: Int32) -> [UInt8]? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        guard found, Int(length) > MemoryLayout<sa_family_t>.size else { return nil }
        return withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) }
    }

    /// The names as a sentence lists them: "api, admin or proxy".
    private static func inWords(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// Removes the variables so that processes the daemon starts do not take them for theirs.
    public static func clearEnvironment() {
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
    }
}
