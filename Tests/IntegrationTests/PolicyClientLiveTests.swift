import BundleSigning
import Foundation
import NavigationPolicy
import NavigationPolicyClient
import NavigationPolicyClientSodium
import TestScratchSupport
import Testing

/// NavigationPolicyClient against a real daemon: the bundle endpoint's ETag and 304, a reload
/// reaching the app, the last good bundle surviving a daemon that is down, and bundles the
/// client must refuse (tampered under a genuine signature, unsigned when a key is configured).
@Suite("NavigationPolicyClient, live", .serialized)
struct PolicyClientLiveTests {
    static let config = """
        {"defaultDecision":"allow","handlers":[
          {"name":"logout","type":"logout","match":{"paths":["/logout"]}}],
         "server":{"bundle":{"maxAgeSeconds":120,"signingKeyFile":"KEY"}}}
        """
    static let reloadedConfig = """
        {"defaultDecision":"allow","handlers":[
          {"name":"logout","type":"logout","match":{"paths":["/logout"]}},
          {"name":"help","type":"cancel","action":"open-help","match":{"paths":["/help"]}}],
         "server":{"bundle":{"maxAgeSeconds":120,"signingKeyFile":"KEY"}}}
        """

    /// A fresh Ed25519 key (openssl, as docs tell operators) and the verifier for it.
    static func signingKey() throws -> (path: String, verifier: SodiumBundleVerifier) {
        let path = TestScratch.root + "/navpolicy-bundle-key-\(UUID().uuidString).pem"
        _ = try Curl.standardOutput(of: "/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", path])
        let key = try Ed25519PrivateKey(pemFile: path)
        return (path, SodiumBundleVerifier(publicKey: key.publicKey))
    }

    static func client(
        _ daemon: DaemonProcess?, port: Int? = nil, verifier: (any BundleSignatureVerifier)?, cache: URL? = nil,
        shipped: NavigationPolicyClient.ShippedBundle? = nil
    ) throws -> NavigationPolicyClient {
        let base = daemon?.baseURL ?? "http://127.0.0.1:\(port ?? 9)"
        return NavigationPolicyClient(
            configuration: .init(
                bundleURL: try bundleURL(base), shippedBundle: shipped,
                cacheDirectory: cache, verifier: verifier))
    }

    static func bundleURL(_ base: String) throws -> URL {
        let url: URL? = URL(string: base + "/v1/policy/bundle")
        return try #require(url)
    }

    static func temporaryDirectory() -> URL {
        URL(fileURLWithPath: TestScratch.root + "/navpolicy-client-cache-\(UUID().uuidString)")
    }

    /// The daemon's revision as its bundle endpoint names it (the ETag without quotes).
    static func servedRevision(_ daemon: DaemonProcess) throws -> String {
        let response = try Curl.request(daemon.baseURL + "/v1/policy/bundle")
        let etag = try #require(response.headers["etag"])
        return String(etag.dropFirst().dropLast())
    }

    @Test func firstFetchThenNotModifiedThenAReloadReachesTheClient() async throws {
        let key = try Self.signingKey()
        let daemon = try DaemonProcess(config: Self.config.replacingOccurrences(of: "KEY", with: key.path))
        let client = try Self.client(daemon, verifier: key.verifier)
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/")).verdict == .cancel)

        let revision = try Self.servedRevision(daemon)
        #expect(await client.refresh() == .updated(revision: revision, cache: .notConfigured))
        #expect(client.revision == revision)
        #expect(client.source == .daemon)
        #expect(client.maxAge == .seconds(120))
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/logout")).action == "logout")
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/help")).verdict == .allow)

        // Same config: the daemon answers 304 to the client's If-None-Match.
        #expect(await client.refresh() == .notModified(revision: revision))

        try Self.reloadedConfig.replacingOccurrences(of: "KEY", with: key.path)
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let reload = try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"])
        #expect(reload.status == 200, "\(reload.body)")
        let reloaded = try Self.servedRevision(daemon)
        #expect(reloaded != revision)
        #expect(await client.refresh() == .updated(revision: reloaded, cache: .notConfigured))
        #expect(client.revision == reloaded)
        let help = client.decide(NavigationRequest(url: "https://app.example.com/help"))
        #expect(help.verdict == .cancel)
        #expect(NavigationAnswer(help) == .cancel(.custom(action: "open-help", location: nil)))
    }

    @Test func withTheDaemonDownTheLastGoodBundleStillDecidesInANewClient() async throws {
        let key = try Self.signingKey()
        let cache = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        var daemon: DaemonProcess? = try DaemonProcess(config: Self.config.replacingOccurrences(of: "KEY", with: key.path))
        let port = try #require(daemon?.port)
        let revision = try Self.servedRevision(try #require(daemon))
        let first = try Self.client(daemon, verifier: key.verifier, cache: cache)
        #expect(await first.refresh() == .updated(revision: revision, cache: .written))
        daemon = nil  // SIGINT and wait: the port now refuses connections.

        let second = try Self.client(nil, port: port, verifier: key.verifier, cache: cache)
        #expect(second.startupIssues.isEmpty)
        #expect(second.source == .cache)
        #expect(second.revision == revision)
        guard case .unavailable = await second.refresh() else {
            Issue.record("a stopped daemon must be unavailable")
            return
        }
        #expect(second.revision == revision)
        #expect(NavigationAnswer(second.decide(NavigationRequest(url: "https://app.example.com/logout"))) == .cancel(.logout))
        #expect(second.decide(NavigationRequest(url: "https://app.example.com/")).verdict == .allow)
    }

    @Test func aTamperedBundleUnderTheGenuineSignatureIsRefusedAndThePreviousKept() async throws {
        let key = try Self.signingKey()
        let daemon = try DaemonProcess(config: Self.config.replacingOccurrences(of: "KEY", with: key.path))
        let response = try Curl.request(daemon.baseURL + "/v1/policy/bundle")
        let signature = try #require(response.headers["navpolicy-bundle-signature"])
        let revision = try Self.servedRevision(daemon)
        // The genuine bundle, shipped in the app, decides first.
        let genuine = Array(response.body.utf8)
        let client = try Self.client(
            daemon, verifier: key.verifier,
            shipped: .init(bytes: genuine, signature: try #require(Data(base64Encoded: signature)).map { $0 }))
        #expect(client.source == .shipped)

        // An attacker on the path turns the logout rule off, gives the bundle a new revision (so
        // it is not mistaken for the one in use) and keeps the genuine signature.
        let forged = "sha256:" + String(repeating: "e", count: 64)
        let tampered = response.body.replacingOccurrences(of: #""/logout""#, with: #""/logout-disabled""#)
            .replacingOccurrences(of: revision, with: forged)
        #expect(tampered != response.body)
        let body = try BinaryRunner.temporaryFile(tampered)
        let origin = try BundleOrigin(body: body, signature: signature, etag: "\"\(forged)\"")
        let hijacked = NavigationPolicyClient(
            configuration: .init(
                bundleURL: try Self.bundleURL(origin.baseURL),
                shippedBundle: .init(bytes: genuine, signature: try #require(Data(base64Encoded: signature)).map { $0 }),
                verifier: key.verifier))
        let outcome = await hijacked.refresh()
        #expect(outcome == .rejected(BundleRejection(.badSignature, "the signature does not verify with the configured key")))
        #expect(hijacked.revision == revision)
        #expect(hijacked.source == .shipped)
        #expect(hijacked.decide(NavigationRequest(url: "https://app.example.com/logout")).action == "logout")
    }

    @Test func anUnsignedBundleIsRefusedWhenAVerifierIsConfigured() async throws {
        let key = try Self.signingKey()
        let unsignedConfig = Self.config.replacingOccurrences(of: #","signingKeyFile":"KEY""#, with: "")
        let daemon = try DaemonProcess(config: unsignedConfig)
        let verified = try Self.client(daemon, verifier: key.verifier)
        guard case .rejected(let rejection) = await verified.refresh() else {
            Issue.record("an unsigned bundle must be rejected")
            return
        }
        #expect(rejection.kind == .unsigned)
        #expect(verified.revision == nil)
        #expect(verified.decide(NavigationRequest(url: "https://app.example.com/")).verdict == .cancel)
        // Without a verifier the same bundle is accepted: the refusal is the verifier's doing.
        let unverified = try Self.client(daemon, verifier: nil)
        #expect(await unverified.refresh() == .updated(revision: try Self.servedRevision(daemon), cache: .notConfigured))
    }
}

/// scripts/bundle-origin.py: one bundle with the bytes, signature and ETag a test chooses.
final class BundleOrigin: Sendable {
    private let server: ScriptedServer
    var port: Int { server.port }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(body: String, signature: String?, etag: String?, extraArguments: [String] = []) throws {
        server = try ScriptedServer.launch(
            "bundle-origin.py",
            arguments: ["--body", body] + (signature.map { ["--signature", $0] } ?? []) + (etag.map { ["--etag", $0] } ?? [])
                + extraArguments,
            describedAs: "bundle origin")
    }
}
