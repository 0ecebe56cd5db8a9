import Foundation

/// The last good bundle on disk: one file, so the bytes and their signature are replaced together.
///
/// Layout: the line `navpolicy-bundle-cache 1`, a line with the signature in base64 (or `-`
/// when the bundle was accepted unsigned), then the bundle bytes exactly as received.
/// A file that is missing is no issue; one that is unreadable or malformed is reported and
/// ignored (the client falls back to the shipped bundle), never trusted and never a crash.
struct BundleCache: Sendable {
    static let fileName = "navpolicy-bundle.cache"
    private static let magic = Array("navpolicy-bundle-cache 1\n".utf8)

    let file: URL

    init(directory: URL) {
        self.file = directory.appendingPathComponent(Self.fileName, isDirectory: false)
    }

    /// The stored bundle bytes and signature; nil when there is no file.
    func load() throws(BundleRejection) -> (bytes: [UInt8], signature: [UInt8]?)? {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            throw BundleRejection(.unreadableCache, "\(file.path): \(error.localizedDescription)")
        }
        let bytes = [UInt8](data)
        guard bytes.count > Self.magic.count, bytes.starts(with: Self.magic) else {
            throw BundleRejection(.unreadableCache, "\(file.path): not a navpolicy bundle cache file")
        }
        let afterMagic = bytes.dropFirst(Self.magic.count)
        guard let newline = afterMagic.firstIndex(of: UInt8(ascii: "\n")) else {
            throw BundleRejection(.unreadableCache, "\(file.path): the signature line is not terminated")
        }
        let signatureLine = String(decoding: afterMagic[..<newline], as: UTF8.self)
        let signature: [UInt8]?
        if signatureLine == "-" {
            signature = nil
        } else if let decoded = Data(base64Encoded: signatureLine) {
            signature = [UInt8](decoded)
        } else {
            throw BundleRejection(.unreadableCache, "\(file.path): the signature line is not base64")
        }
        return (Array(bytes[(newline + 1)...]), signature)
    }

    /// Replaces the file atomically: `.atomic` writes a temporary file in the same directory and
    /// renames it over the old one, so a crash or a full disk leaves the old file or the new one,
    /// never a mix (a torn file would still be refused by `load` and the signature check).
    func store(bytes: [UInt8], signature: [UInt8]?) throws(BundleCacheWriteError) {
        var content = Self.magic
        content += Array((signature.map { Data($0).base64EncodedString() } ?? "-").utf8)
        content.append(UInt8(ascii: "\n"))
        content += bytes
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content).write(to: file, options: .atomic)
        } catch {
            throw BundleCacheWriteError(path: file.path, reason: error.localizedDescription)
        }
    }
}

/// The last good bundle could not be written; the new bundle is still in use.
public struct BundleCacheWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}
