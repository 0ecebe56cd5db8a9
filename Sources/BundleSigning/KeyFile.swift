#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a key file, refusing anything larger than a key file can plausibly be, so that a wrong
/// path (a log, a device) is reported instead of read without bound.
enum KeyFile {
    /// A PEM Ed25519 key is about 120 bytes; 16 KiB leaves room for comments and other blocks.
    static let maxBytes = 16 * 1024

    static func read(_ path: String) throws(BundleSigningError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw errno == ENOENT
                ? BundleSigningError(.fileMissing, "no such file")
                : BundleSigningError(.fileUnreadable, "cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maxBytes {
            let count = chunk.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                    Glibc.read(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Darwin.read(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw BundleSigningError(.fileUnreadable, "cannot be read (\(String(cString: strerror(errno))))")
            }
            bytes.append(contentsOf: chunk.prefix(count))
        }
        guard bytes.count <= maxBytes else {
            throw BundleSigningError(.fileTooLarge, "is larger than \(maxBytes) bytes, too large for a key file")
        }
        return bytes
    }
}
