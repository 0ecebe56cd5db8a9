import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns

/// Numbers read from input that must mean the same where `Int` is 32 bits (the WebAssembly
/// build): a regexp's counted repetitions, and a compiled image table's u32 fields. Natively
/// `Int` is 64 bits, so these check the arithmetic stays within 32 bits and compares exactly;
/// Tests/NavigationPolicyWasmTests drives the same inputs through the Wasm build.
@Suite("ThirtyTwoBitInt")
struct ThirtyTwoBitIntTests {
    @Test("a regexp count saturates below Int32.max, never at a value a 32-bit shift turns to 0")
    func countCeiling() {
        #expect(RegexParser.countCeiling > RegexProgram.maxInstructions)
        #expect(RegexParser.countCeiling <= Int(Int32.max))
        var value = 0
        for _ in 0..<40 {
            value = RegexParser.appendingCountDigit(9, to: value)
            #expect(value > 0 && value <= RegexParser.countCeiling)
        }
        #expect(value == RegexParser.countCeiling)
        #expect(RegexParser.appendingCountDigit(3, to: 12) == 123)
    }

    @Test("counted repetitions repeat exactly their count")
    func countedRepetitions() throws {
        #expect(try ECMARegex("^/user/(\\d{3})$").matches("/user/123"))
        #expect(try !ECMARegex("^/user/(\\d{3})$").matches("/user/"))
        #expect(try !ECMARegex("^(a{2})$").matches(""))
        #expect(try ECMARegex("^(a{1,2})$").matches("a"))
        #expect(try !ECMARegex("^(a{2,})$").matches("a"))
        #expect(try ECMARegex("^(a{2,})$").matches("aaa"))
    }

    @Test("counts past the ceiling are refused by size, or by order compared exactly")
    func hugeCounts() throws {
        for pattern in ["a{4294967297}", "a{2147483648,}", "a{0,4294967296}", "a{100000}"] {
            #expect {
                _ = try ECMARegex(pattern)
            } throws: { error in
                (error as? ECMARegexError)?.message.contains("more than \(RegexProgram.maxInstructions) instructions") ?? false
            }
        }
        // Both saturate, yet 10^20 > 10^12: out of order, as ECMAScript says, with the digits as written.
        #expect(throws: ECMARegexError("numbers out of order in {100000000000000000000,1000000000000} quantifier", offset: 4)) {
            _ = try ECMARegex("(?:){100000000000000000000,1000000000000}")
        }
        #expect(throws: ECMARegexError("numbers out of order in {4294967297,4294967296} quantifier", offset: 4)) {
            _ = try ECMARegex("(?:){4294967297,4294967296}")
        }
        #expect(try ECMARegex("a(?:){0004294967296,4294967296}b").exec("ab") == ["ab"])
    }

    @Test("a table's length is summed without overflow, whatever its u32 header says")
    func tableLength() {
        let most = Int(UInt32.max)
        let expected = SortedKeyTable.expectedLength(count: most, keysLength: most, writtenCount: most, writtenLength: most)
        #expect(expected == 20 + (UInt64(most) + 1) * 4 + UInt64(most) * 4 + UInt64(most) + UInt64(most) * 12 + UInt64(most))
    }

    @Test("a stored u32 beyond Int reads as Int.max, which every table bound refuses")
    func saturatingRead() {
        #expect(SortedKeyTable.saturatingInt(0x8000_0000) == 0x8000_0000)
        #expect(SortedKeyTable.saturatingInt(.max) == Int(UInt32.max))
        #expect(SortedKeyTable.saturatingInt(7) == 7)
    }

    @Test("a key offset of 2^31 is refused with the native message")
    func tamperedKeyOffset() throws {
        var builder = SortedKeyTableBuilder()
        for (index, key) in ["a", "b", "c"].enumerated() { builder.add(Array(key.utf8), configIndex: index, written: nil) }
        var bytes = builder.encode()
        for (index, byte) in [UInt8(0), 0, 0, 0x80].enumerated() { bytes[SortedKeyTable.headerLength + index] = byte }
        let image = PolicyImageBytes(copying: bytes)
        #expect(throws: PolicyImageError("table key offsets do not span the key bytes", at: SortedKeyTable.headerLength)) {
            _ = try SortedKeyTable(image: image, window: ImageReader(image.buffer))
        }
    }
}
