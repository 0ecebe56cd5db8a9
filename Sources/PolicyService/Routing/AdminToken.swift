import Foundation
import HTTPServer

/// Why a configured bearer token was refused at start-up; the reason names the source
/// (environment variable or file) and the rule, never the token itself.
public struct AdminTokenError: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// A bearer token that guards endpoints (admin, intake, optionally decide and authz),
/// compared in constant time.
public struct AdminToken: Sendable {
    private let secret: [UInt8]

    /// A token must have some entropy to be worth checking; shorter ones are refused at start.
    public static let minimumLength = 16
    /// Longest token accepted; a token is sent on every request, and the comparison's cost
    /// must not depend on what a client sends beyond this.
    public static let maximumLength = 512
    /// Fewest distinct characters: `aaaaaaaaaaaaaaaa` or `1212121212121212` are not secrets.
    public static let minimumDistinctCharacters = 8
    /// Words that mark a value copied from an example rather than generated (compared
    /// ignoring case and the separators `-`, `_`, `.`). A shipped manifest or README value
    /// that worked as a token would be the same secret on every install.
    static let placeholderWords = [
        "replaceme", "changeme", "placeholder", "example", "yourtoken", "yoursecret", "insert", "password",
        "secret", "token", "xxxxxx", "123456", "abcdef", "qwerty",
    ]

    /// Checks `text` against the token rules (see docs/security.md) and returns the token,
    /// or why it is refused. Surrounding whitespace (a trailing newline in a file) is ignored.
    public static func parse(_ text: String) -> Result<AdminToken, AdminTokenError> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= minimumLength else {
            return .failure(AdminTokenError("is shorter than \(minimumLength) characters"))
        }
        guard bytes.count <= maximumLength else {
            return .failure(AdminTokenError("is longer than \(maximumLength) characters"))
        }
        // Visible ASCII only: the token travels in an HTTP field value, where anything else
        // is either invalid or mangled by some proxy on the way.
        guard bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            return .failure(AdminTokenError("must consist of visible ASCII characters (no spaces or control characters)"))
        }
        guard Set(bytes).count >= minimumDistinctCharacters else {
            return .failure(
                AdminTokenError(
                    "has fewer than \(minimumDistinctCharacters) distinct characters; "
                        + "generate one with: head -c 32 /dev/urandom | base64"))
        }
        let folded = String(
            decoding: bytes.compactMap { byte -> UInt8? in
                if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") { return nil }
                return ASCIICaseInsensitive.lowercased(byte)
            }, as: UTF8.self)
        if let word = placeholderWords.first(where: { folded.contains($0) }) {
            return .failure(
                AdminTokenError(
                    "looks like a placeholder (it contains \"\(word)\"); "
                        + "generate one with: head -c 32 /dev/urandom | base64"))
        }
        return .success(AdminToken(secret: bytes))
    }

    private init(secret: [UInt8]) {
        self.secret = secret
    }

    /// Whether an `Authorization` header carries this token as `Bearer <token>`.
    ///
    /// The time taken depends only on the secret's length and the presented length (up to
    /// ``maximumLength``), never on how many bytes of a guess were right; a presented token
    /// of a different length never matches, whatever the difference.
    public func authorizes(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let scheme: StaticString = "bearer "
        let bytes = Array(authorization.utf8)
        let schemeCount = scheme.utf8CodeUnitCount
        guard bytes.count > schemeCount, bytes.count - schemeCount <= Self.maximumLength,
            ASCIICaseInsensitive.hasPrefix(bytes, lowercase: scheme)
        else { return false }
        let presentedCount = bytes.count - schemeCount
        // Lengths are compared as whole integers: truncating the difference (e.g. to 8
        // bits) would accept the right token followed by any multiple of 256 bytes.
        var difference = presentedCount == secret.count ? 0 : 1
        for index in 0..<secret.count {
            let presented = index < presentedCount ? bytes[schemeCount + index] : 0
            difference |= Int(secret[index] ^ presented)
        }
        return difference == 0
    }

    /// Loads the configured token, if any: the environment variable wins over the file.
    /// An unusable token is an error, never a silent "no auth".
    public static func load(environmentVariable: String, file: String?) -> Result<AdminToken?, AdminTokenError> {
        if let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty {
            return parse(value).map { $0 }.mapError { AdminTokenError("\(environmentVariable) \($0.reason)") }
        }
        guard let file else { return .success(nil) }
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(AdminTokenError("token file \(file) cannot be read"))
        }
        return parse(String(decoding: data, as: UTF8.self)).map { $0 }.mapError {
            AdminTokenError("the token in \(file) \($0.reason)")
        }
    }
}
