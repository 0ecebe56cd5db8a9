/// Unkeyed BLAKE2b (RFC 7693) in plain Swift: the compiled image's checksum where libsodium is
/// not linked. The daemon hashes images with libsodium's `crypto_generichash` (BundleSigning's
/// `BLAKE2b`, several times faster with its vector code); the WebAssembly build has no C library
/// to call, and must still refuse a corrupt image as the daemon does (issue 43).
/// `BLAKE2bDifferentialTests` holds the two to the same digests.
public enum PortableBLAKE2b {
    /// The image checksum: the 32-byte BLAKE2b-256 digest of `message`, as ``PolicyImage/Digest``.
    public static func hash256(_ message: UnsafeRawBufferPointer) -> [UInt8] { hash(message, length: 32) }

    /// The `length`-byte (1 to 64, clamped) BLAKE2b digest of `message`.
    // Optimized for speed even in a module built for size (the WebAssembly build's -Osize):
    // there the compression loop ran ten times slower, 0.5 s for a 25 MiB image (issue 43),
    // until its helpers below were too.
    @_optimize(speed)
    public static func hash(_ message: UnsafeRawBufferPointer, length: Int) -> [UInt8] {
        let outputLength = min(max(length, 1), 64)
        var state = State(outputLength: outputLength)
        let count = message.count
        var offset = 0
        // Every block but the last is compressed as it is; the last one (full, partial, or the
        // empty message's single zero block) carries the final flag, so it is held back even
        // when the message ends on a block boundary.
        if let base = message.baseAddress {
            while count - offset > blockLength {
                offset += blockLength
                state.compress(base + (offset - blockLength), counter: UInt64(offset), isFinal: false)
            }
        }
        var last = [UInt8](repeating: 0, count: blockLength)
        last.withUnsafeMutableBytes { block in
            if count > offset, let base = message.baseAddress {
                block.baseAddress?.copyMemory(from: base + offset, byteCount: count - offset)
            }
            if let pointer = block.baseAddress {
                state.compress(UnsafeRawPointer(pointer), counter: UInt64(count), isFinal: true)
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(64)
        for word in [state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7] {
            for shift in stride(from: 0, to: 64, by: 8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Array(digest.prefix(outputLength))
    }

    static let blockLength = 128

    /// SHA-512's initial values, as RFC 7693 section 2.6 takes them.
    private static let iv: [UInt64] = [
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]

    /// The message schedule of RFC 7693 section 2.7: ten rows of sixteen word indices, each row
    /// packed four bits an index (lowest first); rounds 10 and 11 reuse rows 0 and 1. Packed so
    /// that a round reads one integer rather than sixteen array elements.
    private static let schedule: [UInt64] = [
        0xfedc_ba98_7654_3210, 0x357b_20c1_6df9_84ae, 0x4917_63ea_df25_0c8b, 0x8f04_a562_ebcd_1397,
        0xd386_cb1e_fa42_7509, 0x91ef_57d4_38b0_a6c2, 0xb829_3670_a4de_f15c, 0xa268_4f05_931c_e7bd,
        0x5a41_7d2c_803b_9ef6, 0x0dc3_e9bf_5167_482a,
    ]

    /// The chained state h[0...7]; eight stored words rather than an array, so the compression
    /// function works on registers without bounds checks.
    private struct State {
        var h0, h1, h2, h3, h4, h5, h6, h7: UInt64

        init(outputLength: Int) {
            // Parameter block: digest length, key length 0, fanout 1, depth 1 (section 2.5).
            h0 = iv[0] ^ 0x0101_0000 ^ UInt64(outputLength)
            h1 = iv[1]
            h2 = iv[2]
            h3 = iv[3]
            h4 = iv[4]
            h5 = iv[5]
            h6 = iv[6]
            h7 = iv[7]
        }

        /// The compression function F (section 3.2) over the 128 bytes at `block`; `counter` is
        /// the number of message bytes hashed so far including this block (under 2^64 here).
        @_optimize(speed)
        mutating func compress(_ block: UnsafeRawPointer, counter: UInt64, isFinal: Bool) {
            var v0 = h0, v1 = h1, v2 = h2, v3 = h3, v4 = h4, v5 = h5, v6 = h6, v7 = h7
            var v8 = iv[0], v9 = iv[1], v10 = iv[2], v11 = iv[3]
            var v12 = iv[4] ^ counter, v13 = iv[5], v14 = iv[6], v15 = iv[7]
            if isFinal { v14 = ~v14 }
            for round in 0..<12 {
                let row = schedule[round % 10]
                mix(&v0, &v4, &v8, &v12, word(block, row, 0), word(block, row, 1))
                mix(&v1, &v5, &v9, &v13, word(block, row, 2), word(block, row, 3))
                mix(&v2, &v6, &v10, &v14, word(block, row, 4), word(block, row, 5))
                mix(&v3, &v7, &v11, &v15, word(block, row, 6), word(block, row, 7))
                mix(&v0, &v5, &v10, &v15, word(block, row, 8), word(block, row, 9))
                mix(&v1, &v6, &v11, &v12, word(block, row, 10), word(block, row, 11))
                mix(&v2, &v7, &v8, &v13, word(block, row, 12), word(block, row, 13))
                mix(&v3, &v4, &v9, &v14, word(block, row, 14), word(block, row, 15))
            }
            h0 ^= v0 ^ v8
            h1 ^= v1 ^ v9
            h2 ^= v2 ^ v10
            h3 ^= v3 ^ v11
            h4 ^= v4 ^ v12
            h5 ^= v5 ^ v13
            h6 ^= v6 ^ v14
            h7 ^= v7 ^ v15
        }

        /// The message word the schedule row's `index`-th entry picks, read where it lies.
        @inline(__always) @_optimize(speed)
        private func word(_ block: UnsafeRawPointer, _ row: UInt64, _ index: UInt64) -> UInt64 {
            let position = Int(truncatingIfNeeded: (row >> (index &* 4)) & 15)
            return UInt64(littleEndian: block.loadUnaligned(fromByteOffset: position &* 8, as: UInt64.self))
        }

        /// The mixing function G (section 3.1), rotation constants 32, 24, 16, 63.
        @inline(__always) @_optimize(speed)
        private func mix(
            _ a: inout UInt64, _ b: inout UInt64, _ c: inout UInt64, _ d: inout UInt64, _ x: UInt64, _ y: UInt64
        ) {
            a = a &+ b &+ x
            d = rotateRight(d ^ a, 32)
            c = c &+ d
            b = rotateRight(b ^ c, 24)
            a = a &+ b &+ y
            d = rotateRight(d ^ a, 16)
            c = c &+ d
            b = rotateRight(b ^ c, 63)
        }

        @inline(__always) @_optimize(speed)
        private func rotateRight(_ value: UInt64, _ count: UInt64) -> UInt64 { (value >> count) | (value << (64 - count)) }
    }
}
