import JSONSupport
public import NavigationPolicy
import URLStandard

/// The `policySource` section (docs/configuration.md): the daemon does not read its chain from
/// this file but pulls signed policy bundles from `url` (another navpolicyd's
/// `/v1/policy/bundle`, nginx, object storage), checks them as the app client does, and keeps
/// the last good one in `cacheFile`.
///
/// The bundle's signature is what makes a pulled policy trustworthy, so `trustedKeys` is
/// required: an unsigned bundle, or one signed by a key not listed, is never used, and `http:`
/// is as safe as `https:` for integrity (docs/bundles.md, "A fleet pulls").
public struct PolicySourceSettings: Sendable, Equatable {
    /// Where the bundle is fetched from (`http:` or `https:`); nil when the section is absent.
    public var url: SourceURL?
    /// Key id → base64 of the raw 32-byte Ed25519 public key, as `navpolicyd bundle
    /// --public-key --sign KEY` prints it; a bundle must name one of these ids in its signed
    /// `keyId` and verify with that key.
    public var trustedKeys: [String: String] = [:]
    /// Seconds between two polls (a random tenth is taken off each wait, so a fleet started
    /// together does not poll in step).
    public var pollIntervalSeconds = PolicySourceSettings.defaultPollIntervalSeconds
    /// The last good bundle on disk: a restart with the source down decides from it (after
    /// checking it again: signature, key, expiry).
    public var cacheFile: String?
    /// The longest one fetch may take, connection to last byte: a server that sends slowly
    /// (or never finishes) is cut off then, and the held policy keeps deciding.
    public var timeoutSeconds = PolicySourceSettings.defaultTimeoutSeconds

    public init() {}

    /// Whether the section is present: the chain comes from `url`, not from this file.
    public var isConfigured: Bool { url != nil }

    /// One minute: a new policy reaches the fleet within a minute and a poll answered 304 costs
    /// the publisher one comparison of entity tags.
    public static let defaultPollIntervalSeconds = 60
    /// Polls closer than 5 s apart would only load the publisher; a day is the longest wait.
    public static let pollIntervalRange = 5...86_400
    /// 30 s: a 512 MiB compiled bundle at 20 MB/s; the range stops a typo from hanging polls.
    public static let defaultTimeoutSeconds = 30
    public static let timeoutRange = 1...600

