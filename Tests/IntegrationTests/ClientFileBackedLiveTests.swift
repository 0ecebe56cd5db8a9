import BundleSigning
import Foundation
import NavigationPolicyClient
import TestScratchSupport
import TestSelection
import Testing

/// The app client with file-backed compiled bundles (issue 42), as docs/integrations/ios.md sets
/// it up, in its own process (bench/ClientMemoryBench, the program bench/client-memory.sh
/// measures) against a real `navpolicyd serve` serving a newer signed compiled bundle: launch
/// from the shipped file, refresh to the daemon's bundle (streamed to the cache directory,
/// verified from the mapping, renamed into place), a cached launch from it; then a rollback, an
/// expired, a badly signed and a truncated download are each refused, and the bundle deciding
/// and the cache file stay as they were, with no file left behind. 10,000 hosts: the 1M-host
/// figures are bench/client-memory.sh's.
@Suite("NavigationPolicyClient, file-backed compiled bundles, live", .serialized, .tags(.live))
struct ClientFileBackedLiveTests {
    static let hostCount = 10_000

    /// The blocklist chain; `extraHosts` mark the newer policies.
    static func config(extraHosts: [String], server: String = "") -> String {
        let hosts = ((0..<hostCount).map { "site\($0).example" } + extraHosts).map { "\"\($0)\"" }
        return """
            {"defaultDecision":"allow","handlers":[
              {"name":"logout","type":"logout","match":{"paths":["/logout"]}},
              {"name":"blocklist","type":"cancel","match":{"hosts":[\(hosts.joined(separator: ","))]}}]\(server)}
            """
    }

    /// The shipped bundle (policyVersion 100), the daemon serving a newer one (200), the key.
    struct Setup {
        let key: BundleTrustLiveTests.Key
        let shipped: String
        let daemon: DaemonProcess
        /// The client's cache directory (made by its first refresh).
        let cache = URL(fileURLWithPath: TestScratch.path("client-cache"))
        var trusted: String { "live:\(key.publicKeyBase64)" }
        var bundleURL: String { daemon.baseURL + "/v1/policy/bundle" }
    }

    static func setUp() throws -> Setup {
        let key = try BundleTrustLiveTests.Key()
        let shippedImage = try compiled(config(extraHosts: []))
        let shipped = TestScratch.path("client-shipped", suffix: ".bundle")
        let built = try BinaryRunner.run([
            "bundle", "--config", shippedImage, "--sign", key.path, "--key-id", "live", "--policy-version", "100",
            "--lifetime", "31536000", "--output", shipped,
        ])
        #expect(built.status == 0, "\(built.stderr)")
        let server =
            #","server":{"watchConfig":false,"bundle":{"signingKeyFile":"\#(key.path)","keyId":"live","policyVersion":200}}"#
        let daemonImage = try compiled(config(extraHosts: ["newer.example"], server: server))
        return Setup(key: key, shipped: shipped, daemon: try DaemonProcess(configPath: daemonImage))
    }

    static func compiled(_ json: String) throws -> String {
        let source = try BinaryRunner.temporaryFile(json)
        let image = TestScratch.path("client-live", suffix: ".img")
        let result = try BinaryRunner.run(["compile", "--config", source, "--output", image])
        #expect(result.status == 0, "\(result.stderr)")
        return image
    }

    /// The program beside the `navpolicyd` under test.
    static let probe = BinaryRunner.binary.deletingLastPathComponent().appendingPathComponent("ClientMemoryBench")

    /// One run of the client program: its JSON result.
    static func run(
        _ phase: String, _ setup: Setup, cache: URL, bundleURL: String, url: String, extraArguments: [String] = []
    ) throws -> [String: Any] {
        let result = try BinaryRunner.run(
            [
                phase, "--shipped", setup.shipped, "--key", setup.trusted, "--cache", cache.path, "--bundle-url", bundleURL,
                "--url", url,
            ] + extraArguments, executable: probe)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return try #require(object, "\(result.stdout)")
    }

