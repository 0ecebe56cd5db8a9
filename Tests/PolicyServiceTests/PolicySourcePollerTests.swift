import BundleSigning
import Foundation
import JSONSupport
import NavigationPolicy
import Synchronization
import TestScratchSupport
import Testing

@testable import PolicyService

/// Issue 45, item 5: the `policySource` poll as a state machine, driven by a scripted fetcher
/// (no sockets): what each answer does to the policy deciding, the cache file, the report and
/// the next request's `If-None-Match`.
@Suite("policy source poller")
struct PolicySourcePollerTests {
    /// One scripted answer: an HTTP answer (a body for a 200) or a transport failure.
    enum Answer {
        case http(status: Int, etag: String?, signature: String?, body: [UInt8]?)
        case failure(PolicySourceFailure)
    }

    /// Answers each fetch with the next scripted answer and records what was asked.
    final class ScriptedFetcher: PolicySourceFetching, Sendable {
        private let answers: Mutex<[Answer]>
        private let asked = Mutex<[PolicySourceRequest]>([])
        var requests: [PolicySourceRequest] { asked.withLock { $0 } }

        init(_ answers: [Answer]) { self.answers = Mutex(answers) }

        func script(_ answer: Answer) { answers.withLock { $0.append(answer) } }

        func fetch(_ request: PolicySourceRequest, stage: @escaping Staging) throws(PolicySourceFailure)
            -> PolicySourceResponse
        {
            asked.withLock { $0.append(request) }
            let next = answers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            switch next {
            case nil: throw PolicySourceFailure(PolicySourceFailure.unreachable, "no answer scripted")
            case .failure(let failure): throw failure
            case .http(let status, let etag, let signature, let body):
                var staged: URL?
                if status == 200, let body {
                    let file = try stage(signature)
                    try? file.handle.write(contentsOf: Data(body))
                    try? file.handle.synchronize()
                    try? file.handle.close()
                    staged = file.url
                }
                return PolicySourceResponse(status: status, entityTag: etag, signatureField: signature, body: staged)
            }
        }
    }

    /// The publisher's side: signed bundles of chosen versions and times.
    struct Publisher {
        let key: Ed25519PrivateKey
        var keyId: String { BundleKeyID.derived(from: key.publicKey) }

        init() throws { key = try Ed25519PrivateKey(pem: BundleEndpointTests.testKeyPEM) }

        /// A signed bundle of a chain cancelling `path`.
        func bundle(
            cancelling path: String, version: Int, issuedAt: Int = Int(Date().timeIntervalSince1970), lifetime: Int = 3600,
            keyId: String? = nil
        ) throws -> PolicyBundle {
            let config = Array(
                #"{"defaultDecision":"allow","handlers":[{"name":"block","type":"cancel","match":{"paths":["\#(path)"]}}]}"#.utf8)
            let stamp = BundleStamp(
                policyVersion: version, issuedAt: issuedAt, expiresAt: issuedAt + lifetime, keyId: keyId ?? self.keyId)
            return try #require(
                PolicyBundle.make(configBytes: config, revision: PolicyBundle.revision(of: config), stamp: stamp, signingKey: key)
            )
        }

        static func answer(_ bundle: PolicyBundle, etag: String? = nil, signature: String? = nil) -> Answer {
            .http(status: 200, etag: etag ?? bundle.entityTag, signature: signature ?? bundle.signatureBase64, body: bundle.bytes)
        }
    }

    /// A daemon's store and poller over `fetcher`, with the cache file at `cacheFile`.
    struct Puller {
        let store: PolicyStore
        let report = PolicySourceReport()
        let poller: PolicySourcePoller

        init(publisher: Publisher, cacheFile: String, fetcher: ScriptedFetcher) throws {
            let config = """
                {"policySource":{"url":"http://publisher.invalid/v1/policy/bundle",
                 "trustedKeys":{"\(publisher.keyId)":"\(publisher.key.publicKeyBase64)"},
                 "pollIntervalSeconds":5,"cacheFile":"\(cacheFile)"},
                 "server":{"watchConfig":false},"intake":{"enabled":false}}
                """
            let local = try PolicySnapshot.build(from: Array(config.utf8)).get()
            store = PolicyStore(configPath: "/nonexistent")
            poller = try #require(
                PolicySourcePoller.make(local: local, store: store, report: report, log: EventLog { _ in }, fetcher: fetcher))
        }

