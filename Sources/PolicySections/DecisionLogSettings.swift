import JSONSupport
public import NavigationPolicy

/// The `decisionLog` section of the config: how much disk the decision log may take, and
/// which query parameters it must not write.
///
/// The log's path is a flag (`--decision-log`), its budget and redaction are here so a reload
/// can change them: the writer reads the budget from the active policy before each write, and
/// each line is redacted with the rule of the snapshot that decided it.
public struct DecisionLogSettings: Sendable, Equatable {
    /// Most bytes the log file may hold; lines that would take it past this are dropped and
    /// counted in `navpolicyd_decision_log_dropped_total`. The count starts from the file's
    /// size when it is opened (start, and SIGUSR1 after a rotation), so the budget is per file:
    /// a rotation gives a fresh one.
    public var maxBytes: ConfigInteger = DecisionLogSettings.defaultMaxBytes

    /// `redactQueryParameters`: names whose values the log replaces with
    /// the decision log's marker (`REDACTED`) (`"*"` = every value); empty = URLs are logged whole.
    public var redactQueryParameters: [String] = []

    public init() {}

    /// 512 MiB: days of ordinary traffic (about 1.4 million decisions at ~380 bytes a line), and
    /// no more than the shipped logrotate's `maxsize` allows for one file.
    public static let defaultMaxBytes: ConfigInteger = 512 << 20
    /// Longest decision-log line, newline excluded. An ordinary line is ~400 bytes; only URLs
    /// make one long (a `POST /v1/decide` may carry a 64 KiB URL, and its canonical form and a
    /// `{url}` location repeat it), so the daemon's recorder writes a longer line with its URLs
    /// cut, and drops and counts one still longer. Here because ``minimumMaxBytes`` is one
    /// more; computed and inlinable so the recorder's per-line check stays a constant.
    @inlinable public static var maximumLineBytes: Int { 16_384 }
    /// Smallest budget: room for one line at the longest a line can be.
    public static let minimumMaxBytes = ConfigInteger(maximumLineBytes) + 1
    /// Largest budget accepted: 1 TiB (a typo's extra digits are refused, not obeyed).
    public static let maximumMaxBytes: ConfigInteger = 1 << 40

    package static let keys = ["maxBytes", "redactQueryParameters"]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> DecisionLogSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = DecisionLogSettings()
        if let value = section.integer("maxBytes", in: minimumMaxBytes...maximumMaxBytes, diagnostics: &diagnostics) {
            settings.maxBytes = value
        }
        if let names = redactQueryParameters(section, diagnostics: &diagnostics) {
            settings.redactQueryParameters = names
        }
        return settings
    }

    /// An array of non-empty strings (an empty array is allowed: nothing is redacted); every
    /// entry at fault is reported at its own pointer.
    private static func redactQueryParameters(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [String]? {
        let key = "redactQueryParameters"
        guard let value = section.object[key] else { return nil }
        guard case .array(let elements) = value else {
            var message = "expected an array of query parameter names, got \(value.kindName)"
            if case .string(let text) = value { message += "; write [\"\(text)\"]" }
            diagnostics.report(section.pointer.appending(key), message)
            return nil
        }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let name) = element else {
                diagnostics.report(section.pointer(to: key, index), "expected a string, got \(element.kindName)")
                continue
            }
            // A name that normalizes to nothing could never match: it is a mistake, not a rule.
            guard !QueryParameterName.normalizedName(Array(name.utf8)[...]).isEmpty else {
                diagnostics.report(section.pointer(to: key, index), "empty query parameter name")
                continue
            }
            names.append(name)
        }
        return names.count == elements.count ? names : nil
    }

    /// The settings of a compiled policy's `decisionLog` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> DecisionLogSettings {
        guard let section = policy.sections["decisionLog"]?.objectValue else { return DecisionLogSettings() }
        var diagnostics = ConfigDiagnostics()
        // Validated when the policy compiled: no issues can appear here.
        return decode(ConfigObject(section, at: .root.appending("decisionLog")), diagnostics: &diagnostics)
    }
}
