import BundleSigning
import Foundation
import Testing

/// Ed25519 through libsodium, checked against RFC 8032's published vector, and the key formats
/// the daemon reads (PEM PKCS#8 private keys) and apps configure (base64 raw public keys).
@Suite("Ed25519 bundle signing")
struct Ed25519Tests {
    /// RFC 8032 §7.1, TEST 1: the secret key (seed) as PKCS#8 v0, as `openssl pkey` writes it.
    static let vector1PEM = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g
        -----END PRIVATE KEY-----

        """
    static let vector1PublicKey = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    static let vector1Signature = hex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    static func pem(_ base64Body: String, label: String = "PRIVATE KEY") -> String {
        "-----BEGIN \(label)-----\n\(base64Body)\n-----END \(label)-----\n"
    }

    @Test("RFC 8032 test 1: the public key and the signature of the empty message are the published ones")
    func rfc8032Vector1() throws {
        let key = try Ed25519PrivateKey(pem: Self.vector1PEM)
        #expect(key.publicKeyBytes == Self.vector1PublicKey)
        #expect(key.publicKeyBase64 == "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
        let signature = key.sign([])
        #expect(signature == Self.vector1Signature)
        let publicKey = try Ed25519PublicKey(rawBytes: Self.vector1PublicKey)
        #expect(publicKey.isValidSignature(Self.vector1Signature, for: []))
        #expect(key.publicKey == publicKey)
    }

    @Test("a signature verifies for its bytes and fails for a tampered byte, a tampered signature or another key")
    func tamperedBytesFail() throws {
        let key = try Ed25519PrivateKey(pem: Self.vector1PEM)
        let body = Array(#"{"format":"navpolicy-bundle","version":1}"#.utf8)
        let signature = key.sign(body)
        #expect(signature.count == 64)
        let publicKey = try Ed25519PublicKey(base64: key.publicKeyBase64 + "\n")
        #expect(publicKey.isValidSignature(signature, for: body))

        var tamperedBody = body
        tamperedBody[10] ^= 0x01
        #expect(!publicKey.isValidSignature(signature, for: tamperedBody))
        var tamperedSignature = signature
        tamperedSignature[0] ^= 0x80
        #expect(!publicKey.isValidSignature(tamperedSignature, for: body))
        #expect(!publicKey.isValidSignature(Array(signature.dropLast()), for: body))
        #expect(!publicKey.isValidSignature([], for: body))

        let other = try Ed25519PrivateKey(pem: Self.pem("MC4CAQAwBQYDK2VwBCIEIOAyGHv8Qt2tnc6ZwPOaDAAAAAAAAAAAAAAAAAAAAAAA"))
        #expect(!other.publicKey.isValidSignature(signature, for: body))
    }

    @Test("a key openssl generates reads, and its public key is the one openssl derives")
    func opensslGeneratedKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bundlesigning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("key.pem").path
        try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", keyPath])
        let publicDER = try run("/usr/bin/openssl", ["pkey", "-in", keyPath, "-pubout", "-outform", "DER"])
        let key = try Ed25519PrivateKey(pemFile: keyPath)
        #expect(Array(publicDER.suffix(32)) == key.publicKeyBytes)
    }

    @Test("PKCS#8 version 1 (with the public key) reads; a public key that does not match is refused")
    func version1() throws {
        let good =
            "MFECAQEwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9ggSEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
        #expect(try Ed25519PrivateKey(pem: Self.pem(good)).publicKeyBytes == Self.vector1PublicKey)
        let mismatched =
            "MFECAQEwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9ggSEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURs="
        #expect(throws: BundleSigningError.self) { try Ed25519PrivateKey(pem: Self.pem(mismatched)) }
        do {
            _ = try Ed25519PrivateKey(pem: Self.pem(mismatched))
        } catch {
            #expect(error.kind == .publicKeyMismatch)
        }
    }

    @Test(
        "bad private keys are refused with the reason",
        arguments: [
            ("", BundleSigningError.Kind.notPEM),
            ("just text", .notPEM),
            (pem("MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g", label: "ENCRYPTED PRIVATE KEY"), .notPEM),
            (pem("b3BlbnNzaA==", label: "OPENSSH PRIVATE KEY"), .notPEM),
            (pem("MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g") + pem("AAAA"), .notPEM),
            (pem("MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g!"), .invalidBase64),
            (pem("MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v_VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g"), .invalidBase64),
            // X25519 (OID 1.3.101.110): right shape, wrong algorithm.
            (pem("MC4CAQAwBQYDK2VuBCIEIEgiAd+Rdf4MBDb+Jb7QtWutHkt93HogJcaTGYM324xS"), .notEd25519PrivateKey),
            // A truncated seed.
            (pem("MC0CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn8="), .notEd25519PrivateKey),
            // A trailing byte after the structure.
            (pem("MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9gAA=="), .notEd25519PrivateKey),
        ])
    func badPrivateKeys(text: String, kind: BundleSigningError.Kind) {
        do {
            _ = try Ed25519PrivateKey(pem: text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.kind == kind, "\(error)")
            #expect(!error.description.isEmpty)
        }
    }

    @Test("key files: missing, unreadable (a directory) and oversized files are refused with the reason")
    func keyFiles() throws {
        do {
            _ = try Ed25519PrivateKey(pemFile: "/nonexistent/bundle-key.pem")
            Issue.record("accepted a missing file")
        } catch { #expect(error.kind == .fileMissing) }
        do {
            _ = try Ed25519PrivateKey(pemFile: "/")
            Issue.record("accepted a directory")
        } catch { #expect(error.kind == .fileUnreadable) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0x41, count: 20_000).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Ed25519PrivateKey(pemFile: path)
            Issue.record("accepted an oversized file")
        } catch { #expect(error.kind == .fileTooLarge) }
    }

    @Test(
        "bad public keys are refused",
        arguments: [
            "", "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHUQ==", "not base64!", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
        ])
    func badPublicKeys(text: String) {
        #expect(throws: BundleSigningError.self) { try Ed25519PublicKey(base64: text) }
    }

    @Test("Base64Text round-trips and refuses characters outside the standard alphabet")
    func base64() {
        let bytes: [UInt8] = [0, 1, 2, 250, 251, 252, 253, 254, 255]
        #expect(Base64Text.encode(bytes) == "AAEC+vv8/f7/")
        #expect(Base64Text.decode("AAEC+vv8/f7/") == bytes)
        #expect(Base64Text.decode("AAEC-vv8_f7_") == nil)
        #expect(Base64Text.decode("AAEC +vv8/f7/") == nil)
        #expect(Base64Text.decode("") == [])
    }

    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(executable) \(arguments) exited \(process.terminationStatus)")
        return Array(data)
    }
}
