/// The option group of every command that reads a policy file, declared once: `--config FILE`
/// and `--max-config-bytes N`. Commands list them among their options and read the values
/// back through the same handles, so the flags, their help and their checks cannot drift
/// apart between commands.
enum ConfigOptions {
    /// `--config FILE`: the policy the command reads, else `$NAVPOLICY_CONFIG`, else the default
    /// path (``ConfigLoader/resolvePath(flag:environment:)``).
    static let config = Option.text(
        "config", "FILE", kind: .file, help: "policy file (default: $NAVPOLICY_CONFIG or \(ConfigLoader.defaultPath))")

    /// `--config` where the command gives the policy a meaning of its own and requires it
    /// (`diff`'s candidate, `analyze`'s subject): no default path applies.
    static func requiredConfig(_ placeholder: String, help: String) -> Option<String> {
        Option.text(Self.config.declaration.name, placeholder, kind: .file, help: help, required: true)
    }

    /// `--max-config-bytes N`. Text, not an integer: the same rules apply to
    /// `NAVPOLICY_MAX_CONFIG_BYTES`, checked in one place (``ConfigLoader/maxBytes(flag:environment:)``).
    static let maxBytes = Option.text(
        "max-config-bytes", "N",
        help: "refuse config files larger than N bytes (default: $NAVPOLICY_MAX_CONFIG_BYTES or 67108864 = 64 MiB)")

    /// Both options, in the order commands list them.
    static let declarations = [config.declaration, maxBytes.declaration]
}
