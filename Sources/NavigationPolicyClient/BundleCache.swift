import Foundation
import NavigationPolicy

/// The last good bundle on disk: one file, so the bytes and their signature are replaced together.
///
/// Layout: the line `navpolicy-bundle-cache 1`, a line with the signature in base64 (or `-`
/// when the bundle was accepted unsigned), then the bundle bytes exactly as received.
/// A file that is missing is no issue; one that is unreadable or malformed is reported and
/// ignored (the client falls back to the shipped bundle), never trusted and never a crash.
///
/// The file is mapped, not read: the bundle is the part of the mapping after the two lines, and a
/// compiled bundle decides from it in place (issue 42). A refresh writes the next file beside it
/// (``stage(_:signature:)``) and renames it over this one only after it verified.
struct BundleCache: Sendable {
    static let fileName = "navpolicy-bundle.cache"
    /// Files being written by a refresh: `navpolicy-bundle.cache.<UUID>.partial`.
    static let stagingSuffix = ".partial"
    private static let magic = Array("navpolicy-bundle-cache 1\n".utf8)
    /// The signature line's limit: an Ed25519 signature is 88 base64 characters; a file whose
    /// second line is longer is not a cache file (and is not scanned to its end for a newline).
    private static let maximumSignatureLine = 1024

    let file: URL

    init(directory: URL) {
        self.file = directory.appendingPathComponent(Self.fileName, isDirectory: false)
    }

    /// A cache file mapped: the bundle (a window on the mapping that keeps it alive), its
    /// signature, and the mapping, whose resident pages the caller drops after the check.
    struct Stored {
        let bundle: PolicyImageBytes
        let signature: [UInt8]?
        let mapping: MappedBundleFile
    }

    /// The stored bundle and signature; nil when there is no file.
    func load() throws(BundleRejection) -> Stored? {
        try Self.load(file)
    }

    /// The bundle and signature of the cache file (or staged file) at `url`.
    static func load(_ url: URL) throws(BundleRejection) -> Stored? {
        let mapping: MappedBundleFile
        do {
            mapping = try MappedBundleFile.map(url, maxBytes: VerifiedBundle.maximumFileBytes + 4096)
        } catch MappedBundleFile.Failure.missing {
            return nil
        } catch {
            throw BundleRejection(.unreadableCache, "\(url.path): \(error.reason)")
        }
        let bytes = mapping.bytes.buffer
        guard bytes.count > Self.magic.count, bytes.starts(with: Self.magic) else {
            throw BundleRejection(.unreadableCache, "\(url.path): not a navpolicy bundle cache file")
        }
        let afterMagic = bytes[Self.magic.count...].prefix(Self.maximumSignatureLine)
        guard let newline = afterMagic.firstIndex(of: UInt8(ascii: "\n")) else {
            throw BundleRejection(.unreadableCache, "\(url.path): the signature line is not terminated")
        }
        let signatureLine = String(decoding: afterMagic[..<newline], as: UTF8.self)
        let signature: [UInt8]?
        if signatureLine == "-" {
            signature = nil
        } else if let decoded = Data(base64Encoded: signatureLine) {
            signature = [UInt8](decoded)
        } else {
            throw BundleRejection(.unreadableCache, "\(url.path): the signature line is not base64")
        }
        return Stored(bundle: mapping.window(from: newline + 1), signature: signature, mapping: mapping)
    }

    /// The two lines before the bundle bytes.
    private static func header(signature: [UInt8]?) -> [UInt8] {
        magic + Array((signature.map { Data($0).base64EncodedString() } ?? "-").utf8) + [UInt8(ascii: "\n")]
    }

    /// Replaces the file atomically with `bytes`: `.atomic` writes a temporary file in the same
    /// directory and renames it over the old one, so a crash or a full disk leaves the old file
    /// or the new one, never a mix (a torn file would still be refused by `load` and the
    /// signature check). For bundles already in memory; refreshes use ``stage(_:signature:)``.
    func store(bytes: [UInt8], signature: [UInt8]?) throws(BundleCacheWriteError) {
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(Self.header(signature: signature) + bytes).write(to: file, options: .atomic)
        } catch {
            throw BundleCacheWriteError(path: file.path, reason: error.localizedDescription)
        }
    }

    /// Writes a cache file for the downloaded bundle at `body` next to this one, under a name of
    /// its own (``stagingSuffix``), copying the body in 1 MiB chunks (never the whole bundle in
    /// memory) and flushing it to disk. The caller maps and verifies it, then ``install(_:)``s it
    /// or deletes it. A body over the client's limit is refused (`too-large`) without copying on.
    func stage(_ body: URL, signature: [UInt8]?) throws(StageFailure) -> URL {
        let staged = file.deletingLastPathComponent()
            .appendingPathComponent(Self.fileName + "." + UUID().uuidString + Self.stagingSuffix)
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .write(BundleCacheWriteError(path: staged.path, reason: error.localizedDescription))
        }
        guard FileManager.default.createFile(atPath: staged.path, contents: Data(Self.header(signature: signature))) else {
            throw .write(BundleCacheWriteError(path: staged.path, reason: "cannot be created"))
        }
        do {
            let input = try FileHandle(forReadingFrom: body)
            defer { try? input.close() }
            let output = try FileHandle(forWritingTo: staged)
            defer { try? output.close() }
            _ = try output.seekToEnd()
            var copied = 0
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                copied += chunk.count
                guard copied <= VerifiedBundle.maximumFileBytes else {
                    try? FileManager.default.removeItem(at: staged)
                    throw StageFailure.tooLarge(copied)
                }
                try output.write(contentsOf: chunk)
            }
            // On disk before the rename makes it the last good bundle: a power cut after the
            // rename must not leave a cache file of zeros.
            try output.synchronize()
        } catch let failure as StageFailure {
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: staged)
            throw .write(BundleCacheWriteError(path: staged.path, reason: error.localizedDescription))
        }
        return staged
    }

    /// Why ``stage(_:signature:)`` wrote no file.
    enum StageFailure: Error {
        /// The cache directory or the file could not be written: the bundle may still be used.
        case write(BundleCacheWriteError)
        /// The body is larger than any bundle the client reads (bytes copied so far).
        case tooLarge(Int)
    }

    /// Deletes staged files a refresh left behind when its process was killed mid-way (its own
    /// `defer` deletes them otherwise). Only files older than `age`: the app and its extension
    /// may share the directory, and the other one's refresh may be writing a fresh one now.
    func removeAbandonedStagingFiles(olderThan age: TimeInterval = 600) {
        let directory = file.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names where name.hasPrefix(Self.fileName + ".") && name.hasSuffix(Self.stagingSuffix) {
            let path = directory.appendingPathComponent(name).path
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified < cutoff { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Makes the staged file the last good bundle (rename(2) over the old one: a launch reads the
    /// old file or the new one, and a mapping of the old one stays valid).
    func install(_ staged: URL) throws(BundleCacheWriteError) {
        try replaceFileAtomically(file, with: staged)
    }
}

/// The last good bundle could not be written; the new bundle is still in use.
public struct BundleCacheWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}