        /// What the policy deciding now says about `path`: `allow`, `cancel`, or nil with no policy.
        func verdict(_ path: String) throws -> String? {
            guard let snapshot = store.snapshot else { return nil }
            return try snapshot.policy.decide(NavigationRequest(url: "https://app.example.com" + path)).verdict.rawValue
        }
    }

    static func cacheFile() throws -> String {
        try BundleEndpointTests.temporaryDirectory() + "/pulled.bundle"
    }

    @Test("the first good bundle decides and is kept on disk; a 304 answers the tag it was sent")
    func firstBundleThenNotModified() throws {
        let publisher = try Publisher()
        let first = try publisher.bundle(cancelling: "/one", version: 10)
        let fetcher = ScriptedFetcher([Publisher.answer(first, etag: "\"nginx-tag-1\"")])
        let cacheFile = try Self.cacheFile()
        let puller = try Puller(publisher: publisher, cacheFile: cacheFile, fetcher: fetcher)
        // Nothing decides before the first good bundle (readiness is a policy being active).
        #expect(try puller.verdict("/one") == nil)

        #expect(puller.poller.poll(trigger: "test").result == .reloaded)
        #expect(try puller.verdict("/one") == "cancel")
        #expect(puller.store.snapshot?.revision == first.revision)
        #expect(puller.report.current.policyVersion == 10)
        #expect(FileManager.default.fileExists(atPath: cacheFile))
        // The relayed bundle is the publisher's, byte for byte and signature.
        #expect(puller.store.snapshot?.bundle.bytes == first.bytes)
        #expect(puller.store.snapshot?.bundle.signature == first.signature)

        fetcher.script(.http(status: 304, etag: "\"nginx-tag-1\"", signature: nil, body: nil))
        #expect(puller.poller.poll(trigger: "test").result == .unchanged)
        #expect(fetcher.requests.map(\.ifNoneMatch) == [nil, "\"nginx-tag-1\""])
        #expect(puller.report.current.polls == ["updated": 1, "not-modified": 1])

        // A 304 naming another tag than the one asked about is no answer about the held bundle.
        fetcher.script(.http(status: 304, etag: "\"something-else\"", signature: nil, body: nil))
        #expect(puller.poller.poll(trigger: "test").result == .failed)
        #expect(try puller.verdict("/one") == "cancel")
        #expect(puller.report.current.polls["failed"] == 1)
    }

    @Test("older, replayed, expired, unsigned, wrongly signed and unknown-key bundles are refused and reported")
    func refusals() throws {
        let publisher = try Publisher()
        let held = try publisher.bundle(cancelling: "/held", version: 20)
        let fetcher = ScriptedFetcher([Publisher.answer(held)])
        let puller = try Puller(publisher: publisher, cacheFile: try Self.cacheFile(), fetcher: fetcher)
        #expect(puller.poller.poll(trigger: "test").result == .reloaded)

        let older = try publisher.bundle(cancelling: "/older", version: 19)
        let now = Int(Date().timeIntervalSince1970)
        let expired = try publisher.bundle(cancelling: "/expired", version: 30, issuedAt: now - 7200, lifetime: 3600)
        let newer = try publisher.bundle(cancelling: "/newer", version: 40)
        let otherKey = try publisher.bundle(cancelling: "/other", version: 50, keyId: "someone-else")
        var tampered = newer.signature ?? []
        tampered[0] ^= 1
        let cases: [(Answer, String)] = [
            (Publisher.answer(older), "older-version"),
            (Publisher.answer(expired), "expired"),
            (.http(status: 200, etag: nil, signature: nil, body: newer.bytes), "unsigned"),
            (Publisher.answer(newer, signature: Data(tampered).base64EncodedString()), "bad-signature"),
            (Publisher.answer(newer, signature: "not base64!"), "bad-signature"),
            (Publisher.answer(otherKey), "unknown-key"),
            (.http(status: 200, etag: nil, signature: newer.signatureBase64, body: Array(newer.bytes.prefix(50))), "malformed"),
            (.http(status: 500, etag: nil, signature: nil, body: nil), "http-status"),
            (.failure(PolicySourceFailure(PolicySourceFailure.timeout, "no complete answer")), "timeout"),
        ]
        for (answer, reason) in cases {
            fetcher.script(answer)
            let outcome = puller.poller.poll(trigger: "test")
            #expect(outcome.result == .failed, "\(reason)")
            #expect(puller.report.current.lastFailure?.failure.reason == reason)
            // The held bundle keeps deciding whatever came.
            #expect(puller.store.snapshot?.revision == held.revision, "\(reason)")
        }
        #expect(puller.report.current.failures["bad-signature"] == 2)
        #expect(puller.report.current.consecutiveFailures == cases.count)
        #expect(try puller.verdict("/held") == "cancel")
        #expect(puller.report.current.policyVersion == 20)
        // A good one after all that is taken, and the failures in a row start again.
        fetcher.script(Publisher.answer(newer))
        #expect(puller.poller.poll(trigger: "test").result == .reloaded)
        #expect(try puller.verdict("/newer") == "cancel")
        #expect(puller.report.current.consecutiveFailures == 0)
    }

    @Test("a restart with the source down decides from the cache file, checked again")
    func restartFromCacheFile() throws {
        let publisher = try Publisher()
        let cacheFile = try Self.cacheFile()
        let bundle = try publisher.bundle(cancelling: "/cached", version: 7)
        let first = try Puller(publisher: publisher, cacheFile: cacheFile, fetcher: ScriptedFetcher([Publisher.answer(bundle)]))
        #expect(first.poller.poll(trigger: "test").result == .reloaded)

        // The source is down: the restarted daemon decides from the file before any poll.
        let down = ScriptedFetcher([.failure(PolicySourceFailure(PolicySourceFailure.unreachable, "connection refused"))])
        let restarted = try Puller(publisher: publisher, cacheFile: cacheFile, fetcher: down)
        #expect(try restarted.verdict("/cached") == "cancel")
        #expect(restarted.report.current.origin == "cacheFile")
        #expect(restarted.poller.poll(trigger: "test").result == .failed)
        #expect(try restarted.verdict("/cached") == "cancel")
        // The first poll after a start from the file asks for the whole bundle (its tag is unknown).
        #expect(down.requests.map(\.ifNoneMatch) == [nil])

        // A cache file changed on disk no longer verifies: refused, nothing decides.
        let path = cacheFile
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        // One letter of the chain's path changed: still JSON, no longer what was signed.
        let at = try #require(bytes.indices.last { bytes[$0...].starts(with: Array("/cached".utf8)) })
        bytes[at + 1] = UInt8(ascii: "k")
        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o444]))
        let refused = try Puller(publisher: publisher, cacheFile: cacheFile, fetcher: ScriptedFetcher([]))
        #expect(refused.store.snapshot == nil)
        #expect(refused.report.current.lastFailure?.failure.reason == "bad-signature")
    }

    @Test("a reload polls the source instead of reading the chain from the file")
    func reloadPolls() throws {
        let publisher = try Publisher()
        let bundle = try publisher.bundle(cancelling: "/reloaded", version: 3)
        let fetcher = ScriptedFetcher([Publisher.answer(bundle)])
        let puller = try Puller(publisher: publisher, cacheFile: try Self.cacheFile(), fetcher: fetcher)
        let outcome = puller.store.reload(trigger: "signal")
        #expect(outcome.result == .reloaded)
        #expect(outcome.trigger == "signal")
        #expect(fetcher.requests.count == 1)
        #expect(try puller.verdict("/reloaded") == "cancel")
    }
}
