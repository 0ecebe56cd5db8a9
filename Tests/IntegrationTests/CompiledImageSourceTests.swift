import BundleSigning
import Foundation
import TestScratchSupport
import Testing

/// Issue 38, item 7: an image's "source revision" is a claim of its header. An image edited
/// after compiling, its checksum recomputed, kept naming the audited JSON's SHA-256 in
/// `validate`'s output as if nothing had changed. Now `validate` labels it unverified, and
/// `--source FILE` checks that the image is byte for byte what `compile` makes of FILE.
@Suite("Compiled image source revision, through the binary", .serialized)
struct CompiledImageSourceTests {
    static let config = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
          {"name": "admin", "type": "cancel", "match": {"hosts": ["admin.example"]}}
        ]}
        """

    /// `image` with `old` replaced by `new` (same length) and its checksum recomputed, as an
    /// attacker who knows the format would: it loads, and still names the source's revision.
    static func edited(_ image: [UInt8], replacing old: String, with new: String) throws -> [UInt8] {
        let needle = Array(old.utf8)
        let start = try #require(
            image.indices.first { image[$0...].starts(with: needle) }, "\(old) is not in the image")
        var bytes = image
        bytes.replaceSubrange(start..<(start + needle.count), with: Array(new.utf8))
        let digest = bytes.withUnsafeBytes { BLAKE2b.hash256(UnsafeRawBufferPointer(rebasing: $0[56...])) }
        bytes.replaceSubrange(24..<56, with: digest)
        return bytes
    }

    @Test("validate labels the source revision unverified, and --source verifies or refuses it")
    func sourceRevisionIsChecked() throws {
        let (jsonPath, imagePath) = try CompiledPolicyLiveTests.compiled(Self.config)
        let plain = try BinaryRunner.run(["validate", "--config", imagePath])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("(unverified: the image's own claim; --source FILE checks it)"), "\(plain.stdout)")
        let json = try BinaryRunner.run(["validate", "--config", imagePath, "--format", "json"])
        #expect(json.stdout.contains(#""sourceRevisionVerified":false"#), "\(json.stdout)")

        let verified = try BinaryRunner.run(["validate", "--config", imagePath, "--source", jsonPath])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("(verified: the image is what compile makes of \(jsonPath))"), "\(verified.stdout)")
        let verifiedJSON = try BinaryRunner.run(["validate", "--config", imagePath, "--source", jsonPath, "--format", "json"])
        #expect(verifiedJSON.stdout.contains(#""sourceRevisionVerified":true"#), "\(verifiedJSON.stdout)")

        // The attack: the logout path changed, the checksum recomputed, the revision kept.
        let image = try [UInt8](Data(contentsOf: URL(fileURLWithPath: imagePath)))
        let editedPath = TestScratch.path("edited-image", suffix: ".img")
        try Data(try Self.edited(image, replacing: "/logout", with: "/logoux")).write(to: URL(fileURLWithPath: editedPath))
        let unverified = try BinaryRunner.run(["validate", "--config", editedPath])
        #expect(unverified.status == 0, "the edited image still loads: \(unverified.stderr)")
        #expect(unverified.stdout.contains("unverified"), "\(unverified.stdout)")
        let refused = try BinaryRunner.run(["validate", "--config", editedPath, "--source", jsonPath])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("is not what compile makes of it"), "\(refused.stderr)")

        // Another JSON than the one compiled: its revision is not the one the image names.
        let otherPath = try BinaryRunner.temporaryFile(Self.config.replacing("admin.example", with: "other.example"))
        let mismatch = try BinaryRunner.run(["validate", "--config", imagePath, "--source", otherPath])
        #expect(mismatch.status == 1)
        #expect(mismatch.stderr.contains("names source revision sha256:"), "\(mismatch.stderr)")

        // --source is for images only.
        let notImage = try BinaryRunner.run(["validate", "--config", jsonPath, "--source", jsonPath])
        #expect(notImage.status == 2)
        #expect(notImage.stderr.contains("--source is for a compiled image --config"), "\(notImage.stderr)")
    }
}
