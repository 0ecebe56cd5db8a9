import Foundation
import NavigationPolicyClient
import TestScratchSupport
import Testing

/// The policy bundle on the real binary, driven with curl and openssl as an app developer
/// would: the endpoint, conditional requests, the signature checked by a second Ed25519
/// implementation (OpenSSL's, not the daemon's libsodium), `navpolicyd bundle` against the
/// endpoint, and a reload.
@Suite("policy bundle, live")
struct BundleLiveTests {
    /// A fresh directory with an openssl-generated key and its public key as PEM.
    struct Keys {
        let directory: String
        var privateKey: String { directory + "/bundle-key.pem" }
        var publicKey: String { directory + "/bundle-key.pub.pem" }

        init() throws {
            directory = TestScratch.url.appendingPathComponent("bundle-live-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(try Self.openssl(["genpkey", "-algorithm", "ed25519", "-out", privateKey]) == 0)
            #expect(try Self.openssl(["pkey", "-in", privateKey, "-pubout", "-out", publicKey]) == 0)
        }

        /// `openssl pkeyutl -verify -rawin`: Ed25519 over the whole message, as the daemon signs.
        func opensslVerifies(body: String, signature: [UInt8]) throws -> Bool {
            let bodyPath = directory + "/body-\(UUID().uuidString)"
            let signaturePath = bodyPath + ".sig"
            try Data(body.utf8).write(to: URL(fileURLWithPath: bodyPath))
            try Data(signature).write(to: URL(fileURLWithPath: signaturePath))
            let status = try Self.openssl([
                "pkeyutl", "-verify", "-pubin", "-inkey", publicKey, "-rawin", "-in", bodyPath, "-sigfile", signaturePath,
            ])
            return status == 0
        }

        static func openssl(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static func config(keyPath: String, defaultDecision: String = "allow") -> String {
        """
        {"server":{"watchConfig":false,"bundle":{"signingKeyFile":"\(keyPath)","maxAgeSeconds":60}},
         "intake":{"enabled":false},
         "defaultDecision":"\(defaultDecision)",
         "handlers":[{"name":"logout","type":"logout","match":{"paths":["/logout"]}}]}
        """
    }

    /// The body exactly as received (curl -o), so byte-for-byte comparisons see every byte.
    static func rawBody(_ url: String) throws -> Data {
        let path = TestScratch.url.appendingPathComponent("bundle-\(UUID().uuidString)").path
        _ = try Curl.standardOutput(of: "/usr/bin/curl", ["-s", "--max-time", "20", "-o", path, url])
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("200 with ETag, Cache-Control and a signature openssl verifies; If-None-Match → 304")
    func endpoint() throws {
        let keys = try Keys()
        let daemon = try DaemonProcess(config: Self.config(keyPath: keys.privateKey))
        let url = daemon.baseURL + "/v1/policy/bundle"
        let response = try Curl.request(url)
        #expect(response.status == 200)
        let tag = try #require(response.headers["etag"])
        #expect(tag.hasPrefix("\"sha256:") && tag.hasSuffix("\""))
        #expect(response.headers["cache-control"] == "max-age=60, no-transform")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body.hasPrefix(#"{"format":"navpolicy-bundle","version":2,"#))
        #expect(!response.body.contains("signingKeyFile") && !response.body.contains("intake"))

        let signature = try #require(Data(base64Encoded: response.headers["navpolicy-bundle-signature"] ?? ""))
        #expect(try keys.opensslVerifies(body: response.body, signature: Array(signature)))
        #expect(
            try !keys.opensslVerifies(
                body: response.body.replacingOccurrences(of: "allow", with: "cancel"), signature: Array(signature)))

        let notModified = try Curl.request(url, ["-H", "If-None-Match: \(tag)"])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers["etag"] == tag)
        #expect(notModified.headers["cache-control"] == "max-age=60, no-transform")
        #expect(try Curl.request(url, ["-H", "If-None-Match: \"x\", W/\(tag)"]).status == 304)
        #expect(try Curl.request(url, ["-H", "If-None-Match: \"sha256:0\""]).status == 200)
    }

    @Test("navpolicyd bundle writes the endpoint's bytes, and --sign the header's signature")
    func offlineMatchesTheEndpoint() throws {
        let keys = try Keys()
        let daemon = try DaemonProcess(config: Self.config(keyPath: keys.privateKey))
        let url = daemon.baseURL + "/v1/policy/bundle"
        let served = try Self.rawBody(url)
        let header = try #require(try Curl.request(url).headers["navpolicy-bundle-signature"])
        // The served bundle's issue time and version: with them the offline bytes are the same.
        let stamp = try #require(try BundleDocument(bytes: Array(served)).stamp)
        let reproduce = ["--issued-at", String(stamp.issuedAt), "--policy-version", String(stamp.policyVersion)]

        let output = keys.directory + "/offline.json"
        let run = try BinaryRunner.run(
            [
                "bundle", "--config", daemon.configPath, "--sign", keys.privateKey, "--output", output,
            ] + reproduce)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty && run.stderr.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == served)
        #expect(try String(contentsOfFile: output + ".sig", encoding: .utf8) == header + "\n")

        // To stdout: the same bytes, and the signature alone on stderr.
        let piped = try BinaryRunner.run(["bundle", "--config", daemon.configPath, "--sign", keys.privateKey] + reproduce)
        #expect(piped.status == 0)
        #expect(Data(piped.stdout.utf8) == served)
        #expect(piped.stderr == header + "\n")

        // The public key the apps configure is the one openssl derives from the private key.
        let publicKey = try BinaryRunner.run(["bundle", "--public-key", "--sign", keys.privateKey])
        #expect(publicKey.status == 0)
        let der = keys.directory + "/public.der"
        #expect(try Keys.openssl(["pkey", "-in", keys.privateKey, "-pubout", "-outform", "DER", "-out", der]) == 0)
        // SubjectPublicKeyInfo for Ed25519 ends with the 32 raw key bytes (RFC 8410 §4).
        let raw = try Data(contentsOf: URL(fileURLWithPath: der)).suffix(32)
        #expect(publicKey.stdout == raw.base64EncodedString() + "\n")
    }

