import Foundation
import NavigationPolicy
import PolicyHarnessClient
import Synchronization
import Testing

@testable import NavigationPolicyClient

/// Shipped bundles given as files (`ShippedBundle(contentsOf:)`, issue 42): the signature beside
/// the file or given, every problem with the file a startup issue (never a crash), and the cache
/// file a refresh stages, maps and renames into place.
@Suite("Shipped bundle files and the mapped cache")
struct ShippedBundleFileTests {
    /// `bytes` written to `bundle.json` in a fresh directory, with `signature` (base64 text) as
    /// `bundle.json.sig` when given.
    static func shippedFile(_ bytes: [UInt8], signatureText: String?) throws -> URL {
        let file = try temporaryDirectory().appendingPathComponent("bundle.json")
        try Data(bytes).write(to: file)
        if let signatureText { try Data(signatureText.utf8).write(to: file.appendingPathExtension("sig")) }
        return file
    }

    @Test func theSignatureBesideTheFileIsCheckedAndTheBundleDecides() throws {
        let verifier = ChecksumVerifier()
        let bytes = bundleBytes()
        let file = try Self.shippedFile(bytes, signatureText: Data(verifier.sign(bytes)).base64EncodedString() + "\n")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let client = try NavigationPolicyClient(
            strict: .init(shippedBundle: .init(contentsOf: file), verifier: verifier))
        #expect(client.source == .shipped)
        #expect(client.startupIssues.isEmpty)
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/logout")).action == "logout")
        // The same file with the signature given instead of read beside it.
        let given = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(contentsOf: file, signature: verifier.sign(bytes)), verifier: verifier))
        #expect(given.source == .shipped)
    }

    @Test(
        "a missing file, a missing, foreign or garbled FILE.sig are refused with their kind",
        arguments: [
            ("missing file", BundleRejection.Kind.unreadable),
            ("no sig", .unsigned),
            ("foreign sig", .badSignature),
            ("garbled sig", .badSignature),
        ])
    func problemsWithTheFilesAreRejections(_ problem: String, _ kind: BundleRejection.Kind) throws {
        let verifier = ChecksumVerifier()
        let bytes = bundleBytes()
        let signatureText: String? =
            switch problem {
            case "no sig": nil
            case "foreign sig": Data(verifier.sign(bytes + [0x20])).base64EncodedString()
            case "garbled sig": "%%% not base64 %%%"
            default: Data(verifier.sign(bytes)).base64EncodedString()
            }
        let file = try Self.shippedFile(bytes, signatureText: signatureText)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        if problem == "missing file" { try FileManager.default.removeItem(at: file) }
        let configuration = NavigationPolicyClient.Configuration(shippedBundle: .init(contentsOf: file), verifier: verifier)
        let client = NavigationPolicyClient(configuration: configuration)
        #expect(client.revision == nil)
        #expect(client.startupIssues.map(\.kind) == [kind], "\(client.startupIssues)")
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/home")).verdict == .cancel)
        #expect(throws: BundleRejection.self) { _ = try NavigationPolicyClient(strict: configuration) }
    }

    /// A cache holding the default bundle, and beside it a downloaded body (`download.tmp`) of
    /// another revision, as a refresh finds them.
    static func cacheWithDownload() throws -> (directory: URL, cache: BundleCache, body: URL) {
        let directory = try temporaryDirectory()
        let cache = BundleCache(directory: directory)
        try cache.store(bytes: bundleBytes(), signature: nil)
        let body = directory.appendingPathComponent("download.tmp")
        try Data(bundleBytes(revisionDigit: "e")).write(to: body)
        return (directory, cache, body)
    }

    @Test func aStagedDownloadIsMappedThenRenamedOverTheCacheFile() throws {
        let (directory, cache, body) = try Self.cacheWithDownload()
        defer { try? FileManager.default.removeItem(at: directory) }

        let staged = try cache.stage(body, signature: [1, 2, 3])
        let stored = try #require(try BundleCache.load(staged))
        #expect(stored.contents == bundleBytes(revisionDigit: "e"))
        #expect(stored.signature == [1, 2, 3])
        // Until installed, the last good bundle is the old one.
        #expect(try #require(try cache.load()).contents == bundleBytes())
        try cache.install(staged)
        #expect(try #require(try cache.load()).contents == bundleBytes(revisionDigit: "e"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                == ["download.tmp", BundleCache.fileName])
    }

    /// A signed shipped bundle file and an empty cache directory (the caller deletes both).
    static func signedShippedFileAndCacheDirectory() throws -> (verifier: ChecksumVerifier, file: URL, directory: URL) {
        let verifier = ChecksumVerifier()
        let bytes = bundleBytes()
        let file = try shippedFile(bytes, signatureText: Data(verifier.sign(bytes)).base64EncodedString())
        return (verifier, file, try temporaryDirectory())
    }

    @Test("a FIFO where the cache file belongs is refused at once, and the shipped bundle decides")
    func aFIFOInPlaceOfTheCacheFileIsRefusedWithoutBlocking() throws {
        let (verifier, file, directory) = try Self.signedShippedFileAndCacheDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
        }
        // Opening a FIFO for reading blocks until a writer comes: before O_NONBLOCK, this
        // initializer never returned (finding F4).
        #expect(mkfifo(BundleCache(directory: directory).file.path, 0o600) == 0)
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(contentsOf: file), cacheDirectory: directory, verifier: verifier))
        #expect(client.source == .shipped)
        #expect(client.startupIssues.map(\.kind) == [.unreadableCache], "\(client.startupIssues)")
        #expect(client.startupIssues.first?.description.contains("not a regular file") == true)
    }

    @Test("cache files are written read-only; one that group or others may write is refused")
    func aCacheFileOthersMayWriteIsRefused() throws {
        let (verifier, file, directory) = try Self.signedShippedFileAndCacheDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
        }
        let cache = BundleCache(directory: directory)
        let cachedBytes = bundleBytes(revisionDigit: "e")
        try cache.store(bytes: cachedBytes, signature: verifier.sign(cachedBytes))
        let mode = try FileManager.default.attributesOfItem(atPath: cache.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o444)
        let configuration = NavigationPolicyClient.Configuration(
            shippedBundle: .init(contentsOf: file), cacheDirectory: directory, verifier: verifier)
        #expect(NavigationPolicyClient(configuration: configuration).source == .cache)
        // Group-writable: another process of the group could change the policy in place (finding F2).
        #expect(chmod(cache.file.path, 0o664) == 0)
        let client = NavigationPolicyClient(configuration: configuration)
        #expect(client.source == .shipped)
        #expect(client.startupIssues.map(\.kind) == [.unreadableCache], "\(client.startupIssues)")
        #expect(client.startupIssues.first?.description.contains("writable by group or others") == true)
    }

    /// ``ChecksumVerifier`` that counts the signatures it checks.
    final class CountingVerifier: BundleSignatureVerifier {
        let checker = ChecksumVerifier()
        let checks = Atomic<Int>(0)

        func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool {
            checks.add(1, ordering: .relaxed)
            return checker.isValidSignature(signature, for: bytes)
        }
    }

    @Test("a cached launch checks a compiled shipped bundle only when its head claims a higher version")
    func aCachedLaunchChecksTheShippedBundleOnlyWhenItMayWin() throws {
        let verifier = CountingVerifier()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cached = try compiledBundle(config: Array(defaultPolicyJSON.utf8), revisionDigit: "c", policyVersion: 5)
        try BundleCache(directory: directory).store(bytes: cached, signature: verifier.checker.sign(cached))
        /// A client with the cache above and the compiled shipped bundle `shipped` (signed
        /// unless `tampered`, then one image byte changed under its signature); its checks.
        func launch(shippedVersion: Int, tampered: Bool = false, strict: Bool = false) throws -> (
            NavigationPolicyClient, checks: Int
        ) {
            var shipped = try compiledBundle(
                config: Array(defaultPolicyJSON.utf8), revisionDigit: "d", policyVersion: shippedVersion)
            let signature = verifier.checker.sign(shipped)
            if tampered { shipped[shipped.count - 1] ^= 0x01 }
            let file = try Self.shippedFile(shipped, signatureText: Data(signature).base64EncodedString())
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let before = verifier.checks.load(ordering: .relaxed)
            let configuration = NavigationPolicyClient.Configuration(
                shippedBundle: .init(contentsOf: file), cacheDirectory: directory, verifier: verifier)
            let client =
                try strict ? NavigationPolicyClient(strict: configuration) : NavigationPolicyClient(configuration: configuration)
            return (client, verifier.checks.load(ordering: .relaxed) - before)
        }

        // Older or the same version: the cache wins whatever the shipped bundle holds, so only
        // its head is read, and one signature is checked, not two.
        for version in [4, 5] {
            let (client, checks) = try launch(shippedVersion: version, tampered: true)
            #expect(client.source == .cache)
            #expect(client.policyVersion == 5)
            #expect(checks == 1, "version \(version)")
            #expect(client.startupIssues.isEmpty, "\(client.startupIssues)")
        }
        // Strict mode checks it anyway, and throws what is wrong with it.
        #expect(throws: BundleRejection(.badSignature, "the signature does not verify with the configured key")) {
            _ = try launch(shippedVersion: 4, tampered: true, strict: true)
        }
        // Claiming a higher version: checked in full, and a tampered one is refused, the cache deciding.
        let (refused, refusedChecks) = try launch(shippedVersion: 6, tampered: true)
        #expect(refused.source == .cache)
        #expect(refusedChecks == 2)
        #expect(refused.startupIssues.map(\.kind) == [.badSignature], "\(refused.startupIssues)")
        // A genuine newer one (an app update) wins.
        let (updated, _) = try launch(shippedVersion: 6)
        #expect(updated.source == .shipped)
        #expect(updated.policyVersion == 6)
        // What its head shows wrong is still reported, as the full check would report it.
        let garbled = try Self.shippedFile(Array("{\"version\":3}\nnot a bundle".utf8), signatureText: nil)
        defer { try? FileManager.default.removeItem(at: garbled.deletingLastPathComponent()) }
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(contentsOf: garbled), cacheDirectory: directory, verifier: verifier))
        #expect(client.source == .cache)
        #expect(client.startupIssues.map(\.kind) == [.malformed], "\(client.startupIssues)")
    }

    @Test func stagedFilesAKilledRefreshLeftAreDeletedOnceOldNotWhileFresh() throws {
        let (directory, cache, body) = try Self.cacheWithDownload()
        defer { try? FileManager.default.removeItem(at: directory) }
        let abandoned = try cache.stage(body, signature: nil)
        let fresh = try cache.stage(body, signature: nil)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: abandoned.path)
        cache.removeAbandonedStagingFiles()
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect(FileManager.default.fileExists(atPath: cache.file.path))
    }
}

extension BundleCache {
    /// A staging file holding `body`, as a refresh streams it in.
    func stage(_ body: URL, signature: [UInt8]?) throws -> URL {
        let (url, handle) = try createStagingFile(signature: signature)
        try handle.write(contentsOf: Data(contentsOf: body))
        try handle.close()
        return url
    }
}

extension BundleCache.Stored {
    /// The bundle's bytes, copied while the mapping is certainly alive: `bundle.buffer` read
    /// from a temporary could outlive the mapping it points into.
    var contents: [UInt8] { withExtendedLifetime(bundle) { Array(bundle.buffer) } }
}
