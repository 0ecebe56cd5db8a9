/// What a front proxy forwards as the original request's path (or whole URL) must be what the
/// upstream will see: the URL parser drops tabs and newlines and ends the path at `#`, so a
/// target carrying them would be decided as another path than the one forwarded (nginx passes
/// `GET /#/../logout` on unchanged while the decision read `/`). Such a target is refused, by
/// every endpoint that decides on a forwarded target (`/v1/authz`, the ext_authz services).
enum ForwardedTargetSyntax {
    /// What a refused target holds, completing "X-Original-URI …" in the 400's detail.
    static let refusal = "must not contain spaces, control characters or \"#\""

    /// Whether `target` holds a space, a control byte or `#`.
    static func isReinterpreted(_ target: String) -> Bool {
        target.utf8.contains { $0 < 0x21 || $0 == 0x7F || $0 == UInt8(ascii: "#") }
    }
}
