/// Help sentences several commands declare with the same meaning.
enum SharedHelp {
    static let config = "policy file (default: $NAVPOLICY_CONFIG or \(ConfigLoader.defaultPath))"
}