    @Test("a bad key: navpolicyd bundle and serve exit 2 naming the file and why")
    func badKey() throws {
        let keys = try Keys()
        let bad = keys.directory + "/bad.pem"
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: bad))
        let configPath = try BinaryRunner.temporaryFile(Self.config(keyPath: bad))

        let bundle = try BinaryRunner.run(["bundle", "--config", configPath, "--sign", bad])
        #expect(bundle.status == 2)
        #expect(bundle.stdout.isEmpty)
        #expect(bundle.stderr.contains(bad) && bundle.stderr.contains("not an Ed25519 private key"), "\(bundle.stderr)")

        // serve must refuse to start; a bounded wait, so a daemon that starts anyway fails the
        // test instead of hanging it.
        let serve = Process()
        serve.executableURL = BinaryRunner.binary
        serve.arguments = ["serve", "--config", configPath, "--listen", "127.0.0.1:0"]
        let errors = keys.directory + "/serve.stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        serve.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        let deadline = Date().addingTimeInterval(20)
        while serve.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if serve.isRunning {
            serve.terminate()
            serve.waitUntilExit()
            Issue.record("serve started with an invalid bundle signing key")
        }
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(serve.terminationStatus == 2)
        #expect(stderr.contains("/server/bundle/signingKeyFile") && stderr.contains(bad), "\(stderr)")
    }

    @Test("a reload with a changed config serves a new ETag, bytes and signature")
    func reload() throws {
        let keys = try Keys()
        let daemon = try DaemonProcess(config: Self.config(keyPath: keys.privateKey))
        let url = daemon.baseURL + "/v1/policy/bundle"
        let before = try Curl.request(url)
        let oldTag = try #require(before.headers["etag"])
        try Data(Self.config(keyPath: keys.privateKey, defaultDecision: "cancel").utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath))
        let reload = try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"])
        #expect(reload.json?["result"] as? String == "reloaded", "\(reload.body)")

        let after = try Curl.request(url, ["-H", "If-None-Match: \(oldTag)"])
        #expect(after.status == 200)
        #expect(after.headers["etag"] != oldTag)
        #expect(after.body.contains(#""defaultDecision":"cancel""#))
        let signature = try #require(Data(base64Encoded: after.headers["navpolicy-bundle-signature"] ?? ""))
        #expect(try keys.opensslVerifies(body: after.body, signature: Array(signature)))
        #expect(try Curl.request(url, ["-H", "If-None-Match: \(after.headers["etag"] ?? "")"]).status == 304)
    }
}
