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
/// (``createStagingFile(signature:)``) and renames it over this one only after it verified.
struct BundleCache: Sendable {
    static let fileName = "navpolicy-bundle.cache"
    /// Files being written by a refresh: `navpolicy-bundle.cache.<UUID>.partial`.
    static let stagingSuffix = ".partial"
    private static let magic = Array("navpolicy-bundle-cache 1\n".utf8)
    /// The signature line's limit: an Ed25519 signature is 88 base64 characters; a file whose
    /// second line is longer is not a cache file (and is not scanned to its end for a newline).
    private static let maximumSignatureLine = 1024

    let file: URL
    /// A staging file while the download is written into it: this user's alone.
    static let stagingPermissions: mode_t = 0o600
    /// The last good bundle: read-only, this user's alone to replace (by rename).
    static let installedPermissions: mode_t = 0o444

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
            mapping = try MappedBundleFile.map(url, maxBytes: VerifiedBundle.maximumFileBytes + 4096, privateToThisUser: true)
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
        } else if let decoded = SignatureText.decode(signatureLine) {
            signature = decoded
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
    /// signature check). For bundles already in memory; refreshes use ``createStagingFile(signature:)``.
    func store(bytes: [UInt8], signature: [UInt8]?) throws(BundleCacheWriteError) {
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(Self.header(signature: signature) + bytes).write(to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: Int(Self.installedPermissions)], ofItemAtPath: file.path)
        } catch {
            throw BundleCacheWriteError(path: file.path, reason: error.localizedDescription)
        }
    }

    /// Creates a cache file for a download next to this one, under a name of its own
    /// (``stagingSuffix``), holding the two header lines: the refresh streams the body into the
    /// returned handle as it arrives (never the whole bundle in memory, no copy from a session's
    /// temporary file; issue 42), then maps and verifies it and ``install(_:)``s it or deletes it.
    func createStagingFile(signature: [UInt8]?) throws(BundleCacheWriteError) -> (url: URL, handle: FileHandle) {
        let staged = file.deletingLastPathComponent()
            .appendingPathComponent(Self.fileName + "." + UUID().uuidString + Self.stagingSuffix)
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw BundleCacheWriteError(path: staged.path, reason: error.localizedDescription)
        }
        guard
            FileManager.default.createFile(
                atPath: staged.path, contents: Data(Self.header(signature: signature)),
                attributes: [.posixPermissions: Int(Self.stagingPermissions)])
        else {
            throw BundleCacheWriteError(path: staged.path, reason: "cannot be created")
        }
        do {
            let handle = try FileHandle(forWritingTo: staged)
            _ = try handle.seekToEnd()
            return (staged, handle)
        } catch {
            try? FileManager.default.removeItem(at: staged)
            throw BundleCacheWriteError(path: staged.path, reason: error.localizedDescription)
        }
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
    /// old file or the new one, and a mapping of the old one stays valid), unless `keeping` says
    /// why the installed file stays: then its reason is returned and `staged` is left to the
    /// caller.
    ///
    /// The check and the rename hold an exclusive `flock` on the directory itself: an app and
    /// its extension share it, and one that fetched an older bundle must not rename it over the
    /// newer one the other just installed (attack round 9, F5). The directory, not a lock file
    /// in it, so that it holds nothing but the cache file.
    @discardableResult
    func install(_ staged: URL, unlessKeeping keeping: (Stored) -> BundleRejection? = { _ in nil })
        throws(BundleCacheWriteError) -> BundleRejection?
    {
        let lock = try lockDirectory()
        defer { close(lock) }
        if let installed = try? load(), let reason = keeping(installed) { return reason }
        // Read-only before it is the last good bundle: nothing of this app's should write it in
        // place (a mapping would change under the client), and ``load(_:)`` refuses one that
        // group or others may write.
        guard chmod(staged.path, Self.installedPermissions) == 0 else {
            throw BundleCacheWriteError(path: staged.path, reason: String(cString: strerror(errno)))
        }
        try replaceFileAtomically(file, with: staged)
        return nil
    }

    /// The cache directory opened and locked exclusively; closing the descriptor releases it.
    ///
    /// Waits at most ``lockWaitSeconds``: anyone who can open the directory can hold its lock,
    /// and a refresh must end (attack round 10, F4: a blocking `flock` never returned). Not
    /// locked in time, the bundle is not written (``BundleCacheWriteError``); it still decides.
    private func lockDirectory() throws(BundleCacheWriteError) -> Int32 {
        let path = file.deletingLastPathComponent().path
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BundleCacheWriteError(path: path, reason: String(cString: strerror(errno))) }
        let deadline = Date().addingTimeInterval(Self.lockWaitSeconds)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EINTR || failure == EWOULDBLOCK, Date() < deadline else {
                close(descriptor)
                let reason =
                    failure == EWOULDBLOCK
                    ? "another process has held the cache directory's lock for \(Int(Self.lockWaitSeconds)) s"
                    : String(cString: strerror(failure))
                throw BundleCacheWriteError(path: path, reason: reason)
            }
            if failure == EWOULDBLOCK { usleep(10_000) }
        }
        return descriptor
    }

    /// How long ``install(_:unlessKeeping:)`` waits for another process's lock on the directory:
    /// an install holds it for a check and a rename, milliseconds.
    static let lockWaitSeconds: TimeInterval = 5
}

/// The last good bundle could not be written; the new bundle is still in use.
public struct BundleCacheWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}
