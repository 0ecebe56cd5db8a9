import Foundation
import NavigationPolicy
import Synchronization

// mmap, madvise, rename: the platform's C library. The client stays free of C targets (it builds
// for iOS and Android); these are the system modules every one of those platforms has.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Android)
    import Android
#elseif canImport(Musl)
    import Musl
#endif

/// A bundle file (shipped, cached or just downloaded) mapped read-only, so that a compiled
/// bundle's tables are read where they lie: no copy of the bundle, and pages the kernel can drop
/// and read again from the file instead of memory the app owns (issue 42).
///
/// `bytes` owns the mapping (`munmap` when the last reader is gone); a file that cannot be mapped
/// (a file system without `mmap`, an empty file) is read into memory instead.
struct MappedBundleFile: Sendable {
    /// The whole file.
    let bytes: PolicyImageBytes
    /// Whether `bytes` is a mapping (else a private copy, whose pages must never be dropped).
    let isMapped: Bool

    /// Why a file could not be mapped or read.
    enum Failure: Error, Sendable {
        case missing
        case unreadable(String)
        case tooLarge(bytes: Int, limit: Int)

        var reason: String {
            switch self {
            case .missing: "no such file"
            case .unreadable(let reason): reason
            case .tooLarge(let bytes, let limit): "\(bytes) bytes; the limit is \(limit)"
            }
        }
    }

    /// Maps `url` read-only; anything but a regular file, and files over `maxBytes`, are refused
    /// before anything is read. With `privateToThisUser` (the client's own cache files), so is a
    /// file another user owns or that group or others may write: only this user may change the
    /// policy the client decides with (docs/bundles.md, "The cache on disk").
    static func map(_ url: URL, maxBytes: Int, privateToThisUser: Bool = false) throws(Failure) -> MappedBundleFile {
        // O_NONBLOCK: opening a FIFO put where a cache file belongs blocks until a writer comes,
        // which hung the client's initializer (finding F4); non-blocking, the open returns and
        // the type check below refuses it.
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unreadable("not a regular file") }
        if privateToThisUser {
            guard status.st_uid == geteuid() else { throw .unreadable("owned by another user") }
            guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else { throw .unreadable("writable by group or others") }
        }
        // Back to blocking reads for the copy below (regular files never block anyway).
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let size = Int(status.st_size)
        guard size <= maxBytes else { throw .tooLarge(bytes: size, limit: maxBytes) }
        if size > 0 {
            let address: UnsafeMutableRawPointer? = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
            if let address, address != UnsafeMutableRawPointer(bitPattern: -1) {
                let buffer = UnsafeRawBufferPointer(start: address, count: size)
                return MappedBundleFile(
                    bytes: PolicyImageBytes(buffer: buffer) { window in
                        _ = munmap(UnsafeMutableRawPointer(mutating: window.baseAddress), window.count)
                    },
                    isMapped: true)
            }
        }
        do {
            // From the descriptor checked above, not the path again (which may name another file by now).
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            let data = try handle.read(upToCount: maxBytes + 1) ?? Data()
            guard data.count <= maxBytes else { throw Failure.tooLarge(bytes: data.count, limit: maxBytes) }
            return MappedBundleFile(bytes: PolicyImageBytes(copying: data), isMapped: false)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .unreadable(error.localizedDescription)
        }
    }

    /// Drops the pages of the mapping from the process's resident set; lookups fault back in only
    /// the pages they touch, from the page cache.
    ///
    /// Checking a signature reads every byte, so right after it the whole file is resident and
    /// counted against the app (Linux counts mapped file pages in RSS): at a launch that checks
    /// the cached and the shipped bundle, or during a refresh next to the bundle deciding, that
    /// would be two whole bundles. The mapping is read-only and private, so no page holds data
    /// the file does not: nothing is lost. Not for a private copy (`isMapped` false), whose
    /// pages would read back as zeros.
    func releaseResidentPages() {
        guard isMapped, let base = bytes.buffer.baseAddress, bytes.buffer.count > 0 else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), bytes.buffer.count, MADV_DONTNEED)
    }

    /// Runs `check` (a bundle's signature and structure check, which reads every byte of the
    /// mapping once, front to back) while a helper thread hands the mapping's pages back every
    /// 2 ms, and once more at the end (``releaseResidentPages()``).
    ///
    /// Without it the check leaves the whole file resident until it returns: a 27 MB bundle is
    /// 27 MB of peak RSS on Linux, on top of the one deciding during a refresh. With it, what is
    /// resident at once is what the check read in the last few milliseconds; a page dropped just
    /// before the check reads it is read again from the page cache (the mapping is private and
    /// read-only, so a dropped page reads back as the file holds it *now*: the same bytes as
    /// long as nobody writes the file in place, which the client never does (it replaces cache
    /// files by rename, which leaves a mapped inode as it was; docs/bundles.md, "The cache on
    /// disk"). Safe to run while other threads read the same mapping, for the same reason.
    func checkingWithBoundedResidency<Result>(_ check: () throws(BundleRejection) -> Result) throws(BundleRejection)
        -> Result
    {
        guard isMapped else { return try check() }
        let helper = ResidencyTrimmer(self)
        defer { helper.stop() }
        return try check()
    }

    /// `bytes[offset...]` as bytes of their own that keep the whole mapping alive.
    func window(from offset: Int) -> PolicyImageBytes {
        let whole = bytes
        let window = UnsafeRawBufferPointer(rebasing: whole.buffer[offset...])
        // Releasing the window does nothing: `whole`, captured here, unmaps when the last one goes.
        return PolicyImageBytes(buffer: window) { [whole] _ in _ = whole }
    }
}

/// The helper thread of ``MappedBundleFile/checkingWithBoundedResidency(_:)``.
private final class ResidencyTrimmer: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let mapping: MappedBundleFile

    init(_ mapping: MappedBundleFile) {
        self.mapping = mapping
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                mapping.releaseResidentPages()
                usleep(2_000)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops the thread, waits for it, and drops what the end of the check read.
    func stop() {
        stopped.store(true, ordering: .releasing)
        finished.wait()
        mapping.releaseResidentPages()
    }
}

/// Renames `source` over `destination` in one step (rename(2)): a reader sees the old file or the
/// new one, never a mix, and a process that still maps the old one keeps reading it.
func replaceFileAtomically(_ destination: URL, with source: URL) throws(BundleCacheWriteError) {
    guard rename(source.path, destination.path) == 0 else {
        throw BundleCacheWriteError(path: destination.path, reason: String(cString: strerror(errno)))
    }
}