    /// A compiled bundle around `image` with the stamp given, signed by `key` (a bundle no daemon
    /// would serve: older, or expired).
    static func signedBundle(image: String, policyVersion: Int, issuedAt: Int, expiresAt: Int, key: String) throws -> (
        bytes: [UInt8], signature: [UInt8]
    ) {
        let imageBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: image)))
        let revision = "sha256:" + SHA256.hexDigest(imageBytes)
        let head =
            #"{"format":"navpolicy-bundle","version":3,"revision":"\#(revision)","policyVersion":\#(policyVersion),"issuedAt":\#(issuedAt),"expiresAt":\#(expiresAt),"keyId":"live","compiledPolicy":{"length":\#(imageBytes.count)}}"#
        let bytes = Array(head.utf8) + [0x0A] + imageBytes
        return (bytes, try Ed25519PrivateKey(pemFile: key).sign(bytes))
    }

    @Test("launch from the shipped file, refresh to the daemon's newer bundle, cached launch from it")
    func launchRefreshCachedLaunch() throws {
        let setup = try Self.setUp()
        let (cache, bundleURL) = (setup.cache, setup.bundleURL)

        let launch = try Self.run("launch", setup, cache: cache, bundleURL: bundleURL, url: "https://site7.example/")
        #expect(launch["source"] as? String == "shipped")
        #expect(launch["policyVersion"] as? Int == 100)
        #expect((launch["startupIssues"] as? [String])?.isEmpty == true, "\(launch)")
        #expect(launch["firstVerdict"] as? String == "cancel")

        // newer.example is only in the daemon's policy: allowed before the refresh, cancelled after.
        let refresh = try Self.run("refresh", setup, cache: cache, bundleURL: bundleURL, url: "https://newer.example/")
        #expect(refresh["firstVerdict"] as? String == "allow")
        #expect(refresh["refresh"] as? String == "updated", "\(refresh)")
        #expect(refresh["cache"] as? String == "written")
        #expect(refresh["sourceAfter"] as? String == "daemon")
        #expect(refresh["policyVersionAfter"] as? Int == 200)
        #expect(refresh["verdictAfter"] as? String == "cancel")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path) == ["navpolicy-bundle.cache"])
        // Read-only before the rename: nothing writes the mapped file in place (finding F2).
        let attributes = try FileManager.default.attributesOfItem(
            atPath: cache.appendingPathComponent("navpolicy-bundle.cache").path)
        #expect(attributes[.posixPermissions] as? Int == 0o444)

        let cached = try Self.run("launch", setup, cache: cache, bundleURL: bundleURL, url: "https://newer.example/")
        #expect(cached["source"] as? String == "cache", "\(cached)")
        #expect(cached["policyVersion"] as? Int == 200)
        #expect((cached["startupIssues"] as? [String])?.isEmpty == true, "\(cached)")
        #expect(cached["firstVerdict"] as? String == "cancel")

        // The same daemon again: 304, nothing changes.
        let again = try Self.run("refresh", setup, cache: cache, bundleURL: bundleURL, url: "https://newer.example/")
        #expect(again["refresh"] as? String == "notModified", "\(again)")
    }

    @Test("a rollback, an expired, a badly signed and a truncated download are refused; the old bundle and cache stay")
    func refusedDownloadsKeepTheOldBundleAndCache() throws {
        let setup = try Self.setUp()
        let (cache, bundleURL) = (setup.cache, setup.bundleURL)
        let filled = try Self.run("refresh", setup, cache: cache, bundleURL: bundleURL, url: "https://newer.example/")
        #expect(filled["refresh"] as? String == "updated", "\(filled)")
        let cacheFile = cache.appendingPathComponent("navpolicy-bundle.cache")
        let cachedBytes = try Data(contentsOf: cacheFile)

        let now = Int(Date().timeIntervalSince1970)
        // Other revisions than the one deciding (else the answer is `unchanged`, before any check):
        // the shipped policy for the rollback, a third one for the rest.
        let shippedImage = try Self.compiled(Self.config(extraHosts: []))
        let thirdImage = try Self.compiled(Self.config(extraHosts: ["newer.example", "newest.example"]))
        let rollback = try Self.signedBundle(
            image: shippedImage, policyVersion: 150, issuedAt: now, expiresAt: now + 86_400, key: setup.key.path)
        let expired = try Self.signedBundle(
            image: thirdImage, policyVersion: 300, issuedAt: now - 7_200, expiresAt: now - 3_600, key: setup.key.path)
        let newer = try Self.signedBundle(
            image: thirdImage, policyVersion: 300, issuedAt: now, expiresAt: now + 86_400, key: setup.key.path)
        var tampered = newer.bytes
        tampered[tampered.count - 100] ^= 0x01
        let cases: [(name: String, bytes: [UInt8], signature: [UInt8], extra: [String], refresh: String, kind: String?)] = [
            ("rollback", rollback.bytes, rollback.signature, [], "rejected", "older-version"),
            ("expired", expired.bytes, expired.signature, [], "rejected", "expired"),
            ("badly signed", tampered, newer.signature, [], "rejected", "bad-signature"),
            ("truncated", newer.bytes, newer.signature, ["--truncate-at", "\(newer.bytes.count / 2)"], "unavailable", nil),
        ]
        for refused in cases {
            let body = TestScratch.path("client-origin", suffix: ".bundle")
            try Data(refused.bytes).write(to: URL(fileURLWithPath: body))
            let origin = try BundleOrigin(
                body: body, signature: Data(refused.signature).base64EncodedString(), etag: nil,
                extraArguments: refused.extra)
            let result = try Self.run(
                "refresh", setup, cache: cache, bundleURL: origin.baseURL + "/v1/policy/bundle", url: "https://newer.example/")
            #expect(result["source"] as? String == "cache", "\(refused.name): \(result)")
            #expect(result["refresh"] as? String == refused.refresh, "\(refused.name): \(result)")
            if let kind = refused.kind { #expect(result["rejection"] as? String == kind, "\(refused.name): \(result)") }
            #expect(result["sourceAfter"] as? String == "cache", "\(refused.name)")
            #expect(result["policyVersionAfter"] as? Int == 200, "\(refused.name)")
            #expect(result["verdictAfter"] as? String == "cancel", "\(refused.name)")
            #expect(try Data(contentsOf: cacheFile) == cachedBytes, "\(refused.name): the cache file changed")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: cache.path) == ["navpolicy-bundle.cache"],
                "\(refused.name): a staged file was left behind")
        }
        // The control: the same origin with the genuine newer bundle is taken, so each refusal
        // above is the check's doing, not the origin's.
        let body = TestScratch.path("client-origin", suffix: ".bundle")
        try Data(newer.bytes).write(to: URL(fileURLWithPath: body))
        let origin = try BundleOrigin(body: body, signature: Data(newer.signature).base64EncodedString(), etag: nil)
        let taken = try Self.run(
            "refresh", setup, cache: cache, bundleURL: origin.baseURL + "/v1/policy/bundle", url: "https://newer.example/")
        #expect(taken["refresh"] as? String == "updated", "\(taken)")
        #expect(taken["policyVersionAfter"] as? Int == 300)
        #expect(try Data(contentsOf: cacheFile) != cachedBytes)
    }

    @Test("a gzip bomb is refused at its head, an announced oversize body as too large; nothing is written past the limit")
    func oversizeAnswersAreCutOffAtTheLimit() throws {
        let setup = try Self.setUp()
        let cache = setup.cache
        // The process may write no file past the bundle limit (plus room for the cache file's
        // header lines): a download written whole before it is measured fails with EFBIG
        // instead of being refused as too large (finding F3).
        let fileLimit = ["--max-file-bytes", "\(VerifiedBundle.maximumCompiledBytes + (1 << 20))"]
        let cases: [(name: String, extra: [String], refresh: String, why: String)] = [
            // 768 MiB of zeros in under 1 MB of gzip, sent with Content-Encoding: gzip: refused
            // from its head, as the client asked for identity (attack round 9, F3).
            ("gzip bomb", ["--gzip-bomb", "\(768 << 20)"], "unavailable", "Content-Encoding"),
            // A Content-Length over the limit: refused before any body is read.
            ("announced oversize", ["--claim-length", "\(600 << 20)"], "rejected", "too-large"),
        ]
        for hostile in cases {
            let origin = try BundleOrigin(body: setup.shipped, signature: nil, etag: nil, extraArguments: hostile.extra)
            let result = try Self.run(
                "refresh", setup, cache: cache, bundleURL: origin.baseURL + "/v1/policy/bundle", url: "https://newer.example/",
                extraArguments: fileLimit)
            #expect(result["refresh"] as? String == hostile.refresh, "\(hostile.name): \(result)")
            let why = (result["rejection"] as? String) ?? (result["reason"] as? String) ?? ""
            #expect(why.contains(hostile.why), "\(hostile.name): \(result)")
            #expect(result["sourceAfter"] as? String == "shipped", "\(hostile.name)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
            #expect(left.isEmpty, "\(hostile.name): \(left) left in the cache directory")
        }
    }

    @Test("a body dripped a byte at a time ends the refresh at refreshTimeout, not never")
    func aDrippedBodyEndsAtTheRefreshDeadline() throws {
        let setup = try Self.setUp()
        // A byte every second: within the 10 s idle timeout forever, so only the deadline for the
        // whole refresh ends it (finding F5: before it, refresh() never returned).
        let origin = try BundleOrigin(body: setup.shipped, signature: nil, etag: nil, extraArguments: ["--drip-every", "1"])
        let result = try Self.run(
            "refresh", setup, cache: setup.cache, bundleURL: origin.baseURL + "/v1/policy/bundle",
            url: "https://newer.example/", extraArguments: ["--refresh-timeout", "3"])
        #expect(result["refresh"] as? String == "unavailable", "\(result)")
        #expect((result["reason"] as? String)?.contains("refreshTimeout") == true, "\(result)")
        #expect(result["sourceAfter"] as? String == "shipped")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: setup.cache.path)) ?? []
        #expect(left.isEmpty, "\(left) left in the cache directory")
    }
}
