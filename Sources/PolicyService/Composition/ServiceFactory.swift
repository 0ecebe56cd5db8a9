import ShareIntake

/// Builds the service over one policy store — metrics, decision log and recorder, intake
/// endpoints, reload — and every responder on top of it.
///
/// The daemon and the in-process tests (`ServiceHarness`) both build through it, so what the
/// tests drive is what the daemon serves.
final class ServiceFactory: Sendable {
    /// Where the intake endpoints get their store.
    enum IntakeSource: Sendable {
        /// Intake is on: the opened store, its settings and its token.
        case open(any IntakeStore, settings: IntakeSettings, token: AdminToken?)
        /// `intake.enabled` is false: every intake endpoint answers 404 `intake-disabled`.
        case disabled(IntakeSettings)
        /// Intake is enabled but no store was opened (only in-process embedders): 503.
        case notConfigured(IntakeSettings)
    }

    let store: PolicyStore
    let metrics: Metrics
    let log: EventLog
    let decisionLog: DecisionLog?
    let recorder: DecisionRecorder
    let intake: IntakeEndpoints
    let reloader: PolicyReloader
    /// One flag for every API listener, so `/readyz` reports the drain on each.
    let draining = DrainingFlag()
    /// One analysis run at a time for the whole daemon, whichever listener serves it.
    let analysisSlot = AnalysisSlot()
    /// The bound listeners, for the status page.
    let directory = ListenerDirectory()
    private let authFailures: AuthFailureLog
    private let adminToken: AdminToken?
    private let requireTokenForDecide: Bool
    private let decisionLogPath: String?
    private let openConnections: @Sendable () -> Int

    /// Builds the shared pieces; opens the decision log at `decisionLogPath`, if given.
    /// - Parameter openConnections: the API listener's open connections, for `/readyz` and the status page.
    init(
        store: PolicyStore, version: String, log: EventLog, decisionLogPath: String?, adminToken: AdminToken?,
        requireTokenForDecide: Bool, intake: IntakeSource, restartOnly: RestartOnlySettings,
        notifier: SystemdNotifier?, openConnections: @escaping @Sendable () -> Int
    ) throws(DecisionLogError) {
        let metrics = Metrics(version: version)
        let decisionLog = try decisionLogPath.map { path throws(DecisionLogError) in
            try Self.openDecisionLog(path, store: store, metrics: metrics, log: log)
        }
        let recorder = DecisionRecorder(metrics: metrics, log: decisionLog)
        let authFailures = AuthFailureLog(log: log, metrics: metrics)
        self.intake = Self.intakeEndpoints(
            intake, policies: store, recorder: recorder, log: log, authFailures: authFailures)
        self.store = store
        self.metrics = metrics
        self.log = log
        self.decisionLog = decisionLog
        self.recorder = recorder
        self.authFailures = authFailures
        self.reloader = PolicyReloader(
            store: store, metrics: metrics, log: log, restartOnly: restartOnly, notifier: notifier)
        self.adminToken = adminToken
        self.requireTokenForDecide = requireTokenForDecide
        self.decisionLogPath = decisionLogPath
        self.openConnections = openConnections
    }

    /// The API serving `surface`; every one shares the store, metrics, recorder and drain flag.
    func api(_ surface: PolicyAPI.Surface) -> PolicyAPI {
        PolicyAPI(
            store: store, metrics: metrics, recorder: recorder, adminToken: adminToken,
            requireTokenForDecide: requireTokenForDecide, reload: reloader.reload(trigger:),
            openConnections: openConnections, intake: intake, decisionLogPath: decisionLogPath,
            authFailures: authFailures, status: StatusSources(listeners: directory, decisionLog: decisionLog),
            surface: surface,
            draining: draining, analysisSlot: analysisSlot)
    }

    /// Decide and record, for the enforcement points (authz, proxy).
    func decisions(for frontEnd: DecisionFrontEnd) -> DecisionPoint {
        DecisionPoint(store: store, recorder: recorder, frontEnd: frontEnd)
    }

    /// The decision log, with its reopen, size-cap and drop reporting.
    private static func openDecisionLog(
        _ path: String, store: PolicyStore, metrics: Metrics, log: EventLog
    ) throws(DecisionLogError) -> DecisionLog {
        try DecisionLog(
            path: path, onDrop: { metrics.recordDecisionLogDrop() },
            onReopen: { failure in
                if let failure {
                    log.log(
                        .error, "decision_log.reopen_failed",
                        [
                            "path": .string(path), "reason": .string(failure),
                            "detail": .string("still writing to the old file"),
                        ])
                } else {
                    log.log(.info, "decision_log.reopened", ["path": .string(path)])
                }
            },
            // Read from the active policy before each write, so a reload changes it.
            maximumBytes: {
                store.snapshot?.logMaxBytes ?? DecisionLogSettings.defaultMaxBytes
            },
            onFull: { fileBytes, maximumBytes in
                log.log(
                    .warning, "decision_log.full",
                    [
                        "path": .string(path), "fileBytes": .number(Double(fileBytes)),
                        "maxBytes": .number(Double(maximumBytes)),
                        "detail": .string("decisionLog.maxBytes reached: lines are dropped until the file is rotated"),
                    ])
            })
    }

    /// The intake endpoints over `source`; an opened store also reports its commits to the
    /// metrics and its events to the log.
    private static func intakeEndpoints(
        _ source: IntakeSource, policies: PolicyStore, recorder: DecisionRecorder, log: EventLog,
        authFailures: AuthFailureLog
    ) -> IntakeEndpoints {
        switch source {
        case .open(let store, let settings, let token):
            let metrics = recorder.metrics
            store.observeCommits { writes in metrics.recordIntakeCommit(writes: writes) }
            // Switching files under the daemon, or losing the database server, is an operator's
            // business: warn so it shows in alerts. The server answering again is the all-clear.
            store.observeEvents { event, fields in
                log.log(event == "intake.store_connected" ? .info : .warning, event, fields)
            }
            return IntakeEndpoints(
                availability: .open(store), settings: settings, token: token, policies: policies, recorder: recorder,
                log: log, authFailures: authFailures)
        case .disabled(let settings):
            return IntakeEndpoints(
                availability: .disabled, settings: settings, token: nil, policies: policies, recorder: recorder, log: log)
        case .notConfigured(let settings):
            return IntakeEndpoints(
                availability: .notConfigured, settings: settings, token: nil, policies: policies, recorder: recorder,
                log: log)
        }
    }
}
