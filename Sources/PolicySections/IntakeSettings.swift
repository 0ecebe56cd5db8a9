import JSONSupport
public import NavigationPolicy

/// The `intake` section of the config: where shares are stored and which rules apply.
///
/// Validated with the rest of the config (errors carry JSON pointers, so `navpolicyd
/// validate` reports them), read once at start-up: the database cannot move under a
/// running daemon.
public struct IntakeSettings: Sendable, Equatable {
    /// What to do with a shared URL the policy chain cancels.
    public enum OnCancel: String, Sendable, CaseIterable {
        /// Store the item with its cancel decision (the user still sees what they shared).
        case store
        /// Refuse with 403 `policy-denied`; nothing is stored.
        case reject
    }

    /// Whether the daemon serves share intake at all. `false` opens no database and touches
    /// no data directory, so a decision-only daemon can run replicated on a read-only
    /// filesystem; the intake endpoints then answer 404 `intake-disabled`.
    public var enabled = true
    /// The SQLite file, or a `postgresql://`/`postgres://` URI for a store several replicas
    /// share; nil means `intake.sqlite3` in the data directory. `NAVPOLICY_INTAKE_DATABASE_URL`
    /// wins over it (see ``DatabaseLocation``).
    public var database: String?
    /// PostgreSQL only: connections kept for reads (writes use one more).
    public var pool = 4
    /// Most web URLs one request may carry (Apple's `NSExtensionActivationSupportsWebURLWithMaxCount`).
    public var maxWebURLs = 1
    /// What happens to a URL the policy chain cancels.
    public var onCancel = OnCancel.store
    /// A file holding the intake bearer token (`NAVPOLICY_INTAKE_TOKEN` wins).
    public var tokenFile: String?
    /// Let concurrent requests share one transaction (one fsync). `false` commits each
    /// request alone: the same durability, kept as the benchmark's baseline.
    public var groupCommit = true
    /// How long a connection waits for another process's write lock before giving up (503);
    /// on PostgreSQL, the `statement_timeout` of every statement and (plus 250 ms) the
    /// client's own deadline for every call and request (at least 100 ms), so a stuck or
    /// silent database answers 503 instead of holding workers.
    public var busyTimeoutMilliseconds = 5000
    /// The most bytes the database file may grow to; past it writes answer 503
    /// `storage-unavailable` as on a full disk, and `/readyz/intake` turns 503 until items are
    /// deleted. Nil: only the disk limits it. Bounds the disk a share flood can take.
    public var maxDatabaseBytes: ConfigInteger?
    /// The most intake requests (writes, reads, `/readyz/intake`) that may wait on the
    /// database at once; more are answered 503 `storage-unavailable` at once. Each waiting
    /// request holds a connection, so this keeps a stalled database from taking the
    /// per-address connection slots decisions need; keep it well under
    /// `server.perIPConnectionLimit`.
    public var maxWaitingRequests = 32

    public init() {}

    package static let keys = [
        "enabled", "database", "pool", "maxWebURLs", "onCancel", "tokenFile", "groupCommit", "busyTimeoutMilliseconds",
        "maxDatabaseBytes", "maxWaitingRequests",
    ]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> IntakeSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = IntakeSettings()
        for key in ["database", "tokenFile"] {
            guard let path = section.string(key, diagnostics: &diagnostics) else { continue }
            guard !path.isEmpty, !path.utf8.contains(0) else {
                diagnostics.report(section.pointer.appending(key), "expected a non-empty path")
                continue
            }
            if key == "database" { settings.database = path } else { settings.tokenFile = path }
        }
        if let size = section.integer("pool", in: 1...64, diagnostics: &diagnostics) { settings.pool = size }
        if let count = section.integer("maxWebURLs", in: 1...50, diagnostics: &diagnostics) { settings.maxWebURLs = count }
        if let timeout = section.integer("busyTimeoutMilliseconds", in: 0...60_000, diagnostics: &diagnostics) {
            settings.busyTimeoutMilliseconds = timeout
        }
        // 64 KiB holds the schema and a few items; 1 TiB is beyond what one SQLite file should serve here.
        if let bytes = section.integer(
            "maxDatabaseBytes", in: 65536...(1 << 40) as ClosedRange<ConfigInteger>, diagnostics: &diagnostics)
        {
            settings.maxDatabaseBytes = bytes
        }
        if let count = section.integer("maxWaitingRequests", in: 1...4096, diagnostics: &diagnostics) {
            settings.maxWaitingRequests = count
        }
        if let flag = section.bool("groupCommit", diagnostics: &diagnostics) { settings.groupCommit = flag }
        if let flag = section.bool("enabled", diagnostics: &diagnostics) { settings.enabled = flag }
        if let text = section.string("onCancel", diagnostics: &diagnostics) {
            if let value = OnCancel.spelled(text) {
                settings.onCancel = value
            } else {
                diagnostics.report(
                    section.pointer.appending("onCancel"),
                    "unknown value \"\(EchoedText.bounded(text))\"; expected one of "
                        + OnCancel.allCases.map { "\"\($0.rawValue)\"" }
                        .joined(separator: ", "))
            }
        }
        return settings
    }

    /// Reads the settings from a compiled policy's `intake` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> IntakeSettings {
        guard let section = policy.sections["intake"]?.objectValue else { return IntakeSettings() }
        var diagnostics = ConfigDiagnostics()
        // The section was validated when the policy compiled, so no issues can appear here.
        return decode(ConfigObject(section, at: .root.appending("intake")), diagnostics: &diagnostics)
    }

    /// The validator to register with ``PolicyCompiler`` under `intake`.
    public static let validator: PolicyCompiler.SectionValidator = { section, diagnostics in
        _ = IntakeSettings.decode(section, diagnostics: &diagnostics)
    }
}
