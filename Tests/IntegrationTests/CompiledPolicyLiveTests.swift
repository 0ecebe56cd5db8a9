import BundleSigning
import Foundation
import TestScratchSupport
import Testing

/// `navpolicyd compile` and compiled images used where a JSON config is (issue 33), driven
/// through the real binary: every command's `--config`, `serve` and its reloads, signed
/// compiled bundles, and the refusal of corrupt images.
@Suite("Compiled policy images, live", .serialized)
struct CompiledPolicyLiveTests {
    /// 200 hosts, a wildcard, a class and 150 prefixes: past the table threshold (64), so the
    /// image reads them in place; small handlers around them stay JSON source.
    static func config(extraHandler: String = "") -> String {
        let hosts = (0..<200).map { "\"h\($0).block.test\"" }.joined(separator: ",")
        let prefixes = (0..<150).map { "\"/Section\($0)/private\"" }.joined(separator: ",")
        return """
            {"defaultDecision": "allow", "server": {"watchConfig": false}, "handlers": [
              \(extraHandler)
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "blocklist", "type": "cancel", "match": {"hosts": [\(hosts), "*.ads.test", "@loopback"]}},
              {"name": "private", "type": "cancel", "match": {"pathPrefixes": [\(prefixes)], "methods": ["GET"]}},
              {"name": "shadowed", "type": "cancel", "mode": "shadow", "match": {"hosts": ["watch.test"]}}
            ]}
            """
    }

    static let urls = [
        "https://h7.block.test/", "https://x.y.ads.test/a", "https://ads.test/", "http://127.0.0.9/", "http://localhost/",
        "https://ok.test/section7/private/x", "https://ok.test/Section7/privateer", "https://ok.test/logout",
        "https://watch.test/", "https://h200.block.test/", "https://H7.BLOCK.TEST./",
    ]

    static func compiled(_ json: String) throws -> (json: String, image: String) {
        let jsonPath = try BinaryRunner.temporaryFile(json)
        let imagePath = TestScratch.path("compiled-live", suffix: ".img")
        let result = try BinaryRunner.run(["compile", "--config", jsonPath, "--output", imagePath])
        #expect(result.status == 0, "\(result.stderr)")
        return (jsonPath, imagePath)
    }

    @Test("compile writes an image; check and check --explain on it answer exactly as on the JSON")
    func checkDecidesIdentically() throws {
        let (jsonPath, imagePath) = try Self.compiled(Self.config())
        let written = try BinaryRunner.run(["compile", "--config", jsonPath, "--output", imagePath])
        #expect(written.stdout.contains("format version 1") && written.stdout.contains("source revision: sha256:"))
        #expect(written.stdout.contains("handlers: 4, 2 with tables read in place"), "\(written.stdout)")
        for url in Self.urls {
            for explain in [[], ["--explain"]] {
                let fromJSON = try BinaryRunner.run(["check", "--config", jsonPath] + explain + [url])
                let fromImage = try BinaryRunner.run(["check", "--config", imagePath] + explain + [url])
                #expect(fromImage.status == 0, "\(url): \(fromImage.stderr)")
                #expect(fromImage.stdout == fromJSON.stdout, "\(url) \(explain)")
            }
        }
        let validated = try BinaryRunner.run(["validate", "--config", imagePath])
        #expect(validated.status == 0)
        #expect(validated.stdout.contains("compiled image: format version 1"))
        #expect(validated.stdout.contains("lint on an image skips"))
    }

