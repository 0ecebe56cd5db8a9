import BundleSigning
import NavigationPolicy
import Testing

/// The core's plain-Swift BLAKE2b (what the WebAssembly build checks compiled images with) and
/// libsodium's `crypto_generichash` (what the daemon writes and checks them with) give the same
/// digest for every length around the 128-byte block and for a few large messages, so an image the
/// daemon writes passes the Wasm build's checksum and a corrupt one fails both.
@Suite("BLAKE2b: portable against libsodium")
struct BLAKE2bDifferentialTests {
    /// Deterministic bytes (a 64-bit LCG), so a failure names a reproducible length.
    private func message(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test("every length from 0 to 1,024 bytes, and 64 KiB, 1 MiB and 1 MiB + 1")
    func sameDigests() {
        for count in Array(0...1024) + [65_536, 1 << 20, (1 << 20) + 1] {
            let bytes = message(count, seed: UInt64(count))
            let (portable, sodium) = bytes.withUnsafeBytes { (PortableBLAKE2b.hash256($0), BLAKE2b.hash256($0)) }
            #expect(portable == sodium, "length \(count)")
        }
    }

    @Test("a flipped bit changes both digests alike")
    func flippedBit() {
        var bytes = message(4096, seed: 7)
        let before = bytes.withUnsafeBytes { PortableBLAKE2b.hash256($0) }
        bytes[2048] ^= 0x10
        let (portable, sodium) = bytes.withUnsafeBytes { (PortableBLAKE2b.hash256($0), BLAKE2b.hash256($0)) }
        #expect(portable == sodium)
        #expect(portable != before)
    }
}
