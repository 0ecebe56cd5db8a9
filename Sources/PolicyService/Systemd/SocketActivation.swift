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

    /// The names as a sentence lists them: "api, admin or proxy".
    private static var namesInWords: String {
        guard let last = listenerNames.last, listenerNames.count > 1 else { return listenerNames.joined() }
        return listenerNames.dropLast().joined(separator: ", ") + " or " + last
    }

    /// Removes the variables so that processes the daemon starts do not take them for theirs.
    public static func clearEnvironment() {
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
    }
}