    @Test("a corrupt, truncated or other-version image is refused with exit 2 and where, never decided")
    func corruptImagesAreRefused() throws {
        let (_, imagePath) = try Self.compiled(Self.config())
        let image = try [UInt8](Data(contentsOf: URL(fileURLWithPath: imagePath)))
        var flipped = image
        flipped[image.count / 2] ^= 0x20
        var version = image
        version[8] = 9
        let cases: [(String, [UInt8], String)] = [
            ("flipped", flipped, "checksum mismatch"), ("truncated", Array(image.prefix(image.count - 10)), "truncated"),
            ("version", version, "format version 9"), ("header only", Array(image.prefix(40)), "truncated"),
        ]
        for (name, bytes, message) in cases {
            let path = TestScratch.path("compiled-corrupt", suffix: ".img")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for command in [["check", "--config", path, "https://h7.block.test/"], ["validate", "--config", path]] {
                let result = try BinaryRunner.run(command)
                #expect(result.status == 2, "\(name) \(command[0]): \(result.status)")
                #expect(
                    result.stderr.contains("compiled policy image refused") && result.stderr.contains(message),
                    "\(name): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }

    @Test("serve decides from an image, reloads a new one on SIGHUP, keeps it when the next is corrupt")
    func serveAndReload() throws {
        let (_, imagePath) = try Self.compiled(Self.config())
        let daemon = try DaemonProcess(configPath: imagePath)
        #expect(try daemon.decide("https://h7.block.test/").json?["handler"] as? String == "blocklist")
        #expect(try daemon.decide("https://ok.test/Section9/private").json?["handler"] as? String == "private")
        // The revision of an image-loaded policy is the image's own SHA-256 (as a JSON file's is its bytes').
        let decided = try daemon.decide("https://h7.block.test/")
        let imageRevision = "sha256:" + SHA256.hexDigest(try [UInt8](Data(contentsOf: URL(fileURLWithPath: imagePath))))
        #expect(decided.json?["policyRevision"] as? String == imageRevision)
        let bundle = try Curl.request(daemon.baseURL + "/v1/policy/bundle")
        #expect(bundle.status == 200 && bundle.headers["content-type"] == "application/octet-stream")
        #expect(bundle.body.hasPrefix(#"{"format":"navpolicy-bundle","version":3,"revision":"\#(imageRevision)""#))

        let next = try Self.compiled(
            Self.config(extraHandler: #"{"name": "first", "type": "about", "match": {"hosts": ["h7.block.test"]}},"#))
        try Data(contentsOf: URL(fileURLWithPath: next.image)).write(to: URL(fileURLWithPath: imagePath))
        daemon.signal(SIGHUP)
        #expect(try Self.waitFor { try daemon.decide("https://h7.block.test/").json?["handler"] as? String == "first" })

        var corrupt = try [UInt8](Data(contentsOf: URL(fileURLWithPath: imagePath)))
        corrupt[corrupt.count - 3] ^= 0xFF
        try Data(corrupt).write(to: URL(fileURLWithPath: imagePath))
        daemon.signal(SIGHUP)
        #expect(daemon.waitForLog { $0.contains("checksum mismatch") } != nil, "the refusal is logged")
        #expect(try daemon.decide("https://h7.block.test/").json?["handler"] as? String == "first", "the old policy stays")
    }

    @Test("bundle --compiled: signed, verified and decided from by the client, and inspect shows it")
    func compiledBundle() throws {
        let (jsonPath, imagePath) = try Self.compiled(Self.config())
        let key = try BundleTrustLiveTests.Key()
        let trusted = "\(key.keyId):\(key.publicKeyBase64)"
        let bundlePath = TestScratch.path("compiled-bundle", suffix: ".bundle")
        let built = try BinaryRunner.run([
            "bundle", "--config", jsonPath, "--compiled", "--sign", key.path, "--output", bundlePath,
        ])
        #expect(built.status == 0, "\(built.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: bundlePath)))
        let newline = try #require(bytes.firstIndex(of: 0x0A))
        #expect(String(decoding: bytes[..<newline], as: UTF8.self).contains(#""version":3"#))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("watchConfig"), "daemon sections stay out of bundles")

        let inspected = try BinaryRunner.run(["bundle", "inspect", bundlePath])
        #expect(inspected.status == 0 && inspected.stdout.contains("compiledPolicyBytes"), "\(inspected.stderr)")
        let verified = try BinaryRunner.run(["bundle", "verify", bundlePath, "--bundle-key", trusted])
        #expect(verified.status == 0 && verified.stdout.contains("OK"), "\(verified.stderr)")
        for url in Self.urls {
            let fromBundle = try BinaryRunner.run(["check", "--bundle", bundlePath, "--bundle-key", trusted, url])
            let fromImage = try BinaryRunner.run(["check", "--config", imagePath, url])
            #expect(fromBundle.status == 0, "\(fromBundle.stderr)")
            #expect(fromBundle.stdout == fromImage.stdout, "\(url)")
        }
        // One byte of the image changed: the signature over head and image no longer verifies.
        var tampered = bytes
        tampered[bytes.count - 5] ^= 0x01
        try Data(tampered).write(to: URL(fileURLWithPath: bundlePath))
        let refused = try BinaryRunner.run(["check", "--bundle", bundlePath, "--bundle-key", trusted, "https://h7.block.test/"])
        #expect(refused.status == 2 && refused.stderr.contains("signature"), "\(refused.stderr)")
    }

    @Test("urlPatterns in the config are carried by the image and decide as from JSON")
    func urlPatterns() throws {
        let (jsonPath, imagePath) = try Self.compiled(
            Self.config(
                extraHandler: #"{"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://*.shop.test/admin/*"]}},"#)
        )
        for url in ["https://a.shop.test/admin/users", "https://a.shop.test/home", "https://h3.block.test/admin/x"] {
            let fromJSON = try BinaryRunner.run(["check", "--explain", "--config", jsonPath, url])
            let fromImage = try BinaryRunner.run(["check", "--explain", "--config", imagePath, url])
            #expect(fromImage.stdout == fromJSON.stdout, "\(url)")
        }
    }

    static func waitFor(_ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }
}
