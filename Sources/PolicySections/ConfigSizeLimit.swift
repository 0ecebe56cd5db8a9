/// The most bytes of config text anything compiles by default: the CLI's and the daemon's
/// `--max-config-bytes` default (`ConfigFile` in PolicyService) and the WebAssembly build's
/// `fromConfig`, which has no flag, so a config `navpolicyd validate` refuses for its size is
/// refused everywhere (outside attack round 12, F4).
public enum ConfigSizeLimit {
    /// 64 MiB, about seven times a 100,000-handler config.
    public static let defaultMaxBytes = 64 << 20

    /// Why a config of `count` bytes is refused under `limit`, after its name: `navpolicyd
    /// validate`'s words, without the ways to raise the limit (the caller adds its own).
    public static func tooLarge(limit: Int) -> String { "is larger than the limit of \(limit) bytes" }
}
