public import NavigationPolicy

/// The `decisionLog` section of the config: how much disk the decision log may take.
///
/// The log's path is a flag (`--decision-log`), its budget is here so a reload can change it:
/// the writer reads it from the active policy before each write.
public struct DecisionLogSettings: Sendable, Equatable {
    /// Most bytes the log file may hold; lines that would take it past this are dropped and
    /// counted in `navpolicyd_decision_log_dropped_total`. The count starts from the file's
    /// size when it is opened (start, and SIGUSR1 after a rotation), so the budget is per file:
    /// a rotation gives a fresh one.
    public var maxBytes = DecisionLogSettings.defaultMaxBytes

    public init() {}

    /// 512 MiB: days of ordinary traffic (about 1.4 million decisions at ~380 bytes a line), and
    /// no more than the shipped logrotate's `maxsize` allows for one file.
    public static let defaultMaxBytes = 512 << 20
    /// Smallest budget: room for one line at the longest a line can be.
    public static let minimumMaxBytes = DecisionRecorder.maximumLineBytes + 1
    /// Largest budget accepted: 1 TiB (a typo's extra digits are refused, not obeyed).
    public static let maximumMaxBytes = 1 << 40

    static let keys = ["maxBytes"]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> DecisionLogSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = DecisionLogSettings()
        if let value = section.integer("maxBytes", in: minimumMaxBytes...maximumMaxBytes, diagnostics: &diagnostics) {
            settings.maxBytes = value
        }
        return settings
    }

    /// The settings of a compiled policy's `decisionLog` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> DecisionLogSettings {
        guard let section = policy.sections["decisionLog"]?.objectValue else { return DecisionLogSettings() }
        var diagnostics = ConfigDiagnostics()
        // Validated when the policy compiled: no issues can appear here.
        return decode(ConfigObject(section, at: .root.appending("decisionLog")), diagnostics: &diagnostics)
    }
}
