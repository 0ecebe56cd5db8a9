import Foundation
public import NavigationPolicy

/// The bearer token that guards admin endpoints, compared in constant time.
public struct AdminToken: Sendable {
    private let secret: [UInt8]

    /// A token must have some entropy to be worth checking; shorter ones are refused at start.
    public static let minimumLength = 16

    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count >= Self.minimumLength else { return nil }
        secret = Array(trimmed.utf8)
    }

    /// Whether an `Authorization` header carries this token as `Bearer <token>`.
    ///
    /// Every byte is compared whatever the first difference, so response time does not
    /// reveal how much of a guess was right.
    public func authorizes(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let prefix = "bearer "
        let bytes = Array(authorization.utf8)
        guard bytes.count > prefix.utf8.count,
            String(decoding: bytes[..<prefix.utf8.count], as: UTF8.self).lowercased() == prefix
        else { return false }
        let presented = Array(bytes[prefix.utf8.count...])
        var difference = UInt8(truncatingIfNeeded: presented.count ^ secret.count)
        for index in 0..<secret.count {
            difference |= secret[index] ^ (index < presented.count ? presented[index] : 0)
        }
        return difference == 0
    }

    /// Loads the configured token, if any: the environment variable wins over the file.
    /// An unusable token is an error, never a silent "no auth".
    public static func load(environmentVariable: String, file: String?) -> Result<AdminToken?, PatternError> {
        if let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty {
            guard let token = AdminToken(value) else {
                return .failure(PatternError("\(environmentVariable) is shorter than \(minimumLength) characters"))
            }
            return .success(token)
        }
        guard let file else { return .success(nil) }
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(PatternError("token file \(file) cannot be read"))
        }
        guard let token = AdminToken(String(decoding: data, as: UTF8.self)) else {
            return .failure(PatternError("token file \(file) holds fewer than \(minimumLength) characters"))
        }
        return .success(token)
    }
}
