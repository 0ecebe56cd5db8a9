import PolicySections

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a policy file with a size cap, for the CLI commands and the daemon's reloads alike.
///
/// A config is parsed into a tree and compiled in memory, which costs many times its size;
/// without a cap, a wrong path (a log, a disk image) or a runaway generator makes the daemon
/// allocate without bound. At most `maxBytes + 1` bytes are ever read, so an oversized file
/// is refused without being loaded.
public enum ConfigFile {
    /// The cap when neither `--max-config-bytes` nor `NAVPOLICY_MAX_CONFIG_BYTES` sets one: 64 MiB
    /// (``ConfigSizeLimit``, shared with the WebAssembly build's `fromConfig`).
    public static let defaultMaxBytes = ConfigSizeLimit.defaultMaxBytes

    /// The environment variable that sets the cap when the flag does not.
    public static let environmentVariable = "NAVPOLICY_MAX_CONFIG_BYTES"

    /// Why a config file was not read.
    public enum ReadError: Error, Sendable, Equatable {
        /// The file does not exist.
        case missing
        /// It exists but cannot be opened or read (permissions, a directory, an I/O error).
        case unreadable
        /// It holds more than `limit` bytes.
        case tooLarge(limit: Int)

        /// The reason as users read it, after the path.
        public var reason: String {
            switch self {
            case .missing: "no such file"
            case .unreadable: "cannot be read"
            case .tooLarge(let limit):
                ConfigSizeLimit.tooLarge(limit: limit)
                    + " (raise it with --max-config-bytes or \(ConfigFile.environmentVariable))"
            }
        }
    }

    /// The cap from the flag, else the environment, else ``defaultMaxBytes``.
    /// - Returns: the limit, or a message naming the bad value (a positive whole number of bytes is required).
    public static func maxBytes(flag: String?, environment: [String: String]) -> Result<Int, ConfigLimitError> {
        let (text, source): (String?, String) =
            if let flag { (flag, "--max-config-bytes") } else { (environment[environmentVariable], environmentVariable) }
        guard let text, !text.isEmpty else { return .success(defaultMaxBytes) }
        guard let value = Int(text), value > 0 else {
            return .failure(ConfigLimitError(message: "\(source) \(text): expected a positive number of bytes"))
        }
        return .success(value)
    }

    /// Reads the whole file if it holds at most `maxBytes` bytes.
    public static func read(_ path: String, maxBytes: Int) throws(ReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? .missing : .unreadable }
        defer { close(descriptor) }
        // One byte past the cap tells "exactly at the limit" from "over it" without reading more.
        let capacity = maxBytes < Int.max ? maxBytes + 1 : maxBytes
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < capacity {
            let wanted = min(chunk.count, capacity - bytes.count)
            let count = chunk.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress, wanted) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable
            }
            bytes.append(contentsOf: chunk.prefix(count))
        }
        guard bytes.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        return bytes
    }
}

/// A `--max-config-bytes` or `NAVPOLICY_MAX_CONFIG_BYTES` value that is not a positive number.
public struct ConfigLimitError: Error, Sendable, CustomStringConvertible {
    /// Names the source and the value.
    public var message: String
    public var description: String { message }
}
