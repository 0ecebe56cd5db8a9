import Foundation
import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

@Suite("Client decisions and the last good bundle")
struct ClientDecisionTests {
    @Test func theShippedBundleDecidesLikeTheEngine() throws {
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes())))
        #expect(client.startupIssues.isEmpty)
        #expect(client.source == .shipped)
        let decision = client.decide(NavigationRequest(url: "https://app.example.com/%6Cogout"))
        #expect(decision.verdict == .cancel)
        #expect(decision.handler == "logout")
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/home")).verdict == .allow)
    }

    @Test func aRequestTheEngineCannotParseIsCancelled() throws {
        // The default decision is allow, so only the fail-closed rule can make these cancels.
        let client = NavigationPolicyClient(configuration: .init(shippedBundle: .init(bytes: bundleBytes())))
        for request in [
            NavigationRequest(url: "https://exa mple.com/"), NavigationRequest(url: "not a url"),
            NavigationRequest(url: "https://a.example/", method: "GE T"),
            NavigationRequest(url: "http://[::1/"),
        ] {
            let decision = client.decide(request)
            #expect(decision.verdict == .cancel, "\(request.url)")
            #expect(decision.handler == nil && decision.action == nil)
            #expect(throws: NavigationPolicyClient.DecisionError.self) { try client.decision(for: request) }
        }
    }

    @Test func withNoBundleEverythingIsCancelled() {
        let client = NavigationPolicyClient(configuration: .init())
        #expect(client.revision == nil)
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/home")).verdict == .cancel)
        #expect(throws: NavigationPolicyClient.DecisionError.noPolicy) {
            try client.decision(for: NavigationRequest(url: "https://app.example.com/home"))
        }
    }

    @Test func aShippedBundleThatDoesNotVerifyIsIgnoredWithAReason() {
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes()), verifier: ChecksumVerifier()))
        #expect(client.revision == nil)
        #expect(client.startupIssues.map(\.kind) == [.unsigned])
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/home")).verdict == .cancel)
    }

    @Test func theCachedBundleWinsOverTheShippedOne() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cached = bundleBytes(policy: #"{"defaultDecision":"cancel","handlers":[]}"#, revisionDigit: "b")
        try BundleCache(directory: directory).store(bytes: cached, signature: nil)
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes()), cacheDirectory: directory))
        #expect(client.source == .cache)
        #expect(client.revision == "sha256:" + String(repeating: "b", count: 64))
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/home")).verdict == .cancel)
    }

    @Test(
        "a corrupt cache file is ignored with a reason and the shipped bundle decides",
        arguments: [
            Array("garbage".utf8),
            Array("navpolicy-bundle-cache 1\n".utf8),
            Array("navpolicy-bundle-cache 1\n-\n{\"format\":".utf8),
            Array("navpolicy-bundle-cache 1\n%%%\n{}".utf8),
            Array("navpolicy-bundle-cache 1\n-".utf8) + bundleBytes(),
        ])
    func corruptCacheFiles(_ content: [UInt8]) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(content).write(to: directory.appendingPathComponent(BundleCache.fileName))
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes()), cacheDirectory: directory))
        #expect(client.source == .shipped)
        #expect(client.startupIssues.count == 1)
        #expect(client.startupIssues.first?.reason.hasPrefix("cached bundle ignored: ") == true)
    }

    @Test func aCachedBundleTamperedOnDiskIsRefusedByTheVerifier() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let verifier = ChecksumVerifier()
        let good = bundleBytes()
        let evil = bundleBytes(policy: #"{"defaultDecision":"allow","handlers":[]}"#, revisionDigit: "c")
        try BundleCache(directory: directory).store(bytes: evil, signature: verifier.sign(good))
        let client = NavigationPolicyClient(
            configuration: .init(
                shippedBundle: .init(bytes: good, signature: verifier.sign(good)), cacheDirectory: directory,
                verifier: verifier))
        #expect(client.source == .shipped)
        #expect(client.startupIssues.map(\.kind) == [.badSignature])
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/logout")).verdict == .cancel)
    }

    @Test func theCacheFileIsReplacedWholeAndLeavesNoTemporaryFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = BundleCache(directory: directory)
        try cache.store(bytes: bundleBytes(), signature: [1, 2, 3])
        try cache.store(bytes: bundleBytes(revisionDigit: "d"), signature: nil)
        let loaded = try #require(try cache.load())
        #expect(loaded.contents == bundleBytes(revisionDigit: "d"))
        #expect(loaded.signature == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [BundleCache.fileName])
    }

    @Test func refreshWithoutADaemonKeepsTheBundle() async {
        let client = NavigationPolicyClient(configuration: .init(shippedBundle: .init(bytes: bundleBytes())))
        let outcome = await client.refresh()
        guard case .unavailable = outcome else {
            Issue.record("expected unavailable, got \(outcome)")
            return
        }
        #expect(client.source == .shipped)
    }
}
