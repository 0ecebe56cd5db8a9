import BundleSigning
import Testing

/// SHA-256 through libsodium against the FIPS 180-2 example vectors, so a wrong binding
/// (length, pointer, byte order of the hex) shows up here and not as a changed policy revision.
@Suite("SHA-256")
struct SHA256Tests {
    @Test func theEmptyMessage() {
        #expect(SHA256.hexDigest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abc() {
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash(Array("abc".utf8)).count == 32)
    }

    @Test func aMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexDigest(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
