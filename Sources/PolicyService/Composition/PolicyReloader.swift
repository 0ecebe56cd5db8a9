/// Reloads the policy and reports the outcome: systemd's `RELOADING=1`/`READY=1`, the reload
/// metric, one log line, and a warning per section that only a restart applies.
///
/// SIGHUP, the config watcher and `POST /v1/policy/reload` all reload through it.
struct PolicyReloader: Sendable {
    let store: PolicyStore
    let metrics: Metrics
    let log: EventLog
    /// The sections the running daemon was built from.
    let restartOnly: RestartOnlySettings
    let notifier: SystemdNotifier?

    /// Reloads the config file, logging and counting the outcome.
    func reload(trigger: String) -> PolicyStore.ReloadOutcome {
        // systemd holds `systemctl reload` from RELOADING=1 until the next READY=1.
        notifier?.notify(SystemdNotifier.reloadingMessage())
        defer { notifier?.notify("READY=1") }
        let outcome = store.reload(trigger: trigger)
        metrics.recordReload(result: outcome.result.rawValue, readConfigFile: !store.pullsFromSource)
        switch outcome.result {
        case .reloaded:
            log.log(.info, "policy.reloaded", outcome.jsonObject)
            // The listeners, the intake store and the proxy were built once at start.
            for change in store.snapshot.map(restartOnly.changes(in:)) ?? [] {
                log.log(.warning, change.event, ["detail": .string(change.detail)])
            }
        case .unchanged:
            log.log(.debug, "policy.unchanged", outcome.jsonObject)
        case .failed:
            log.log(.error, "policy.reload_failed", outcome.jsonObject)
        }
        return outcome
    }
}
