import BundleSigning
import Glibc
public import NavigationPolicy

/// Compiled policy images (`navpolicyd compile`) as files: mapped read-only and loaded with the
/// daemon's compiler (so `server`, `intake` and `proxy` are checked as in JSON) and libsodium's
/// BLAKE2b-256 for the image checksum (SHA-256 for the source revision).
public enum PolicyImageFile {
    /// The source config's revision.
    public static let sha256: PolicyImage.Digest = { SHA256.hash($0) }
    /// The image checksum: BLAKE2b-256, three times libsodium's SHA-256 speed (40 ms against
    /// 130 ms over a 1,000,000-host image), which was the whole 0.15 s load budget.
    public static let checksum: PolicyImage.Digest = { BLAKE2b.hash256($0) }

    /// Whether the file at `path` starts with the image magic (how every `--config` tells an
    /// image from JSON: by its header, not its name). False when it cannot be read.
    public static func isImage(atPath path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 8)
        let count = head.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, 8) }
        return count == 8 && PolicyImage.hasMagic(head)
    }

    /// Maps the file read-only (pages are read as lookups touch them, and shared with the page
    /// cache); a file that cannot be mapped is read into memory instead.
    public static func map(_ path: String, maxBytes: Int) throws(ConfigFile.ReadError) -> PolicyImageBytes {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? .missing : .unreadable }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable }
        let size = Int(status.st_size)
        guard size <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        if size > 0, let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED {
            return PolicyImageBytes(buffer: UnsafeRawBufferPointer(start: address, count: size)) { window in
                _ = munmap(UnsafeMutableRawPointer(mutating: window.baseAddress), window.count)
            }
        }
        return PolicyImageBytes(copying: try ConfigFile.read(path, maxBytes: maxBytes))
    }

    /// Loads image bytes with the daemon's compiler.
    public static func load(_ image: PolicyImageBytes) throws(PolicyImageError) -> PolicyImage.Loaded {
        try PolicyImage.load(image, compiler: ServerSettings.compiler, checksum: checksum)
    }

    /// Compiles config bytes into image bytes with the daemon's compiler (the deciding one: the
    /// check that the config compiles reports the same issues, and its large lists load as tables).
    public static func compile(config bytes: [UInt8]) throws(ConfigError) -> [UInt8] {
        try PolicyImage.compile(
            config: bytes, compiler: ServerSettings.decidingCompiler, sha256: sha256, checksum: checksum)
    }
}
