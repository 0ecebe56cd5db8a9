public import Foundation
public import NavigationPolicy

/// One active policy: the compiled chain plus what identifies it.
///
/// Immutable, so a request takes one reference at its start and decides entirely on it,
/// whatever reloads happen meanwhile.
public final class PolicySnapshot: Sendable {
    public let policy: CompiledPolicy
    /// `sha256:` hex of the config bytes it was built from.
    public let revision: String
    public let loadedAt: Date
    public let settings: ServerSettings

    public init(policy: CompiledPolicy, revision: String, loadedAt: Date, settings: ServerSettings) {
        self.policy = policy
        self.revision = revision
        self.loadedAt = loadedAt
        self.settings = settings
    }

    /// Compiles config bytes into a snapshot, or returns every config issue.
    public static func build(from bytes: [UInt8], at date: Date = Date()) -> Result<PolicySnapshot, ConfigError> {
        do {
            let policy = try ServerSettings.compiler.compile(bytes)
            return .success(
                PolicySnapshot(
                    policy: policy, revision: "sha256:" + SHA256.hexDigest(bytes), loadedAt: date,
                    settings: ServerSettings.from(policy)))
        } catch {
            return .failure(error)
        }
    }
}
