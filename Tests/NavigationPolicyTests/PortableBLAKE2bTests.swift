import NavigationPolicy
import Testing

/// The plain-Swift BLAKE2b the WebAssembly build checks images with, against RFC 7693's example
/// and digests around the block boundary (Python's `hashlib.blake2b`, an independent
/// implementation); BundleSigningTests holds it to libsodium's on many more lengths.
@Suite("portable BLAKE2b")
struct PortableBLAKE2bTests {
    private func hex(_ bytes: [UInt8], length: Int) -> String {
        let digest = bytes.withUnsafeBytes { PortableBLAKE2b.hash($0, length: length) }
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test("RFC 7693 appendix A: BLAKE2b-512 of \"abc\"")
    func rfcExample() {
        #expect(
            hex(Array("abc".utf8), length: 64)
                == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }

    @Test("BLAKE2b-256: the empty message, abc, one block, one block and a byte")
    func blockBoundaries() {
        #expect(hex([], length: 32) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
        #expect(hex(Array("abc".utf8), length: 32) == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
        let ramp = (0..<129).map { UInt8($0 % 251) }
        #expect(hex(Array(ramp.prefix(128)), length: 32) == "c3582f71ebb2be66fa5dd750f80baae97554f3b015663c8be377cfcb2488c1d1")
        #expect(hex(ramp, length: 32) == "f7f3c46ba2564ff4c4c162da1f5b605f9f1c4aa6a20652a9f9a337c1a2f5b9c9")
        let bytes = (0..<256).map { UInt8($0) }
        #expect(hex(bytes, length: 32) == "39a7eb9fedc19aabc83425c6755dd90e6f9d0c804964a1f4aaeea3b9fb599835")
    }

    @Test("hash256 is the image checksum's 32 bytes")
    func hash256() {
        let message = Array("navpolicy".utf8)
        let digest = message.withUnsafeBytes { PortableBLAKE2b.hash256($0) }
        #expect(digest.count == 32)
        #expect(digest == message.withUnsafeBytes { PortableBLAKE2b.hash($0, length: 32) })
    }
}
