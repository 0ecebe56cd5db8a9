import NavigationPolicy

/// `server.bundle`: how `GET /v1/policy/bundle` is cached and signed (docs/bundles.md).
public struct BundleSettings: Sendable, Equatable {
    /// `Cache-Control: max-age` of the bundle: how long an app may use a fetched bundle without
    /// asking again. Also the longest a revoked rule can outlive a reload in an app that polls.
    public var maxAgeSeconds = 300
    /// PEM PKCS#8 Ed25519 private key that signs every bundle; nil = bundles are served unsigned.
    public var signingKeyFile: String?

    public init() {}

    /// Largest `maxAgeSeconds`: one day, so a bad policy cannot be cached by apps for longer.
    public static let maximumMaxAgeSeconds = 86_400

    static let keys = ["maxAgeSeconds", "signingKeyFile"]

    /// Decodes `server.bundle`, reporting every problem at its pointer. The key file is only
    /// named here; it is read when a snapshot is built (start and reload), see ``PolicySnapshot``.
    static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> BundleSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = BundleSettings()
        if let value = section.integer("maxAgeSeconds", in: 0...maximumMaxAgeSeconds, diagnostics: &diagnostics) {
            settings.maxAgeSeconds = value
        }
        if let path = section.string("signingKeyFile", diagnostics: &diagnostics) {
            if path.isEmpty {
                diagnostics.report(section.pointer.appending("signingKeyFile"), "empty path")
            } else {
                settings.signingKeyFile = path
            }
        }
        return settings
    }

    /// The `Cache-Control` value of every bundle response (200 and 304). `no-transform`: a
    /// proxy that recompressed or re-encoded the body would break the signature.
    public var cacheControl: String { "max-age=\(maxAgeSeconds), no-transform" }
}
