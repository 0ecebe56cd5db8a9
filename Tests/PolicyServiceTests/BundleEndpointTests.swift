import BundleSigning
import Foundation
import HTTPServer
import JSONSupport
import NavigationPolicy
import TestScratchSupport
import Testing

@testable import PolicyService

/// `GET /v1/policy/bundle` in-process: the bytes, their tag and signature, conditional
/// requests, and what a reload changes.
@Suite("policy bundle endpoint")
struct BundleEndpointTests {
    /// RFC 8032 §7.1 test 1's key as PEM PKCS#8: a published key, for tests only.
    static let testKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g
        -----END PRIVATE KEY-----

        """

    /// A policy with every section a bundle must leave out, and handler members in a
    /// non-alphabetical order that the bundle must keep.
    static func config(keyPath: String?, maxAge: Int? = nil, defaultDecision: String = "cancel") -> String {
        var bundle: [String] = []
        if let keyPath { bundle.append(#""signingKeyFile": "\#(keyPath)""#) }
        if let maxAge { bundle.append(#""maxAgeSeconds": \#(maxAge)"#) }
        return """
            {
              "server": { "listen": "127.0.0.1:0", "bundle": { \(bundle.joined(separator: ", ")) } },
              "intake": { "enabled": false },
              "handlers": [
                { "type": "logout", "name": "logout", "match": { "paths": ["/logout"] } },
                { "name": "site", "type": "allow", "match": { "hosts": ["app.example"] } }
              ],
              "proxy": { "listen": "127.0.0.1:0" },
              "defaultDecision": "\(defaultDecision)"
            }
            """
    }

    static func temporaryDirectory() throws -> String {
        let directory = TestScratch.root + "/bundle-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func signedHarness(maxAge: Int? = nil) throws -> (ServiceHarness, keyPath: String) {
        let keyPath = try temporaryDirectory() + "/bundle-key.pem"
        try testKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        return (try ServiceHarness(config: config(keyPath: keyPath, maxAge: maxAge), intake: .disabled), keyPath)
    }

    @Test("200: the bundle JSON, strong ETag = the revision, Cache-Control from server.bundle.maxAgeSeconds")
    func body() async throws {
        let (harness, _) = try Self.signedHarness(maxAge: 120)
        let response = await harness.send("GET", "/v1/policy/bundle")
        #expect(response.status == 200)
        let revision = try #require(harness.store.snapshot?.revision)
        let stamp = try #require(harness.store.snapshot?.bundle.stamp)
        let keyId = try #require(stamp.keyId)
        #expect(stamp.expiresAt == stamp.issuedAt + 604_800)
        #expect(response.headers["ETag"] == "\"\(revision)\"")
        #expect(response.headers["Cache-Control"] == "max-age=120, no-transform")
        #expect(response.headers["Content-Type"] == "application/json")
        let expected =
            #"{"format":"navpolicy-bundle","version":2,"revision":"\#(revision)","policyVersion":\#(stamp.policyVersion),"#
            + #""issuedAt":\#(stamp.issuedAt),"expiresAt":\#(stamp.expiresAt),"keyId":"\#(keyId)","policy":{"handlers":["#
            + #"{"type":"logout","name":"logout","match":{"paths":["/logout"]}},"#
            + #"{"name":"site","type":"allow","match":{"hosts":["app.example"]}}],"defaultDecision":"cancel"}}"#
        #expect(response.text == expected)
        // Nothing of the daemon's own sections travels to apps.
        for word in ["server", "intake", "proxy", "listen", "signingKeyFile", "bundle-key"] {
            #expect(!response.text.contains(word), "\(word) leaked into the bundle")
        }
    }

    @Test("the default Cache-Control is max-age=300; an unsigned bundle has no signature field")
    func defaults() async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", "/v1/policy/bundle")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "max-age=300, no-transform")
        #expect(response.headers[BundleEndpoints.signatureField] == nil)
        #expect(await harness.send("HEAD", "/v1/policy/bundle").headers["ETag"] == response.headers["ETag"])
        #expect(await harness.send("POST", "/v1/policy/bundle").status == 405)
    }

    @Test("the signature header verifies over the exact body with the key's public key, and not over other bytes")
    func signature() async throws {
        let (harness, keyPath) = try Self.signedHarness()
        let response = await harness.send("GET", "/v1/policy/bundle")
        let header = try #require(response.headers[BundleEndpoints.signatureField])
        let signature = try #require(Base64Text.decode(header))
        #expect(signature.count == 64)
        let publicKey = try Ed25519PrivateKey(pemFile: keyPath).publicKey
        #expect(publicKey.isValidSignature(signature, for: response.bodyBytes))
        #expect(!publicKey.isValidSignature(signature, for: response.bodyBytes + [0x20]))
    }

    @Test("the bundle's policy compiles with PolicyCompiler() to the daemon's decisions")
    func sameDecisions() async throws {
        let (harness, _) = try Self.signedHarness()
        let body = await harness.send("GET", "/v1/policy/bundle").bodyBytes
        let policyValue = try #require(try JSONParser().parse(body)["policy"])
        let app = try PolicyCompiler().compile(policyValue)
        let daemon = try #require(harness.store.snapshot?.policy)
        for url in [
            "https://app.example/x", "https://app.example/logout", "https://other.example/", "https://app.example/logout?a",
        ] {
            let request = NavigationRequest(url: url)
            #expect(try app.decide(request) == (try daemon.decide(request)), "\(url)")
        }
    }

    @Test(
        "If-None-Match: matching strong, weak, list and * forms answer 304 with ETag and Cache-Control, no body",
        arguments: [
            "\"{tag}\"", "W/\"{tag}\"", "\"other\", \"{tag}\"", "  \"a,b\" ,W/\"{tag}\"  ", "*", "bogus, \"{tag}\"",
        ])
    func notModified(condition: String) async throws {
        let (harness, _) = try Self.signedHarness()
        let revision = try #require(harness.store.snapshot?.revision)
        let value = condition.replacing("{tag}", with: revision)
        let response = await harness.send("GET", "/v1/policy/bundle", headers: [("If-None-Match", value)])
        #expect(response.status == 304, "\(value)")
        #expect(response.bodyBytes.isEmpty)
        #expect(response.headers["ETag"] == "\"\(revision)\"")
        #expect(response.headers["Cache-Control"] == "max-age=300, no-transform")
        #expect(response.headers[BundleEndpoints.signatureField] == nil)
    }

    @Test("two If-None-Match field lines are one list")
    func twoFieldLines() async throws {
        let harness = try ServiceHarness()
        let tag = try #require(harness.store.snapshot?.bundle.entityTag)
        let response = await harness.send(
            "GET", "/v1/policy/bundle", headers: [("If-None-Match", "\"old\""), ("If-None-Match", tag)])
        #expect(response.status == 304)
    }

    @Test(
        "If-None-Match that does not match, or cannot be parsed, gets the full 200",
        arguments: [
            "\"sha256:0000\"", "W/\"other\"", "{tag}", "\"{tag}", "\"{tag}\"x", "**", "", ",", "W/ \"{tag}\"", "w/\"{tag}\"",
            "\"{tag}\" \"x\"",
            // `"unterminated, "` is itself a tag (etagc allows commas), so no member is the tag.
            "\"unterminated, \"{tag}\"",
        ])
    func modified(condition: String) async throws {
        let harness = try ServiceHarness()
        let revision = try #require(harness.store.snapshot?.revision)
        let value = condition.replacing("{tag}", with: revision)
        let response = await harness.send("GET", "/v1/policy/bundle", headers: [("If-None-Match", value)])
        #expect(response.status == 200, "\(value)")
        #expect(!response.bodyBytes.isEmpty)
    }

    @Test("a reload changes the ETag, the bytes and the signature; the old tag then gets a 200")
    func reloadChangesTheBundle() async throws {
        let (harness, keyPath) = try Self.signedHarness()
        let before = await harness.send("GET", "/v1/policy/bundle")
        try Self.config(keyPath: keyPath, defaultDecision: "allow")
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        #expect(await harness.send("POST", "/v1/policy/reload").object["result"]?.stringValue == "reloaded")
        let after = await harness.send("GET", "/v1/policy/bundle")
        #expect(after.status == 200)
        #expect(after.headers["ETag"] != before.headers["ETag"])
        #expect(after.bodyBytes != before.bodyBytes)
        #expect(after.text.contains(#""defaultDecision":"allow""#))
        #expect(after.headers[BundleEndpoints.signatureField] != before.headers[BundleEndpoints.signatureField])
        let stale = await harness.send(
            "GET", "/v1/policy/bundle", headers: [("If-None-Match", before.headers["ETag"] ?? "")])
        #expect(stale.status == 200)
    }

    @Test("a reload with a bad signing key is refused at the setting's pointer; the old bundle keeps serving")
    func reloadWithBadKey() async throws {
        let (harness, keyPath) = try Self.signedHarness()
        let before = await harness.send("GET", "/v1/policy/bundle")
        let badKey = keyPath + ".bad"
        try "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".write(
            toFile: badKey, atomically: true, encoding: .utf8)
        try Self.config(keyPath: badKey, defaultDecision: "allow")
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let reload = await harness.send("POST", "/v1/policy/reload")
        #expect(reload.status == 422)
        let errors = reload.object["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(errors.contains { $0.contains("/server/bundle/signingKeyFile") && $0.contains(badKey) }, "\(errors)")
        let after = await harness.send("GET", "/v1/policy/bundle")
        #expect(before.status == 200 && after.status == 200)
        #expect(after.bodyBytes == before.bodyBytes)
        #expect(after.headers[BundleEndpoints.signatureField] == before.headers[BundleEndpoints.signatureField])
    }

    @Test(
        "server.bundle settings are validated at their pointers",
        arguments: [
            (#"{"maxAgeSeconds": -1}"#, "/server/bundle/maxAgeSeconds"),
            (#"{"maxAgeSeconds": 86401}"#, "/server/bundle/maxAgeSeconds"),
            (#"{"maxAgeSeconds": "300"}"#, "/server/bundle/maxAgeSeconds"),
            (#"{"signingKeyFile": ""}"#, "/server/bundle/signingKeyFile"),
            (#"{"signingKeyFile": 3}"#, "/server/bundle/signingKeyFile"),
            (#"{"signingKeyFile": "/nonexistent/key.pem"}"#, "/server/bundle/signingKeyFile"),
            (#"{"maxAge": 3}"#, "/server/bundle/maxAge"),
            (#"[]"#, "/server/bundle"),
        ])
    func invalidSettings(section: String, pointer: String) throws {
        let config = #"{"server": {"bundle": \#(section)}, "handlers": []}"#
        switch PolicySnapshot.build(from: Array(config.utf8)) {
        case .success: Issue.record("accepted \(section)")
        case .failure(let error):
            #expect(error.issues.map(\.pointer.description).contains(pointer), "\(error)")
        }
    }

    @Test("the same config bytes give the same bundle bytes and signature")
    func deterministic() throws {
        let keyPath = try Self.temporaryDirectory() + "/key.pem"
        try Self.testKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let bytes = Array(Self.config(keyPath: keyPath).utf8)
        let first = try PolicySnapshot.build(from: bytes).get().bundle
        let second = try PolicySnapshot.build(from: bytes).get().bundle
        #expect(first.bytes == second.bytes)
        #expect(first.signature == second.signature)
    }
}
