import JSONSupport
public import NavigationPolicy

/// `server.bundle`: how `GET /v1/policy/bundle` is cached and signed (docs/bundles.md).
public struct BundleSettings: Sendable, Equatable {
    /// `Cache-Control: max-age` of the bundle: how long an app may use a fetched bundle without
    /// asking again. Also the longest a revoked rule can outlive a reload in an app that polls.
    public var maxAgeSeconds = 300
    /// PEM PKCS#8 Ed25519 private key that signs every bundle; nil = bundles are served unsigned.
    public var signingKeyFile: String?
    /// How long a bundle is valid after it is issued (its signed `expiresAt` − `issuedAt`);
    /// a client refuses to adopt an expired bundle. Default 7 days.
    public var lifetimeSeconds = 604_800
    /// The signed `keyId` naming the signing key; nil = derived from the public key
    /// (`BundleKeyID.derived(from:)` in BundleSigning). Needs `signingKeyFile`.
    public var keyId: String?
    /// The signed `policyVersion`, set by the operator (e.g. the release's Unix time) so every
    /// replica serves the same version for the same config; nil = the time the policy was
    /// loaded, in seconds, and never lower than the previous one of this daemon.
    public var policyVersion: BundleNumber?

    public init() {}

    /// Largest `maxAgeSeconds`: one day, so a bad policy cannot be cached by apps for longer.
    public static let maximumMaxAgeSeconds = 86_400

    /// Shortest and longest `lifetimeSeconds`: a minute (a bundle must outlive its own
    /// transfer) to a year (a shipped bundle in an app that is rarely updated).
    public static let lifetimeRange: ClosedRange<Int> = 60...Int(BundleFormat.longestLifetimeSeconds)
    /// `policyVersion` values: positive and exact in a JSON number (2^53 − 1), as every client reads it.
    public static let policyVersionRange: ClosedRange<BundleNumber> = 1...BundleFormat.largestExactInteger

    package static let keys = ["maxAgeSeconds", "signingKeyFile", "lifetimeSeconds", "keyId", "policyVersion"]

    /// Decodes `server.bundle`, reporting every problem at its pointer. The key file is only
    /// named here; it is read when a snapshot is built (start and reload), see ``PolicySnapshot``.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> BundleSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = BundleSettings()
        if let value = section.integer("maxAgeSeconds", in: 0...maximumMaxAgeSeconds, diagnostics: &diagnostics) {
            settings.maxAgeSeconds = value
        }
        if let path = section.path("signingKeyFile", diagnostics: &diagnostics) { settings.signingKeyFile = path }
        if let value = section.integer("lifetimeSeconds", in: lifetimeRange, diagnostics: &diagnostics) {
            settings.lifetimeSeconds = value
        }
        if let value = section.integer("policyVersion", in: policyVersionRange, diagnostics: &diagnostics) {
            settings.policyVersion = value
        }
        if let id = section.string("keyId", diagnostics: &diagnostics) {
            if let problem = BundleKeyIDFormat.problem(id) {
                diagnostics.report(section.pointer.appending("keyId"), problem)
            } else if settings.signingKeyFile == nil {
                // An id with nothing to sign would name no key: say so rather than ignore it.
                diagnostics.report(section.pointer.appending("keyId"), "names the signing key; set signingKeyFile too")
            } else {
                settings.keyId = id
            }
        }
        return settings
    }

    /// The `Cache-Control` value of every bundle response (200 and 304). `no-transform`: a
    /// proxy that recompressed or re-encoded the body would break the signature.
    public var cacheControl: String { "max-age=\(maxAgeSeconds), no-transform" }
}
