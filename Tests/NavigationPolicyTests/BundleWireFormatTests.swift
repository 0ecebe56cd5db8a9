import NavigationPolicy
import Testing

/// The bundle's wire format as the core declares it for the daemon (which writes it) and the
/// client (which reads it): the revision's spelling both sides compare, and the member lists.
@Suite("Bundle wire format: revision spelling and layouts")
struct BundleWireFormatTests {
    /// SHA-256 of the empty input (FIPS 180-4 test vector), as 32 bytes.
    static let emptyDigest: [UInt8] = [
        0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
        0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
    ]
    static let emptyRevision = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test("a digest is spelled sha256: and lower-case hex, and that spelling is well formed")
    func spelling() {
        #expect(PolicyRevision.of(sha256: Self.emptyDigest) == Self.emptyRevision)
        #expect(PolicyRevision.of(sha256: Self.emptyDigest[...]) == Self.emptyRevision)
        #expect(PolicyRevision.isWellFormed(Self.emptyRevision))
    }

    @Test(
        "what is not a revision is refused",
        arguments: [
            "", "sha256:", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8555",
            "sha512:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85g",
            " sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ])
    func refused(text: String) {
        #expect(!PolicyRevision.isWellFormed(text))
    }

    @Test("a compiled head has the JSON layout's members, the stamp and compiledPolicy in place of policy")
    func layouts() {
        let json = Set(BundleFormat.jsonMembers + BundleFormat.stampMembers)
        let compiled = Set(BundleFormat.compiledHeadMembers)
        #expect(compiled.subtracting(["compiledPolicy"]) == json.subtracting(["policy"]))
        #expect(BundleFormat.unstampedVersion < BundleFormat.jsonVersion)
        #expect(BundleFormat.jsonVersion < BundleFormat.compiledVersion)
    }
}
