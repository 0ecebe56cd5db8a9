import PolicyService
import Testing

/// How `LISTEN_*` variables map to listeners, and what is refused, without any socket.
@Suite struct SocketActivationTests {
    func parse(_ environment: [String: String], pid: Int32 = 42) -> Result<SocketActivation?, SocketActivation.SetupError> {
        SocketActivation.fromEnvironment(environment, pid: pid)
    }

    @Test func namedSocketsMapToListenersByName() throws {
        let result = try parse(["LISTEN_PID": "42", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "admin:api:proxy"]).get()
        #expect(result == SocketActivation(api: 4, admin: 3, proxy: 5))
    }

    @Test func aSingleUnnamedSocketIsTheAPI() throws {
        #expect(try parse(["LISTEN_PID": "42", "LISTEN_FDS": "1"]).get() == SocketActivation(api: 3))
    }

    @Test func variablesForAnotherProcessOrNoneAreNotActivation() throws {
        #expect(try parse(["LISTEN_PID": "41", "LISTEN_FDS": "1"]).get() == nil)
        #expect(try parse([:]).get() == nil)
    }

    @Test(arguments: [
        (["LISTEN_PID": "42", "LISTEN_FDS": "2"], "LISTEN_FDNAMES must name each of the 2 sockets"),
        // One socket more than there are listeners (the count follows ListenerKind.all).
        (
            [
                "LISTEN_PID": "42", "LISTEN_FDS": "\(SocketActivation.listenerNames.count + 1)",
                "LISTEN_FDNAMES": (SocketActivation.listenerNames + ["x"]).joined(separator: ":"),
            ], "must be 1 to \(SocketActivation.listenerNames.count) sockets"
        ),
        (["LISTEN_PID": "42", "LISTEN_FDS": "0"], "must be 1 to \(SocketActivation.listenerNames.count) sockets"),
        (["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "api:api"], #"names "api" twice"#),
        (["LISTEN_PID": "42", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "admin"], #"has no "api" socket"#),
        (["LISTEN_PID": "x", "LISTEN_FDS": "1"], "is not a process id"),
    ])
    func malformedVariablesAreErrors(environment: [String: String], message: String) {
        switch parse(environment) {
        case .success(let activation): Issue.record("accepted: \(String(describing: activation))")
        case .failure(let error): #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test func notifySocketFormsAndWatchdog() throws {
        let notifier = try #require(
            try SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "@abstract", "WATCHDOG_USEC": "30000000"], pid: 7).get())
        #expect(notifier.watchdogInterval == .seconds(15))
        let otherPID = try #require(
            try SystemdNotifier.fromEnvironment(
                ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7
            ).get())
        #expect(otherPID.watchdogInterval == nil, "a watchdog meant for another process is not ours")
        #expect(try SystemdNotifier.fromEnvironment([:]).get() == nil)
        #expect(throws: SystemdNotifier.SetupError.self) {
            try SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "soon"]).get()
        }
    }
}
