import ShareIntake

extension DaemonConfiguration {
    /// Where the intake database lives when neither `intake.database` nor
    /// `NAVPOLICY_INTAKE_DATABASE_URL` says: `intake.sqlite3` in `$NAVPOLICY_DATA_DIR`, else in
    /// `var/navpolicyd` under the working directory.
    static func defaultIntakeDatabase(environment: [String: String]) -> String {
        let dataDirectory = environment["NAVPOLICY_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        return (dataDirectory ?? "var/navpolicyd") + "/intake.sqlite3"
    }

    /// Loads the intake token and opens the store; both failures stop start-up, because a
    /// daemon that silently accepts shares it cannot store, or without the auth it was
    /// told to require, is worse than one that does not start.
    static func openIntake(_ settings: IntakeSettings, environment: [String: String]) -> Result<Intake, IntakeStoreError> {
        let token: AdminToken?
        switch AdminToken.load(environmentVariable: "NAVPOLICY_INTAKE_TOKEN", file: settings.tokenFile) {
        case .success(let loaded): token = loaded
        case .failure(let error): return .failure(IntakeStoreError(error.reason))
        }
        let location = DatabaseLocation.resolve(
            settings, environment: environment, defaultPath: defaultIntakeDatabase(environment: environment))
        do {
            let store = try location.openStore(settings)
            return .success(Intake(store: store, settings: settings, token: token, location: location))
        } catch {
            return .failure(error)
        }
    }
}