    package static let keys = ["url", "trustedKeys", "pollIntervalSeconds", "cacheFile", "timeoutSeconds"]
    /// Longest `url`: beyond it is a mistake, not an address.
    static let maximumURLBytes = 2048

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> PolicySourceSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = PolicySourceSettings()
        if let url = section.string("url", required: true, diagnostics: &diagnostics) {
            if let problem = urlProblem(url) {
                diagnostics.report(section.pointer.appending("url"), problem)
            } else {
                settings.url = SourceURL(text: url)
            }
        }
        settings.trustedKeys = trustedKeys(section, diagnostics: &diagnostics)
        if let seconds = section.integer("pollIntervalSeconds", in: pollIntervalRange, diagnostics: &diagnostics) {
            settings.pollIntervalSeconds = seconds
        }
        if let seconds = section.integer("timeoutSeconds", in: timeoutRange, diagnostics: &diagnostics) {
            settings.timeoutSeconds = seconds
        }
        if !section.has("cacheFile") {
            diagnostics.report(
                section.pointer.appending("cacheFile"),
                "required field is missing: the last good bundle is kept there, so a restart with the source down still decides")
        } else if let path = section.path("cacheFile", diagnostics: &diagnostics) {
            settings.cacheFile = path
        }
        return settings
    }

    /// Why `url` is not a bundle address, or nil: `http://` or `https://`, a host, no
    /// whitespace or control characters (libcurl would send them), at most 2 KiB.
    static func urlProblem(_ url: String) -> String? {
        guard url.utf8.count <= maximumURLBytes else { return "longer than \(maximumURLBytes) bytes" }
        let lowered = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else {
            return "\"\(url)\" is not an http:// or https:// URL"
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "a URL has no spaces, control or non-ASCII characters (percent-encode them)"
        }
        let rest = url.utf8.dropFirst(scheme.utf8.count)
        guard let first = rest.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "?") else {
            return "\"\(url)\" names no host"
        }
        return nil
    }

    /// `trustedKeys`: a non-empty object of key id → base64 Ed25519 public key. Only the form is
    /// checked here (the core has no base64 or Ed25519); the daemon decodes the keys at start.
    private static func trustedKeys(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [String: String] {
        let pointer = section.pointer.appending("trustedKeys")
        guard let value = section.object["trustedKeys"] else {
            diagnostics.report(
                pointer, "required field is missing: a pulled bundle must be signed by one of these keys ({keyId: base64})")
            return [:]
        }
        guard case .object(let object) = value else {
            diagnostics.report(pointer, "expected an object of key id to base64 Ed25519 public key, got \(value.kindName)")
            return [:]
        }
        guard !object.members.isEmpty else {
            diagnostics.report(pointer, "no key: a pulled bundle must be signed by one of these keys")
            return [:]
        }
        var keys: [String: String] = [:]
        for member in object.members {
            if let problem = BundleKeyIDFormat.problem(member.key) {
                diagnostics.report(pointer.appending(member.key), problem)
                continue
            }
            guard case .string(let text) = member.value, isPublicKeyBase64(text) else {
                diagnostics.report(
                    pointer.appending(member.key),
                    "expected the base64 of a 32-byte Ed25519 public key (44 characters, as `navpolicyd bundle --public-key` prints it)"
                )
                continue
            }
            keys[member.key] = text
        }
        return keys
    }

    /// The form of the standard base64 of 32 bytes: 43 characters of the alphabet and `=`.
    private static func isPublicKeyBase64(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 44, bytes[43] == UInt8(ascii: "=") else { return false }
        return bytes[..<43].allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "/")
        }
    }

    /// The settings of a compiled policy's `policySource` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> PolicySourceSettings {
        guard let section = policy.sections["policySource"]?.objectValue else { return PolicySourceSettings() }
        var diagnostics = ConfigDiagnostics()
        // Validated when the policy compiled: no issues can appear here.
        return decode(ConfigObject(section, at: .root.appending("policySource")), diagnostics: &diagnostics)
    }

    /// A config with `policySource` takes its chain from the pulled bundle, so it has no chain
    /// of its own: `handlers` (or `defaultDecision`) beside it would be a second policy that
    /// silently never decides.
    public static func checkNoLocalChain(_ root: ConfigObject, diagnostics: inout ConfigDiagnostics) {
        guard root.has("policySource") else { return }
        for key in PolicyCompiler.chainKeys where root.has(key) {
            diagnostics.report(
                root.pointer.appending(key),
                "a config has either \(key) or policySource, not both: with policySource the chain comes from the pulled bundle"
            )
        }
    }
}

/// A `policySource.url`: fetched as written, shown without its secrets.
///
/// A presigned object-storage URL carries its signature in the query, and a URL may carry a
/// userinfo password; `/v1/status`, the status page, the logs and `validate` show neither
/// (attack round 8, F3). What is shown still says which server and path are polled.
public struct SourceURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL as configured: what the fetch uses.
    public let text: String

    public init(text: String) {
        self.text = text
    }

    /// The URL with its userinfo and query replaced by `***`.
    public var description: String {
        guard let record = try? URLRecord.parse(text) else { return "***" }
        var shown = record.scheme + "://"
        // A user name alone may be the credential (a token as the user), so userinfo goes whole.
        if !record.username.isEmpty || !record.password.isEmpty { shown += "***@" }
        shown += record.hostname + (record.port.map { ":\($0)" } ?? "") + record.pathname
        if record.query != nil { shown += "?***" }
        return shown
    }
}
